"""Gathers whose lanes read consecutive elements run as vector loads (codegen/contiguous_gathers.py): the values
must be Halide's, at sizes with masked tails, for LUT-chosen rows, scans' explicit loops and reads that stay
gathers (stride 2, data-dependent x)."""
import numpy as np
import pytest

import halide_mlir

halide = pytest.importorskip("halide")


def _both(build, sizes):
    ref = np.asarray(build(halide).realize(sizes))
    got = np.asarray(build(halide_mlir).realize(sizes))
    np.testing.assert_array_equal(got, ref)


DATA = np.random.default_rng(3).random((4, 40, 64), dtype=np.float32)


@pytest.mark.parametrize("w", [64, 61, 13])
def test_lut_chosen_row(w):
    def build(hl):
        x, y, t = hl.Var("x"), hl.Var("y"), hl.Var("t")
        inp = hl.Buffer(DATA, "inp")
        lut, f = hl.Func("lut"), hl.Func("f")
        lut[t] = t * t % 4
        sl = hl.clamp(lut[t], 0, 3)
        f[x, y, t] = hl.max(inp[x, y + 10 - t, sl], inp[x, y + 12 - t, sl])
        lut.compute_root()
        f.vectorize(x, 8)
        return f
    _both(build, [w, 19, 6])


@pytest.mark.parametrize("w", [60, 59])
def test_lut_row_in_reduction(w):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(DATA, "inp")
        lut, f = hl.Func("lut"), hl.Func("f")
        lut[x] = (x * 7) % 4
        r = hl.RDom([hl.Range(-2, 5)])
        f[x, y] = hl.maximum(inp[x + r.x + 2, y, hl.clamp(lut[r.x], 0, 3)])
        lut.compute_root()
        f.vectorize(x, 8)
        return f
    _both(build, [w, 17])


def test_scan_rows_vectorized():
    """max_filter's vert_log: a scan over rows (explicit loops) whose vectorized x lanes read a row chosen by
    the RVar."""
    def build(hl):
        x, y, t = hl.Var("x"), hl.Var("y"), hl.Var("t")
        inp = hl.Buffer(DATA[0], "inp")
        f, out = hl.Func("f"), hl.Func("out")
        f[x, y, t] = inp[x, hl.clamp(y, 0, 39)]
        r = hl.RDom([hl.Range(0, 30), hl.Range(1, 3)])
        f[x, r.x, r.y] = hl.max(f[x, r.x, r.y - 1], f[x, r.x + hl.clamp(1 << (r.y - 1), 0, 8), r.y - 1])
        out[x, y, t] = f[x, y, t]
        f.compute_root().vectorize(x, 8)
        f.update().reorder(x, r.x, r.y).vectorize(x, 8)
        out.vectorize(x, 8)
        return out
    _both(build, [61, 30, 4])


@pytest.mark.parametrize("w", [32, 29])
def test_gathers_that_stay_gathers(w):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(DATA[1], "inp")
        lut, f = hl.Func("lut"), hl.Func("f")
        lut[x] = x % 3
        f[x, y] = inp[hl.clamp(2 * x + lut[y], 0, 63), y] + inp[hl.clamp(x * x % 64, 0, 63), hl.clamp(lut[x], 0, 2)]
        lut.compute_root()
        f.vectorize(x, 8)
        return f
    _both(build, [w, 11])
