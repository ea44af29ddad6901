"""Gathers whose lanes read every s-th element run as one dense masked load plus a shuffle
(codegen/strided_gathers.py; interpolate's pyramid window read at ``2 * x + c``): the values must be Halide's, with
masked tails, in f32 and u16, at strides 2 to 4; the gathers are gone from the bufferized IR."""
import numpy as np
import pytest

import halide_mlir
from halide_mlir import driver

halide = pytest.importorskip("halide")

DATA = np.random.default_rng(5).random((12, 160), dtype=np.float32)
DATA16 = np.random.default_rng(6).integers(0, 65536, (12, 160), dtype=np.uint16)


def _build(hl, data, stride, vec):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(data, "inp")
    lut, f = hl.Func("lut"), hl.Func("f")
    lut[y] = y % 3
    # the row and column offset come from a LUT: the vectorizer can't prove them uniform, so the read is a
    # gather, whose lanes are `stride` elements apart
    k = hl.clamp(lut[y], 0, 2)
    f[x, y] = inp[stride * x + k, k + y] + inp[stride * x + 1, y]
    lut.compute_root()
    f.vectorize(x, vec)
    return f


@pytest.mark.parametrize("data", [DATA, DATA16], ids=["f32", "u16"])
@pytest.mark.parametrize("stride, w", [(2, 32), (2, 29), (3, 21), (4, 13), (4, 9)])
def test_strided_gather_values(data, stride, w):
    vec = 8  # (Halide shifts a vector wider than the output to negative x)
    sizes = [w, 9]
    ref = np.asarray(_build(halide, data, stride, vec).realize(sizes))
    got = np.asarray(_build(halide_mlir, data, stride, vec).realize(sizes))
    np.testing.assert_array_equal(got, ref)


def test_strided_gather_is_a_dense_load():
    f = _build(halide_mlir, DATA, 2, 16)
    text = driver.stages(f, [32, 9]).text("bufferized")
    assert "vector.gather" not in text
    assert "vector<32xf32>" in text  # the dense load of 2 x 16 lanes
