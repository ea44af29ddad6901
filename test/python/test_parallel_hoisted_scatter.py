"""A scatter computed at a consumer's parallel loop is computed at the root (a ComputeAtWarning); its pure
definition and now its update run their rows in parallel there, as Halide runs them inside the consumer's parallel
loop (bilateral_grid's histogram at blurz.y), and an unrolled loop of the update is unrolled inside the parallel
one. Values against Halide 21, at odd sizes."""
import warnings

import numpy as np
import pytest

import halide_mlir
from halide_mlir import driver

halide = pytest.importorskip("halide")

DATA = np.random.default_rng(5).random((77, 45), dtype=np.float32)


def _build(hl, unroll):
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
    blur.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, 8)
    hist.compute_at(blur, y)
    if unroll:
        blur.bound(c, 0, 2).unroll(c)
        hist.update().reorder(c, r.x, r.y, x, y).unroll(c)
    return blur


@pytest.mark.parametrize("unroll", [False, True])
def test_hoisted_scatter_rows_in_parallel(unroll):
    sizes = [11, 19, 5, 2]
    ref = np.asarray(_build(halide, unroll).realize(sizes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", halide_mlir.ComputeAtWarning)
        warnings.simplefilter("error", halide_mlir.SerialUpdateWarning)
        f = _build(halide_mlir, unroll)
        plan = driver.stages(f, sizes).text("plan")
        got = np.asarray(f.realize(sizes))
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    update = plan[plan.index("hist.update(0)"):]
    assert "parallel y:" in update.split("stage")[0], plan
