"""Scatters and scans vectorized or unrolled over a pure Var (codegen/vector_updates.py), against real Halide 21:
lesson 18's hist_rfactor_vec at odd sizes, a scan down the columns vectorized across them, a scatter with an
RDom.where and a split pure Var, a Tuple update, a fixed-row update, and unrolled scatter/scan loops. None of
them may warn SerialUpdateWarning: the schedule is applied. An RVar loop vectorized under atomic() still runs
serially, with the warning."""
import warnings

import numpy as np
import pytest

from oracle import run_both

IMG = np.random.default_rng(18).integers(0, 256, (23, 37)).astype(np.uint8)


def _no_serial_warning(fn):
    import halide_mlir
    with warnings.catch_warnings():
        warnings.simplefilter("error", halide_mlir.SerialUpdateWarning)
        return fn()


@pytest.mark.parametrize("shape, lanes", [((23, 37), 8), ((7, 8), 8), ((5, 3), 4), ((9, 50), 16)])
def test_hist_rfactor_vec(shape, lanes):        # lesson 18: one histogram per column, columns in vector lanes
    img = IMG[:shape[0], :shape[1]].copy()

    def build(hl):
        x, u = hl.Var("x"), hl.Var("u")
        inp = hl.Buffer(img, "input")
        hist = hl.Func("hist_rfactor_vec")
        hist[x] = 0
        r = hl.RDom([(0, img.shape[1]), (0, img.shape[0])])
        hist[hl.i32(inp[r.x, r.y]) // 32] += 1
        intm = hist.update().rfactor(r.x, u)
        intm.compute_root().update().vectorize(u, lanes)
        intm.vectorize(x, 8)
        hist.vectorize(x, 8)
        return hist
    _no_serial_warning(lambda: run_both(build, [8]))


@pytest.mark.parametrize("width", [16, 13])
def test_scan_vectorized_across_columns(width):  # c[x, r] = c[x, r - 1] + in[x, r]: x lanes, r serial inside
    img = IMG.astype(np.float32)   # wider than the output: Halide rounds the update's split up

    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(img, "input")
        c = hl.Func("colscan")
        c[x, y] = inp[x, y]
        r = hl.RDom([(1, img.shape[0] - 1)])
        c[x, r] = c[x, r - 1] * 0.5 + inp[x, r]
        xo, xi = hl.Var("xo"), hl.Var("xi")
        c.update().split(x, xo, xi, 8).reorder(xi, r, xo).vectorize(xi)
        return c
    _no_serial_warning(lambda: run_both(build, [width, img.shape[0]]))


def test_scatter_where_split_vectorized():      # a predicate and a guard: masked lanes, vector outside the RVar loop
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG, "input")
        h = hl.Func("h")
        h[x, y] = hl.u16(x + y)
        r = hl.RDom([(0, IMG.shape[0])])
        r.where(r.x % 3 != 1)
        h[x, hl.i32(inp[x, r.x]) % 5] = h[x, hl.i32(inp[x, r.x]) % 5] * 3 + hl.u16(inp[x, r.x])
        xo, xi = hl.Var("xo"), hl.Var("xi")
        h.update().split(x, xo, xi, 8).vectorize(xi)
        return h
    _no_serial_warning(lambda: run_both(build, [29, 5]))   # 29: a masked tail, within the input rounded up


def test_tuple_scatter_vectorized():            # both elements read before either is written
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG, "input")
        f = hl.Func("f")
        f[x, y] = (hl.i32(0), hl.f32(1))
        r = hl.RDom([(0, IMG.shape[0])])
        k = hl.i32(inp[x, r]) % 4
        f[x, k] = (f[x, k][0] + hl.i32(f[x, k][1]), f[x, k][1] * 1.5 + hl.f32(f[x, k][0]))
        f.update().vectorize(x, 8)
        return f
    _no_serial_warning(lambda: run_both(build, [29, 4]))


def test_fixed_row_vectorized():                # f[x, 0] = f[x, 8]: a row copy, x in lanes (bool storage too)
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = (x * y) % 3 == 0
        f[x, 0] = f[x, 8] | (x > 5)
        f.update(0).vectorize(x, 4)
        return f
    _no_serial_warning(lambda: run_both(build, [13, 10]))


@pytest.mark.parametrize("which", ["pure", "rvar"])
def test_unrolled_update_loops(which):          # unrolling keeps the order: any loop of a scatter/scan
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG, "input")
        h = hl.Func("h")
        h[x, y] = 0
        r = hl.RDom([(0, 8)])
        h[x, hl.i32(inp[x, r]) % 6] += r + 1
        if which == "pure":
            xo, xi = hl.Var("xo"), hl.Var("xi")
            h.update().split(x, xo, xi, 4).unroll(xi)
        else:
            h.update().unroll(r)
        return h
    _no_serial_warning(lambda: run_both(build, [IMG.shape[1] - 1, 6]))


def test_unrolled_loop_is_unrolled():
    import halide_mlir as hl
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = x
    r = hl.RDom([(1, 9)])
    f[r] = f[r - 1] + f[r]
    f.update().unroll(r)
    out = f.transform_script([10])
    assert "transform.loop.unroll" in out and 'hl.loop = "f.s1.r' in out
    assert list(np.asarray(f.realize([10]))) == list(np.cumsum(np.arange(10)))


def test_vectorized_rvar_under_atomic_still_warns():
    import halide_mlir as hl
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = 0
    r = hl.RDom([(0, 100)])
    f[(r.x * r.x) % 5] += 1
    f.update().atomic().vectorize(r.x, 8)
    with pytest.warns(hl.SerialUpdateWarning):
        out = np.asarray(f.realize([5]))
    assert list(out) == [20, 40, 0, 0, 40]
