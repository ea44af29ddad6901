"""Any-size AOT functions whose inputs and Funcs are read transposed, flipped (``c - x``) or at constants (issue 17,
lesson 15's ``my_second_generator`` with ``rotation=ccw``): a required region comes from another output dim, min
and max swapped by a flip. Checked against real Halide 21 at odd sizes, nonzero mins and crops, through ctypes and the
Python extension; too-small inputs get Halide's -4, bounds queries the region."""
import ctypes
import importlib
import subprocess
import sys

import numpy as np
import pytest

import halide_mlir as hl

halide = pytest.importorskip("halide")

from test_aot import halide_buffer as hbuf  # noqa: E402 (test_aot_any_size skips without a C compiler)
from test_aot_any_size import _HANDLER, ERRORS, library, reference  # noqa: E402


def transpose(m, schedule=True):
    x, y = m.Var("x"), m.Var("y")
    inp = m.ImageParam(m.UInt(8), 2, "input")
    f = m.Func("tr")
    f[x, y] = inp[y, x] + m.u8(x)
    if schedule:
        f.vectorize(x, 16).parallel(y)
    return f, [inp]


def flips(m, schedule=True):
    """Two reads of one input, one flipped in y, one in x (the region is the union of both), and a compute_root
    Func that reads it flipped (its region from the output's)."""
    x, y = m.Var("x"), m.Var("y")
    inp = m.ImageParam(m.Int(16), 2, "input")
    g, f = m.Func("g"), m.Func("fl")
    g[x, y] = inp[x, 50 - y] * 2 - inp[7 - x, y]
    f[x, y] = g[x, y] + g[x + 1, y - 1]
    if schedule:
        g.compute_root().vectorize(x, 8)
        f.vectorize(x, 16)
    return f, [inp]


def rotations(m, schedule=True):
    """cw and ccw of lesson 15 in one Func, a Param, and a 3-D input read at a constant channel."""
    x, y = m.Var("x"), m.Var("y")
    inp = m.ImageParam(m.Float(32), 3, "input")
    k = m.Param(m.Float(32), "k")
    f = m.Func("rot")
    f[x, y] = inp[y, 100 - x, 1] * k + inp[100 - y, x, 0]
    if schedule:
        f.vectorize(x, 8).parallel(y)
    return f, [inp, k]


def clamped_transpose(m, schedule=True):
    """A BoundaryConditions Func read transposed and flipped: inlined (clamped gathers), as Halide's."""
    x, y = m.Var("x"), m.Var("y")
    inp = m.ImageParam(m.UInt(16), 2, "input")
    c = m.BoundaryConditions.repeat_edge(inp)
    e = m.BoundaryConditions.mirror_image(inp)
    f = m.Func("ct")
    f[x, y] = c[y - 1, 20 - x] + inp[y, x] * 2 + e[x - 3, y + 1] + c[x, y]
    if schedule:
        f.vectorize(x, 16)
    return f, [inp]


def func_transposes(m, schedule=True):
    """compute_root Funcs read transposed and flipped: one producer read by two consumers along different output
    dims (its region the union), a scheduled BoundaryConditions Func read transposed, a Func read at a constant."""
    x, y = m.Var("x"), m.Var("y")
    inp = m.ImageParam(m.Int(32), 2, "input")
    c = m.BoundaryConditions.repeat_edge(inp)
    g, t, u, f = m.Func("g"), m.Func("t"), m.Func("u"), m.Func("ft")
    g[x, y] = inp[x, y] * 3 + x
    t[x, y] = g[y, x] - g[x + 1, y]
    u[x, y] = g[9 - x, y - 2] + c[y, 4 - x] + t[3, y]
    f[x, y] = t[x, y] * 5 + u[y - 1, 6 - x]
    if schedule:
        c.compute_root()
        g.compute_root().vectorize(x, 8)
        t.compute_root().vectorize(x, 8).parallel(y)
        u.compute_root()
        f.vectorize(x, 8)
    return f, [inp]


def _func_transposes_region(w, h, mx, my):  # real Halide's bounds inference (its region is the same)
    f, args = func_transposes(halide, schedule=False)
    out = halide.Buffer(halide.Int(32), [w, h])
    out.set_min([mx, my])
    f.infer_input_bounds(out)
    b = args[0].get()
    return (b.dim(0).min(), b.dim(1).min()), (b.dim(1).extent(), b.dim(0).extent())


def _transpose_region(w, h, mx, my):  # input (mins, shape in numpy order) of an output w x h at (mx, my)
    return (my, mx), (w, h)


def _flips_region(w, h, mx, my):
    # g over x in [mx, mx + w], y in [my - 1, my + h - 1]; inp dim 0: x and 7 - x, dim 1: 50 - y and y
    x0, x1 = min(mx, 7 - mx - w), max(mx + w, 7 - mx)
    y0, y1 = min(my - 1, 50 - (my + h - 1)), max(my + h - 1, 50 - (my - 1))
    return (x0, y0), (y1 - y0 + 1, x1 - x0 + 1)


def _clamped_region(w, h, mx, my):  # inp[y, x] (the clamped reads need only a nonempty buffer)
    return (my, mx), (w, h)


def _rotations_region(w, h, mx, my):
    # dim 0: y and 100 - y; dim 1: 100 - x and x; dim 2: channels 0 and 1
    x0, x1 = min(my, 100 - (my + h - 1)), max(my + h - 1, 100 - my)
    y0, y1 = min(mx, 100 - (mx + w - 1)), max(mx + w - 1, 100 - mx)
    return (x0, y0, 0), (2, y1 - y0 + 1, x1 - x0 + 1)


CASES = [(1, 1, 0, 0), (13, 17, 0, 0), (37, 29, -3, 5), (64, 48, 40, 60), (5, 130, 2, -1)]


@pytest.mark.parametrize("make,region,dtype,params", [
    (transpose, _transpose_region, np.uint8, []), (flips, _flips_region, np.int16, []),
    (rotations, _rotations_region, np.float32, [1.5]), (clamped_transpose, _clamped_region, np.uint16, []),
    (func_transposes, _func_transposes_region, np.int32, [])])
def test_transposed_and_flipped_reads_match_halide(tmp_path, make, region, dtype, params):
    f, args = make(hl)
    fn = library(tmp_path, f, args, make.__name__)
    cparams = [ctypes.c_float(p) for p in params]
    rng = np.random.default_rng(7)
    for w, h, mx, my in CASES:
        in_mins, shape = region(w, h, mx, my)
        for crop in (False, True):
            if make is func_transposes and not crop:  # our bounds query answers Halide's region
                q = hbuf(np.zeros((1, 1), dtype))
                q.host = None
                assert fn(ctypes.byref(q), *cparams, ctypes.byref(hbuf(np.zeros((h, w), dtype), (mx, my)))) == 0
                assert [(q.dim[d].min, q.dim[d].extent) for d in range(2)] == list(zip(in_mins, reversed(shape)))
            big = rng.integers(-300, 300, tuple(n + 5 for n in shape)).astype(dtype)
            a = big[tuple(slice(2, 2 + n) for n in shape)]  # a crop of a bigger buffer: non-dense strides
            a = a if crop else a.copy()
            out = np.zeros((h, w), dtype)
            assert fn(ctypes.byref(hbuf(a, in_mins)), *cparams, ctypes.byref(hbuf(out, (mx, my)))) == 0
            want = reference(make, [a], params, (h, w), (mx, my), [in_mins], dtype)
            np.testing.assert_array_equal(out, want, err_msg=f"{make.__name__} {w}x{h} at {mx},{my} crop={crop}")


def test_flip_bounds_query_and_too_small_input(tmp_path):
    f, args = flips(hl)
    fn = library(tmp_path, f, args, "flq")
    w, h, mx, my = 9, 4, 3, 10
    out = np.zeros((h, w), np.int16)
    q = hbuf(np.zeros((1, 1), np.int16))
    q.host = None
    assert fn(ctypes.byref(q), ctypes.byref(hbuf(out, (mx, my)))) == 0
    (x0, y0), (ny, nx) = _flips_region(w, h, mx, my)
    # dim 0: x in [3, 12] and 7 - x in [-5, 4]; dim 1: y in [9, 13] and 50 - y in [37, 41]
    assert (x0, nx, y0, ny) == (-5, 18, 9, 33)
    assert [(q.dim[d].min, q.dim[d].extent, q.dim[d].stride) for d in range(2)] == [(-5, 18, 1), (9, 33, 18)]
    a = np.zeros((ny, nx), np.int16)
    ERRORS.clear()
    assert fn(ctypes.byref(hbuf(a[:, 1:], (x0 + 1, y0))), ctypes.byref(hbuf(out, (mx, my)))) == -4
    assert fn(ctypes.byref(hbuf(a[:-1], (x0, y0))), ctypes.byref(hbuf(out, (mx, my)))) == -4
    assert ERRORS == ["Input buffer input is accessed at -5, which is before the min (-4) in dimension 0",
                      "Input buffer input is accessed at 41, which is beyond the max (40) in dimension 1"]


def test_strided_and_two_var_reads_stay_refused():
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    f = hl.Func("f")
    f[x, y] = inp[2 * x, y]
    with pytest.raises(hl.HalideError, match=r"read at '\(2 \* x\)'.*sizes known only at run time"):
        f.compile_to_static_library("/nonexistent/f", [inp], "f")
    g, h = hl.Func("g"), hl.Func("h")
    g[x, y] = inp[x, y] + 1
    h[x, y] = g[x + y, x]
    g.compute_root()
    with pytest.raises(hl.HalideError, match="Func 'g' read at .*only ±var \\+ constant per dimension"):
        h.compile_to_static_library("/nonexistent/h", [inp], "h")
    k = hl.Func("k")
    k[x, y] = inp[x + y, y]
    with pytest.raises(hl.HalideError, match="sizes known only at run time"):
        k.compile_to_static_library("/nonexistent/k", [inp], "k")


# --- lesson 15's my_second_generator, as CMake builds it (python_bindings/tutorial/CMakeLists.txt) ------------

PARAMS = [("l15_1", "parallel=false scale=3.0 rotation=ccw output.type=uint16"),
          ("l15_2", "scale=9.0 rotation=ccw output.type=float32"),
          ("l15_3", "parallel=false output.type=float64"),
          ("l15_cw", "scale=2.0 rotation=cw output.type=int32")]


def rotator(m):
    """The structure of lesson 15's second generator: a brightened input, rotated by a GeneratorParam, cast to the
    output.type param, compute_at the output's rows and vectorized."""
    x, y = m.Var("x"), m.Var("y")

    class Rotator:
        parallel = m.GeneratorParam(True)
        scale = m.GeneratorParam(1.0)
        rotation = m.GeneratorParam("none")
        offset = m.InputScalar(m.UInt(8))
        input_buf = m.InputBuffer(m.UInt(8), 2)
        output = m.OutputBuffer(None, 2)

        def generate(self):
            brighter, rotated = m.Func("brighter"), m.Func("rotated")
            brighter[x, y] = self.scale * (self.input_buf[x, y] + self.offset)
            at = {"none": (x, y), "cw": (y, 100 - x), "ccw": (100 - y, x)}[self.rotation]
            rotated[x, y] = brighter[at]
            self.output[x, y] = m.cast(self.output.type(), rotated[x, y])
            self.output.vectorize(x, self.natural_vector_size(self.output.type()))
            if self.parallel:
                self.output.parallel(y)
            if self.rotation != "none":
                rotated.compute_at(self.output, y).vectorize(x, self.natural_vector_size(rotated.types()[0]))

    try:
        return m.generator(name="any_rotator")(Rotator)
    except Exception:  # (registered already in this process)
        return Rotator


def test_lesson_15_rotations_through_hl_main(tmp_path):
    rotator(hl)
    theirs = rotator(halide)
    sys.path.insert(0, str(tmp_path))
    rng = np.random.default_rng(15)
    try:
        for name, params in PARAMS:
            with pytest.warns(hl.SlowPathWarning) if "rotation" in params else _nothing():
                hl.main(["gen", "-g", "any_rotator", "-f", name, "-o", str(tmp_path), "-e",
                         "object,c_header,python_extension", "target=host", *params.split()])
            r = subprocess.run(["cc", "-shared", str(tmp_path / f"{name}.o"), "-o", str(tmp_path / f"lib{name}.so"),
                                "-lpthread", "-lm"], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            lib = ctypes.CDLL(str(tmp_path / f"lib{name}.so"))
            lib.halide_set_error_handler(_HANDLER)  # (the default handler aborts)
            gp = dict(kv.split("=") for kv in params.split())
            with halide.GeneratorContext(halide.Target("host")):
                ref = theirs(generator_params=gp).compile_to_callable()
            dtype = {"uint16": np.uint16, "float32": np.float32, "float64": np.float64, "int32": np.int32}[
                gp["output.type"]]
            rot = gp.get("rotation", "none")
            for w, h, mx, my in [(37, 5, 0, 0), (33, 21, -4, 7), (64, 1, 90, 99)]:
                if rot == "ccw":  # input dim 0 is 100 - y, dim 1 is x
                    in_mins, shape = (100 - (my + h - 1), mx), (w, h)
                elif rot == "cw":  # input dim 0 is y, dim 1 is 100 - x
                    in_mins, shape = (my, 100 - (mx + w - 1)), (w, h)
                else:
                    in_mins, shape = (mx, my), (h, w)
                a = rng.integers(0, 256, shape).astype(np.uint8)
                out = np.zeros((h, w), dtype)
                fn = getattr(lib, name)
                assert fn(ctypes.c_uint8(11), ctypes.byref(hbuf(a, in_mins)), ctypes.byref(hbuf(out, (mx, my)))) == 0
                ra = halide.Buffer(a)
                ra.set_min(list(in_mins))
                ro = halide.Buffer(np.zeros((h, w), dtype))
                ro.set_min([mx, my])
                ref(11, ra, ro)
                np.testing.assert_array_equal(out, np.asarray(ro), err_msg=f"{name} {w}x{h} at {mx},{my}")
                if rot != "none":  # a too-small input: -4, as Halide's code
                    ERRORS.clear()
                    small = hbuf(a[:, 1:], (in_mins[0] + 1, in_mins[1]))
                    assert fn(ctypes.c_uint8(11), ctypes.byref(small), ctypes.byref(hbuf(out, (mx, my)))) == -4
                    assert "Input buffer input_buf is accessed at" in ERRORS[0], ERRORS
            hl.aot.build_python_extension(str(tmp_path / f"{name}.py.cpp"), str(tmp_path / f"{name}.o"),
                                          str(tmp_path))
            mod = importlib.import_module(name)
            a = rng.integers(0, 256, (101, 101)).astype(np.uint8)
            out, want = np.zeros((71, 45), dtype), np.zeros((71, 45), dtype)
            getattr(mod, name)(11, a, out)
            ref(11, a, want)
            np.testing.assert_array_equal(out, want)
    finally:
        sys.path.remove(str(tmp_path))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
