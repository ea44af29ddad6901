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
import sys

from .driver import STEPS, stages
from .error import HalideError
from .tools.examples import UsageError, find_func, load_example, parse_sizes

STAGES = {s.name: s.description for s in STEPS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="halide-mlir",
        description="Print one compilation stage of a halide_mlir pipeline. FILE.py must define pipeline() "
        "returning (output_func, sizes).",
        epilog="stages:\n" + "\n".join(f"  {k:<10} {v}" for k, v in STAGES.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("stage", choices=list(STAGES), metavar="STAGE", help="|".join(STAGES))
    parser.add_argument("file", metavar="FILE.py", help="Python file defining pipeline()")
    parser.add_argument("--func", metavar="NAME", help="print this Func of the pipeline instead of the output")
    parser.add_argument("--sizes", metavar="W,H,...", help="realize sizes (x first), overriding pipeline()'s")
    args = parser.parse_args(argv)

    try:
        func, sizes, namespace = load_example(args.file)
        if args.func:
            func = find_func(args.func, func, namespace)
        if args.sizes:
            sizes = parse_sizes(args.sizes)
        if len(sizes) != func.dimensions():
            raise UsageError(
                f"Func '{func.name()}' has {func.dimensions()} dimensions but {len(sizes)} sizes "
                f"were given ({','.join(map(str, sizes))}); pass --sizes with one per dimension"
            )
        text = stages(func, sizes).text(args.stage)
    except UsageError as e:
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
