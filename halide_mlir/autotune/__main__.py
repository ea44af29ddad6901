"""``python -m halide_mlir.autotune FILE.py --budget 60``: autotune the pipeline of an example.

FILE.py defines ``pipeline()`` returning ``(output_func, sizes)`` (the convention of examples/*.py and the
``halide-mlir`` command); its ``if __name__ == "__main__":`` block does not run. Progress goes to stderr; the best
schedule (Python to paste) and its times go to stdout.
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m halide_mlir.autotune", description=__doc__.split("\n\n")[0])
    p.add_argument("file", metavar="FILE.py", help="Python file defining pipeline() -> (func, sizes)")
    p.add_argument("--budget", type=float, default=60.0, help="search seconds (default 60)")
    p.add_argument("--sizes", metavar="W,H,...", help="realize sizes, overriding pipeline()'s")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--cache-dir", default=None, help="measurement cache (default ~/.cache/halide_mlir/autotune)")
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--transform", action="store_true", help="also print the best schedule's transform script")
    args = p.parse_args(argv)

    from ..error import HalideError
    from ..tools.examples import UsageError, load_example, parse_sizes
    from .search import autotune

    try:
        func, sizes, _ = load_example(args.file)
        if args.sizes:
            sizes = parse_sizes(args.sizes)
        r = autotune(
            func,
            sizes,
            budget_s=args.budget,
            seed=args.seed,
            cache_dir=False if args.no_cache else args.cache_dir,
            progress=not args.quiet,
        )
    except UsageError as e:
        print(f"halide_mlir.autotune: error: {e}", file=sys.stderr)
        return 2
    except HalideError as e:
        print(f"halide_mlir.autotune: {e}", file=sys.stderr)
        return 1
    ms = lambda t: "-" if t is None else f"{t * 1e3:.3f} ms"  # noqa: E731
    print(
        f"# {func.name()} {'x'.join(map(str, sizes))}: searched {r.search_s:.0f} s, "
        f"{len(r.evaluations)} schedules tried ({r.counts})"
    )
    print(
        f"# best {ms(r.best_time)}; the file's own schedule {ms(r.baseline_time)}"
        + (f" ({r.speedup:.2f}x faster)" if r.speedup else "")
    )
    for status, msgs in r.errors.items():
        print(f"# rejected ({status}), e.g.: {msgs[0]}")
    print(r.schedule_code, end="")
    if args.transform:
        print(r.transform_script)
    return 0 if r.best_time is not None else 1


if __name__ == "__main__":
    sys.exit(main())
