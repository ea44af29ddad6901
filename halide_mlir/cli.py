"""``halide-mlir STAGE FILE.py [--func NAME] [--sizes W,H,...]``: print one compilation stage of an example.

Convention: the example file defines a module-level function ``pipeline()`` returning ``(output_func, sizes)``.
The file is executed with ``__name__ == "halide_mlir_cli"``, so its ``if __name__ == "__main__":`` block (the
realize, the checks, the benchmarks) does not run; then ``pipeline()`` is called and the requested stage of
``output_func`` at ``sizes`` is printed.

``--func NAME`` picks another Func of the pipeline by name (any Func reachable from the output, or a module-level
Func); ``--sizes`` overrides the sizes (comma-separated, Halide's order: x first).
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys

from .driver import STEPS

STAGES = {s.name: s.description for s in STEPS}

RUN_NAME = "halide_mlir_cli"


class _UsageError(Exception):
    pass


def _parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.replace("x", ",").split(",") if s.strip()]
    except ValueError:
        raise _UsageError(f"--sizes expects comma-separated integers like 640,480, got '{text}'") from None
    if not sizes or any(s <= 0 for s in sizes):
        raise _UsageError(f"--sizes expects positive integers, got '{text}'")
    return sizes


def _find_func(name: str, output, namespace: dict):
    """A Func called ``name``: the output, any Func it (transitively) calls, or a module-level Func."""
    from .lang.func import Func
    if output.name() == name:
        return output
    try:
        from .driver import front_end
        p = front_end(output)
        for stage in p.stages:
            if stage.func.name() == name:
                return stage.func
    except Exception:  # fall back to the module's globals
        pass
    for value in namespace.values():
        if isinstance(value, Func) and value.name() == name:
            return value
    raise _UsageError(f"no Func named '{name}' in the pipeline of '{output.name()}' or at module level")


def _load(path: str):
    if not os.path.isfile(path):
        raise _UsageError(f"{path}: no such file")
    # Let the example import its neighbours (e.g. a shared helper next to it).
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        namespace = runpy.run_path(path, run_name=RUN_NAME)
    finally:
        sys.path.pop(0)
    pipeline = namespace.get("pipeline")
    if not callable(pipeline):
        raise _UsageError(f"{path} has no pipeline() function. An example used with halide-mlir must define, at "
                          f"module level:\n\n    def pipeline():\n        ...\n        return output_func, "
                          f"[width, height]\n\nand keep its realize/benchmark code under "
                          f"'if __name__ == \"__main__\":'.")
    result = pipeline()
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise _UsageError(f"{path}: pipeline() must return (output_func, sizes), got {result!r}")
    return result[0], list(result[1]), namespace


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="halide-mlir",
        description="Print one compilation stage of a halide_mlir pipeline. FILE.py must define pipeline() "
                    "returning (output_func, sizes).",
        epilog="stages:\n" + "\n".join(f"  {k:<10} {v}" for k, v in STAGES.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("stage", choices=list(STAGES), metavar="STAGE", help="|".join(STAGES))
    parser.add_argument("file", metavar="FILE.py", help="Python file defining pipeline()")
    parser.add_argument("--func", metavar="NAME", help="print this Func of the pipeline instead of the output")
    parser.add_argument("--sizes", metavar="W,H,...", help="realize sizes (x first), overriding pipeline()'s")
    args = parser.parse_args(argv)

    from .error import HalideError
    from .driver import stages
    try:
        func, sizes, namespace = _load(args.file)
        if args.func:
            func = _find_func(args.func, func, namespace)
        if args.sizes:
            sizes = _parse_sizes(args.sizes)
        if len(sizes) != func.dimensions():
            raise _UsageError(f"Func '{func.name()}' has {func.dimensions()} dimensions but {len(sizes)} sizes "
                              f"were given ({','.join(map(str, sizes))}); pass --sizes with one per dimension")
        text = stages(func, sizes).text(args.stage)
    except _UsageError as e:
        print(f"halide-mlir: error: {e}", file=sys.stderr)
        return 2
    except HalideError as e:
        print(f"halide-mlir: {e}", file=sys.stderr)
        return 1
    try:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `halide-mlir payload x.py | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
