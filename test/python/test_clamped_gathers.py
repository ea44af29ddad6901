"""A BoundaryConditions Func read only at its consumer's own coordinates is inlined, not a padded copy
(analysis/pipeline.py _pointwise; interpolate's RGBA input), and its clamps along the vectorized dim run as dense
loads where they change no lane (codegen/clamped_gathers.py): values are Halide's at the edges, in vector tails,
for several-row vectors (an unrolled channel loop) and for constant_exterior; a mirrored source keeps its copy."""
import numpy as np
import pytest

import halide_mlir
from halide_mlir import driver

halide = pytest.importorskip("halide")

RGBA = np.random.default_rng(7).random((4, 21, 45), dtype=np.float32)


def _premultiplied(hl, kind, vec, unroll):
    """interpolate's level 0: a clone-like producer per row of a downsampling consumer, reading the condition
    pointwise (``bc[x, y, c]``, ``bc[x, y, 3]``)."""
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    inp = hl.Buffer(RGBA, "input")
    bc = {
        "repeat_edge": lambda: hl.BoundaryConditions.repeat_edge(inp),
        "constant_exterior": lambda: hl.BoundaryConditions.constant_exterior(inp, 0.5),
        "mirror_image": lambda: hl.BoundaryConditions.mirror_image(inp),
    }[kind]()
    pre, down = hl.Func("pre"), hl.Func("down")
    pre[x, y, c] = hl.select(c < 3, bc[x, y, c] * bc[x, y, 3], bc[x, y, 3])
    down[x, y, c] = pre[2 * x - 1, y - 1, c] + 2 * pre[2 * x, y, c] + pre[2 * x + 1, y + 1, c]
    down.bound(c, 0, 4).vectorize(x, vec).parallel(y)
    pre.compute_at(down, y).reorder(c, x, y).vectorize(x, vec)
    if unroll:
        pre.unroll(c)
    return down


@pytest.mark.parametrize("kind", ["repeat_edge", "constant_exterior", "mirror_image"])
@pytest.mark.parametrize("vec, unroll", [(8, True), (16, True), (8, False)])
@pytest.mark.parametrize("w, h", [(24, 12), (19, 11)])
def test_pointwise_boundary_values(kind, vec, unroll, w, h):
    sizes = [w, h, 4]
    ref = np.asarray(_premultiplied(halide, kind, vec, unroll).realize(sizes))
    got = np.asarray(_premultiplied(halide_mlir, kind, vec, unroll).realize(sizes))
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=0)


def _output_reads(hl):
    """An output with a producer at its rows (so not computed in pieces) that reads the condition pointwise."""
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    inp = hl.Buffer(RGBA, "input")
    bc = hl.BoundaryConditions.repeat_edge(inp)
    g, out = hl.Func("g"), hl.Func("out")
    g[x, y, c] = bc[x, y, c] * 2
    out[x, y, c] = g[x // 2, y, c] + bc[x, y, c] / bc[x, y, 3]
    out.bound(c, 0, 3).vectorize(x, 16).unroll(c)
    g.compute_at(out, y).vectorize(x, 16)
    return out


@pytest.mark.parametrize("w, h", [(45, 21), (61, 25)])
def test_pointwise_boundary_output_values(w, h):
    ref = np.asarray(_output_reads(halide).realize([w, h, 3]))
    got = np.asarray(_output_reads(halide_mlir).realize([w, h, 3]))
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=0)


def test_pointwise_boundary_is_not_copied():
    stages = driver.stages(_premultiplied(halide_mlir, "repeat_edge", 16, True), [24, 12, 4])
    assert "repeat_edge_input" not in stages.text("plan")  # (no padded copy)
    text = stages.text("bufferized")
    assert "scf.if" in text and "vector.maskedload %arg0" in text  # the input read by dense loads
    mirrored = driver.stages(_premultiplied(halide_mlir, "mirror_image", 16, True), [24, 12, 4]).text("plan")
    assert "mirror_image_input" in mirrored  # (a reflected coordinate would stay a gather: the copy stays)
