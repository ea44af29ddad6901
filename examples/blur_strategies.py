"""The five blur schedules of the Halide paper, timed under Halide 21 and halide_mlir side by side.

    python examples/blur_strategies.py [--rounds N] [--size COLSxROWS] [--threads N]

A 3x3 box blur of a float32 image (2048 rows x 3072 columns by default; the output is 2 pixels smaller in each
dimension, no boundary condition)::

    bx[x, y] = (in[x, y] + in[x + 1, y] + in[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3

scheduled five ways (Ragan-Kelley et al., PLDI 2013, figure 2), each vectorized 16 wide (one AVX-512 register of
f32) and parallel where the strategy allows it:

    breadth-first            bx.compute_root()
    full fusion              bx inlined
    sliding window           bx.store_root().compute_at(by, y)                  (serial: the window is sequential)
    tiled fusion             by.tile(x, y, xo, yo, xi, yi, 256, 32); bx.compute_at(by, xo)
    sliding window in tiles  by.split(y, yo, yi, 8); bx.store_at(by, yo).compute_at(by, yi)

The same ``schedule(hl, ...)`` function builds the pipeline for ``halide`` (the real Halide 21) and for
``halide_mlir``, so both run the same algorithm and schedule.  Halide's pipeline is JIT-compiled before ours is
created (see the note on ordering below).  Timing: after a warm-up, rounds alternate Halide, ours, Halide, ours,
... into preallocated output buffers; the best of N rounds is reported.  Before timing, each output is checked
against numpy (the two formulas above) and ours against Halide's.  Without the ``halide`` package (it comes with
the test extra) only halide_mlir is checked and timed.  A strategy halide_mlir cannot compile prints
"unsupported: <reason>".

Ordering note: JIT-compiling with Halide after an MLIR ExecutionEngine exists in the same process was once seen to
end in a double free; compiling every Halide pipeline first avoids the question (``--interleave-compile`` does the
opposite, to check whether the crash still happens).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import halide_mlir

try:
    import halide
except ImportError:  # pragma: no cover - the oracle is a test dependency
    halide = None

ROWS, COLS = 2048, 3072


def synthetic_image(rows: int, cols: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float32)
    img = 0.5 + 0.25 * np.sin(xx / 37.0) * np.cos(yy / 23.0) + 0.2 * rng.random((rows, cols), dtype=np.float32)
    return img.astype(np.float32)


def algorithm(hl, inp):
    x, y = hl.Var("x"), hl.Var("y")
    bx, by = hl.Func("bx"), hl.Func("by")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    return bx, by, x, y


def breadth_first(hl, bx, by, x, y):
    bx.compute_root().vectorize(x, 16).parallel(y, 8)
    by.vectorize(x, 16).parallel(y, 8)


def full_fusion(hl, bx, by, x, y):
    by.vectorize(x, 16).parallel(y, 8)


def sliding_window(hl, bx, by, x, y):
    bx.store_root().compute_at(by, y).vectorize(x, 16)
    by.vectorize(x, 16)


def tiled_fusion(hl, bx, by, x, y):
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    by.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 16).parallel(yo)
    bx.compute_at(by, xo).vectorize(x, 16)


def sliding_in_tiles(hl, bx, by, x, y):
    yo, yi = hl.Var("yo"), hl.Var("yi")
    by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 16)
    bx.store_at(by, yo).compute_at(by, yi).vectorize(x, 16)


STRATEGIES = [
    ("breadth-first", breadth_first),
    ("full fusion", full_fusion),
    ("sliding window", sliding_window),
    ("tiled fusion", tiled_fusion),
    ("sliding in tiles", sliding_in_tiles),
]


def blur_numpy(a: np.ndarray) -> np.ndarray:
    bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / np.float32(3)
    return (bx[:-2] + bx[1:-1] + bx[2:]) / np.float32(3)


class Runner:
    """One strategy under one implementation: the Func, its output buffer, and a compile-and-check step."""

    def __init__(self, hl, image: np.ndarray, schedule):
        self.hl = hl
        self.inp = hl.Buffer(image, "input")  # keep it alive (Halide's Buffer does not own numpy memory)
        self.bx, self.by, x, y = algorithm(hl, self.inp)
        schedule(hl, self.bx, self.by, x, y)
        self.sizes = [image.shape[1] - 2, image.shape[0] - 2]
        self.out_array = np.zeros((self.sizes[1], self.sizes[0]), dtype=np.float32)
        self.out = hl.Buffer(self.out_array)

    def compile(self) -> None:
        if hasattr(self.by, "compile_jit") and self.hl is halide:
            self.by.compile_jit()
        self.run()  # ours compiles (and caches) on the first realize

    def run(self) -> None:
        self.by.realize(self.out)

    def result(self) -> np.ndarray:
        return np.asarray(self.out_array)


def first_line(e: BaseException) -> str:
    lines = [l for l in str(e).strip().splitlines() if l.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:110]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--size", default=f"{COLS}x{ROWS}", help="input COLSxROWS (default %(default)s)")
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads for both (sets HL_NUM_THREADS before anything runs; default: all cores)",
    )
    ap.add_argument(
        "--interleave-compile",
        action="store_true",
        help="create/compile ours before Halide's for each strategy (checks the double-free ordering)",
    )
    args = ap.parse_args(argv)
    if args.threads is not None:
        os.environ["HL_NUM_THREADS"] = str(args.threads)
    cols, rows = (int(v) for v in args.size.lower().split("x"))
    image = synthetic_image(rows, cols)
    expected = blur_numpy(image)
    print(
        f"3x3 blur, {rows}x{cols} (rows x cols) float32 input, output {rows - 2}x{cols - 2}; "
        f"best of {args.rounds} interleaved rounds; threads: {os.environ.get('HL_NUM_THREADS', 'all cores')}"
    )
    if halide is None:
        print("the real `halide` package is not installed: halide_mlir alone, checked against numpy")

    # Phase 1: every Halide pipeline JIT-compiled before any MLIR ExecutionEngine exists (unless asked otherwise).
    theirs, ours, status = {}, {}, {}
    for name, schedule in STRATEGIES:
        if args.interleave_compile:
            try:
                r = Runner(halide_mlir, image, schedule)
                r.compile()
                ours[name] = r
            except halide_mlir.HalideError as e:
                status[name] = "unsupported: " + first_line(e)
        if halide is not None:
            r = Runner(halide, image, schedule)
            r.compile()
            theirs[name] = r
    # Phase 2: ours.
    if not args.interleave_compile:
        for name, schedule in STRATEGIES:
            try:
                r = Runner(halide_mlir, image, schedule)
                t = time.perf_counter()
                r.compile()
                r.compile_s = time.perf_counter() - t
                ours[name] = r
            except halide_mlir.HalideError as e:
                status[name] = "unsupported: " + first_line(e)
            except Exception as e:  # a bug in halide_mlir: report it, keep going
                status[name] = "ERROR " + first_line(e)

    failures = 0
    for name, _ in STRATEGIES:
        h = theirs.get(name)
        herr = float(np.abs(h.result() - expected).max()) if h is not None else 0.0
        if herr > 1e-5:
            status[name] = f"Halide 21 differs from numpy by {herr:.1e}"
            failures += 1
        if name in ours:
            nerr = float(np.abs(ours[name].result() - expected).max())
            err = float(np.abs(ours[name].result() - h.result()).max()) if h is not None else 0.0
            if nerr > 1e-5 or err > 1e-5:
                status[name] = f"MISMATCH: max |ours - numpy| = {nerr:.1e}, max |ours - Halide 21| = {err:.1e}"
                failures += 1
                del ours[name]
            else:
                status.setdefault(
                    name, f"outputs agree (max diff {max(err, nerr):.1e}{'' if h is not None else ', numpy only'})"
                )

    # Timing: interleaved rounds, best of N.
    best = {(name, who): float("inf") for name, _ in STRATEGIES for who in ("halide", "ours")}
    for _ in range(args.rounds):
        for name, _s in STRATEGIES:
            for who, runner in (("halide", theirs.get(name)), ("ours", ours.get(name))):
                if runner is None:
                    continue
                t = time.perf_counter()
                runner.run()
                best[(name, who)] = min(best[(name, who)], time.perf_counter() - t)

    print()
    print(f"{'strategy':<18} {'Halide 21 ms':>12} {'ours ms':>9} {'ratio':>7}  note")
    print("-" * 90)
    for name, _ in STRATEGIES:
        th = best[(name, "halide")] * 1e3
        theirs_ms = f"{th:>12.2f}" if name in theirs else f"{'-':>12}"
        if name in ours:
            to = best[(name, "ours")] * 1e3
            ratio = f"{to / th:>6.2f}x" if name in theirs else f"{'-':>7}"
            print(f"{name:<18} {theirs_ms} {to:>9.2f} {ratio}  {status[name]}")
        else:
            print(f"{name:<18} {theirs_ms} {'-':>9} {'-':>7}  {status[name]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
