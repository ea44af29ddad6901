# Every way the transform script vectorizes an update that reads at sums of loop dims (input[x + r.y]: fold the
# unit dims, then vectorize; see conv_vectorized.py) must compute Halide's numbers (MLIR 22 miscompiles in this
# area: docs/mlir-pitfalls.md#fold-unit-dims-via-slices). Each case runs the same algorithm and schedule under
# halide_mlir and real Halide 21 and compares (rtol 1e-4); sizes are chosen so tiles, vectors and unrolls do not
# divide them.
#
# RUN: %python %s | FileCheck %s
# CHECK-NOT: MISMATCH
# CHECK: conv_chh ok
# CHECK: conv_root ok
# CHECK: conv_interleaved ok
# CHECK: conv_masked ok
# CHECK: conv_chh_vec8 ok
# CHECK: stencil_1d ok
# CHECK: box_2d ok
# CHECK: all ok

import numpy as np

import halide
import halide_mlir


def conv(hl, inp, filt, bias, variant):
    CI = inp.shape[-1]
    input_, filter_, bias_ = hl.Buffer(inp, "input"), hl.Buffer(filt, "filter"), hl.Buffer(bias, "bias")
    x, y, c, n = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("n")
    co, ci, xo, xi = hl.Var("co"), hl.Var("ci"), hl.Var("xo"), hl.Var("xi")
    conv, relu = hl.Func("conv"), hl.Func("relu")
    r = hl.RDom([(0, CI), (0, 3), (0, 3)])
    conv[c, x, y, n] = bias_[c]
    conv[c, x, y, n] += filter_[c, r.y, r.z, r.x] * input_[r.x, x + r.y, y + r.z, n]
    relu[c, x, y, n] = hl.max(0, conv[c, x, y, n])
    if variant in ("conv_chh", "conv_chh_vec8"):  # the conv_layer app's AVX-512 schedule
        v = 16 if variant == "conv_chh" else 8
        relu.split(c, co, ci, 4 * v).split(x, xo, xi, 5).reorder(ci, xi, xo, y, n, co) \
            .vectorize(ci, v).unroll(ci).unroll(xi).parallel(y).parallel(n).parallel(co)
        conv.compute_at(relu, xo).vectorize(c, v).unroll(c).unroll(x).unroll(y) \
            .update().reorder(c, x, y, r.x, r.y, r.z, n).vectorize(c, v).unroll(c).unroll(x).unroll(y) \
            .unroll(r.x, 2)
    elif variant == "conv_root":
        conv.compute_root().update().reorder(c, x, y, r.x, r.y, r.z, n).vectorize(c, 16)
        relu.vectorize(c, 16)
    elif variant == "conv_interleaved":
        conv.compute_root().update().reorder(c, r.x, x, r.y, y, r.z, n).vectorize(c, 8).parallel(n)
    elif variant == "conv_masked":  # 24 channels: the second vector of 16 is partial (masked)
        conv.compute_root().update().reorder(c, x, r.y, r.z, r.x, y, n) \
            .vectorize(c, 16, hl.TailStrategy.GuardWithIf).unroll(x, 2)
    return relu


def stencil_1d(hl, a):
    inp = hl.Buffer(a, "input")
    x = hl.Var("x")
    r = hl.RDom([(0, 5)])
    f = hl.Func("f")
    f[x] = 0.5
    f[x] += inp[x + r] * hl.f32(0.25) + hl.cast(hl.Float(32), r)
    f.update().reorder(x, r).vectorize(x, 16, hl.TailStrategy.GuardWithIf)
    return f


def box_2d(hl, a):
    inp = hl.Buffer(a, "input")
    x, y = hl.Var("x"), hl.Var("y")
    r = hl.RDom([(0, 3), (0, 4)])
    f = hl.Func("f")
    f[x, y] = 0.0
    f[x, y] += inp[x + r.x, y + r.y]
    f.update().reorder(x, r.x, r.y, y).vectorize(x, 8, hl.TailStrategy.GuardWithIf).unroll(r.x)
    return f


def check(name, build, sizes):
    ours = np.asarray(build(halide_mlir).realize(sizes))
    ref = np.asarray(build(halide).realize(sizes))
    bad = int((np.abs(ours - ref) > 1e-4 * np.maximum(np.abs(ref), 1)).sum())
    print(f"{name} {'ok' if bad == 0 and ours.shape == ref.shape else f'MISMATCH {bad} of {ref.size}'}")
    return bad == 0


rng = np.random.default_rng(1)
ok = True
for variant, (N, CI, CO, W, H) in [("conv_chh", (2, 12, 80, 13, 3)), ("conv_root", (1, 8, 32, 7, 3)),
                                    ("conv_interleaved", (2, 5, 16, 6, 4)), ("conv_masked", (1, 6, 24, 10, 2)),
                                    ("conv_chh_vec8", (1, 4, 40, 11, 2))]:
    inp = rng.standard_normal((N, H + 2, W + 2, CI), dtype=np.float32)
    filt = rng.standard_normal((CI, 3, 3, CO), dtype=np.float32)
    bias = rng.standard_normal(CO, dtype=np.float32)
    ok &= check(variant, lambda hl: conv(hl, inp, filt, bias, variant), [CO, W, H, N])
a1 = rng.standard_normal(45, dtype=np.float32)
ok &= check("stencil_1d", lambda hl: stencil_1d(hl, a1), [41])
a2 = rng.standard_normal((13, 21), dtype=np.float32)
ok &= check("box_2d", lambda hl: box_2d(hl, a2), [19, 10])
print("all ok" if ok else "MISMATCH somewhere")
