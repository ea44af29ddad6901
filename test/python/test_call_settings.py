"""Settings (HL_NUM_THREADS, HALIDE_MLIR_PARALLEL_RUNTIME, HALIDE_MLIR_AUTO_VECTORIZE) are read when a pipeline is
compiled, as Halide reads HL_* once per JIT compile (settings.py): code already compiled -- a repeated realize, an
hl.Callable's call -- keeps its settings and never reads the environment again; a changed variable takes effect on
the next compile. Also the shortest paths of a repeated call (runtime/call.py's one-output plan, hl.Callable's
last call through the trampoline) give numpy's values and fall back whenever their checks fail."""
import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir import driver


def _plan(f):
    return next(p for k, p in driver._repeats.items() if k[0] == id(f))


def test_environment_change_takes_effect_on_the_next_compile(monkeypatch):
    monkeypatch.delenv("HALIDE_MLIR_PARALLEL_RUNTIME", raising=False)
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("settings_f")
    f[x, y] = x + 10 * y
    img = hl.ImageParam(hl.Int(32), 2, "settings_img")
    g = hl.Func("settings_g")
    g[x, y] = img[x, y] * 2
    c = g.compile_to_callable([img])
    a = hl.Buffer(np.arange(6, dtype=np.int32).reshape(2, 3))
    out = hl.Buffer(hl.Int(32), [3, 2])
    want = np.arange(3)[None, :] + 10 * np.arange(2)[:, None]
    np.testing.assert_array_equal(np.asarray(f.realize([3, 2])), want)
    c(a, out)
    c(a, out)
    # a setting no compile accepts: what is compiled already runs on (not read again), ...
    monkeypatch.setenv("HL_NUM_THREADS", "2")
    monkeypatch.setenv("HALIDE_MLIR_PARALLEL_RUNTIME", "tbb")
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f.realize([3, 2])), want)
        a.array[...] += 1
        c(a, out)
        np.testing.assert_array_equal(np.asarray(out), np.asarray(a) * 2)
    # ... the next compile (new sizes, a new schedule, a new Callable signature) reads it
    with pytest.raises(hl.HalideError, match="HALIDE_MLIR_PARALLEL_RUNTIME='tbb'"):
        f.realize([4, 2])
    f.vectorize(x, 4)
    with pytest.raises(hl.HalideError, match="HALIDE_MLIR_PARALLEL_RUNTIME='tbb'"):
        f.realize([3, 2])
    with pytest.raises(hl.HalideError, match="HALIDE_MLIR_PARALLEL_RUNTIME='tbb'"):
        c(a, hl.Buffer(hl.Int(32), [2, 2]))
    monkeypatch.setenv("HALIDE_MLIR_PARALLEL_RUNTIME", "async")
    np.testing.assert_array_equal(np.asarray(f.realize([3, 2])), want)
    assert any(k[0] == id(f) and k[-3:] == (2, "async", k[-1]) for k in driver._compiled)


def test_set_auto_vectorize_is_a_schedule_change():
    """set_auto_vectorize takes effect on the next realize of a Func already realized (as a schedule change
    would), not on its next compile only."""
    x = hl.Var("x")
    f = hl.Func("settings_vec")
    f[x] = hl.f32(x) * 0.5
    f.realize([64])
    f.realize([64])
    try:
        hl.set_auto_vectorize(False)
        np.testing.assert_array_equal(np.asarray(f.realize([64])), np.arange(64, dtype=np.float32) * 0.5)
        assert any(k[0] == id(f) and k[-1] == "off" for k in driver._compiled)
    finally:
        hl.set_auto_vectorize(None)


def test_one_output_plan():
    """The one-output plan: Params read per call; a value the trampoline doesn't take goes through ctypes."""
    x, y = hl.Var("x"), hl.Var("y")
    s = hl.Param(hl.UInt(8), "settings_s", 3)
    w = hl.Param(hl.Float(64), "settings_w", 0.5)
    f = hl.Func("settings_one")
    f[x, y] = hl.f64(x * s + y) * w
    f.realize([5, 4])
    plan = _plan(f)
    if plan.fast is None:
        pytest.skip("no C trampoline here")
    assert plan.realize == plan._realize_one
    ref = np.arange(5)[None, :] + 0 * np.arange(4)[:, None], np.arange(4)[:, None]
    for sv, wv in ((3, 0.5), (7, 2.0), (250, -1.0), (np.uint8(9), 1.5), (np.uint8(4), np.float32(0.25))):
        s.set(sv)
        w.set(wv)
        got = f.realize([5, 4])
        assert got.type() == hl.Float(64) and got.name() == f.name()
        want = (ref[0] * int(sv) + ref[1]).astype(np.float64) * float(wv)
        np.testing.assert_array_equal(np.asarray(got), want)
    assert _plan(f) is plan


def test_callable_last_call_checks(monkeypatch):
    """hl.Callable's last call through the trampoline: another Buffer, a Buffer whose array or min changed, a
    wrong count of arguments, keywords, a value of another type: each takes the path that handles it."""
    x, y = hl.Var("x"), hl.Var("y")
    img = hl.ImageParam(hl.Float(32), 2, "settings_cimg")
    k = hl.Param(hl.Float(32), "settings_k", 1.0)
    f = hl.Func("settings_callable")
    f[x, y] = img[x, y] * k + hl.f32(x)
    c = f.compile_to_callable([img, k])
    a = hl.Buffer(np.arange(12, dtype=np.float32).reshape(3, 4))
    out = hl.Buffer(hl.Float(32), [4, 3])
    xs = np.tile(np.arange(4, dtype=np.float32), (3, 1))
    c(a, 2.0, out)
    c(a, 2.0, out)
    if c._quick is None:
        pytest.skip("no C trampoline here")
    calls = []
    real = c._quick[3]

    def counting(*args):
        calls.append(1)
        return real(*args)

    c._quick = (*c._quick[:3], counting, *c._quick[4:])
    c(a, 3.0, out)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(a) * 3 + xs)
    assert calls
    b = hl.Buffer(np.full((3, 4), 5, np.float32))
    c(b, 2.0, out)  # another Buffer
    np.testing.assert_array_equal(np.asarray(out), 10 + xs)
    c(b, 2, out)  # an int for a float Param
    np.testing.assert_array_equal(np.asarray(out), 10 + xs)
    c(settings_cimg=b, settings_k=1.0, settings_callable=out)
    np.testing.assert_array_equal(np.asarray(out), 5 + xs)
    with pytest.raises(hl.HalideError, match="Expected exactly 3 positional arguments"):
        c(b, 1.0)
    with pytest.raises(hl.HalideError, match="Expected at most 3 positional arguments"):
        c(b, 1.0, out, out)
    c(b, 1.0, out)
    out.set_min([1, 0])  # the mins changed: x starts at 1
    b.set_min([1, 0])
    c(b, 1.0, out)
    np.testing.assert_array_equal(np.asarray(out), 6 + xs)
