"""An unrolled loop of a scatter that also has a parallel loop is unrolled (it used to run as a serial loop with a
SerialUpdateWarning): bilateral_grid's histogram update, ``reorder(c, r.x, r.y, x, y).unroll(c)``, with its rows
in parallel. Values against Halide 21, at odd sizes; an unroll that does not happen is an UnrollWarning (an error
in this suite)."""
import warnings

import numpy as np
import pytest

import halide_mlir

halide = pytest.importorskip("halide")

DATA = np.random.default_rng(5).random((77, 45), dtype=np.float32)


def _build(hl):
    x, y, z, c = (hl.Var(n) for n in "x y z c".split())
    inp = hl.Buffer(DATA, "inp")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    r = hl.RDom([hl.Range(0, 4), hl.Range(0, 4)])
    val = hl.clamp(clamped[x * 4 + r.x - 2, y * 4 + r.y - 2], 0.0, 1.0)
    zi = hl.i32(val * 5.0 + 0.5)
    hist, blur = hl.Func("hist"), hl.Func("blur")
    hist[x, y, z, c] = hl.f32(0)
    hist[x, y, zi, c] += hl.mux(c, [val, hl.f32(1)])
    blur[x, y, z, c] = hist[x, y, z - 1, c] + 2 * hist[x, y, z, c] + hist[x, y, z + 1, c]
    blur.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, 8).bound(c, 0, 2)
    hist.compute_root()
    hist.update().reorder(c, r.x, r.y, x, y).parallel(y).unroll(c)
    return blur


def test_unrolled_loop_of_parallel_scatter():
    sizes = [11, 19, 5, 2]
    ref = np.asarray(_build(halide).realize(sizes))
    with warnings.catch_warnings():
        warnings.simplefilter("error", halide_mlir.SerialUpdateWarning)
        got = np.asarray(_build(halide_mlir).realize(sizes))
    np.testing.assert_allclose(got, ref, rtol=1e-6)
