"""Inline reductions (hl.sum, maximum, minimum, product, argmax) whose update auto-vectorization runs as vector
code (analysis/vectorize.py: the pure x loop right outside the RVar loops is vectorized, the RVar loops run per
vector), against real Halide 21: with and without the consumer's vectorize() (whose width the reduction takes),
widths that do not divide the extent, f32 and integer types, and a strided (pooling) read."""

import pytest

from oracle import image_f32, image_i16, image_u8, run_both

# numpy arrays live at module level: hl.Buffer(arr) does not copy (see oracle.py)
U8 = image_u8(70, 45, seed=11)
I16 = image_i16(70, 45, seed=12)
F32 = image_f32(70, 45, seed=13)
IMAGES = {"u8": U8, "i16": I16, "f32": F32}

# (reduction, image, element cast): the cast widens the integer sums as users write them
CASES = [("sum", "u8", "u16"), ("sum", "u8", "i32"), ("sum", "f32", None), ("sum", "i16", "i32"),
         ("maximum", "u8", None), ("maximum", "f32", None), ("maximum", "i16", None),
         ("minimum", "u8", "u16"), ("minimum", "f32", None),
         ("product", "u8", "u32"), ("product", "f32", None)]


def _build(hl, kind, img, elem, vec, stride=1, extent=3):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(IMAGES[img], name="input")
    r = hl.RDom([(0, extent), (0, 3)], "r")
    e = inp[stride * x + r.x, stride * y + r.y]
    if elem is not None:
        e = getattr(hl, elem)(e)
    m = hl.Func("m")
    m[x, y] = getattr(hl, kind)(e)
    if vec:
        m.vectorize(x, vec)
    return m


@pytest.mark.parametrize("kind,img,elem", CASES)
@pytest.mark.parametrize("vec", [None, 16, 8])
def test_inline_reduction(kind, img, elem, vec):
    # 61 x 40: neither 16, 8 nor the natural widths divide 61 (masked edge vectors)
    run_both(lambda hl: _build(hl, kind, img, elem, vec), [61, 40])


@pytest.mark.parametrize("vec", [None, 16])
def test_inline_reduction_long_rdom(vec):
    # r.x longer than the vector is wide; the sum's x extent (31) is not a multiple of the width either
    run_both(lambda hl: _build(hl, "sum", "f32", None, vec, extent=19), [31, 20])


@pytest.mark.parametrize("kind,img,elem", [("sum", "u8", "u16"), ("maximum", "f32", None)])
@pytest.mark.parametrize("vec", [None, 16])
def test_inline_reduction_strided_pooling(kind, img, elem, vec):
    run_both(lambda hl: _build(hl, kind, img, elem, vec, stride=2), [33, 21])


@pytest.mark.parametrize("vec", [None, 16])
def test_inline_argmax(vec):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(U8, name="input")
        r = hl.RDom([(0, 3), (0, 3)], "r")
        a = hl.argmax(inp[x + r.x, y + r.y])
        m = hl.Func("m")
        m[x, y] = hl.i32(a[0]) * 100 + hl.i32(a[1]) * 10 + hl.i32(a[2])
        if vec:
            m.vectorize(x, vec)
        return m
    run_both(build, [61, 40])


def test_inline_reduction_update_is_vector_code():
    import halide_mlir as hl
    m = _build(hl, "sum", "u8", "u16", 16)
    lowered = m.compile_to_lowered_mlir([61, 40])
    assert "vector<16xi16>" in lowered
