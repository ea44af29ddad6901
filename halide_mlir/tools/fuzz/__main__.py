"""``python -m halide_mlir.tools.fuzz --examples 2000 --seed 1``: run a fuzzing campaign (see the package)."""

from __future__ import annotations

import argparse
import sys

from . import __doc__ as DOC
from .campaign import _hypothesis_settings, run
from .check import reference_worker, worker
from .program import programs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m halide_mlir.tools.fuzz", description=DOC.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shrink", type=int, default=3, help="shrink this many distinct failures (default 3)")
    ap.add_argument("--out", default=None, help="write every failing example (and minimized ones) here")
    ap.add_argument("--verbose", action="store_true", help="print the full source of every failure")
    ap.add_argument(
        "--shrink-internal",
        action="store_true",
        help="also shrink InternalErrors (MLIR rejected what we generated; counted as unsupported)",
    )
    ap.add_argument("--show", type=int, default=None, help="print the program drawn as example N and exit")
    args = ap.parse_args(argv)
    if args.show is not None:
        from hypothesis import Phase, given, seed as hseed

        seen = []

        @hseed(args.seed)
        @_hypothesis_settings(args.show, [Phase.generate])
        @given(programs())
        def show(prog):
            seen.append(prog.source())

        show()
        print(seen[-1])
        return 0
    reference_worker(quiet=True)  # real Halide's warnings would drown the progress lines
    r = run(args.examples, args.seed, args.shrink, args.out, args.verbose, shrink_internal=args.shrink_internal)
    worker().close()
    reference_worker().close()
    return 1 if (r["mismatches"] or r["crashes"] or r["errors"]) else 0


if __name__ == "__main__":
    sys.exit(main())
