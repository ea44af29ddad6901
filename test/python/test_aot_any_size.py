"""Ahead-of-time functions for any size (halide_mlir/aot/anysize.py): pipelines compiled without estimates accept
buffers of any size, crops of bigger buffers (their strides as they are) and any mins; checked against real
Halide 21 at odd sizes, 1x1 and crops. Bad calls return Halide's error codes; pipelines outside the class are
refused with a HalideError."""
import ctypes
import importlib
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import halide_mlir as hl

halide = pytest.importorskip("halide")

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")
C_DIR = os.path.join(os.path.dirname(__file__), os.pardir, "c")


from test_aot import halide_buffer as hbuf  # noqa: E402 (after the skips: it needs the C compiler too)


def library(tmp_path, f, args, fn_name):
    """``f`` compiled with no estimates to an object, linked into a shared library loaded with ctypes."""
    f.compile_to_object(str(tmp_path / f"{fn_name}.o"), args, fn_name)
    r = subprocess.run([os.environ.get("CC", "cc"), "-shared", str(tmp_path / f"{fn_name}.o"), "-o",
                        str(tmp_path / f"{fn_name}.so"), "-lpthread", "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lib = ctypes.CDLL(str(tmp_path / f"{fn_name}.so"))
    lib.halide_set_error_handler(_HANDLER)  # (the default handler aborts)
    return getattr(lib, fn_name)


ERRORS = []
_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)(lambda _, msg: ERRORS.append(msg.decode()))


# --- pipelines, written once for both modules (``m`` is halide_mlir or halide) -------------------------------


def brighten(m, schedule=True):
    x, y = m.Var("x"), m.Var("y")
    inp, off = m.ImageParam(m.UInt(8), 2, "input"), m.Param(m.UInt(8), "offset")
    f = m.Func("brighten")
    f[x, y] = inp[x, y] + off
    if schedule:
        f.vectorize(x, 16).parallel(y)
    return f, [inp, off]


def blur3(m, schedule=True):
    x, y, yo, yi = m.Var("x"), m.Var("y"), m.Var("yo"), m.Var("yi")
    inp = m.ImageParam(m.UInt(16), 2, "input")
    c = m.BoundaryConditions.repeat_edge(inp)
    bx, by = m.Func("bx"), m.Func("by")
    bx[x, y] = (c[x - 1, y] + c[x, y] + c[x + 1, y]) // 3
    by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) // 3
    if schedule:
        bx.compute_root().vectorize(x, 16).parallel(y)
        by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 16)
    return by, [inp]


def stencil(m, schedule=True):
    """No boundary condition (the input must cover the halo); tile, reorder, unroll; a float Param."""
    x, y, xo, yo, xi, yi = (m.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))
    inp, k = m.ImageParam(m.Float(32), 2, "input"), m.Param(m.Float(32), "k")
    g, f = m.Func("g"), m.Func("f")
    g[x, y] = inp[x - 1, y] * k + inp[x + 2, y + 1]
    f[x, y] = g[x, y] - g[x + 1, y - 1] * 0.5
    if schedule:
        g.compute_root()
        f.tile(x, y, xo, yo, xi, yi, 16, 4).reorder(xi, yi, xo, yo).vectorize(xi, 8).unroll(yi).parallel(yo)
    return f, [inp, k]


def exterior(m, schedule=True):
    """constant_exterior (a select on the input's runtime bounds) and input.width()."""
    x, y = m.Var("x"), m.Var("y")
    inp = m.ImageParam(m.Int(16), 2, "input")
    c = m.BoundaryConditions.constant_exterior(inp, 7)
    f = m.Func("ext")
    f[x, y] = c[x - 2, y + 1] * 3 + c[x + 1, y - 1] + m.i16(inp.width())
    if schedule:
        f.vectorize(x, 32)
    return f, [inp]


def mirrors(m, schedule=True):
    """mirror_image, mirror_interior and repeat_image: coordinates reflected or wrapped into the input."""
    x, y = m.Var("x"), m.Var("y")
    inp = m.ImageParam(m.Float(32), 2, "input")
    a = m.BoundaryConditions.mirror_image(inp)
    b = m.BoundaryConditions.mirror_interior(inp)
    c = m.BoundaryConditions.repeat_image(inp)
    f = m.Func("mir")
    f[x, y] = a[x - 2, y + 1] + b[x + 3, y - 2] * 2 + c[x - 1, y + 2] * 3
    if schedule:
        f.vectorize(x, 8).parallel(y)
    return f, [inp]


def ramp(m, schedule=True):
    x = m.Var("x")
    f = m.Func("f")
    f[x] = 100 * x
    return f, []


def volume(m, schedule=True):
    x, y, z = m.Var("x"), m.Var("y"), m.Var("z")
    inp, s = m.ImageParam(m.Int(8), 3, "input"), m.Param(m.Int(8), "s")
    f = m.Func("vol")
    f[x, y, z] = inp[x, y, z] + s + 1
    return f, [inp, s]


def reference(make, arrays, params, shape, out_mins, in_mins, dtype):
    """Real Halide's JIT on the same algorithm (unscheduled: Halide's ShiftInwards tails refuse outputs smaller than
    a split factor, which ours computes), output region ``shape`` (numpy order) at ``out_mins``."""
    f, args = make(halide, schedule=False)
    arrays = [np.ascontiguousarray(a) for a in arrays]  # (kept alive: halide.Buffer does not own them)
    images, values = iter(arrays), iter(params)
    for a, mins in zip([a for a in args if isinstance(a, halide.ImageParam)], in_mins):
        b = halide.Buffer(next(images))
        b.set_min(list(mins))
        a.set(b)
    for a in args:
        if not isinstance(a, halide.ImageParam):
            a.set(next(values))
    out = halide.Buffer(np.zeros(shape, dtype))
    out.set_min(list(out_mins))
    f.realize(out)
    return np.asarray(out)


SIZES = [(1, 1), (13, 17), (48, 64), (7, 130)]


@pytest.mark.parametrize("make,dtype,halo", [(brighten, np.uint8, (0, 0, 0, 0)), (blur3, np.uint16, None),
                                             (stencil, np.float32, (1, 1, 1, 3)), (exterior, np.int16, None),
                                             (mirrors, np.float32, None)])
def test_any_size_matches_halide(tmp_path, make, dtype, halo):
    f, args = make(hl)
    fn = library(tmp_path, f, args, make.__name__)
    rng = np.random.default_rng(1)
    params = {brighten: [23], stencil: [1.5]}.get(make, [])
    cparams = {brighten: [ctypes.c_uint8(23)], stencil: [ctypes.c_float(1.5)]}.get(make, [])
    lo_y, hi_y, lo_x, hi_x = halo or (0, 0, 0, 0)
    cases = [(h, w, (0, 0), False) for h, w in SIZES] + [(9, 21, (-3, 5), False), (33, 40, (2, -1), True)]
    for h, w, (mx, my), crop in cases:
        ih, iw = h + lo_y + hi_y, w + lo_x + hi_x
        if crop:  # a crop of a bigger buffer: non-dense strides
            big = rng.integers(-500, 500, (ih + 9, iw + 13)).astype(dtype)
            a = big[4:4 + ih, 5:5 + iw]
        else:
            a = rng.integers(-500, 500, (ih, iw)).astype(dtype)
        in_mins = (mx - lo_x, my - lo_y)
        out = np.zeros((h, w), dtype)
        assert fn(ctypes.byref(hbuf(a, in_mins)), *cparams, ctypes.byref(hbuf(out, (mx, my)))) == 0
        want = reference(make, [a], params, (h, w), (mx, my), [in_mins], dtype)
        np.testing.assert_array_equal(out, want, err_msg=f"{make.__name__} {h}x{w} at {mx},{my}")


def test_innermost_stride_not_one_is_copied(tmp_path):
    f, args = brighten(hl)
    fn = library(tmp_path, f, args, "bs")
    a = (np.arange(20 * 30) % 251).astype(np.uint8).reshape(20, 30)
    view = a[:, ::2]  # Halide dim 0 stride 2
    out = np.zeros((20, 15), np.uint8)
    assert fn(ctypes.byref(hbuf(view)), ctypes.c_uint8(9), ctypes.byref(hbuf(out))) == 0
    np.testing.assert_array_equal(out, view + 9)
    out_t = np.zeros((15, 20), np.uint8).T  # an output whose dim 0 stride is not 1
    assert fn(ctypes.byref(hbuf(view.T.copy().T)), ctypes.c_uint8(9), ctypes.byref(hbuf(out_t))) == 0
    np.testing.assert_array_equal(out_t, view + 9)


def test_no_inputs_and_3d(tmp_path):
    f, args = ramp(hl)
    fn = library(tmp_path, f, args, "ramp")
    for n, m in [(1, 0), (37, -5), (1000, 3)]:
        out = np.zeros(n, np.int32)
        assert fn(ctypes.byref(hbuf(out, (m,)))) == 0
        np.testing.assert_array_equal(out, 100 * np.arange(m, m + n))
    f, args = volume(hl)
    fn = library(tmp_path, f, args, "vol")
    a = np.random.default_rng(2).integers(-100, 100, (3, 5, 19)).astype(np.int8)
    out = np.zeros((3, 5, 19), np.int8)
    assert fn(ctypes.byref(hbuf(a)), ctypes.c_int8(-4), ctypes.byref(hbuf(out))) == 0
    np.testing.assert_array_equal(out, reference(volume, [a], [-4], a.shape, (0, 0, 0), [(0, 0, 0)], np.int8))


def test_bounds_query_and_too_small_input(tmp_path):
    f, args = stencil(hl)
    fn = library(tmp_path, f, args, "st")
    out = np.zeros((10, 20), np.float32)
    q = hbuf(np.zeros((1, 1), np.float32))
    q.host = None
    assert fn(ctypes.byref(q), ctypes.c_float(1), ctypes.byref(hbuf(out, (3, 4)))) == 0
    # g is read at x..x+1, y-1..y; the input at x-1..x+2, y..y+1 of g's: x in [2, 25], y in [3, 14]
    assert [(q.dim[d].min, q.dim[d].extent, q.dim[d].stride) for d in range(2)] == [(2, 24, 1), (3, 12, 24)]
    small = np.zeros((12, 22), np.float32)
    ERRORS.clear()
    assert fn(ctypes.byref(hbuf(small, (2, 3))), ctypes.c_float(1), ctypes.byref(hbuf(out, (3, 4)))) == -4
    assert ERRORS == ["Input buffer input is accessed at 25, which is beyond the max (23) in dimension 0"]


def test_c_program_two_sizes_and_bad_call(tmp_path):
    """A C program calls an any-size static library at two sizes and with a too-small input (-4 through the
    error handler)."""
    f, args = blur3(hl)
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.UInt(16), 2, "input")
    g = hl.Func("g")
    g[x, y] = inp[x - 1, y] + inp[x + 1, y + 2]
    g.vectorize(x, 8)
    f.compile_to_static_library(str(tmp_path / "blur3"), args, "blur3")
    g.compile_to_static_library(str(tmp_path / "halo"), [inp], "halo")
    exe = str(tmp_path / "sizes")
    r = subprocess.run([os.environ.get("CC", "cc"), os.path.join(C_DIR, "aot_any_size.c"), str(tmp_path / "blur3.a"),
                        str(tmp_path / "halo.a"), "-I", str(tmp_path), "-o", exe, "-lpthread", "-ldl", "-lm"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([exe, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1].startswith("too_small -4 1 Input buffer input is accessed at"), lines
    for k, (w, h) in enumerate([(31, 7), (640, 480)]):
        a = ((np.arange(w * h) * 7919) % 65521).astype(np.uint16).reshape(h, w)
        got = np.fromfile(tmp_path / f"out{k}.bin", np.uint16).reshape(h, w)
        np.testing.assert_array_equal(got, reference(blur3, [a], [], (h, w), (0, 0), [(0, 0)], np.uint16))


def rdom_updates(m, schedule=True):
    """Updates over an RDom of constant bounds (a 3x2 weighted window of a compute_root Func) and a pure update."""
    inp, k = m.ImageParam(m.Float(32), 2, "input"), m.Param(m.Float(32), "k")
    x, y = m.Var("x"), m.Var("y")
    r = m.RDom([(-1, 3), (0, 2)], "r")
    g, f = m.Func("g"), m.Func("f")
    g[x, y] = inp[x, y] * k
    f[x, y] = 0.5
    f[x, y] += g[x + r.x, y + r.y] * m.f32(r.x + 2 * r.y)
    f[x, y] = f[x, y] * 2 + inp[x, y]
    if schedule:
        g.compute_root().vectorize(x, 8)
        f.vectorize(x, 16).parallel(y)
        f.update(0).vectorize(x, 16).parallel(y)
        f.update(1).vectorize(x, 8)
    return f, [inp, k]


def test_updates_over_constant_rdoms(tmp_path):
    f, args = rdom_updates(hl)
    fn = library(tmp_path, f, args, "upd")
    rng = np.random.default_rng(5)
    for h, w, crop in [(1, 1, False), (13, 17, False), (40, 70, True)]:
        big = rng.standard_normal((h + 4, w + 6)).astype(np.float32)
        a = big[1:h + 2, 3:w + 5] if crop else big[:h + 1, :w + 2]  # x in [-1, w], y in [0, h]
        out = np.zeros((h, w), np.float32)
        assert fn(ctypes.byref(hbuf(a, (-1, 0))), ctypes.c_float(1.5), ctypes.byref(hbuf(out))) == 0
        want = reference(rdom_updates, [a], [1.5], (h, w), (0, 0), [(-1, 0)], np.float32)
        np.testing.assert_array_equal(out, want)
    small = np.zeros((4, 5), np.float32)
    out = np.zeros((4, 4), np.float32)
    ERRORS.clear()
    assert fn(ctypes.byref(hbuf(small, (-1, 0))), ctypes.c_float(1.5), ctypes.byref(hbuf(out))) == -4
    assert ERRORS == ["Input buffer input is accessed at 4, which is beyond the max (3) in dimension 0"]


def test_outside_the_class_is_refused():
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    f = hl.Func("f")
    f[x, y] = inp[x, y]
    f[x, 0] = f[x, 0] + 1
    with pytest.raises(hl.HalideError, match="update of Func 'f' at coordinates other than its pure Vars.*estimates"):
        f.compile_to_static_library("/nonexistent/f", [inp], "f")
    g = hl.Func("g")
    g[x, y] = inp[x * 2, y]
    with pytest.raises(hl.HalideError, match="sizes known only at run time"):
        g.compile_to_static_library("/nonexistent/g", [inp], "g")
    k = hl.Func("k")
    k[x, y] = inp[x, y] + 1
    h0 = hl.Func("h0")
    h0[x, y] = k[x, y] * 2
    k.compute_root().fold_storage(y, 4)
    with pytest.raises(hl.HalideError, match="fold_storage of Func 'k'"):
        h0.compile_to_static_library("/nonexistent/h0", [inp], "h0")
    k1, h1 = hl.Func("k1"), hl.Func("h1")
    k1[x, y] = inp[x, y] + 1
    h1[x, y] = k1[x, y] * 2
    k1.compute_root().store_in(hl.MemoryType.Register)  # (Halide: "Was unable to infer constant upper bound")
    with pytest.raises(hl.HalideError, match=r"store_in\(MemoryType.Register\) of Func 'k1'"):
        h1.compile_to_static_library("/nonexistent/h1", [inp], "h1")
    h = hl.Func("h")
    h[x, y] = inp[x, y]
    h.vectorize(x)
    with pytest.raises(hl.HalideError, match="needs a constant extent"):
        h.compile_to_static_library("/nonexistent/h", [inp], "h")


# --- generators without estimates (as Halide's test and app generators), through hl.main ---------------------


def generators(m):
    x, y, z = m.Var("x"), m.Var("y"), m.Var("z")

    class Adder:
        c8 = m.InputScalar(m.Int(8))
        c32 = m.InputScalar(m.Int(32))
        cf = m.InputScalar(m.Float(64))
        in1 = m.InputBuffer(m.UInt(16), 1)
        in2 = m.InputBuffer(m.Float(64), 1)
        in3 = m.InputBuffer(m.Int(8), 3)
        out1 = m.OutputBuffer(m.UInt(16), 1)
        out2 = m.OutputBuffer(m.Float(64), 1)
        out3 = m.OutputBuffer(m.Int(8), 3)

        def generate(self):
            self.add_requirement(self.c32 > 0, "c32 must be positive", self.c32)
            self.out1[x] = self.in1[x] + m.u16(self.c32)
            self.out2[x] = self.in2[x] + self.cf
            self.out3[x, y, z] = self.in3[x, y, z] + self.c8

    class Bits:
        bin_ = m.InputBuffer(m.Bool(), 1)
        bc = m.InputScalar(m.Bool())
        bout = m.OutputBuffer(m.Bool(), 1)

        def generate(self):
            self.bout[x] = self.bin_[x] | self.bc

    class Ident:
        output = m.OutputBuffer(m.Int(32), 1)

        def generate(self):
            self.output[x] = x

    class Blur:
        input_buf = m.InputBuffer(m.UInt(16), 2)
        blur_y = m.OutputBuffer(m.UInt(16), 2)

        def generate(self):
            yi = m.Var("yi")
            c = m.BoundaryConditions.repeat_edge(self.input_buf)
            bx = m.Func("blur_x")
            bx[x, y] = (c[x, y] + c[x + 1, y] + c[x + 2, y]) // 3
            self.blur_y[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) // 3
            vs = self.natural_vector_size(self.input_buf.type())
            self.blur_y.split(y, y, yi, 32).parallel(y).vectorize(x, vs)
            bx.store_at(self.blur_y, y).compute_at(self.blur_y, x).vectorize(x, vs)

    class Simple:
        offset = m.GeneratorParam(3)
        buffer_input = m.InputBuffer(m.UInt(8), 2)
        float_arg = m.InputScalar(float)
        simple_output = m.OutputBuffer(m.Float(32), 2)

        def generate(self):
            self.simple_output[x, y] = m.f32(self.offset + self.buffer_input[x, y]) + self.float_arg
            self.simple_output.compute_root()

    out = {}
    for name, cls in (("any_adder", Adder), ("any_bits", Bits), ("any_ident", Ident), ("any_blur", Blur),
                      ("any_simple", Simple)):
        try:
            out[name] = m.generator(name=name)(cls)
        except Exception:  # (registered already by an earlier test in this process)
            out[name] = cls
    return out


def test_generators_without_estimates(tmp_path):
    generators(hl)
    theirs = generators(halide)

    def ref_callable(name):
        with halide.GeneratorContext(halide.Target("host")):
            return theirs[name]().compile_to_callable()
    sys.path.insert(0, str(tmp_path))
    rng = np.random.default_rng(3)
    try:
        mods = {}
        for name in ("any_adder", "any_bits", "any_ident", "any_blur", "any_simple"):
            with pytest.warns(Warning) if name == "any_blur" else _nothing():
                hl.main(["gen", "-g", name, "-o", str(tmp_path), "-e", "static_library,c_header,python_extension",
                         "target=host"])
            hl.aot.build_python_extension(str(tmp_path / f"{name}.py.cpp"), str(tmp_path / f"{name}.a"),
                                          str(tmp_path))
            mods[name] = importlib.import_module(name)
        for n in (1, 5, 67):
            i1 = rng.integers(0, 60000, n).astype(np.uint16)
            i2 = rng.standard_normal(n)
            i3 = rng.integers(-100, 100, (2, 3, n)).astype(np.int8)
            o1, o2, o3 = np.zeros_like(i1), np.zeros_like(i2), np.zeros_like(i3)
            mods["any_adder"].any_adder(-3, 7, 0.25, i1, i2, i3, o1, o2, o3)
            ref = ref_callable("any_adder")
            r1, r2, r3 = np.zeros_like(i1), np.zeros_like(i2), np.zeros_like(i3)
            ref(-3, 7, 0.25, i1, i2, i3, r1, r2, r3)
            for a, b in ((o1, r1), (o2, r2), (o3, r3)):
                np.testing.assert_array_equal(a, b)
            bi = rng.integers(0, 2, n).astype(np.bool_)
            bo, br = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
            mods["any_bits"].any_bits(bi, False, bo)
            ref_callable("any_bits")(bi, False, br)
            np.testing.assert_array_equal(bo, br)
            si = rng.integers(0, 255, (n + 3, n)).astype(np.uint8)[1:, :]  # (a crop: non-dense rows)
            so, sr = np.zeros(si.shape, np.float32), np.zeros(si.shape, np.float32)
            mods["any_simple"].any_simple(si, 0.5, so)
            ref_callable("any_simple")(si, 0.5, sr)
            np.testing.assert_array_equal(so, sr)
            io = np.zeros(n, np.int32)
            mods["any_ident"].any_ident(io)
            np.testing.assert_array_equal(io, np.arange(n))
        with pytest.raises(RuntimeError, match="-27"):
            mods["any_adder"].any_adder(0, -7, 0.25, i1, i2, i3, o1, o2, o3)
        for h, w in [(1, 1), (31, 45), (100, 129)]:
            a = rng.integers(0, 65535, (h + 2, w + 2)).astype(np.uint16)
            crop = a[1:, 2:]
            for src in (a, crop):
                out = np.zeros((h, w), np.uint16)
                mods["any_blur"].any_blur(src, out)
                np.testing.assert_array_equal(out, _blur_reference(src, h, w))
    finally:
        sys.path.remove(str(tmp_path))


def _blur_reference(src, h, w):
    """The generator's blur in real Halide, unscheduled (its schedule's ShiftInwards tails refuse outputs smaller
    than 32 rows or a vector)."""
    x, y = halide.Var("x"), halide.Var("y")
    src = np.ascontiguousarray(src)  # (kept alive: halide.Buffer does not own the array)
    c = halide.BoundaryConditions.repeat_edge(halide.Buffer(src))
    bx, by = halide.Func("bx"), halide.Func("by")
    bx[x, y] = (c[x, y] + c[x + 1, y] + c[x + 2, y]) // 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) // 3
    return np.asarray(by.realize([w, h]))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_estimates_keep_the_fixed_kernel_and_fall_back_for_other_sizes(tmp_path):
    f, args = blur3(hl)
    f.set_estimates([(0, 64), (0, 48)])
    args[0].set_estimates([(0, 64), (0, 48)])
    fn = library(tmp_path, f, args, "disp")
    symbols = subprocess.run(["nm", str(tmp_path / "disp.so")], capture_output=True, text=True).stdout
    assert "__hl_disp_kernel_ciface" in symbols and "__hl_disp_any_kernel_ciface" in symbols
    rng = np.random.default_rng(4)
    for h, w in [(48, 64), (30, 100), (1, 1)]:  # the compiled region, then others (Halide's -8 before)
        a = rng.integers(0, 60000, (h, w)).astype(np.uint16)
        out = np.zeros((h, w), np.uint16)
        assert fn(ctypes.byref(hbuf(a)), ctypes.byref(hbuf(out))) == 0
        np.testing.assert_array_equal(out, reference(blur3, [a], [], (h, w), (0, 0), [(0, 0)], np.uint16))


def test_two_outputs_bounds_query_is_the_union(tmp_path):
    """A Pipeline of two outputs compiled for any size: each output's part reads the input at its own offsets; a
    bounds query answers the union of the regions, and the outputs match Halide."""
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.Int(16), 2, "input")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = inp[x - 2, y] + 1
    g[x, y] = inp[x + 3, y + 1] * 2
    f.vectorize(x, 8)
    obj = tmp_path / "two.o"
    hl.aot.compile_to(hl.Pipeline([f, g]), {hl.OutputFileType.object: str(obj)}, [inp], "two")  # (as a Generator)
    r = subprocess.run([os.environ.get("CC", "cc"), "-shared", str(obj), "-o", str(tmp_path / "two.so"), "-lpthread",
                        "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    fn = ctypes.CDLL(str(tmp_path / "two.so")).two
    of, og = np.zeros((5, 10), np.int16), np.zeros((5, 10), np.int16)
    q = hbuf(np.zeros((1, 1), np.int16))
    q.host = None
    assert fn(ctypes.byref(q), ctypes.byref(hbuf(of)), ctypes.byref(hbuf(og))) == 0
    assert [(q.dim[d].min, q.dim[d].extent, q.dim[d].stride) for d in range(2)] == [(-2, 15, 1), (0, 6, 15)]
    a = np.arange(6 * 15, dtype=np.int16).reshape(6, 15)
    assert fn(ctypes.byref(hbuf(a, (-2, 0))), ctypes.byref(hbuf(of)), ctypes.byref(hbuf(og))) == 0
    np.testing.assert_array_equal(of, a[:5, 0:10] + 1)
    np.testing.assert_array_equal(og, a[1:6, 5:15] * 2)
