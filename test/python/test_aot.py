"""Ahead-of-time compilation with Halide's C ABI (halide_mlir/aot): static libraries called from C programs
(test/c/), linked with Halide's link line and checked against the JIT; bad calls return Halide's error codes."""
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
                "output_region": (-8, "Constraint violated: brighten.min.0 (0) == 0 and brighten.extent.0 (65)"),
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
    with pytest.raises(hl.HalideError, match="needs the output's size"):
        f.compile_to_static_library("/nonexistent/f", [inp, p], "f")
    f.set_estimates([(0, 16)])
    with pytest.raises(hl.HalideError, match="refers to parameter p, which was not found in the argument list"):
        f.compile_to_static_library("/nonexistent/f", [inp], "f")
    with pytest.raises(hl.HalideError, match="needs the size of ImageParam 'input'"):
        f.compile_to_static_library("/nonexistent/f", [inp, p], "f")
    inp.set_estimates([(0, 16)])
    with pytest.raises(hl.HalideError, match="target 'arm-64-linux'"):
        f.compile_to_static_library("/nonexistent/f", [inp, p], "f", hl.Target("arm-64-linux"))
