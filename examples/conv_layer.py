"""Halide's conv_layer app (apps/conv_layer) at the sizes of MLIR's transform tutorial, Chapter H.

    python examples/conv_layer.py [--repeats R] [--rounds K]

A 3×3 convolution layer with bias and ReLU, channels innermost (Halide's dimension 0 is the channel):

    conv[c, x, y, n]  = bias[c]
    conv[c, x, y, n] += filter[c, r.y, r.z, r.x] * input[r.x, x + r.y, y + r.z, n]    r over CI × 3 × 3
    relu[c, x, y, n]  = max(0, conv[c, x, y, n])

N=5 images, CI=CO=128 channels, W=100 × H=80 outputs (the input is 102 × 82). The schedule is the app's CPU
schedule for AVX-512 (the one Chapter H reproduces), written in our API: relu in tiles of 64 channels × 5
columns (4 vectors of 16 × 5 = 20 accumulators), vectorized over c and unrolled; conv computed at relu's
column tile, its update with the reduction loops outside the tile (``reorder(c, x, y, r.x, r.y, r.z, n)``),
vectorized over c, the tile unrolled and r.x unrolled by 2. Not reproduced: the app's ``filter.in()`` /
``input.in()`` staging copies (``Func.in_`` is not in our API); the Halide side runs the same schedule
without them, so both sides run the same algorithm and schedule.

Everything runs on ONE thread (``HL_NUM_THREADS=1`` unless set otherwise, before anything is compiled), as in
Chapter H's measurement. The result is compared with numpy (the formulas above as 9 matrix products in float64)
and with real Halide 21 (relative tolerance 1e-4), both are timed (best and median of R runs, K interleaved
rounds), and GFLOP/s (2·N·CO·W·H·CI·9 flops) are printed next to the single-core f32 FMA peak measured on this
machine (bench/machine.py, with Halide). Without the ``halide`` package (it comes with the test extra) only
halide_mlir is checked (against numpy) and timed, with no peak.

``pipeline()`` is the entry point of the ``halide-mlir`` command, e.g.
``halide-mlir transform examples/conv_layer.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

import halide_mlir

N, CI, CO, W, H = 5, 128, 128, 100, 80
VEC = 16  # f32 lanes of one AVX-512 register
TILE_W, TILE_H = 4, 5  # the app's AVX-512 tile: 4 vectors of channels × 5 columns = 20 accumulators
FLOPS = 2 * N * CO * W * H * CI * 9


def data(seed: int = 0):
    """input (N, H+2, W+2, CI), filter (CI, 3, 3, CO), bias (CO,) as numpy float32 (Halide dims reversed)."""
    rng = np.random.default_rng(seed)
    inp = rng.standard_normal((N, H + 2, W + 2, CI), dtype=np.float32)
    filt = (rng.standard_normal((CI, 3, 3, CO), dtype=np.float32) / np.float32(np.sqrt(9 * CI))).astype(np.float32)
    bias = rng.standard_normal(CO, dtype=np.float32)
    return inp, filt, bias


def conv_layer(hl, inp: np.ndarray, filt: np.ndarray, bias: np.ndarray, schedule: bool = True):
    """The pipeline for module ``hl`` (halide_mlir or halide); returns (relu, sizes)."""
    input_, filter_, bias_ = hl.Buffer(inp, "input"), hl.Buffer(filt, "filter"), hl.Buffer(bias, "bias")
    x, y, c, n = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("n")
    conv, relu = hl.Func("conv"), hl.Func("relu")
    r = hl.RDom([(0, CI), (0, 3), (0, 3)])
    conv[c, x, y, n] = bias_[c]
    conv[c, x, y, n] += filter_[c, r.y, r.z, r.x] * input_[r.x, x + r.y, y + r.z, n]
    relu[c, x, y, n] = hl.max(0, conv[c, x, y, n])

    if schedule:
        co, ci, xo, xi = hl.Var("co"), hl.Var("ci"), hl.Var("xo"), hl.Var("xi")
        relu.split(c, co, ci, VEC * TILE_W).split(x, xo, xi, TILE_H).reorder(ci, xi, xo, y, n, co).vectorize(
            ci, VEC
        ).unroll(ci).unroll(xi).parallel(y).parallel(n).parallel(co)
        conv.compute_at(relu, xo).vectorize(c, VEC).unroll(c).unroll(x).unroll(y).update().reorder(
            c, x, y, r.x, r.y, r.z, n
        ).vectorize(c, VEC).unroll(c).unroll(x).unroll(y).unroll(r.x, 2)
    return relu, [CO, W, H, N]


def conv_layer_numpy(inp: np.ndarray, filt: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """relu in numpy's (N, H, W, CO) order: bias + the sum over the 3x3 taps of input rows @ filter[:, dy, dx]."""
    n, h, w = inp.shape[0], inp.shape[1] - 2, inp.shape[2] - 2
    conv = np.broadcast_to(bias.astype(np.float64), (n, h, w, filt.shape[3])).copy()
    for dy in range(3):
        for dx in range(3):
            conv += inp[:, dy : dy + h, dx : dx + w, :].astype(np.float64) @ filt[:, dy, dx, :].astype(np.float64)
    return np.maximum(conv, 0)


def check(a: np.ndarray, b: np.ndarray, name: str) -> int:
    """How many values of ``a`` differ from ``b`` by more than a relative 1e-4 (printed)."""
    err = np.abs(a - b)
    tol = 1e-4 * np.maximum(np.abs(b), 1.0)
    bad = int((err > tol).sum())
    print(
        f"  max |halide_mlir - {name}| = {err.max():.2e} (max |value| {np.abs(b).max():.1f}); "
        f"{bad} of {b.size} values outside rtol 1e-4; {(b == 0).mean() * 100:.0f}% clamped by the ReLU"
    )
    return bad


def pipeline():
    """For the halide-mlir command."""
    return conv_layer(halide_mlir, *data())


def time_runs(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=10, help="timed runs per round (default 10)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of both (default 3)")
    ap.add_argument("--no-peak", action="store_true", help="skip measuring the FMA peak")
    args = ap.parse_args(argv[1:])

    # one thread unless told otherwise, set before our compiler or Halide's thread pool reads it
    os.environ.setdefault("HL_NUM_THREADS", "1")
    try:
        import halide
    except ImportError:
        halide = None
    threads = int(os.environ["HL_NUM_THREADS"])
    print(
        f"conv_layer: N={N} CI={CI} CO={CO} W={W} H={H} 3x3, bias, ReLU; {FLOPS / 1e9:.2f} GFLOP per run; "
        f"HL_NUM_THREADS={threads}"
    )
    peak = None
    if not args.no_peak and halide is not None:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
        from bench.machine import cpu_model, fma_peak_gflops

        # measured with Halide before any MLIR engine exists in the process; best of three measurements
        peak = max(fma_peak_gflops(halide, threads) for _ in range(3))
        print(f"  machine: {cpu_model()}; measured f32 FMA peak on {threads} thread(s): {peak:.1f} GFLOP/s")

    inp, filt, bias = data()
    f, sizes = conv_layer(halide_mlir, inp, filt, bias)
    t = time.perf_counter()
    ours = halide_mlir.Buffer(halide_mlir.Float(32), sizes, "relu")
    f.realize(ours)
    print(f"  halide_mlir: first realize incl. compilation {time.perf_counter() - t:.2f} s")
    if check(np.asarray(ours), conv_layer_numpy(inp, filt, bias), "numpy"):
        print("  MISMATCH", file=sys.stderr)
        return 1
    runs = {"halide_mlir": []}
    if halide is None:
        print("  (the halide package is not installed: no comparison with Halide 21)")
        hf = None
    else:
        hf, theirs = compile_halide(halide, inp, filt, bias, sizes)
        if check(np.asarray(ours), np.asarray(theirs), "Halide 21"):
            print("  MISMATCH", file=sys.stderr)
            return 1
        runs["Halide 21"] = []

    for _ in range(args.rounds):  # interleaved, so both see the same machine load
        runs["halide_mlir"] += time_runs(lambda: f.realize(ours), args.repeats)
        if hf is not None:
            runs["Halide 21"] += time_runs(lambda: hf.realize(theirs), args.repeats)
    print(f"  {args.rounds} rounds x {args.repeats} runs, single thread:")
    for k, ts in runs.items():
        best, med = min(ts), statistics.median(ts)
        line = f"    {k:<12} best {best * 1e3:7.2f} ms  {FLOPS / best / 1e9:6.1f} GFLOP/s"
        if peak:
            line += f" ({FLOPS / best / 1e9 / peak * 100:4.1f}% of peak)"
        line += f"   median {med * 1e3:7.2f} ms  {FLOPS / med / 1e9:6.1f} GFLOP/s"
        if peak:
            line += f" ({FLOPS / med / 1e9 / peak * 100:4.1f}%)"
        print(line)
    return 0


def compile_halide(halide, inp, filt, bias, sizes):
    hf, _ = conv_layer(halide, inp, filt, bias)
    t = time.perf_counter()
    hf.compile_jit()
    theirs = halide.Buffer(halide.Float(32), sizes, "relu")
    hf.realize(theirs)
    print(f"  Halide 21:   first realize incl. compilation {time.perf_counter() - t:.2f} s")
    return hf, theirs


if __name__ == "__main__":
    sys.exit(main(sys.argv))
