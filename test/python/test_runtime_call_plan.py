"""The repeated realize's fast path (runtime/call.py CallPlan): whatever changes between two calls of the same
realize (the inputs' contents, the Buffers bound, their shapes and mins, Params, the output Buffers, settings,
an engine evicted meanwhile), the result is what a first realize computes (numpy is the reference)."""

import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir import driver
from halide_mlir.runtime import jit


def xy():
    return hl.Var("x"), hl.Var("y")


def test_input_contents_and_params_change_between_calls():
    x, y = xy()
    a = np.arange(12 * 10, dtype=np.float32).reshape(10, 12)
    inp = hl.Buffer(a, "cp_in")
    k = hl.Param(hl.Float(32), "cp_k", 2.0)
    f = hl.Func("cp_scale")
    f[x, y] = inp[x, y] * k + 1.0
    for step in range(4):
        a[...] = step * 3 + np.arange(12 * 10, dtype=np.float32).reshape(10, 12)   # same Buffer, new contents
        k.set(float(step) - 0.5)
        out = np.asarray(f.realize([12, 10]))
        np.testing.assert_array_equal(out, a * np.float32(step - 0.5) + 1)


def test_outputs_are_fresh_each_call():
    x, y = xy()
    f = hl.Func("cp_fresh")
    f[x, y] = hl.cast(hl.UInt(8), x + 2 * y)
    first = f.realize([64, 64])
    second = f.realize([64, 64])
    assert np.asarray(first).ctypes.data % 128 == 0
    assert not np.shares_memory(np.asarray(first), np.asarray(second))
    np.asarray(first)[...] = 0   # writing one output leaves the next call's alone
    ref = ((np.arange(64)[None, :] + 2 * np.arange(64)[:, None]) % 256).astype(np.uint8)
    np.testing.assert_array_equal(np.asarray(f.realize([64, 64])), ref)
    np.testing.assert_array_equal(np.asarray(second), ref)
    assert second.name() == "cp_fresh" and second.type() == hl.UInt(8) and second.mins() == [0, 0]


def test_image_param_rebound_to_other_buffers_and_shapes():
    x, y = xy()
    im = hl.ImageParam(hl.Int(32), 2, "cp_im")
    f = hl.Func("cp_plus")
    f[x, y] = im[x, y] + im[x + 1, y]
    for w, h, seed in [(9, 5, 0), (9, 5, 1), (13, 7, 2), (9, 5, 3)]:
        a = np.random.default_rng(seed).integers(-100, 100, (h, w)).astype(np.int32)
        im.set(hl.Buffer(a))
        np.testing.assert_array_equal(np.asarray(f.realize([w - 1, h])), a[:, :-1] + a[:, 1:])


def test_input_mins_change():
    x, y = xy()
    a = np.arange(6 * 8, dtype=np.int32).reshape(6, 8)
    b = hl.Buffer(a, "cp_shifted")
    f = hl.Func("cp_read_at_origin")
    f[x, y] = b[x + 2, y + 1]
    b.set_min(2, 1)
    np.testing.assert_array_equal(np.asarray(f.realize([8, 6])), a)
    np.testing.assert_array_equal(np.asarray(f.realize([8, 6])), a)
    b.set_min(0, 0)
    np.testing.assert_array_equal(np.asarray(f.realize([6, 5])), a[1:, 2:])


def test_non_contiguous_input():
    x, y = xy()
    a = np.arange(10 * 10, dtype=np.float32).reshape(10, 10)
    f = hl.Func("cp_strided")
    view = a[::2, ::2]
    f[x, y] = hl.Buffer(view)[x, y] * 2.0
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f.realize([5, 5])), view * 2)
        a += 1


def test_index_param_changes():
    x, y = xy()
    off = hl.Param(hl.Int(32), "cp_off", 1)
    a = np.arange(20, dtype=np.int32)
    f = hl.Func("cp_offset")
    f[x] = hl.Buffer(a)[x + off]
    for o in (1, 3, 1, 0):
        off.set(o)
        np.testing.assert_array_equal(np.asarray(f.realize([10])), a[o:o + 10])


def test_realize_into_buffers_repeated():
    x, y = xy()
    a = np.arange(7 * 9, dtype=np.float32).reshape(7, 9)
    f = hl.Func("cp_into")
    f[x, y] = hl.Buffer(a)[x, y] + x
    out = hl.Buffer(hl.Float(32), [9, 7])
    for step in range(3):
        a += step
        res = f.realize(out)
        assert res is out
        np.testing.assert_array_equal(np.asarray(out), a + np.arange(9)[None, :])
    other = hl.Buffer(hl.Float(32), [9, 7])   # another Buffer of the same shape
    f.realize(other)
    np.testing.assert_array_equal(np.asarray(other), np.asarray(out))
    shifted = hl.Buffer(hl.Float(32), [4, 7])
    shifted.set_min(5, 0)
    f.realize(shifted)
    np.testing.assert_array_equal(np.asarray(shifted), (a + np.arange(9)[None, :])[:, 5:])


def test_tuple_outputs_repeated():
    x, y = xy()
    f = hl.Func("cp_tuple")
    f[x, y] = (x + y, hl.f32(x) * 0.5)
    for _ in range(2):
        r = f.realize([5, 4])
        np.testing.assert_array_equal(np.asarray(r[0]), np.arange(5)[None, :] + np.arange(4)[:, None])
        np.testing.assert_array_equal(np.asarray(r[1]), np.tile(np.arange(5, dtype=np.float32) * 0.5, (4, 1)))
    outs = [hl.Buffer(hl.Int(32), [5, 4]), hl.Buffer(hl.Float(32), [5, 4])]
    for _ in range(2):
        r = f.realize(outs)
        assert r[0] is outs[0] and r[1] is outs[1]
        np.testing.assert_array_equal(np.asarray(outs[0]), np.arange(5)[None, :] + np.arange(4)[:, None])


def test_redefinition_and_settings_change(monkeypatch):
    x, y = xy()
    f = hl.Func("cp_redef")
    f[x, y] = x * 3 + y
    ref = np.arange(4)[None, :] * 3 + np.arange(4)[:, None]
    np.testing.assert_array_equal(np.asarray(f.realize([4, 4])), ref)
    g = hl.Func("cp_other")
    g[x, y] = x - y
    h = hl.Func("cp_third")
    h[x, y] = x * y
    np.testing.assert_array_equal(np.asarray(f.realize([4, 4])), ref)
    monkeypatch.setenv("HL_NUM_THREADS", "1")
    np.testing.assert_array_equal(np.asarray(h.realize([4, 4])), np.arange(4)[None, :] * np.arange(4)[:, None])
    np.testing.assert_array_equal(np.asarray(h.realize([4, 4])), np.arange(4)[None, :] * np.arange(4)[:, None])


def test_engine_evicted_between_calls(monkeypatch):
    """With one engine loaded at most, two pipelines realized in turn evict each other: each realize still
    computes the right values (the evicted engine is found again or rebuilt)."""
    monkeypatch.setenv("HALIDE_MLIR_MAX_ENGINES", "1")
    x, y = xy()
    f = hl.Func("cp_evict_a")
    f[x, y] = x + 100 * y
    g = hl.Func("cp_evict_b")
    g[x, y] = x - 100 * y
    built = jit.engines_built()
    cols, rows = np.arange(6)[None, :], 100 * np.arange(3)[:, None]
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f.realize([6, 3])), cols + rows)
        assert jit.loaded_engine_count() <= 1
        np.testing.assert_array_equal(np.asarray(g.realize([6, 3])), cols - rows)
        assert jit.loaded_engine_count() <= 1
    assert jit.engines_built() > built + 2, "the engines were not evicted"


def test_fast_path_is_taken():
    """The second identical realize goes through a CallPlan (not the full path's output_buffers)."""
    x, y = xy()
    f = hl.Func("cp_taken")
    f[x, y] = x + y
    f.realize([8, 8])
    plans = [p for k, p in driver._repeats.items() if k[0] == id(f)]
    assert plans and plans[0].realize() is not None


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_many_calls_match(dtype):
    x, y = xy()
    a = np.random.default_rng(1).integers(0, 200, (100, 100)).astype(dtype)
    f = hl.Func(f"cp_many_{dtype}")
    f[x, y] = hl.Buffer(a)[x, y] // 2 if dtype == "uint8" else hl.Buffer(a)[x, y] * 0.5
    ref = a // 2 if dtype == "uint8" else a * np.float32(0.5)
    results = [np.asarray(f.realize([100, 100])) for _ in range(50)]
    for r in results:
        np.testing.assert_array_equal(r, ref)
