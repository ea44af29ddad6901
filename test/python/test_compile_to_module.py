"""``Func/Pipeline.compile_to_module`` and ``hl.Module`` / ``hl.link_modules`` (halide_mlir/aot/module.py) against
real Halide 21: the Module's API, its name/target/buffers, the argument check, and the functions it compiles
(loaded from an object with ctypes) against real Halide's realize."""
import ctypes
import os
import shutil

import numpy as np
import pytest

import halide
import halide_mlir as hl

from test_aot import cc, halide_buffer

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")
W, H = 32, 8


def mapped(m, estimates=True):
    """``lut[input] + offset + y``: an ImageParam, a Param and a compiled-in Buffer."""
    x, y = m.Var("x"), m.Var("y")
    lut = m.Buffer(((np.arange(256) * 37) % 251).astype(np.uint16), "lut")
    inp = m.ImageParam(m.UInt(8), 2, "input")
    offset = m.Param(m.UInt(16), "offset", 3)
    f = m.Func("mapped")
    f[x, y] = lut[m.i32(inp[x, y])] + offset + m.u16(y)
    if estimates:
        f.set_estimates([(0, W), (0, H)])
        inp.set_estimates([(0, W), (0, H)])
    return f, inp, offset


def test_module_api_is_halides():
    theirs = {a for a in dir(halide.Module) if not a.startswith("_")}
    ours = {a for a in dir(hl.Module) if not a.startswith("_")}
    assert theirs <= ours, theirs - ours
    assert set(hl.LinkageType.__members__) == set(halide.LinkageType.__members__)
    for m in (halide, hl):
        assert hasattr(m, "link_modules") and hasattr(m.Pipeline, "compile_to_module")


@pytest.mark.parametrize("via_pipeline", [False, True])
def test_name_target_buffers(via_pipeline):
    got = []
    for m in (halide, hl):
        f, inp, offset = mapped(m)
        src = m.Pipeline(f) if via_pipeline else f
        mod = src.compile_to_module([inp, offset], "fn", m.get_host_target())
        got.append((type(mod).__name__, mod.name(), str(mod.target()), [b.name() for b in mod.buffers()],
                    mod.submodules(), mod.get_metadata_name_map(), repr(mod)))
    theirs, ours = got
    assert ours[:2] == theirs[:2] and ours[3:] == theirs[3:]
    assert ours[2] == str(hl.get_host_target())


def test_default_name_and_empty_module():
    for m in (halide, hl):
        x = m.Var("x")
        g = m.Func("g")
        g[x] = x
        # the Func's own name, C-safe (a process that made other Funcs "g" before has this one as g$23: g_23)
        assert g.compile_to_module([], "").name() == g.name().replace("$", "_")
        mod = m.Module("empty", m.get_host_target())
        mod.append(m.Buffer(np.arange(4, dtype=np.uint8), "b"))
        assert [b.name() for b in mod.buffers()] == ["b"]


def test_missing_argument_is_halides_error():
    msgs = []
    for m in (halide, hl):
        f, inp, offset = mapped(m)
        with pytest.raises(m.HalideError) as e:
            f.compile_to_module([inp], "fn")
        msgs.append(str(e.value))
    assert "Generated code refers to parameter offset, which was not found in the argument list" in msgs[0]
    assert "Generated code refers to parameter offset, which was not found in the argument list" in msgs[1]


def _load(tmp_path, mod, name):
    obj = tmp_path / f"{name}.o"
    mod.compile({hl.OutputFileType.object: str(obj)})
    cc("-shared", str(obj), "-o", str(tmp_path / f"{name}.so"), "-lpthread", "-lm")
    return ctypes.CDLL(str(tmp_path / f"{name}.so"))


def _reference(offset):
    f, inp, p = mapped(halide)
    a = (np.arange(W * H) * 11 % 256).astype(np.uint8).reshape(H, W)
    inp.set(halide.Buffer(a))
    p.set(offset)
    return a, np.asarray(f.realize([W, H]))


def test_module_compiles_to_a_working_object(tmp_path):
    f, inp, offset = mapped(hl)
    mod = f.compile_to_module([inp, offset], "mapped_fn")
    f.set_estimates([(0, 2 * W), (0, H)])  # the module keeps the sizes and schedule it was compiled with
    lib = _load(tmp_path, mod, "mapped_fn")
    a, expected = _reference(5)
    out = np.zeros((H, W), np.uint16)
    assert lib.mapped_fn(ctypes.byref(halide_buffer(a)), ctypes.c_uint16(5), ctypes.byref(halide_buffer(out))) == 0
    np.testing.assert_array_equal(out, expected)
    code = mod.compile_to_buffer()  # (real Halide 21's binding can't return this Buffer type)
    assert code.type() == hl.UInt(8) and bytes(np.asarray(code)[:4]) == b"\x7fELF"


def test_link_modules_puts_both_functions_in_one_library(tmp_path):
    names = []
    for m in (halide, hl):
        f, inp, offset = mapped(m)
        both = m.link_modules("both", [f.compile_to_module([inp, offset], "a"),
                                       f.compile_to_module([inp, offset], "b")])
        lib = tmp_path / f"{m.__name__}.a"
        both.compile({m.OutputFileType.static_library: str(lib), m.OutputFileType.c_header: str(lib) + ".h"})
        header = open(str(lib) + ".h").read()
        names.append((both.name(), "int a(" in header, "int b(" in header))
    assert names[0] == names[1] == ("both", True, True)
    lib = _load(tmp_path, both, "both")
    a, expected = _reference(7)
    for fn in (lib.a, lib.b):
        out = np.zeros((H, W), np.uint16)
        assert fn(ctypes.byref(halide_buffer(a)), ctypes.c_uint16(7), ctypes.byref(halide_buffer(out))) == 0
        np.testing.assert_array_equal(out, expected)
    with pytest.raises(hl.HalideError, match="more than one module"):
        f, inp, offset = mapped(hl)
        hl.link_modules("dup", [f.compile_to_module([inp, offset], "a"), f.compile_to_module([inp, offset], "a")])


def test_without_estimates_the_module_compiles_when_asked(tmp_path):
    """Lesson 22 times compile_to_module on a pipeline without estimates: Halide compiles for any size, so that
    works in both; halide_mlir compiles a pipeline reading a compiled-in Buffer for fixed sizes only, so writing
    its files asks for the estimates."""
    for m in (halide, hl):
        f, inp, offset = mapped(m, estimates=False)
        mod = m.Pipeline(f).compile_to_module(m.Pipeline(f).infer_arguments(), "transpose")
        assert mod.name() == "transpose"
    with pytest.raises(hl.HalideError, match="Buffer 'lut' read by the pipeline.*give the output .* estimates"):
        mod.compile({hl.OutputFileType.object: str(tmp_path / "t.o")})
    f.set_estimates([(0, W), (0, H)])
    inp.set_estimates([(0, W), (0, H)])
    lib = _load(tmp_path, mod, "transpose")
    a, expected = _reference(3)
    out = np.zeros((H, W), np.uint16)
    assert lib.transpose(ctypes.byref(halide_buffer(a)), ctypes.c_uint16(3), ctypes.byref(halide_buffer(out))) == 0
    np.testing.assert_array_equal(out, expected)


def test_submodules_are_refused_when_compiling(tmp_path):
    f, inp, offset = mapped(hl)
    mod = f.compile_to_module([inp, offset], "outer")
    mod.append(f.compile_to_module([inp, offset], "inner"))
    assert [s.name() for s in mod.submodules()] == ["inner"]
    mod.compile({hl.OutputFileType.c_header: str(tmp_path / "outer.h")})  # a header ignores them, as in Halide
    with pytest.raises(hl.HalideError, match="submodules"):
        mod.compile({hl.OutputFileType.object: str(tmp_path / "outer.o")})
