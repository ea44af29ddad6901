"""``compile_to_c`` / ``OutputFileType.c_source`` (halide_mlir/aot/c_source.py): the pipeline as C source through
MLIR's EmitC, compiled by cc (and c++) into the C test program of test_aot.py, checked against the JIT."""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import halide_mlir as hl
from test_aot import C_DIR, H, W, blur, brighten, inputs, jit, two_outputs

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
    assert re.search(r"static void __hl_blur_scalar\(float v\d+\[48\]\[64\], float v\d+\[48\]\[64\]", kernel)
    assert "for (size_t" in kernel and "__m" not in kernel and "__kmpc" not in kernel
    assert "int blur(struct halide_buffer_t *_input_buffer, struct halide_buffer_t *_by_buffer)" in text
