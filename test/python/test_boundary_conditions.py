"""``hl.BoundaryConditions.*`` against real Halide 21: every kind, on Buffers, ImageParams and Funcs (explicit
bounds), realized over regions larger than the input and with negative mins, alone and under stencils and
reductions, scheduled and not. Integer results bit-identical, floats to 1e-5."""

import numpy as np
import pytest

from oracle import image_f32, image_u8, image_u16, run_both, run_program_both

KINDS = ["repeat_edge", "constant_exterior", "repeat_image", "mirror_image", "mirror_interior"]
SOURCES = ["buffer", "imageparam", "func"]

U8 = image_u8(13, 9, seed=1)
F32 = image_f32(11, 7, seed=2)
U16_3D = image_u16(10, 8, seed=3, c=3)
U8_1D = image_u8(6, seed=4)
TINY = image_u8(1, 1, seed=5)       # a 1x1 image: every kind must still work
TWO = image_u8(2, 3, seed=6)

# (sizes, mins): the input exactly, a larger region with negative mins, a region far outside on every side
# (several periods of repeat_image / mirror_*), a region entirely left of / above the input
REGIONS = [
    ("exact", None, None),
    ("pad3", [19, 15], [-3, -3]),
    ("far", [61, 47], [-25, -19]),
    ("outside", [7, 5], [-20, -12]),
]


def _bc(hl, kind, src, bounds=None, value=None):
    fn = getattr(hl.BoundaryConditions, kind)
    args = [src]
    if kind == "constant_exterior":
        args.append(value)
    if bounds is not None:
        args.append(bounds)
    return fn(*args)


def _source(hl, which, arr, name="input"):
    """The boundary condition's source, and bounds for a Func source (which has none of its own)."""
    buf = hl.Buffer(arr, name)
    if which == "buffer":
        return buf, None
    if which == "imageparam":
        ip = hl.ImageParam(buf.type(), buf.dimensions(), name + "_p")
        ip.set(buf)
        return ip, None
    # a Func wrapping the buffer, with its bounds given explicitly
    vs = [hl.Var(f"v{i}") for i in range(buf.dimensions())]
    f = hl.Func(name + "_f")
    f[vs] = buf[vs]
    return f, [hl.Range(buf.dim(i).min(), buf.dim(i).extent()) for i in range(buf.dimensions())]


def _expected(arr2d, kind, sizes, mins, value):
    """numpy reference for a 2-D image (rows, cols) realized over sizes/mins (x, y)."""
    h, w = arr2d.shape
    xs = np.arange(mins[0], mins[0] + sizes[0])
    ys = np.arange(mins[1], mins[1] + sizes[1])

    def remap(c, n):
        if kind in ("repeat_edge", "constant_exterior"):
            return np.clip(c, 0, n - 1)
        if kind == "repeat_image":
            return np.mod(c, n)
        if kind == "mirror_image":
            m = np.mod(c, 2 * n)
            return np.where(m < n, m, 2 * n - 1 - m)
        period = max(2 * n - 2, 1)
        m = np.mod(c, period)
        return np.where(m < n, m, period - m)

    out = arr2d[np.ix_(remap(ys, h), remap(xs, w))].copy()
    if kind == "constant_exterior":
        outside = ((ys < 0) | (ys >= h))[:, None] | ((xs < 0) | (xs >= w))[None, :]
        out[outside] = value
    return out


@pytest.mark.parametrize("region", REGIONS, ids=[r[0] for r in REGIONS])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("kind", KINDS)
def test_boundary_u8(kind, source, region):
    _, sizes, mins = region

    def build(hl):
        src, bounds = _source(hl, source, U8)
        f = _bc(hl, kind, src, bounds, value=hl.u8(7) if kind == "constant_exterior" else None)
        x, y = hl.Var("x"), hl.Var("y")
        out = hl.Func("out")
        out[x, y] = f[x, y]
        return out

    sz = sizes or [13, 9]
    mn = mins or [0, 0]
    run_both(build, sz, mins=mins, expected=_expected(U8, kind, sz, mn, 7))


@pytest.mark.parametrize("region", REGIONS[1:3], ids=[r[0] for r in REGIONS[1:3]])
@pytest.mark.parametrize("kind", KINDS)
def test_boundary_f32_output_is_the_boundary_func(kind, region):
    """The boundary Func itself is the output (no consumer)."""
    _, sizes, mins = region

    def build(hl):
        inp = hl.Buffer(F32, "input")
        return _bc(hl, kind, inp, value=-2.5)

    run_both(build, sizes, mins=mins, expected=_expected(F32, kind, sizes, mins, np.float32(-2.5)))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("arr", ["TINY", "TWO"])
def test_boundary_degenerate_sizes(kind, arr):
    a = globals()[arr]

    def build(hl):
        inp = hl.Buffer(a, "input")
        return _bc(hl, kind, inp, value=hl.u8(200))

    run_both(build, [9, 8], mins=[-4, -3], expected=_expected(a, kind, [9, 8], [-4, -3], 200))


@pytest.mark.parametrize("kind", KINDS)
def test_boundary_1d(kind):
    def build(hl):
        inp = hl.Buffer(U8_1D, "input")
        return _bc(hl, kind, inp, value=hl.u8(1))

    e = _expected(U8_1D[None, :], kind, [20, 1], [-7, 0], 1)[0]
    run_both(build, [20], mins=[-7], expected=e)


@pytest.mark.parametrize("kind", KINDS)
def test_boundary_buffer_with_nonzero_min(kind):
    """The implicit bounds of a Buffer are its own (min, extent), not (0, extent)."""
    def program(hl):
        inp = hl.Buffer(U8, "input")
        inp.set_min([5, -2])
        f = _bc(hl, kind, inp, value=hl.u8(9))
        out = hl.Buffer(hl.UInt(8), [25, 17])
        out.set_min([-1, -8])
        f.realize(out)
        return out

    ref, _ = run_program_both(program)
    # same numbers as a zero-min source shifted by the min
    np.testing.assert_array_equal(ref, _expected(U8, kind, [25, 17], [-1 - 5, -8 + 2], 9))


@pytest.mark.parametrize("kind", KINDS)
def test_boundary_3d_only_xy_bounded(kind):
    """A 3-channel image with bounds on x and y only: the channel dimension is not remapped."""
    def build(hl):
        inp = hl.Buffer(U16_3D, "input")
        f = _bc(hl, kind, inp, bounds=[hl.Range(0, 10), hl.Range(0, 8)], value=hl.u16(1000))
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        out = hl.Func("out")
        out[x, y, c] = f[x, y, c] + hl.u16(1)
        return out

    run_both(build, [16, 14, 3], mins=[-3, -3, 0])


@pytest.mark.parametrize("kind", KINDS)
def test_boundary_func_source_with_bounds_smaller_than_func(kind):
    """A Func defined everywhere, with explicit bounds narrower than its natural domain: values are taken
    from inside the bounds only."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("g")
        g[x, y] = x * 100 + y
        f = _bc(hl, kind, g, [hl.Range(2, 5), hl.Range(-1, 4)], value=-7)
        out = hl.Func("out")
        out[x, y] = f[x, y]
        return out

    run_both(build, [20, 12], mins=[-6, -5])


@pytest.mark.parametrize("kind", KINDS)
def test_boundary_func_source_with_param_bounds(kind):
    """Bounds given as Params (Exprs); changed between realizes."""
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("g")
        g[x, y] = x * 10 - y
        w = hl.Param(hl.Int(32), "w", 4)
        f = _bc(hl, kind, g, [hl.Range(0, w), hl.Range(0, 3)], value=99)
        outs = []
        for wv in (4, 7):
            w.set(wv)
            out = hl.Buffer(hl.Int(32), [15, 9])
            out.set_min([-4, -3])
            f.realize(out)
            outs.append(np.array(np.asarray(out)))
        return outs

    run_program_both(program)


@pytest.mark.parametrize("kind", KINDS)
def test_boundary_func_partial_bounds(kind):
    """Bounds for x only (None/unbounded for y): y passes through."""
    def build(hl):
        inp = hl.Buffer(U8, "input")
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("g")
        g[x, y] = inp[x, hl.clamp(y, 0, 8)]
        f = _bc(hl, kind, g, [hl.Range(0, 13)], value=hl.u8(3))
        out = hl.Func("out")
        out[x, y] = f[x, y]
        return out

    run_both(build, [21, 9], mins=[-4, 0])


# ------------------------------------------------------------------------------------------------------------
# Boundary conditions under stencils, reductions and schedules
# ------------------------------------------------------------------------------------------------------------

BLUR_IMG = image_f32(64, 48, seed=10)

BLUR_SCHEDULES = ["default", "inline_bc", "root_vec_par", "tiled"]


@pytest.mark.parametrize("schedule", BLUR_SCHEDULES)
@pytest.mark.parametrize("kind", KINDS)
def test_blur_3x3_with_boundary(kind, schedule):
    """A 3x3 blur over the whole image (and a margin) through a boundary condition."""
    def build(hl):
        inp = hl.Buffer(BLUR_IMG, "input")
        x, y = hl.Var("x"), hl.Var("y")
        f = _bc(hl, kind, inp, value=0.5)
        bx, by = hl.Func("bx"), hl.Func("by")
        bx[x, y] = (f[x - 1, y] + f[x, y] + f[x + 1, y]) / 3.0
        by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3.0
        if schedule == "inline_bc":
            f.compute_inline()
        elif schedule == "root_vec_par":
            bx.compute_root().vectorize(x, 16).parallel(y)
            by.vectorize(x, 16).parallel(y)
        elif schedule == "tiled":
            xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
            by.tile(x, y, xo, yo, xi, yi, 32, 8).vectorize(xi, 16).parallel(yo)
            bx.compute_at(by, xo).vectorize(x, 16)
        return by

    run_both(build, [64, 48])
    run_both(build, [80, 56], mins=[-8, -4])


@pytest.mark.parametrize("kind", KINDS)
def test_box_sum_over_rdom_with_boundary(kind):
    """A 7x7 box sum through an RDom over a boundary condition, u8 input accumulated in u32."""
    def build(hl):
        inp = hl.Buffer(U8, "input")
        x, y = hl.Var("x"), hl.Var("y")
        f = _bc(hl, kind, inp, value=hl.u8(255))
        r = hl.RDom([(-3, 7), (-3, 7)])
        s = hl.Func("s")
        s[x, y] = hl.sum(hl.cast(hl.UInt(32), f[x + r.x, y + r.y]))
        return s

    run_both(build, [13, 9])
    run_both(build, [21, 17], mins=[-4, -4])


@pytest.mark.parametrize("kind", KINDS)
def test_histogram_of_boundary_extended_image(kind):
    """A scatter over an RDom larger than the image, reading through the boundary condition."""
    def build(hl):
        inp = hl.Buffer(U8, "input")
        f = _bc(hl, kind, inp, value=hl.u8(0))
        i = hl.Var("i")
        r = hl.RDom([(-5, 23), (-4, 17)])
        h = hl.Func("h")
        h[i] = 0
        h[hl.cast(hl.Int(32), f[r.x, r.y])] += 1
        return h

    e = np.bincount(_expected(U8, kind, [23, 17], [-5, -4], 0).ravel(), minlength=256).astype(np.int32)
    run_both(build, [256], expected=e)


@pytest.mark.parametrize("kind", KINDS)
def test_boundary_with_expr_coordinates(kind):
    """Reads far outside through computed coordinates (x * 3 - 20, y - x)."""
    def build(hl):
        inp = hl.Buffer(U8, "input")
        f = _bc(hl, kind, inp, value=hl.u8(42))
        x, y = hl.Var("x"), hl.Var("y")
        out = hl.Func("out")
        out[x, y] = f[x * 3 - 20, y - x]
        return out

    run_both(build, [17, 11])


@pytest.mark.parametrize("kind", KINDS)
def test_nested_boundary_conditions(kind):
    """A boundary condition of a boundary condition's consumer (Func source, explicit bounds)."""
    def build(hl):
        inp = hl.Buffer(F32, "input")
        x, y = hl.Var("x"), hl.Var("y")
        a = hl.BoundaryConditions.repeat_edge(inp)
        g = hl.Func("g")
        g[x, y] = a[x - 1, y] * 2.0 + a[x + 1, y + 1]
        b = _bc(hl, kind, g, [hl.Range(0, 11), hl.Range(0, 7)], value=1.0)
        out = hl.Func("out")
        out[x, y] = b[x, y] - b[x - 2, y + 3]
        return out

    run_both(build, [20, 16], mins=[-5, -6])


def test_constant_exterior_value_is_an_expr():
    """The exterior value can be an Expr (here depending on a Param)."""
    def program(hl):
        inp = hl.Buffer(U8, "input")
        p = hl.Param(hl.UInt(8), "p", 17)
        f = hl.BoundaryConditions.constant_exterior(inp, p + hl.u8(3))
        out = hl.Buffer(hl.UInt(8), [17, 13])
        out.set_min([-2, -2])
        f.realize(out)
        return out

    run_program_both(program)


def test_boundary_on_imageparam_rebound_to_another_size():
    """The ImageParam's bounds are read at realize time: a second, differently-sized image is remapped with its
    own bounds."""
    other = image_u8(5, 4, seed=77)
    keep.append(other)

    def program(hl):
        ip = hl.ImageParam(hl.UInt(8), 2, "ip")
        f = hl.BoundaryConditions.mirror_interior(ip)
        outs = []
        for a in (U8, other):
            ip.set(hl.Buffer(a, "src"))
            out = hl.Buffer(hl.UInt(8), [15, 12])
            out.set_min([-3, -3])
            f.realize(out)
            outs.append(np.array(np.asarray(out)))
        return outs

    ref, _ = run_program_both(program)
    np.testing.assert_array_equal(ref[1], _expected(other, "mirror_interior", [15, 12], [-3, -3], 0))


keep = []
