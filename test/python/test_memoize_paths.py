"""memoize() outside the JIT's realize: a Callable uses the JIT's memoization cache (same hits as realize);
ahead-of-time code, GPU and Dask pipelines have no cache here, so they compute memoized Funcs on every call with
``hl.MemoizeWarning`` (same values), after Halide's checks of memoize. Values against real Halide 21."""
import os
import warnings

import halide
import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir.runtime import memo


def _pipeline(m, p, schedule):
    x, y, xi, yi = m.Var("x"), m.Var("y"), m.Var("xi"), m.Var("yi")
    f = m.Func("f")
    f[x, y] = m.cast(m.Float(32), x * 3 + y * p) / 7.0
    g = m.Func("g")
    g[x, y] = f[x - 1, y] + 2 * f[x, y + 1] - f[x + 1, y - 1]
    f.memoize()
    if schedule == "root":
        f.compute_root()
    elif schedule == "tiled":  # tile + vectorize + parallel consumer, vectorized memoized producer
        f.compute_root().vectorize(x, 8)
        g.tile(x, y, xi, yi, 8, 4).vectorize(xi, 4).parallel(y)
    elif schedule == "compute_at":  # one cache entry over the whole region here (StorageWarning)
        f.compute_at(g, y).vectorize(x, 4)
        g.parallel(y).vectorize(x, 8)
    return g


@pytest.mark.parametrize("schedule", ["root", "tiled", "compute_at"])
@pytest.mark.parametrize("sizes", [[16, 8], [37, 13]])
def test_callable_uses_the_memoization_cache(schedule, sizes):
    p_ours, p_theirs = hl.Param(hl.Int(32), "p"), halide.Param(halide.Int(32), "p")
    c_ours = _pipeline(hl, p_ours, schedule).compile_to_callable([p_ours])
    c_theirs = _pipeline(halide, p_theirs, schedule).compile_to_callable([p_theirs])
    memo.memoization_cache_cleanup()
    for i, v in enumerate((2, 5, 2, 2)):
        out_ours, out_theirs = hl.Buffer(hl.Float(32), sizes), halide.Buffer(halide.Float(32), sizes)
        before = dict(memo.stats)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", hl.StorageWarning)
            c_ours(v, out_ours)
        c_theirs(v, out_theirs)
        np.testing.assert_allclose(np.asarray(out_ours), np.asarray(out_theirs), rtol=1e-6)
        # p == 2 again is found in the cache (Halide's key: the Func, its region and p); 5 is computed
        assert memo.stats["hits"] == before["hits"] + (i >= 2)
        assert memo.stats["misses"] == before["misses"] + (i < 2)


def _aot_pipeline(m):
    x, y = m.Var("x"), m.Var("y")
    b = m.Buffer(m.Int(32), [40, 20], "b")
    f = m.Func("f")
    f[x, y] = x + y
    g = m.Func("g")
    g[x, y] = f[x, y] * 2 + f[x + 1, y]
    f.compute_root().memoize()
    return f, g, b


def test_aot_warns_and_computes(tmp_path):
    _, g, _ = _aot_pipeline(hl)
    g.set_estimates([(0, 17), (0, 9)])
    with pytest.warns(hl.MemoizeWarning, match="Func 'f' is memoized, but ahead-of-time code has no memoization"):
        g.compile_to_llvm_assembly(os.path.join(tmp_path, "g.ll"), [], "g")
    assert "define" in open(os.path.join(tmp_path, "g.ll")).read()


def test_aot_refuses_a_memoized_output_as_halide():
    f, _, _ = _aot_pipeline(hl)
    f.set_estimates([(0, 8), (0, 8)])
    with pytest.raises(hl.HalideError, match="Can't compile Pipeline with memoized output Func: f"):
        f.compile_to_llvm_assembly("unused.ll", [], "f")
    hf, _, _ = _aot_pipeline(halide)
    with pytest.raises(Exception, match="memoized output"):
        hf.compile_to_callable([])(halide.Buffer(halide.Int(32), [8, 8]))


def test_gpu_realize_warns():
    x, y = hl.Var("x"), hl.Var("y")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = x * 2 + y
    g[x, y] = f[x, y] + 1
    f.compute_root().memoize()
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    g.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    with pytest.warns(hl.MemoizeWarning, match="a GPU pipeline has no memoization cache"):
        try:
            out = g.realize([16, 16], hl.Target("host-cuda"))
        except hl.HalideError:  # no CUDA device here: the warning came first
            return
    i, j = np.meshgrid(np.arange(16), np.arange(16))
    np.testing.assert_array_equal(np.asarray(out), i * 2 + j + 1)


def test_dask_warns_and_computes():
    pytest.importorskip("dask")
    from halide_mlir import dask as hd

    _, g, _ = _aot_pipeline(hl)
    with pytest.warns(hl.MemoizeWarning, match="a Dask pipeline has no memoization cache"):
        arr = hd.realize(g, [19, 11], (4, 8))
    i, j = np.meshgrid(np.arange(19), np.arange(11))
    np.testing.assert_array_equal(np.asarray(arr.compute()), (i + j) * 2 + i + 1 + j)
