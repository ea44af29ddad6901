"""``python -m bench.call_overhead [--calls N] [--rounds N]``: what one small realize costs, ours against Halide 21.

Small pipelines are realized in a loop in one process (compiled once, before timing), so the time per call is
almost all call overhead: argument marshalling, output allocation, the Buffer returned. The Callable cases call
a ``compile_to_callable`` (an ImageParam, a Param and the output Buffer given) on 1x1 and 256x256 outputs.
Printed in us per call, best of ``--rounds`` rounds of ``--calls`` calls (the machine may be shared: the best
round is the least disturbed one).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _cases(hl):
    """(name, realize-callable) for one module: halide_mlir or halide, same programs."""
    x, y = hl.Var("x"), hl.Var("y")

    one = hl.Func("i32_1x1")
    one[x, y] = x + y

    f = hl.Func("u8_64")
    f[x, y] = hl.cast(hl.UInt(8), x + y)

    inp = hl.Buffer(np.arange(100 * 100, dtype=np.float32).reshape(100, 100))
    scale = hl.Param(hl.Float(32), "scale", 2.0)
    g = hl.Func("f32_100")
    g[x, y] = inp[x, y] * scale + 1.0

    out = hl.Buffer(hl.Float(32), [100, 100])
    h = hl.Func("f32_100_into")
    h[x, y] = inp[x, y] * scale

    return [
        ("i32 1x1, no inputs", lambda: one.realize([1, 1])),
        ("u8 64x64, no inputs", lambda: f.realize([64, 64])),
        ("f32 100x100, input + Param", lambda: g.realize([100, 100])),
        ("f32 100x100 into a Buffer", lambda: h.realize(out)),
    ]


def _callable_cases(hl):
    """(name, call) for compile_to_callable / hl.Callable: an ImageParam and a Param in, an output Buffer given."""
    x, y = hl.Var("x"), hl.Var("y")
    img = hl.ImageParam(hl.Float(32), 2, "img")
    scale = hl.Param(hl.Float(32), "scale", 2.0)
    cases = []
    for n in (1, 256):
        f = hl.Func(f"callable_{n}")
        f[x, y] = img[x, y] * scale + 1.0
        c = f.compile_to_callable([img, scale])
        inp = hl.Buffer(np.ones((n, n), np.float32))
        out = hl.Buffer(hl.Float(32), [n, n])
        cases.append((f"Callable f32 {n}x{n}", lambda c=c, inp=inp, out=out: c(inp, 3.0, out)))
    return cases


def _per_call_us(fn, calls: int, rounds: int) -> float:
    fn()  # compile (or load) first
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t) / calls)
    return best * 1e6


def measure(calls: int = 2000, rounds: int = 7) -> list[tuple[str, float, float]]:
    import halide
    import halide_mlir

    ours = _cases(halide_mlir) + _callable_cases(halide_mlir)
    theirs = _cases(halide) + _callable_cases(halide)
    return [
        (name, _per_call_us(a, calls, rounds), _per_call_us(b, calls, rounds))
        for (name, a), (_, b) in zip(ours, theirs)
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    print(f"{'case':32} {'halide_mlir us':>15} {'Halide 21 us':>13} {'ratio':>6}")
    for name, ours, theirs in measure(args.calls, args.rounds):
        print(f"{name:32} {ours:15.2f} {theirs:13.2f} {ours / theirs:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
