"""compile_to_multitarget_static_library / _object_files: one function per target (Halide's names,
``fn-<target>``) and the wrapper ``fn`` choosing by CPU features, linked and run from C; the symbols compared with
what Halide 21 writes."""

import importlib
import os
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")

TARGETS = ["x86-64-linux-avx2-sse41", "x86-64-linux"]

MAIN = r"""
#include <stdio.h>
#include "NAME.h"
int main(void) {
    float in[10], out[10];
    halide_dimension_t d = {0, 10, 1, 0};
    struct halide_buffer_t a = {0}, b = {0};
    a.host = (uint8_t *)in; a.type.code = halide_type_float; a.type.bits = 32; a.type.lanes = 1;
    a.dimensions = 1; a.dim = &d;
    b = a; b.host = (uint8_t *)out;
    for (int i = 0; i < 10; i++) in[i] = i * 0.5f;
    int r = NAME(&a, 3, &b);
    for (int i = 0; i < 10; i++) printf("%g ", out[i]);
    printf("rc=%d\n", r);
    return 0;
}
"""

WANT = " ".join(f"{i * 0.5 * 2 + 3:g}" for i in range(10)) + " rc=0"


def build(m, name):
    x = m.Var("x")
    inp = m.ImageParam(m.Float(32), 1, "inp")
    k = m.Param(m.Int(32), "k")
    f = m.Func(name)
    f[x] = inp[x] * 2 + m.f32(k)
    f.vectorize(x, 8)
    f.set_estimates([(0, 10)])
    inp.set_estimates([(0, 10)])
    return f, [inp, k]


def symbols(paths):
    out = subprocess.run(["nm", *map(str, paths)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if " T " in line}


def run_main(tmp_path, objects, name):
    (tmp_path / "main.c").write_text(MAIN.replace("NAME", name))
    exe = tmp_path / "main"
    cc = os.environ.get("CC", "cc")
    r = subprocess.run([cc, "-I", str(tmp_path), str(tmp_path / "main.c"), *map(str, objects), "-lm", "-lpthread",
                        "-ldl", "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("mod", ["halide", "halide_mlir"])
def test_multitarget_static_library(tmp_path, mod):
    m = importlib.import_module(mod)
    f, args = build(m, "bright_lib")
    f.compile_to_multitarget_static_library(str(tmp_path / "bright_lib"), args, [m.Target(t) for t in TARGETS])
    want = {"bright_lib", "bright_lib_argv", *(f"bright_lib-{t}" for t in TARGETS)}
    assert symbols([tmp_path / "bright_lib.a"]) >= want
    assert run_main(tmp_path, [tmp_path / "bright_lib.a"], "bright_lib") == WANT


def object_files(mod, out):
    m = importlib.import_module(mod)
    f, args = build(m, "bright_obj")
    f.compile_to_multitarget_object_files(str(out / "bright_obj"), args, [m.Target(t) for t in TARGETS],
                                          ["avx2", "base"])


@pytest.mark.parametrize("mod", ["halide", "halide_mlir"])
def test_multitarget_object_files(tmp_path, mod):
    if mod == "halide":  # in a process of its own: after the whole suite, Halide's objects lacked the " T " symbols
        subprocess.run([sys.executable, "-c", f"import pathlib, test_multitarget as t; "
                        f"t.object_files('halide', pathlib.Path({str(tmp_path)!r}))"],
                       cwd=os.path.dirname(__file__), check=True)
    else:
        object_files(mod, tmp_path)
    objs = [tmp_path / f"bright_obj{n}" for n in ("-avx2.o", "-base.o", "_wrapper.o", "_runtime.o")]
    assert all(o.exists() for o in objs)
    assert symbols(objs) >= {"bright_obj", "bright_obj-avx2", "bright_obj-base"}
    assert run_main(tmp_path, objs, "bright_obj") == WANT


def test_wrapper_picks_by_cpu_features():
    from halide_mlir.aot.multitarget import _checks, _targets

    assert _checks("x86-64-linux-avx2-sse41") == ["avx2", "fma", "sse4.1"]
    assert _checks("x86-64-linux") == []
    import halide_mlir as hl

    with pytest.raises(hl.HalideError, match="x86-64-linux targets only"):
        _targets(["arm-64-linux", "x86-64-linux"])
    with pytest.raises(hl.HalideError, match="at least one target"):
        _targets([])
