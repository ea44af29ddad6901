"""hl.require: a condition of Params checked before each run (realize, Callable, AOT), against Halide 21."""

import ctypes
import importlib
import os
import shutil
import subprocess

import numpy as np
import pytest

import halide_mlir as hl


def build(hl):
    x = hl.Var("x")
    p = hl.Param(hl.Int(32), "p", 3)
    g = hl.Func("g")
    g[x] = hl.require(p > 2, x * p, p)  # in a Func inlined into f
    f = hl.Func("f")
    f[x] = g[x] + 1
    return f, p


@pytest.mark.parametrize("mod", ["halide", "halide_mlir"])
def test_require_at_realize(mod):
    m = importlib.import_module(mod)
    f, p = build(m)
    assert list(np.asarray(f.realize([3]))) == [1, 4, 7]
    p.set(1)
    with pytest.raises(m.HalideError, match="Requirement Failed"):
        f.realize([3])
    p.set(5)  # checked on every realize, the repeated ones included
    for _ in range(3):
        assert list(np.asarray(f.realize([3]))) == [1, 6, 11]
    p.set(0)
    with pytest.raises(m.HalideError, match="Requirement Failed"):
        f.realize([3])


def test_require_message_has_the_arguments():
    f, p = build(hl)
    p.set(-4)
    with pytest.raises(hl.HalideError, match=r"Requirement Failed: .* -4"):
        f.realize([2])


def test_require_in_a_callable():
    x = hl.Var("x")
    p = hl.Param(hl.Int(32), "p", 3)
    inp = hl.ImageParam(hl.Float(32), 1, "inp")
    f = hl.Func("f")
    f[x] = hl.require(p < 10, inp[x] * hl.f32(p), "p is", p)
    call = f.compile_to_callable([inp, p])
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    for _ in range(2):
        call(a, 4, out)
        np.testing.assert_array_equal(out, a * 4)
    with pytest.raises(hl.HalideError, match="Requirement Failed: .*p is 12"):
        call(a, 12, out)


def test_require_of_a_var_is_refused():
    x = hl.Var("x")
    f = hl.Func("f")
    with pytest.raises(hl.HalideError, match="require.*Vars or Funcs"):
        f[x] = hl.require(x < 5, x)


@pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")
def test_require_in_aot_returns_requirement_failed(tmp_path):
    x = hl.Var("x")
    p = hl.Param(hl.Int(32), "p")
    inp = hl.ImageParam(hl.Int(32), 1, "inp")
    f = hl.Func("req")
    f[x] = hl.require(p >= 0, inp[x] + p, p)
    f.set_estimates([(0, 16)])
    inp.set_estimates([(0, 16)])
    f.compile_to_object(str(tmp_path / "req.o"), [inp, p], "req")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-shared", str(tmp_path / "req.o"), "-o", str(tmp_path / "req.so"), "-lpthread", "-lm"],
                   check=True)
    lib = ctypes.CDLL(str(tmp_path / "req.so"))
    messages = []
    handler = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)(lambda ctx, msg: messages.append(msg))
    lib.halide_set_error_handler(handler)
    from test_aot import halide_buffer

    a = np.arange(16, dtype=np.int32)
    out = np.zeros(16, np.int32)
    assert lib.req(ctypes.byref(halide_buffer(a)), ctypes.c_int32(3), ctypes.byref(halide_buffer(out))) == 0
    np.testing.assert_array_equal(out, a + 3)
    assert lib.req(ctypes.byref(halide_buffer(a)), ctypes.c_int32(-2), ctypes.byref(halide_buffer(out))) == -27
    assert len(messages) == 1 and b"-2" in messages[0]
