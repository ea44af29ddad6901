"""The C call trampoline (runtime/fastcall.py): a repeated realize and a repeated hl.Callable call go through it when
a C compiler is there, with the values the ctypes path gives (HALIDE_MLIR_FASTCALL=0) and numpy's; without a
compiler, the ctypes path and one debug log line, no warning."""
import logging
import shutil
import warnings

import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir import driver
from halide_mlir.runtime import fastcall

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

TYPES = [
    (hl.UInt(8), 200), (hl.Int(16), -300), (hl.UInt(32), 4000000000), (hl.Int(64), -(1 << 40)),
    (hl.Float(32), 1.25), (hl.Float(64), -2.5), (hl.Bool(), True),
]


def _pipeline(tag):
    """A Func of an input and one Param of each type; its Params; the input."""
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(np.arange(12, dtype=np.float64).reshape(3, 4))
    params = [hl.Param(t, f"p{k}_{tag}", v) for k, (t, v) in enumerate(TYPES)]
    f = hl.Func(f"fast_{tag}")
    e = inp[x, y]
    for p in params:
        e = e + hl.select(p, 1.0, 0.0) if p.type().is_bool() else e + hl.f64(p)
    f[x, y] = e
    return f, params


def _expected(params):
    total = sum((1.0 if p.get() else 0.0) if p.type().is_bool() else float(p.get()) for p in params)
    return np.arange(12, dtype=np.float64).reshape(3, 4) + total


def _plan(f):
    return next(p for k, p in driver._repeats.items() if k[0] == id(f))


def _spy(plan, monkeypatch):
    calls = []
    real = plan.fast

    def counting(*a):
        calls.append(1)
        return real(*a)

    monkeypatch.setattr(plan, "fast", counting)
    return calls


@needs_cc
def test_realize_through_trampoline(monkeypatch):
    assert fastcall.trampoline() is not None
    f, params = _pipeline("r")
    first = np.asarray(f.realize([4, 3]))
    plan = _plan(f)
    assert plan.fast is not None
    calls = _spy(plan, monkeypatch)
    results = []
    for k in range(3):
        params[0].set(10 * k)
        params[6].set(k % 2 == 0)
        params[4].set(0.5 * k)
        results.append((np.asarray(f.realize([4, 3])), _expected(params)))
    assert len(calls) == 3
    for got, want in results:
        np.testing.assert_array_equal(got, want)
    # the same pipeline through ctypes: the same values
    monkeypatch.setenv("HALIDE_MLIR_FASTCALL", "0")
    g, gparams = _pipeline("c")
    g.realize([4, 3])
    assert _plan(g).fast is None
    for p, q in zip(params, gparams):
        q.set(p.get())
    np.testing.assert_array_equal(np.asarray(g.realize([4, 3])), np.asarray(f.realize([4, 3])))
    assert first.shape == (3, 4)


@needs_cc
def test_realize_into_buffer_and_tuple(monkeypatch):
    x, y = hl.Var("x"), hl.Var("y")
    s = hl.Param(hl.Int(32), "s_fc", 3)
    f = hl.Func("fast_into")
    f[x, y] = x * s + y
    out = hl.Buffer(hl.Int(32), [5, 2])
    f.realize(out)
    calls = _spy(_plan(f), monkeypatch)
    s.set(7)
    f.realize(out)
    assert len(calls) == 1
    np.testing.assert_array_equal(np.asarray(out), np.arange(5)[None, :] * 7 + np.arange(2)[:, None])
    t = hl.Func("fast_tuple")
    t[x, y] = (hl.u8(x + y), hl.f32(x) * 0.5)
    t.realize([6, 2])
    calls = _spy(_plan(t), monkeypatch)
    r = t.realize([6, 2])
    assert len(calls) == 1
    np.testing.assert_array_equal(np.asarray(r[0]), np.add.outer(np.arange(2), np.arange(6)).astype(np.uint8))
    np.testing.assert_array_equal(np.asarray(r[1]), np.tile(np.arange(6, dtype=np.float32) * 0.5, (2, 1)))


@needs_cc
def test_callable_through_trampoline(monkeypatch):
    x, y = hl.Var("x"), hl.Var("y")
    img = hl.ImageParam(hl.UInt(8), 2, "img_fc")
    k = hl.Param(hl.UInt(8), "k_fc", 1)
    w = hl.Param(hl.Float(32), "w_fc", 1.0)
    f = hl.Func("fast_callable")
    f[x, y] = hl.f32(img[x, y] + k) * w
    c = f.compile_to_callable([img, k, w])
    a = hl.Buffer(np.arange(20, dtype=np.uint8).reshape(4, 5))
    out = hl.Buffer(hl.Float(32), [5, 4])
    c(a, 2, 0.5, out)  # the first call: the full path, leaves the plan
    c(a, 2, 0.5, out)  # the second: the plan, remembered as the last call
    plan = c._last[2]
    assert plan.fast is not None
    calls = _spy(plan, monkeypatch)
    ref = np.arange(20, dtype=np.uint8).reshape(4, 5)
    c(a, 3, 2.0, out)
    np.testing.assert_array_equal(np.asarray(out), (ref + 3).astype(np.float32) * 2.0)
    c(a, 250, 2, out)  # an int for a float Param, u8 wrap-around: converted in Python, then the trampoline
    np.testing.assert_array_equal(np.asarray(out), (ref + np.uint8(250)).astype(np.float32) * 2.0)
    assert len(calls) >= 2
    with pytest.raises(hl.HalideError, match="losslessly"):
        c(a, 300, 1.0, out)
    with pytest.raises(hl.HalideError, match="not an instance of a scalar"):
        c(a, "x", 1.0, out)
    # the ctypes path gives the same values
    monkeypatch.setenv("HALIDE_MLIR_FASTCALL", "0")
    c2 = f.compile_to_callable([img, k, w])
    out2 = hl.Buffer(hl.Float(32), [5, 4])
    c2(a, 7, 1.5, out2)
    c2(a, 7, 1.5, out2)
    assert c2._last[2].fast is None
    c(a, 7, 1.5, out)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(out2))


def test_no_compiler_falls_back_quietly(monkeypatch, caplog):
    monkeypatch.setattr(fastcall, "_state", [])
    monkeypatch.setenv("CC", "no-such-cc-halide-mlir")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with caplog.at_level(logging.DEBUG, logger=fastcall.__name__):
            assert fastcall.trampoline() is None
            assert fastcall.trampoline() is None
    assert sum("not available" in r.getMessage() for r in caplog.records) == 1
    x = hl.Var("x")
    f = hl.Func("fast_nocc")
    f[x] = x * 2
    f.realize([4])
    assert _plan(f).fast is None
    np.testing.assert_array_equal(np.asarray(f.realize([4])), np.arange(4) * 2)
