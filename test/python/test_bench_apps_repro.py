"""Minimal reproducers of the halide_mlir bugs that Halide's apps in bench/apps.py ran into (issue 20's broader
suite). Each builds the same program with Halide (the oracle) and halide_mlir and compares; each docstring
names the app and the failure, and the fix."""
import numpy as np
import pytest

import halide_mlir

halide = pytest.importorskip("halide")


def _both(build, sizes):
    ref = np.asarray(build(halide).realize(sizes))
    got = np.asarray(build(halide_mlir).realize(sizes))
    np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_inline_sum_of_producer_computed_at_tile():
    """nl_means: an inline reduction (``hl.sum``) of a Func computed at a tile's loop, its consumer computed at
    that loop too, was left at the root and the valid schedule refused ("Func 'd' is computed at out.tx, but it
    is used by Func 'sum'"); it is now computed at its consumer's level (analysis/placement.py)."""
    data = np.random.default_rng(0).random((40, 64), dtype=np.float32)

    def build(hl):
        x, y, tx, ty, xi, yi = (hl.Var(n) for n in "x y tx ty xi yi".split())
        inp = hl.Buffer(data, "inp")
        d, b, out = hl.Func("d"), hl.Func("b"), hl.Func("out")
        d[x, y] = inp[x, y] * 2
        r = hl.RDom([hl.Range(0, 3)])
        b[x, y] = hl.sum(d[x, y + r.x])
        out[x, y] = b[x, y] + 1
        out.tile(x, y, tx, ty, xi, yi, 16, 8)
        b.compute_at(out, tx)
        d.compute_at(out, tx)
        return out
    _both(build, [64, 32])


@pytest.mark.parametrize("w, h", [(32, 16), (29, 13)])
def test_compute_at_vector_loop_read_at_constant_channel(w, h):
    """nl_means: a producer with an update, computed at the consumer's vectorized x with c unrolled, read at c
    and at the constant c = 3, was fused once per read (two tiles, and the script's vectorize of the update
    failed: 'requires exactly one target handle'); its tile now spans the consumer's untiled c and the constant
    in one slice (analysis/tiling.py ``_union_spans``)."""
    data = np.random.default_rng(0).random((3, h, w), dtype=np.float32) + 1

    def build(hl):
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        inp = hl.Buffer(data, "inp")
        f, out = hl.Func("f"), hl.Func("out")
        f[x, y, c] = hl.select(c < 3, inp[x, y, hl.clamp(c, 0, 2)], hl.f32(1))
        r = hl.RDom([hl.Range(0, 2)])
        f[x, y, c] += f[x, y, c] * r.x
        out[x, y, c] = f[x, y, c] / f[x, y, 3]
        out.reorder(c, x, y).vectorize(x, 8)
        f.compute_at(out, x).reorder(c, x, y).bound(c, 0, 4).unroll(c).vectorize(x, 8)
        f.update().reorder(c, x, r.x).unroll(c).vectorize(x, 8)
        return out
    _both(build, [w, h, 3])


@pytest.mark.parametrize("w, h", [(32, 16), (27, 11)])
def test_vectorized_producer_read_through_lut_in_inline_maximum(w, h):
    """max_filter: a vectorized producer computed at the consumer's y, read at a data-dependent coordinate (a LUT
    of the RVar) inside hl.maximum, was cloned whole into the loop by fuse_into_containing_op and the script's
    vectorize failed ('Attempted to vectorize, but failed'); placement then computed it at the root (a
    ComputeAtWarning). Now the maximum is unrolled into the output (analysis/unrolled_reductions.py) and the
    output's payload loops compute the producer per row, its whole region along the LUT-chosen dim
    (analysis/tiling.py lut_reads), as Halide does: no warning."""
    data = np.random.default_rng(0).random((16, 64), dtype=np.float32)

    def build(hl):
        x, y, t = hl.Var("x"), hl.Var("y"), hl.Var("t")
        inp = hl.Buffer(data, "inp")
        lut, g, out = hl.Func("lut"), hl.Func("g"), hl.Func("out")
        lut[x] = x * x % 3
        g[x, y, t] = inp[hl.clamp(x, 0, 63), hl.clamp(y - t, 0, 15)]
        dx = hl.RDom([hl.Range(-2, 5)])
        out[x, y] = hl.maximum(g[x + dx.x, y, hl.clamp(lut[dx.x], 0, 2)])
        lut.compute_root()
        out.vectorize(x, 8)
        g.compute_at(out, y).vectorize(x, 8)
        return out
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", halide_mlir.ComputeAtWarning)
        _both(build, [w, h])
