"""Loading an example file: the convention shared by ``halide-mlir STAGE FILE.py`` and
``python -m halide_mlir.autotune FILE.py``.

The file defines a module-level function ``pipeline()`` returning ``(output_func, sizes)``. It is executed with
``__name__ == RUN_NAME``, so its ``if __name__ == "__main__":`` block (the realize, the checks, the benchmarks)
does not run. Mistakes in the command line or the file raise ``UsageError`` (the commands exit with status 2).
"""

from __future__ import annotations

import os
import runpy
import sys

RUN_NAME = "halide_mlir_cli"


class UsageError(Exception):
    """A bad command line or example file (not a Halide error: nothing was compiled)."""


def parse_sizes(text: str) -> list[int]:
    """``640,480`` (or ``640x480``) -> [640, 480]."""
    try:
        sizes = [int(s) for s in text.replace("x", ",").split(",") if s.strip()]
    except ValueError:
        raise UsageError(f"--sizes expects comma-separated integers like 640,480, got '{text}'") from None
    if not sizes or any(s <= 0 for s in sizes):
        raise UsageError(f"--sizes expects positive integers, got '{text}'")
    return sizes


def load_example(path: str):
    """Run the file and call its ``pipeline()``: (output Func, sizes, the module's namespace)."""
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    # Let the example import its neighbours (e.g. a shared helper next to it).
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        namespace = runpy.run_path(path, run_name=RUN_NAME)
    finally:
        sys.path.pop(0)
    pipeline = namespace.get("pipeline")
    if not callable(pipeline):
        raise UsageError(
            f"{path} has no pipeline() function. An example used with halide-mlir must define, at "
            f"module level:\n\n    def pipeline():\n        ...\n        return output_func, "
            f"[width, height]\n\nand keep its realize/benchmark code under "
            f"'if __name__ == \"__main__\":'."
        )
    result = pipeline()
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise UsageError(f"{path}: pipeline() must return (output_func, sizes), got {result!r}")
    return result[0], list(result[1]), namespace


def find_func(name: str, output, namespace: dict):
    """A Func called ``name``: the output, any Func it (transitively) calls, or a module-level Func."""
    from ..lang.func import Func

    if output.name() == name:
        return output
    try:
        from ..driver import front_end  # (the driver imports the compiler: only when a Func is looked up)

        p = front_end(output)
        for stage in p.stages:
            if stage.func.name() == name:
                return stage.func
    except Exception:  # fall back to the module's globals
        pass
    for value in namespace.values():
        if isinstance(value, Func) and value.name() == name:
            return value
    raise UsageError(f"no Func named '{name}' in the pipeline of '{output.name()}' or at module level")
