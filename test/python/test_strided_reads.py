"""Strided reads (``f[2 * x + c]``, downsampling): a strided ``tensor.extract_slice`` in the payload, and once
vectorized one dense (masked) load plus a shuffle per vector (codegen/strided_reads.py) instead of a gather or
one scalar load per lane. Checked against real Halide 21: strides 2..4, negative taps, odd sizes (masked
tails), strides along y too, u8/u16/f32, parallel rows, a strided read of a compute_at producer's input, and a
stride beyond MAX_STRIDE (a gather)."""
import re

import pytest

from oracle import image_f32, image_u8, image_u16, run_both

IMG = image_f32(260, 70, seed=41)
IMG8 = image_u8(260, 70, seed=42)
IMG16 = image_u16(260, 70, seed=43)


def V(hl, names):
    return [hl.Var(n) for n in names.split()]


def downsample(stride, width=16, tail=None, img=None):
    def build(hl):
        inp = hl.Buffer(IMG if img is None else img, "input")
        x, y = V(hl, "x y")
        f = hl.Func("f")
        if inp.type().is_float():
            f[x, y] = (inp[stride * x + 1, y] + 3.0 * (inp[stride * x + 2, y] + inp[stride * x + 3, y])
                       + inp[stride * x + 4, y]) / 8.0
        else:
            wide = hl.UInt(16) if inp.type().bits() == 8 else hl.UInt(32)
            f[x, y] = hl.cast(inp.type(), (hl.cast(wide, inp[stride * x, y]) + inp[stride * x + 1, y]
                                           + 2 * hl.cast(wide, inp[stride * x + 2, y])) / 4)
        f.vectorize(x, width) if tail is None else f.vectorize(x, width, getattr(hl.TailStrategy, tail))
        return f
    return build


@pytest.mark.parametrize("stride", [2, 3, 4])
@pytest.mark.parametrize("width", [8, 16])
def test_downsample_f32(stride, width):
    run_both(downsample(stride, width), [(256 - 5) // stride, 64])


@pytest.mark.parametrize("cols", [1, 7, 17, 50, 126])
def test_odd_widths(cols):
    """The last vector of a row is partial (a masked tail): the dense load must not read past the input
    (126 columns read up to its last column)."""
    run_both(downsample(2, 16, "GuardWithIf"), [cols, 5])


def test_round_up_tail():
    run_both(downsample(2, 8, "RoundUp"), [48, 6])


@pytest.mark.parametrize("img", [IMG8, IMG16], ids=["u8", "u16"])
def test_integer_types(img):
    run_both(downsample(2, 32 if img is IMG8 else 16, img=img), [120, 9])


def pyramid(hl):
    """Two levels of Halide's local laplacian downsampling, strided in x and y, with negative taps, the
    lower level computed at root and parallel."""
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")

    def down(f):
        dx, dy = hl.Func(), hl.Func()
        dx[x, y] = (f[2 * x - 1, y] + 3.0 * (f[2 * x, y] + f[2 * x + 1, y]) + f[2 * x + 2, y]) / 8.0
        dy[x, y] = (dx[x, 2 * y - 1] + 3.0 * (dx[x, 2 * y] + dx[x, 2 * y + 1]) + dx[x, 2 * y + 2]) / 8.0
        return dy

    clamped = hl.BoundaryConditions.repeat_edge(inp)
    g0 = hl.Func("g0")
    g0[x, y] = clamped[x, y] * 2.0
    g1, g2 = hl.Func("g1"), hl.Func("g2")
    g1[x, y] = down(g0)[x, y]
    g2[x, y] = down(g1)[x, y]
    g1.compute_root().parallel(y, 4).vectorize(x, 8)
    g2.vectorize(x, 16)
    return g2


def test_pyramid():
    run_both(pyramid, [60, 15])


def compute_at_producer(hl):
    """The producer is computed per row of its consumer and reads its input at stride 2."""
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    p, g = hl.Func("p"), hl.Func("g")
    p[x, y] = inp[2 * x, y] + inp[2 * x + 1, y + 1]
    g[x, y] = p[x, y] + p[x + 1, y]
    p.compute_at(g, y).vectorize(x, 8)
    g.vectorize(x, 8)
    return g


def test_compute_at_producer():
    run_both(compute_at_producer, [100, 40])


def test_stride_beyond_max_is_a_gather():
    run_both(downsample(5, 8), [40, 6])


def test_dense_loads_not_gathers():
    """The bufferized IR reads the strided rows with dense vector reads and shuffles: no gather, no strided
    memref left under a vector read."""
    import halide_mlir as hl
    from halide_mlir.driver import stages
    f = downsample(2)(hl)
    s = stages(f, [100, 8])
    assert re.search(r"tensor\.extract_slice .* \[1, 2\] :", s.payload)
    buf = s.bufferized()
    assert "vector.gather" not in buf
    assert re.search(r"vector\.transfer_read .*vector<1x32xf32>", buf)
    assert "vector.shuffle" in buf
    assert not re.search(r"vector\.transfer_read [^\n]*strided<\[\d+, 2\]", buf)


def vectorized_over_y(hl):
    """The vector runs down a column (vectorize(y) after reorder): the strided dim is not the vector's."""
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    f = hl.Func("f")
    f[x, y] = inp[2 * x + 1, 2 * y] - inp[2 * x, y]
    f.reorder(y, x).vectorize(y, 8)
    return f


def wide_u8_stride3(hl):
    """64 u8 lanes at stride 3: the dense read is 190 bytes."""
    inp = hl.Buffer(IMG8, "input")
    x, y = V(hl, "x y")
    f = hl.Func("f")
    f[x, y] = inp[3 * x + 2, y] // 2 + inp[3 * x, y] // 2
    f.vectorize(x, 64)
    return f


def strided_split_tiles(hl):
    """Tiles, a parallel outer loop and an unrolled inner one around a strided read."""
    inp = hl.Buffer(IMG, "input")
    x, y, xo, yo, xi, yi = V(hl, "x y xo yo xi yi")
    f = hl.Func("f")
    f[x, y] = inp[2 * x + 3, y + 1] * inp[4 * x, y]
    f.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 8).unroll(yi).parallel(yo)
    return f


@pytest.mark.parametrize("build", [vectorized_over_y, wide_u8_stride3, strided_split_tiles],
                         ids=["vectorized_over_y", "wide_u8_stride3", "strided_split_tiles"])
def test_schedules_around_strided_reads(build):
    run_both(build, [60 if build is strided_split_tiles else 70, 17])
