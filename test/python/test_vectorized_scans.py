"""Scans vectorized and parallel over their pure Vars (analysis/scan_lanes.py, codegen/vector_updates.py), against
real Halide 21: a scan carries its dependence along the RVar only, so its pure Vars run in vector lanes and in
parallel, with the RVar loop inside or outside them. Halide's iir_blur schedule (two scans down the columns,
vectorized across them, inside a parallel consumer), a cumulative sum along y vectorized in x, a scan along x
with y parallel and vectorized, parallel and vectorized rows with a masked tail, a Tuple-valued scan, odd sizes
throughout. None may warn SerialUpdateWarning; the lanes' consecutive reads and the store are one vector load
and store (no gather)."""
import warnings

import numpy as np
import pytest

from oracle import run_both

RNG = np.random.default_rng(20)
H, W = 29, 37                                      # the outputs' odd sizes
IMG = RNG.random((3, H + 8, W + 16), dtype=np.float32)  # c, y, x: Halide rounds vector splits up, reading past


def _no_serial_warning(fn):
    import halide_mlir
    with warnings.catch_warnings():
        warnings.simplefilter("error", halide_mlir.SerialUpdateWarning)
        return fn()


def _blur_cols_transpose(hl, inp, height, x, y, c, name, vec):   # apps/iir_blur's blur_cols_transpose
    alpha = hl.f32(0.1)
    blur, transpose = hl.Func(f"blur_{name}"), hl.Func(f"transpose_{name}")
    blur[x, y, c] = inp[x, y, c]
    ry = hl.RDom([hl.Range(1, height - 1)])
    blur[x, ry.x, c] = (1 - alpha) * blur[x, ry.x - 1, c] + alpha * inp[x, ry.x, c]
    flip = height - ry.x - 1
    blur[x, flip, c] = (1 - alpha) * blur[x, flip + 1, c] + alpha * blur[x, flip, c]
    transpose[x, y, c] = blur[y, x, c]
    xo, yo, t, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("t"), hl.Var("yi")
    (transpose.compute_root().tile(x, y, xo, yo, x, y, vec, vec * 4).split(y, y, yi, vec).vectorize(yi)
     .unroll(x).fuse(yo, c, t).parallel(t))
    blur.compute_at(transpose, t)
    blur.update(0).reorder(x, ry.x).vectorize(x, vec)
    blur.update(1).reorder(x, ry.x).vectorize(x, vec)
    return transpose


@pytest.mark.parametrize("vec, shape", [(8, (3, 64, 32)), (16, (2, 64, 128))])
def test_iir_blur_schedule(vec, shape):         # (sizes the transpose's tiles divide: Halide's would read past)
    img = RNG.random(shape, dtype=np.float32)

    def build(hl):
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        inp = hl.Buffer(img, "input")
        cols = _blur_cols_transpose(hl, inp, shape[1], x, y, c, "cols", vec)
        return _blur_cols_transpose(hl, cols, shape[2], x, y, c, "rows", vec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # compute_at of a scan: computed at the root (same values)
        _no_serial_warning(lambda: run_both(build, [shape[2], shape[1], shape[0]], rtol=1e-4, atol=1e-5))


@pytest.mark.parametrize("width", [37, 16, 5])
def test_cumulative_sum_down_y_vectorized_in_x(width):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG[0], "input")
        s = hl.Func("cumsum")
        s[x, y] = inp[x, y]
        r = hl.RDom([(1, H - 1)])
        s[x, r] = s[x, r - 1] + inp[x, r]
        s.update().vectorize(x, 8)      # r outermost, x in lanes inside (Halide's default order: x, then r)
        return s
    _no_serial_warning(lambda: run_both(build, [width, H], rtol=1e-5, atol=1e-5))


@pytest.mark.parametrize("height", [29, 28, 11])   # 28: each parallel iteration updates its 4 rows in place
def test_scan_along_x_y_parallel_and_vectorized(height):   # RVar innermost; lanes over y are a gather
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG[1], "input")
        s = hl.Func("rowscan")
        s[x, y] = inp[x, y]
        r = hl.RDom([(1, W - 1)])
        s[r, y] = s[r - 1, y] * 0.75 + inp[r, y]
        yo, yi = hl.Var("yo"), hl.Var("yi")
        s.update().split(y, yo, yi, 4).reorder(r, yi, yo).vectorize(yi).parallel(yo)
        return s
    _no_serial_warning(lambda: run_both(build, [W, height], rtol=1e-5, atol=1e-5))


def test_scan_along_x_y_parallel():                  # the serial RVar loop inside a parallel pure loop
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG[1], "input")
        s = hl.Func("rowscan")
        s[x, y] = inp[x, y]
        r = hl.RDom([(1, W - 1)])
        s[r, y] = s[r - 1, y] * 0.75 + inp[r, y]
        s.update().parallel(y)
        return s
    _no_serial_warning(lambda: run_both(build, [W, 27], rtol=1e-5, atol=1e-5))


@pytest.mark.parametrize("width", [37, 32])
def test_scan_down_y_rows_parallel_masked_tail(width):   # x split: outer part parallel, inner in lanes
    def build(hl):
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        inp = hl.Buffer(IMG, "input")
        s = hl.Func("blur")
        s[x, y, c] = inp[x, y, c]
        r = hl.RDom([(1, H - 1)])
        s[x, r, c] = 0.5 * s[x, r - 1, c] + 0.5 * inp[x, r, c]
        xo, xi = hl.Var("xo"), hl.Var("xi")
        s.update().split(x, xo, xi, 8).reorder(xi, r, xo, c).vectorize(xi).parallel(xo)
        return s
    _no_serial_warning(lambda: run_both(build, [width, H, 3], rtol=1e-5, atol=1e-5))


def test_tuple_scan_parallel_unrolled():             # a Tuple's slices updated in place; an unroll inside the forall
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG[2], "input")
        f = hl.Func("f")
        f[x, y] = (inp[x, y], hl.i32(x))
        r = hl.RDom([(1, W - 1)])
        f[r, y] = (f[r - 1, y][0] * 0.5 + inp[r, y], f[r - 1, y][1] + f[r, y][1] * y)
        yo, yi = hl.Var("yo"), hl.Var("yi")
        f.update().split(y, yo, yi, 2).reorder(r, yi, yo).unroll(yi).parallel(yo)
        return f
    _no_serial_warning(lambda: run_both(build, [W, 24], rtol=1e-5, atol=1e-5))


def test_parallel_scan_updates_in_place():           # no copy of the Func: an scf.forall over its slices
    import halide_mlir as hl
    from halide_mlir import driver
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    inp = hl.Buffer(IMG, "input")
    s = hl.Func("blur")
    s[x, y, c] = inp[x, y, c]
    r = hl.RDom([(1, H - 1)])
    s[x, r, c] = 0.5 * s[x, r - 1, c] + 0.5 * inp[x, r, c]
    xo, xi = hl.Var("xo"), hl.Var("xi")
    s.update().split(x, xo, xi, 8).reorder(xi, r, xo, c).vectorize(xi).parallel(xo)
    payload = driver.stages(s, [32, H, 3]).text("payload")
    assert "shared_outs" in payload and "tensor.parallel_insert_slice" in payload and "memref.alloc" not in payload
    assert "vector.transfer_write" in payload and "vector.scatter" not in payload


def test_tuple_scan_vectorized():                    # both elements read before either is written
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG[2], "input")
        f = hl.Func("f")
        f[x, y] = (inp[x, y], hl.i32(y))
        r = hl.RDom([(1, H - 1)])
        f[x, r] = (f[x, r - 1][0] * 0.5 + inp[x, r] * hl.f32(f[x, r - 1][1] % 3), f[x, r - 1][1] + x)
        f.update().vectorize(x, 8)
        return f
    _no_serial_warning(lambda: run_both(build, [W - 2, H], rtol=1e-5, atol=1e-5))


def test_backward_scan_where_vectorized():           # a scan running backwards, masked by an RDom.where
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG[0], "input")
        f = hl.Func("f")
        f[x, y] = inp[x, y]
        h = H
        r = hl.RDom([(1, h - 1)])
        r.where((x + r.x) % 3 != 0)
        f[x, h - 1 - r.x] = f[x, h - r.x] * 0.25 + f[x, h - 1 - r.x]
        f.update().vectorize(x, 16)
        return f
    _no_serial_warning(lambda: run_both(build, [21, H], rtol=1e-5, atol=1e-5))


def test_dense_accesses_are_vector_loads():
    import halide_mlir as hl
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(IMG[0], "input")
    s = hl.Func("cumsum")
    s[x, y] = inp[x, y]
    r = hl.RDom([(1, H - 1)])
    s[x, r] = s[x, r - 1] + inp[x + 1, r]
    s.update().vectorize(x, 8)
    from halide_mlir import driver
    payload = driver.stages(s, [30, H]).text("payload")
    assert payload.count("vector.transfer_read") == 2 and payload.count("vector.transfer_write") == 1
    assert "vector.gather" not in payload and "vector.scatter" not in payload
