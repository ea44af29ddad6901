"""Ahead-of-time compilation with Halide's C ABI (halide_mlir/aot): static libraries called from C programs
(test/c/), linked with Halide's link line and checked against the JIT; bad calls return Halide's error codes."""
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

import halide_mlir as hl

C_DIR = os.path.join(os.path.dirname(__file__), os.pardir, "c")
W, H = 64, 48

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")


def inputs():
    y, x = np.mgrid[0:H, 0:W]
    return (x * 7 + y * 13).astype(np.uint8), (((x * 3 + y * 5) % 17) * 0.25).astype(np.float32)


def brighten():
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    offset = hl.Param(hl.UInt(8), "offset")
    f = hl.Func("brighten")
    f[x, y] = inp[x, y] + offset
    f.vectorize(x, 16)
    f.set_estimates([(0, W), (0, H)])
    inp.set_estimates([(0, W), (0, H)])
    return f, [inp, offset]


def blur():
    x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    bx, by = hl.Func("bx"), hl.Func("by")
    bx[x, y] = clamped[x - 1, y] + clamped[x, y] + clamped[x + 1, y]
    by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 9
    by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8)
    bx.compute_at(by, yo).vectorize(x, 8)
    by.set_estimates([(0, W), (0, H)])
    inp.set_estimates([(0, W), (0, H)])
    return by, [inp]


def two_outputs():
    x, y = hl.Var("x"), hl.Var("y")
    a = hl.ImageParam(hl.UInt(8), 2, "a")
    b = hl.ImageParam(hl.Float(32), 2, "b")
    k = hl.Param(hl.Int(32), "k")
    f = hl.Func("two")
    f[x, y] = (hl.i32(a[x, y]) * k, b[x, y] + 1)
    f.set_estimates([(0, W), (0, H)])
    a.set_estimates([(0, W), (0, H)])
    b.set_estimates([(0, W), (0, H)])
    return f, [a, b, k]


def jit(make, inputs, params):
    f, args = make()
    images = iter(inputs)
    values = iter(params)
    for a in args:
        if isinstance(a, hl.ImageParam):
            a.set(hl.Buffer(next(images)))
        else:
            a.set(next(values))
    out = f.realize([W, H])
    return [np.asarray(o) for o in out] if isinstance(out, hl.Realization) else [np.asarray(out)]


def cc(*argv):
    r = subprocess.run([os.environ.get("CC", "cc"), *argv], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    d = tmp_path_factory.mktemp("aot")
    for name, make in (("brighten", brighten), ("blur", blur), ("two_outputs", two_outputs)):
        f, args = make()
        f.compile_to_static_library(str(d / name), args, name)
    return d


def test_static_libraries_match_the_jit(libraries):
    d = libraries
    exe = str(d / "pipelines")
    cc(os.path.join(C_DIR, "aot_pipelines.c"), str(d / "brighten.a"), str(d / "blur.a"), str(d / "two_outputs.a"),
       "-I", str(d), "-o", exe, "-lpthread", "-ldl", "-lm")
    r = subprocess.run([exe, str(d)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    u8, f32 = inputs()

    def load(name, dtype):
        return np.fromfile(d / f"{name}.bin", dtype=dtype).reshape(H, W)

    want = jit(brighten, [u8], [20])[0]
    np.testing.assert_array_equal(load("brighten", np.uint8), want)
    np.testing.assert_array_equal(load("brighten_crop", np.uint8), want)
    np.testing.assert_array_equal(load("brighten_argv", np.uint8), want)
    want = jit(blur, [f32], [])[0]
    np.testing.assert_array_equal(load("blur", np.float32), want)
    np.testing.assert_array_equal(load("blur3", np.float32), want)
    a, b = jit(two_outputs, [u8, f32], [3])
    np.testing.assert_array_equal(load("two_a", np.int32), a)
    np.testing.assert_array_equal(load("two_b", np.float32), b)


def test_bad_calls_return_error_codes(libraries):
    d = libraries
    exe = str(d / "bad_calls")
    cc(os.path.join(C_DIR, "aot_bad_calls.c"), str(d / "brighten.a"), "-I", str(d), "-o", exe,
       "-lpthread", "-ldl", "-lm")
    r = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = {line.split()[0]: line.split(maxsplit=3)[1:] for line in r.stdout.splitlines()}
    expected = {"wrong_dims": (-43, "requires a buffer of exactly 2 dimensions, but the buffer passed in has 3"),
                "too_small": (-4, "Input buffer input is accessed at 63, which is beyond the max (62) in dimension 0"),
                "shifted": (-4, "Input buffer input is accessed at 0, which is before the min (1) in dimension 0"),
                "wrong_type": (-3, "Input buffer input has type uint8 but type of the buffer passed in is float32"),
                "null_buffer": (-12, "Buffer argument input is NULL"),
                # another output size runs the any-size fallback, which finds the input too small (as Halide's)
                "output_region": (-4, "Input buffer input is accessed at 64, which is beyond the max (63) in dim"),
                "output_type": (-3, "Output buffer brighten has type uint8")}
    for case, (code, message) in expected.items():
        got_code, handler_calls, text = lines[case]
        assert (int(got_code), int(handler_calls)) == (code, 1), (case, lines[case])
        assert message in text, (case, text)
    assert lines["bounds_query"] == ["0", "0", "0 64 0 48 64"]
    assert lines["good"] == ["0", "0"]


def test_compile_to_outputs(tmp_path):
    f, args = brighten()
    outputs = {hl.OutputFileType.object: tmp_path / "b.o", hl.OutputFileType.assembly: tmp_path / "b.s",
               hl.OutputFileType.llvm_assembly: tmp_path / "b.ll", hl.OutputFileType.bitcode: tmp_path / "b.bc",
               hl.OutputFileType.stmt: tmp_path / "b.stmt", hl.OutputFileType.c_header: tmp_path / "b.h"}
    f.compile_to(outputs, args, "bright")
    for path in outputs.values():
        assert os.path.getsize(path) > 0
    assert "define void @__hl_bright_kernel(" in (tmp_path / "b.ll").read_text()
    assert "scf.for" in (tmp_path / "b.stmt").read_text() or "vector" in (tmp_path / "b.stmt").read_text()
    assert "bright:" in (tmp_path / "b.s").read_text()
    assert [a.name for a in f.infer_arguments()] == ["input", "offset"]
    f.compile_to_file(str(tmp_path / "file"), args, "bright2")
    assert os.path.exists(tmp_path / "file.o") and os.path.exists(tmp_path / "file.h")
    f.compile_to_lowered_stmt(str(tmp_path / "s.html"), args, hl.StmtOutputFormat.html)
    assert (tmp_path / "s.html").read_text().startswith("<!DOCTYPE html>")


def test_aot_errors():
    x = hl.Var("x")
    inp = hl.ImageParam(hl.UInt(8), 1, "input")
    p = hl.Param(hl.Int(32), "p")
    f = hl.Func("f")
    f[x] = inp[x] + hl.u8(p)
    # without estimates: a function for any size (test_aot_any_size.py), after the same argument checks
    with pytest.raises(hl.HalideError, match="refers to parameter p, which was not found in the argument list"):
        f.compile_to_static_library("/nonexistent/f", [inp], "f")
    f.set_estimates([(0, 16)])
    with pytest.raises(hl.HalideError, match="refers to parameter p, which was not found in the argument list"):
        f.compile_to_static_library("/nonexistent/f", [inp], "f")
    inp.set_estimates([(0, 16)])
    with pytest.raises(hl.HalideError, match="target 'riscv-64-linux'"):  # (arm-64-linux: test_aot_cross.py)
        f.compile_to_static_library("/nonexistent/f", [inp, p], "f", hl.Target("riscv-64-linux"))


class _Dim(ctypes.Structure):
    _fields_ = [("min", ctypes.c_int32), ("extent", ctypes.c_int32), ("stride", ctypes.c_int32),
                ("flags", ctypes.c_uint32)]


class _Buf(ctypes.Structure):   # struct halide_buffer_t
    _fields_ = [("device", ctypes.c_uint64), ("device_interface", ctypes.c_void_p), ("host", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("dimensions", ctypes.c_int32), ("dim", ctypes.POINTER(_Dim)),
                ("padding", ctypes.c_void_p)]


def halide_buffer(a: np.ndarray, mins=None):
    """A halide_buffer_t over numpy array ``a`` (Halide's dimension 0 is numpy's last axis) with ``mins``."""
    mins = mins or (0,) * a.ndim
    dims = (_Dim * a.ndim)(*[_Dim(m, n, s // a.itemsize, 0)
                             for m, n, s in zip(mins, reversed(a.shape), reversed(a.strides))])
    code = 1 if a.dtype == np.bool_ else {"i": 0, "u": 1, "f": 2}[a.dtype.kind]
    bits = 1 if a.dtype == np.bool_ else a.itemsize * 8
    b = _Buf(0, None, a.ctypes.data, 0, code, bits, 1, a.ndim, dims, None)
    b.keep = (a, dims)
    return b


def shared_library(tmp_path, f, args, fn_name):
    """``f`` compiled to an object, linked into a shared library loaded with ctypes (static libraries can't be)."""
    f.compile_to_object(str(tmp_path / f"{fn_name}.o"), args, fn_name)
    cc("-shared", str(tmp_path / f"{fn_name}.o"), "-o", str(tmp_path / f"{fn_name}.so"), "-lpthread", "-lm")
    return ctypes.CDLL(str(tmp_path / f"{fn_name}.so"))


def test_pipeline_with_a_compiled_in_buffer(tmp_path):
    """A Buffer the pipeline reads (a lookup table) is compiled into the object, as in Halide."""
    x, y = hl.Var("x"), hl.Var("y")
    lut = hl.Buffer(((np.arange(256) * 37) % 251).astype(np.uint16), name="lut")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    f = hl.Func("mapped")
    f[x, y] = lut[hl.i32(inp[x, y])] + hl.u16(y)
    f.set_estimates([(0, 32), (0, 8)])
    inp.set_estimates([(0, 32), (0, 8)])
    lib = shared_library(tmp_path, hl.Pipeline(f), [inp], "mapped")
    a = (np.arange(32 * 8) * 11 % 256).astype(np.uint8).reshape(8, 32)
    out = np.zeros((8, 32), np.uint16)
    assert lib.mapped(ctypes.byref(halide_buffer(a)), ctypes.byref(halide_buffer(out))) == 0
    inp.set(hl.Buffer(a))
    np.testing.assert_array_equal(out, np.asarray(f.realize([32, 8])))


def test_pipeline_of_two_funcs_through_pipeline_methods(tmp_path):
    """hl.Pipeline([f, g]).compile_to_* writes one function with both outputs, as Halide's (it refused before)."""
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    f, g = hl.Func("pf"), hl.Func("pg")
    f[x, y] = hl.u16(inp[x, y]) * 3
    g[x, y] = hl.f32(inp[x, y]) * 0.5
    for h in (f, g):
        h.set_estimates([(0, 32), (0, 8)])
    inp.set_estimates([(0, 32), (0, 8)])
    p = hl.Pipeline([f, g])
    p.compile_to_header(str(tmp_path / "two_funcs.h"), [inp], "two_funcs")
    assert "two_funcs(struct halide_buffer_t *_input_buffer" in (tmp_path / "two_funcs.h").read_text()
    p.compile_to_object(str(tmp_path / "two_funcs.o"), [inp], "two_funcs")
    cc("-shared", str(tmp_path / "two_funcs.o"), "-o", str(tmp_path / "two_funcs.so"), "-lpthread", "-lm")
    lib = ctypes.CDLL(str(tmp_path / "two_funcs.so"))
    a = (np.arange(32 * 8) * 7 % 256).astype(np.uint8).reshape(8, 32)
    o1, o2 = np.zeros((8, 32), np.uint16), np.zeros((8, 32), np.float32)
    bufs = [halide_buffer(v) for v in (a, o1, o2)]
    assert lib.two_funcs(*[ctypes.byref(b) for b in bufs]) == 0
    inp.set(hl.Buffer(a))
    r = p.realize([32, 8])
    np.testing.assert_array_equal(o1, np.asarray(r[0]))
    np.testing.assert_array_equal(o2, np.asarray(r[1]))
