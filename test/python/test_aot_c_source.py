"""``compile_to_c`` / ``OutputFileType.c_source`` (halide_mlir/aot/c_source.py): the pipeline as C source through
MLIR's EmitC, compiled by cc (and c++) into the C test program of test_aot.py, checked against the JIT."""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import halide_mlir as hl
from test_aot import C_DIR, H, W, inputs, jit


# test_aot.py's three pipelines, with other Func names: names are unique per process, and test_aot.py's messages
# expect its Funcs to be the first "brighten" & co
def brighten():
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    offset = hl.Param(hl.UInt(8), "offset")
    f = hl.Func("c_brighten")
    f[x, y] = inp[x, y] + offset
    f.vectorize(x, 16)
    f.set_estimates([(0, W), (0, H)])
    inp.set_estimates([(0, W), (0, H)])
    return f, [inp, offset]


def blur():
    x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    bx, by = hl.Func("c_bx"), hl.Func("c_by")
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
    f = hl.Func("c_two")
    f[x, y] = (hl.i32(a[x, y]) * k, b[x, y] + 1)
    f.set_estimates([(0, W), (0, H)])
    a.set_estimates([(0, W), (0, H)])
    b.set_estimates([(0, W), (0, H)])
    return f, [a, b, k]

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    d = tmp_path_factory.mktemp("c_source")
    for name, make in (("brighten", brighten), ("blur", blur), ("two_outputs", two_outputs)):
        f, args = make()
        with pytest.warns(hl.CSourceWarning, match="vectorize") if name != "two_outputs" else _nothing():
            f.compile_to_c(str(d / f"{name}.c"), args, name)
        f.compile_to_header(str(d / f"{name}.h"), args, name)
    return d


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("compiler", ["cc", "c++"])
def test_c_source_matches_the_jit(sources, compiler, tmp_path):
    d = sources
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    objects = []
    for name in ("brighten", "blur", "two_outputs"):  # each file alone: as C, or as C++ (a .cpp, as Halide names it)
        obj = str(tmp_path / f"{name}.o")
        lang = ["-x", "c++"] if compiler == "c++" else []
        r = subprocess.run([compiler, *lang, "-c", "-O2", "-Wall", "-Werror=implicit-function-declaration",
                            str(d / f"{name}.c"), "-o", obj], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-3000:]
        objects.append(obj)
    exe = str(tmp_path / "pipelines")
    r = subprocess.run(["cc", os.path.join(C_DIR, "aot_pipelines.c"), *objects, "-I", str(d), "-o", exe,
                        "-lpthread", "-lm"] + (["-lstdc++"] if compiler == "c++" else []),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    r = subprocess.run([exe, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    u8, f32 = inputs()

    def load(name, dtype):
        return np.fromfile(tmp_path / f"{name}.bin", dtype=dtype).reshape(H, W)

    want = jit(brighten, [u8], [20])[0]
    for name in ("brighten", "brighten_crop", "brighten_argv"):
        np.testing.assert_array_equal(load(name, np.uint8), want)
    want = jit(blur, [f32], [])[0]
    np.testing.assert_array_equal(load("blur", np.float32), want)
    np.testing.assert_array_equal(load("blur3", np.float32), want)
    a, b = jit(two_outputs, [u8, f32], [3])
    np.testing.assert_array_equal(load("two_a", np.int32), a)
    np.testing.assert_array_equal(load("two_b", np.float32), b)


def test_c_source_is_scalar_emitc_code(sources):
    """Real C from EmitC: the loops of the schedule (blur's bx tile computed at by's yo), no vector types, no
    OpenMP; the stmt of the same pipeline keeps its vectors."""
    text = (sources / "blur.c").read_text()
    kernel = text[text.index("/* --- the kernel"):text.index("/* --- the function")]
    row = r"float \(\*__restrict v\d+\)\[64\]"  # (a float [48][64] array as a pointer to its rows)
    assert re.search(rf"static void __hl_blur_scalar\({row}, {row}", kernel)
    assert "for (size_t" in kernel and "__m" not in kernel and "__kmpc" not in kernel
    assert "int blur(struct halide_buffer_t *_input_buffer, struct halide_buffer_t *_c_by_buffer)" in text


SW, SH = 37, 11  # odd sizes: no loop divides them evenly


def sweep_case(name):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    p = hl.Param(hl.Int(32), "p")
    f = hl.Func(name)
    iw = SW
    if name == "math":  # libm calls (logf, tanhf, atan2f, sqrt of a double ...)
        v = inp[x, y]
        f[x, y] = (hl.exp(v * 0.125) + hl.log(v + 1) + hl.sin(v) + hl.pow(v, 1.5) + hl.floor(v / 3) + hl.sqrt(v)
                   + hl.tanh(v * 0.125) + hl.atan2(v, 3.0) + hl.f32(hl.sqrt(hl.f64(v))))
    elif name == "intdiv":  # Halide's floor division and modulo
        f[x, y] = hl.f32((hl.i32(inp[x, y]) - 20) / 3 + (hl.i32(inp[x, y]) - 20) % 7 + p)
    elif name == "reduce":
        r = hl.RDom([(0, 5)])
        g = hl.Func("g")
        g[x, y] = 0.0
        g[x, y] += inp[x + r.x, y]
        f[x, y] = g[x, y]
        iw = SW + 4
    elif name == "boundary":
        c = hl.BoundaryConditions.mirror_image(inp)
        f[x, y] = c[x - 2, y] + c[x + 2, y + 1] + hl.select(x > 10, 1.0, 2.0)
    elif name == "histogram":
        r = hl.RDom([(0, SW), (0, SH)])
        h = hl.Func("h")
        h[x] = 0
        h[hl.clamp(hl.i32(inp[r.x, r.y]) % 8, 0, 7)] += 1
        f[x, y] = hl.f32(h[x % 8] + y)
    elif name == "saturate":
        f[x, y] = (hl.f32(hl.saturating_cast(hl.UInt(8), inp[x, y] * 20 - 100)) + hl.f32(hl.absd(x, 7))
                   + hl.f32(hl.max(x, y) - hl.min(x, p)))
    elif name == "tiled":  # a producer per tile, vectorized and parallel loops (run scalar and serial in C)
        g = hl.Func("g")
        g[x, y] = inp[x, y] * 2
        f[x, y] = g[x, y] * 3
        xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
        f.tile(x, y, xo, yo, xi, yi, 8, 4).vectorize(xi, 4).parallel(yo)
        g.compute_at(f, xo)
    inp.set_estimates([(0, iw), (0, SH)])
    f.set_estimates([(0, SW), (0, SH)])
    return f, inp, p, iw


@pytest.mark.parametrize("name", ["math", "intdiv", "reduce", "boundary", "histogram", "saturate", "tiled"])
def test_c_source_pipelines(tmp_path, name):
    import ctypes
    import warnings

    from test_aot import halide_buffer

    f, inp, p, iw = sweep_case(name)
    src = str(tmp_path / f"{name}.c")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hl.CSourceWarning)
        f.compile_to_c(src, [inp, p], name)
    so = str(tmp_path / f"{name}.so")
    r = subprocess.run(["cc", "-shared", "-fPIC", "-O1", src, "-o", so, "-lm", "-lpthread"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    lib = ctypes.CDLL(so)
    a = ((np.arange(iw * SH).reshape(SH, iw) * 7) % 23).astype(np.float32)
    out = np.zeros((SH, SW), np.float32)
    assert getattr(lib, name)(ctypes.byref(halide_buffer(a)), ctypes.c_int32(5), ctypes.byref(halide_buffer(out))) == 0
    inp.set(hl.Buffer(a))
    p.set(5)
    want = np.asarray(f.realize([SW, SH]))
    if name == "math":  # libm against the JIT's polynomial exp/log/pow (codegen/math_approx.py)
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-5)
    else:
        np.testing.assert_array_equal(out, want)
