"""Differential tests of halide_mlir's pipelines against real Halide 21:
multi-stage Funcs (inlined and compute_root), 1-D..4-D, stencils, Var values,
transposes, constant indices, ImageParam / Param, the Buffer API, the realize
forms, compile_jit, and the two blurs."""

import numpy as np
import pytest

from oracle import (
    assert_same,
    image_f32,
    image_i16,
    image_i32,
    image_u8,
    image_u16,
    ours,
    reference,
    run_both,
    run_program_both,
)


def _xy(hl):
    return hl.Var("x"), hl.Var("y")


# ---------------------------------------------------------------------------
# Multi-stage pipelines: the schedule must not change the result
# ---------------------------------------------------------------------------

# NB: hl.Buffer(ndarray) does not copy (in real Halide it does not even keep the
# array alive), so every input array must outlive the realize: keep them here.
_P2_IN = image_u8(40, 30, seed=1)
_P3_IN = image_f32(40, 30, seed=2)
_P4_IN = image_i16(40, 30, seed=3, lo=-1000, hi=1000)


def _pipeline_2(hl, root):
    a = hl.Buffer(_P2_IN, "input")
    x, y = _xy(hl)
    g = hl.Func("g")
    g[x, y] = hl.u16(a[x, y]) * 3 + 7
    f = hl.Func("f")
    f[x, y] = g[x, y] + g[x, y] // 2
    if root:
        g.compute_root()
    return f


def _pipeline_3(hl, root):
    a = hl.Buffer(_P3_IN, "input")
    x, y = _xy(hl)
    s1 = hl.Func("s1")
    s1[x, y] = a[x, y] * 2.0 + 1.0
    s2 = hl.Func("s2")
    s2[x, y] = hl.sqrt(hl.abs(s1[x, y])) - s1[x, y]
    out = hl.Func("out")
    out[x, y] = s2[x, y] * s1[x, y] + hl.f32(x - y)
    if root:
        s1.compute_root()
        s2.compute_root()
    return out


def _pipeline_4(hl, root):
    a = hl.Buffer(_P4_IN, "input")
    x, y = _xy(hl)
    s1 = hl.Func("s1")
    s1[x, y] = hl.i32(a[x, y]) - 5
    s2 = hl.Func("s2")
    s2[x, y] = s1[x, y] * s1[x, y] // 7
    s3 = hl.Func("s3")
    s3[x, y] = hl.select(s2[x, y] > 1000, s1[x, y], s2[x, y] % 13)
    out = hl.Func("out")
    out[x, y] = s3[x, y] + s1[x, y] + s2[x, y]
    if root == "all":
        for s in (s1, s2, s3):
            s.compute_root()
    elif root:
        s2.compute_root()  # mixed: s1 inlined into s2 and out, s3 inlined into out
    return out


@pytest.mark.parametrize("pipeline", [_pipeline_2, _pipeline_3, _pipeline_4], ids=["2funcs", "3funcs", "4funcs"])
def test_multistage_inline_vs_compute_root(pipeline):
    results = {}
    for root in (False, True, "all"):
        results[root] = run_both(lambda hl: pipeline(hl, root), [40, 30])
    for root in (True, "all"):  # the schedule may never change the result
        assert_same(results[False][0], results[root][0], what=f"oracle compute_root={root}")
        assert_same(results[False][1], results[root][1], what=f"ours compute_root={root}")


def test_producer_used_at_several_offsets_compute_root():
    a = image_i32(50, 20, seed=4, lo=-100, hi=100)

    def build(hl, root):
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        p = hl.Func("p")
        p[x, y] = A[x, y] * 2 + x
        c = hl.Func("c")
        c[x, y] = p[x, y] + p[x + 3, y] - p[x + 1, y + 2]
        if root:
            p.compute_root()
        return c

    r0 = run_both(lambda hl: build(hl, False), [47, 18])
    r1 = run_both(lambda hl: build(hl, True), [47, 18])
    assert_same(r0[0], r1[0])
    assert_same(r0[1], r1[1], what="ours: compute_root changed the result")


# ---------------------------------------------------------------------------
# Dimensionality
# ---------------------------------------------------------------------------

def test_1d():
    a = image_f32(100, seed=5)

    def build(hl):
        A = hl.Buffer(a, "input")
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = A[x] * A[x] - hl.f32(x) * 0.01
        return f

    run_both(build, [100], expected=a * a - np.arange(100, dtype=np.float32) * np.float32(0.01))


def test_2d_var_values():
    def build(hl):
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = x + y * 3
        return f

    yy, xx = np.mgrid[0:5, 0:7]
    run_both(build, [7, 5], expected=(xx + yy * 3).astype(np.int32))


def test_3d_rgb():
    a = image_u8(20, 15, seed=6, c=3)  # numpy (c, h, w) -> buf[x, y, c]

    def build(hl):
        A = hl.Buffer(a, "rgb")
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        f = hl.Func("f")
        f[x, y, c] = hl.u8(hl.min(hl.u16(A[x, y, c]) * (c + 1) // 2, 255)) + hl.u8(x % 3)
        return f

    run_both(build, [20, 15, 3])


def test_3d_channel_mix():
    a = image_f32(12, 9, seed=7, c=3)

    def build(hl):
        A = hl.Buffer(a, "rgb")
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        gray = hl.Func("gray")
        gray[x, y] = 0.299 * A[x, y, 0] + 0.587 * A[x, y, 1] + 0.114 * A[x, y, 2]
        f = hl.Func("f")
        f[x, y, c] = A[x, y, c] - gray[x, y]
        return f

    gray = np.float32(0.299) * a[0] + np.float32(0.587) * a[1] + np.float32(0.114) * a[2]
    run_both(build, [12, 9, 3], expected=a - gray[None])


def test_4d():
    a = image_f32(5, 4, seed=8, c=6).reshape(2, 3, 4, 5)  # buf dims: x=5, y=4, z=3, w=2

    def build(hl):
        A = hl.Buffer(a, "input4")
        x, y, z, w = hl.Var("x"), hl.Var("y"), hl.Var("z"), hl.Var("w")
        f = hl.Func("f")
        f[x, y, z, w] = A[x, y, z, w] * 2 + hl.f32(w * 100 + z * 10 + y) + hl.f32(x) * 0.5
        return f

    ww, zz, yy, xx = np.mgrid[0:2, 0:3, 0:4, 0:5]
    exp = (a * 2 + (ww * 100 + zz * 10 + yy).astype(np.float32) + xx.astype(np.float32) * np.float32(0.5))
    run_both(build, [5, 4, 3, 2], expected=exp.astype(np.float32))


def test_4d_var_values_shifted():
    def build(hl):
        x, y, z, w = hl.Var("x"), hl.Var("y"), hl.Var("z"), hl.Var("w")
        f = hl.Func("f")
        f[x, y, z, w] = x - 2 * y + 3 * z - 5 * w
        return f

    ww, zz, yy, xx = np.mgrid[-1:1, 2:5, -3:1, 0:3]
    run_both(build, [3, 4, 3, 2], mins=[0, -3, 2, -1], expected=(xx - 2 * yy + 3 * zz - 5 * ww).astype(np.int32))


# ---------------------------------------------------------------------------
# Stencils, offsets, shifted realizations
# ---------------------------------------------------------------------------

def test_stencil_negative_and_positive_offsets_shifted_output():
    a = image_i32(30, 20, seed=9, lo=-1000, hi=1000)

    def build(hl):
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = A[x - 1, y] * 2 - A[x + 2, y - 1] + A[x, y + 1] * 3 - A[x - 1, y - 1]
        return f

    # keep every tap inside [0, 30) x [0, 20): x in [1, 28), y in [1, 19)
    W, H = 27, 18
    exp = (2 * a[1:19, 0:27] - a[0:18, 3:30] + 3 * a[2:20, 1:28] - a[0:18, 0:27]).astype(np.int32)
    run_both(build, [W, H], mins=[1, 1], expected=exp)


def test_stencil_offset_reads_unshifted_output():
    a = image_f32(34, 26, seed=10)

    def build(hl):
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        g = hl.Func("g")
        g[x, y] = A[x + 2, y + 1] - A[x - 2, y - 1]
        f = hl.Func("f")
        f[x, y] = g[x + 2, y + 1]  # read g shifted so the input stays in bounds
        return f

    run_both(build, [30, 24], expected=a[2:26, 4:34] - a[0:24, 0:30])


@pytest.mark.parametrize("mode", ["buffer", "numpy"])
def test_realize_into_shifted_buffer(mode):
    a = image_u16(64, 48, seed=11)

    def build(hl):
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = A[x, y] // 3 + hl.u16(x) - hl.u16(y)
        return f

    yy, xx = np.mgrid[10:30, 5:45]
    exp = (a[10:30, 5:45] // 3 + xx.astype(np.uint16) - yy.astype(np.uint16)).astype(np.uint16)
    run_both(build, [40, 20], mins=[5, 10], mode=mode, expected=exp)


def test_var_values_with_negative_mins():
    def build(hl):
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = hl.f32(x) / (hl.f32(y) * hl.f32(y) + 1.0) + hl.f32(x * y)
        return f

    yy, xx = np.mgrid[-4:3, -6:5].astype(np.float32)
    run_both(build, [11, 7], mins=[-6, -4], expected=xx / (yy * yy + 1) + xx * yy)


def test_transposed_access():
    a = image_u8(13, 7, seed=12)

    def build(hl):
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = A[y, x]
        return f

    run_both(build, [7, 13], expected=a.T)


def test_transposed_intermediate_compute_root():
    a = image_f32(9, 14, seed=13)

    def build(hl, root):
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        t = hl.Func("t")
        t[x, y] = A[y, x] * 2.0
        f = hl.Func("f")
        f[x, y] = t[y, x] + A[x, y]  # transpose twice
        if root:
            t.compute_root()
        return f

    for root in (False, True):
        run_both(lambda hl: build(hl, root), [9, 14], expected=a * 3)


def test_constant_index_access():
    a = image_i16(10, 6, seed=14)

    def build(hl):
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = hl.i32(A[x, 0]) + hl.i32(A[0, y]) * 2 + hl.i32(A[3, 2])
        return f

    exp = a[0, :][None, :].astype(np.int32) + a[:, 0][:, None].astype(np.int32) * 2 + np.int32(a[2, 3])
    run_both(build, [10, 6], expected=exp)


# ---------------------------------------------------------------------------
# ImageParam and Param
# ---------------------------------------------------------------------------

def test_imageparam_set():
    a = image_u8(33, 17, seed=15)

    def build(hl):
        ip = hl.ImageParam(hl.UInt(8), 2)
        ip.set(hl.Buffer(a))
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = hl.u8(hl.min(hl.u16(ip[x, y]) * 2, 255))
        return f

    run_both(build, [33, 17], expected=np.minimum(a.astype(np.uint16) * 2, 255).astype(np.uint8))


def test_imageparam_named_reset_between_realizes():
    a = image_u8(16, 8, seed=16)
    b = image_u8(16, 8, seed=17)

    def program(hl):
        ip = hl.ImageParam(hl.UInt(8), 2, "img")
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = ip[x, y] ^ hl.u8(0x5A)
        ip.set(hl.Buffer(a))
        r1 = f.realize([16, 8])
        ip.set(hl.Buffer(b))
        r2 = f.realize([16, 8])
        return [r1, r2]

    run_program_both(program, expected=[a ^ np.uint8(0x5A), b ^ np.uint8(0x5A)])


def test_param_float_and_int_with_default():
    a = image_f32(20, 10, seed=18)

    def program(hl):
        gain = hl.Param(hl.Float(32))
        k = hl.Param(hl.Int(32), "k", 3)  # default value 3
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = A[x, y] * gain + hl.f32(k * x)
        gain.set(1.5)
        r1 = f.realize([20, 10])  # k still has its default 3
        k.set(-2)
        gain.set(0.25)
        r2 = f.realize([20, 10])
        return [r1, r2]

    xx = np.arange(20, dtype=np.float32)[None, :]
    run_program_both(program, expected=[a * np.float32(1.5) + 3 * xx, a * np.float32(0.25) - 2 * xx])


def test_param_types_u8_and_bool():
    def program(hl):
        p = hl.Param(hl.UInt(8), "p", 200)
        b = hl.Param(hl.Bool(), "b")
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = hl.select(b, p + hl.u8(x), p - hl.u8(x))  # u8 wraps
        b.set(True)
        r1 = f.realize([100])
        b.set(False)
        p.set(7)
        r2 = f.realize([100])
        return [r1, r2]

    xs = np.arange(100)
    run_program_both(program, expected=[((200 + xs) % 256).astype(np.uint8), ((7 - xs) % 256).astype(np.uint8)])


def test_compile_jit_then_realize_twice_and_after_param_change():
    a = image_i32(24, 12, seed=19, lo=-50, hi=50)

    def program(hl):
        off = hl.Param(hl.Int(32), "off", 10)
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        g = hl.Func("g")
        g[x, y] = A[x, y] * 3
        f = hl.Func("f")
        f[x, y] = g[x, y] + off - y
        g.compute_root()
        f.compile_jit()
        r1 = f.realize([24, 12])
        r2 = f.realize([24, 12])
        off.set(-4)
        r3 = f.realize([24, 12])
        f.compile_jit()  # again: must be harmless
        r4 = f.realize([20, 10])
        return [r1, r2, r3, r4]

    yy = np.arange(12, dtype=np.int32)[:, None]
    e1 = a * 3 + 10 - yy
    e3 = a * 3 - 4 - yy
    run_program_both(program, expected=[e1, e1, e3, e3[:10, :20]])


# ---------------------------------------------------------------------------
# Buffer API
# ---------------------------------------------------------------------------

def test_buffer_from_numpy_reverses_axes_and_reports_geometry():
    a = image_i16(7, 5, seed=20)          # (h=5, w=7)
    a3 = image_u8(4, 3, seed=21, c=2)     # (c=2, h=3, w=4)

    def program(hl):
        b = hl.Buffer(a, "img")
        b3 = hl.Buffer(a3)
        facts = [b.width(), b.height(), b.dimensions(),
                 b.dim(0).min(), b.dim(0).extent(), b.dim(0).stride(),
                 b.dim(1).min(), b.dim(1).extent(), b.dim(1).stride(),
                 b3.dimensions(), b3.dim(2).extent(), b3.dim(2).stride(), b3.channels(),
                 int(b[3, 1]), int(b[6, 4]), int(b3[2, 1, 1])]
        b.set_min([10, -3])
        facts += [b.dim(0).min(), b.dim(1).min(), b.dim(0).extent(), int(b[13, -2])]
        return [np.array(facts, dtype=np.int64), np.asarray(b)]

    exp = np.array([7, 5, 2, 0, 7, 1, 0, 5, 7, 3, 2, 12, 2,
                    a[1, 3], a[4, 6], a3[1, 1, 2], 10, -3, 7, a[1, 3]], np.int64)
    run_program_both(program, expected=[exp, a])


def test_buffer_with_set_min_as_input():
    a = image_f32(10, 8, seed=22)

    def build(hl):
        A = hl.Buffer(a, "input")
        A.set_min([100, 200])  # A[100 + i, 200 + j] == a[j, i]
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = A[x + 100, y + 200] + A[109, 207]
        return f

    run_both(build, [10, 8], expected=a + a[7, 9])


def test_non_contiguous_numpy_input():
    base = image_u8(20, 16, seed=23)
    a = base[::2, 1::3]          # strided view (8, 7)
    t = image_u8(6, 9, seed=24).T  # transposed view (6, 9)

    def build(hl):
        A, T = hl.Buffer(a, "strided"), hl.Buffer(t, "transposed")
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = A[x, y] + T[x, y]
        return f

    run_both(build, [7, 6], expected=(a[:6, :7] + t[:6, :7]).astype(np.uint8))


def test_realize_sizes_vs_realize_buffer():
    a = image_u8(21, 13, seed=25)

    def program(hl):
        A = hl.Buffer(a, "input")
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = A[x, y] // 2 + A[20 - x, 12 - y] // 2
        r1 = f.realize([21, 13])
        out = hl.Buffer(hl.UInt(8), [21, 13])
        f.realize(out)
        arr = np.full((13, 21), 7, np.uint8)
        f.realize(hl.Buffer(arr))  # writes into the numpy array
        return [r1, out, arr, np.array([r1.width(), r1.height(), out.dimensions()])]

    e = (a // 2 + a[::-1, ::-1] // 2).astype(np.uint8)
    run_program_both(program, expected=[e, e, e, np.array([21, 13, 2])])


@pytest.mark.parametrize("name", ["my func", "f$1", "_under__score", "UPPER-case-9", "1abc", "a/b", "with:colon"])
def test_unusual_func_names(name):
    a = image_f32(8, 4, seed=26)

    def build(hl):
        A = hl.Buffer(a, "input buffer")
        x, y = _xy(hl)
        g = hl.Func(name + "_g")
        g[x, y] = A[x, y] + 1.0
        g.compute_root()
        f = hl.Func(name)
        f[x, y] = g[x, y] * 2.0
        return f

    run_both(build, [8, 4], expected=(a + 1) * 2)


def test_same_name_for_two_funcs():
    """Halide uniquifies; two Funcs both named "f" must stay distinct."""
    def build(hl):
        x, y = _xy(hl)
        f1 = hl.Func("f")
        f1[x, y] = x * 10
        f1.compute_root()
        f2 = hl.Func("f")
        f2[x, y] = f1[x, y] + y
        return f2

    yy, xx = np.mgrid[0:4, 0:5]
    run_both(build, [5, 4], expected=(xx * 10 + yy).astype(np.int32))


def test_redefinition_replaces_pure_definition():
    """Real Halide only warns ("Update definition completely hides earlier
    definitions"); the last definition wins."""
    def build(hl):
        x, y = _xy(hl)
        f = hl.Func("f")
        f[x, y] = x + y
        f[x, y] = x * y
        return f

    yy, xx = np.mgrid[0:4, 0:6]
    run_both(build, [6, 4], expected=(xx * yy).astype(np.int32))


# ---------------------------------------------------------------------------
# Blurs
# ---------------------------------------------------------------------------

def _lesson_blur(hl, a, root):
    inp = hl.Buffer(a, "input")
    x, y = _xy(hl)
    in16 = hl.Func("in16")
    in16[x, y] = hl.u16(inp[x, y])
    blur_x = hl.Func("blur_x")
    blur_x[x, y] = (in16[x - 1, y] + in16[x, y] + in16[x + 1, y]) / 3
    blur_y = hl.Func("blur_y")
    blur_y[x, y] = (blur_x[x, y - 1] + blur_x[x, y] + blur_x[x, y + 1]) / 3
    out = hl.Func("out")
    out[x, y] = hl.u8(blur_y[x, y])
    if root:
        blur_x.compute_root()
        blur_y.compute_root()
    return out


@pytest.mark.parametrize("root", [False, True], ids=["inline", "compute_root"])
def test_lesson_blur_u8_via_u16(root):
    a = image_u8(130, 98, seed=27)
    a16 = a.astype(np.uint16)
    bx = (a16[:, :-2] + a16[:, 1:-1] + a16[:, 2:]) // 3
    by = (bx[:-2] + bx[1:-1] + bx[2:]) // 3
    run_both(lambda hl: _lesson_blur(hl, a, root), [128, 96], mins=[1, 1], expected=by.astype(np.uint8))


def test_issue_blur_f32_compute_root_1536x1024():
    a = image_f32(1538, 1026, seed=28, lo=0.0, hi=1.0)

    def build(hl):
        inp = hl.Buffer(a, "input")
        x, y = _xy(hl)
        bx = hl.Func("bx")
        bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
        out = hl.Func("out")
        out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 9.0
        bx.compute_root()
        return out

    bx = a[:, :-2] + a[:, 1:-1] + a[:, 2:]
    exp = (bx[:-2] + bx[1:-1] + bx[2:]) / np.float32(9.0)
    ref, got = run_both(build, [1536, 1024], expected=exp)
    assert got.shape == (1024, 1536) and got.dtype == np.float32


def test_issue_blur_inline_equals_compute_root():
    a = image_f32(130, 66, seed=29)

    def build(hl, root):
        inp = hl.Buffer(a, "input")
        x, y = _xy(hl)
        bx = hl.Func("bx")
        bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
        out = hl.Func("out")
        out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 9.0
        if root:
            bx.compute_root()
        return out

    r0 = run_both(lambda hl: build(hl, False), [128, 64])
    r1 = run_both(lambda hl: build(hl, True), [128, 64])
    assert_same(r0[1], r1[1], what="ours: compute_root vs inline")


def test_sanity_both_modules_are_distinct():
    """Guard against a harness that silently compares the oracle with itself."""
    assert reference().__name__ == "halide"
    assert ours().__name__ == "halide_mlir"
