"""``python -m bench.inline_reductions [--rounds N] [--threads N] [--only NAME,...]``: hl.sum/maximum, ours vs Halide.

``m[x, y] = hl.sum(inp[x + r.x, y + r.y])`` (and ``hl.maximum``) over a 3x3 RDom at 768x512, u8 -> u16 / i32 and
f32, with and without ``m.vectorize(x, 16)``, and a 2x2-strided pooling read ``inp[2*x + r.x, 2*y + r.y]``. Halide
computes the anonymous reduction Func inside its consumer's innermost loop; ours vectorizes its update along x
(analysis/vectorize.py). Both run on the same input with the same threads, interleaved, best of N; outputs are
checked equal (floats to rtol 1e-5: Halide may reorder nothing here, the tolerance is for safety).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

W, H = 768, 512


def _build(mod, kind, elem, dtype, vec, stride):
    x, y = mod.Var("x"), mod.Var("y")
    inp = mod.Buffer(_INPUTS[(dtype, stride)], name="input")
    r = mod.RDom([(0, 3), (0, 3)], "r")
    e = inp[stride * x + r.x, stride * y + r.y]
    if elem is not None:
        e = getattr(mod, elem)(e)
    m = mod.Func("m")
    m[x, y] = getattr(mod, kind)(e)
    if vec:
        m.vectorize(x, 16)
    return m


_INPUTS: dict = {}

CASES = [  # name, reduction, element cast, input dtype, vectorize(x, 16), stride
    (f"{kind}_{tag}{'_vec16' if vec else ''}", kind, elem, dtype, vec, 1)
    for kind in ("sum", "maximum")
    for tag, elem, dtype in (("u8_u16", "u16", np.uint8), ("u8_i32", "i32", np.uint8), ("f32", None, np.float32))
    for vec in (False, True)
] + [
    ("pool_sum_u8_u16_vec16", "sum", "u16", np.uint8, True, 2),
    ("pool_max_f32", "maximum", None, np.float32, False, 2),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.inline_reductions", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--only")
    args = ap.parse_args(argv)
    os.environ["HL_NUM_THREADS"] = args.threads  # read by both runtimes
    import halide
    import halide_mlir as hl
    from bench.study import interleaved

    rng = np.random.default_rng(0)
    for dtype in (np.uint8, np.float32):
        for stride in (1, 2):
            shape = (stride * H + 2, stride * W + 2)  # numpy is (rows, cols): x is the last axis
            a = rng.integers(0, 256, shape) if dtype == np.uint8 else rng.random(shape)
            _INPUTS[(dtype, stride)] = np.ascontiguousarray(a.astype(dtype))
    only = set(args.only.split(",")) if args.only else None
    print(f"threads {args.threads}, {W}x{H}, best of {args.rounds}")
    print(f"{'case':28s} {'ours ms':>9s} {'Halide ms':>10s} {'ratio':>7s}")
    for name, kind, elem, dtype, vec, stride in CASES:
        if only and name not in only:
            continue
        theirs = _build(halide, kind, elem, dtype, vec, stride)
        theirs.compile_jit()
        ref = np.asarray(theirs.realize([W, H]))
        ours = _build(hl, kind, elem, dtype, vec, stride)
        got = ours.realize([W, H])
        ok = np.allclose(np.asarray(got), ref, rtol=1e-5) and np.asarray(got).dtype == ref.dtype
        out_t = theirs.realize([W, H])
        ms = interleaved(
            {"ours": lambda: ours.realize(got), "halide": lambda: theirs.realize(out_t)}, args.rounds, 0.02
        )
        print(
            f"{name:28s} {ms['ours']:9.3f} {ms['halide']:10.3f} {ms['ours'] / ms['halide']:6.2f}x"
            f"{'' if ok else '  MISMATCH'}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
