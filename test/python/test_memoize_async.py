"""memoize() (results cached across realizes, keyed as Halide keys them), async_/ring_buffer (synchronous, with
an AsyncWarning) with hoist_storage (lang/small_directives.py): values against real Halide 21 (lang/memoize.py,
analysis/memoize.py, runtime/memo.py)."""
import warnings

import halide
import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir.runtime import memo


def _both(build, sizes):
    """``build(hl_module)`` -> output Func, realized by halide_mlir and by Halide."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hl.SlowPathWarning)
        ours = np.asarray(build(hl).realize(sizes))
    theirs = np.asarray(build(halide).realize(sizes))
    return ours, theirs


def test_halide_memoize_py():
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = 0.0
    f[x] += 1
    f.compute_root().memoize()
    output = hl.Func("output")
    output[x] = f[x]
    assert list(output.realize([3])) == [1.0, 1.0, 1.0]


def _param_pipeline(m, p, schedule):
    x, y, xi, yi = m.Var("x"), m.Var("y"), m.Var("xi"), m.Var("yi")
    f = m.Func("f")
    f[x, y] = m.cast(m.Float(32), x * 3 + y * p) / 7.0
    g = m.Func("g")
    g[x, y] = f[x - 1, y] + 2 * f[x, y + 1] - f[x + 1, y - 1]
    f.compute_root().memoize()
    if schedule == "tiled":
        g.tile(x, y, xi, yi, 8, 4).vectorize(xi, 4).parallel(y)
        f.vectorize(x, 8)
    return g


@pytest.mark.parametrize("schedule", ["plain", "tiled"])
@pytest.mark.parametrize("sizes", [[16, 8], [37, 13]])
def test_memoized_values_follow_params(schedule, sizes):
    p_ours, p_theirs = hl.Param(hl.Int(32), "p", 2), halide.Param(halide.Int(32), "p", 2)
    g_ours = _param_pipeline(hl, p_ours, schedule)
    g_theirs = _param_pipeline(halide, p_theirs, schedule)
    memo.memoization_cache_cleanup()
    for i, v in enumerate((2, 5, 2)):
        p_ours.set(v)
        p_theirs.set(v)
        before = dict(memo.stats)
        np.testing.assert_allclose(np.asarray(g_ours.realize(sizes)), np.asarray(g_theirs.realize(sizes)),
                                   rtol=1e-6)
        # the second p == 2 is found in the cache; the others are computed
        assert memo.stats["hits"] == before["hits"] + (i == 2)


def test_buffer_contents_are_not_in_the_key_as_in_halide():
    def run(m):
        x = m.Var("x")
        arr = np.arange(6, dtype=np.int32)
        b = m.Buffer(arr)
        f = m.Func("f")
        f[x] = b[x] * 2
        f.compute_root().memoize()
        h = m.Func("h")
        h[x] = f[x] + 1
        first = list(h.realize([5]))
        b[0] = 100
        return first, list(h.realize([5]))
    memo.memoization_cache_cleanup()
    assert run(hl) == run(halide)


def test_memoized_at_a_loop_tuple_and_nested():
    def build(m):
        x, y = m.Var("x"), m.Var("y")
        a = m.Func("a")
        a[x, y] = x * 2 + y
        a.compute_root().memoize()
        t = m.Func("t")
        t[x, y] = (a[x, y] + a[x + 1, y], a[x, y] * 3)
        t.compute_root().memoize()
        c = m.Func("c")
        c[x, y] = x - y
        out = m.Func("out")
        out[x, y] = t[x, y][0] + t[x, y + 1][1] + c[x, y] + c[x + 1, y]
        c.compute_at(out, y).memoize()
        return out
    with pytest.warns(hl.StorageWarning, match="memoized, it is computed once"):
        ours = np.asarray(build(hl).realize([11, 7]))
    np.testing.assert_array_equal(ours, np.asarray(build(halide).realize([11, 7])))


def test_eviction_key_and_cache_size():
    x = hl.Var("x")
    k = hl.Param(hl.Int(32), "k", 1)
    f = hl.Func("f")
    f[x] = x + k
    f.compute_root().memoize(hl.EvictionKey(k))
    h = hl.Func("h")
    h[x] = f[x] * 2
    memo.memoization_cache_cleanup()
    assert list(h.realize([4])) == [2, 4, 6, 8]
    hits = memo.stats["hits"]
    h.realize([4])
    assert memo.stats["hits"] == hits + 1
    hl.memoization_cache_evict(1)
    misses = memo.stats["misses"]
    assert list(h.realize([4])) == [2, 4, 6, 8]
    assert memo.stats["misses"] == misses + 1
    hl.memoization_cache_set_size(16)   # smaller than one entry: only the newest stays
    k.set(2)
    assert list(h.realize([4])) == [4, 6, 8, 10]
    assert len(memo._entries) == 1
    hl.memoization_cache_set_size(0)


@pytest.mark.parametrize("case", ["output", "inline", "image_param"])
def test_memoize_refused_as_in_halide(case):
    for m in (hl, halide):
        x = m.Var("x")
        f = m.Func("f")
        ip = m.ImageParam(m.Int(32), 1, "ip")
        ip.set(m.Buffer(np.arange(8, dtype=np.int32)))
        f[x] = ip[x] if case == "image_param" else x + 1
        if case == "image_param":
            f.compute_root()
        f.memoize()
        h = m.Func("h")
        h[x] = f[x]
        match = {"output": "memoized output Func", "inline": "scheduled inline",
                 "image_param": "Buffer parameter ip"}[case]
        with pytest.raises(m.HalideError if m is hl else halide.HalideError, match=match):
            (f if case == "output" else h).realize([4])


def _lesson24(m, which):
    x, y, c = m.Var("x"), m.Var("y"), m.Var("c")
    xo, yo, xi, yi = m.Var("xo"), m.Var("yo"), m.Var("xi"), m.Var("yi")
    producer, consumer = m.Func("producer"), m.Func("consumer")
    if which == "two_producers":
        p2 = m.Func("producer2")
        producer[x, y] = x + y
        p2[x, y] = x * 2 - y
        consumer[x, y] = producer[x - 1, y - 1] + p2[x, y] + producer[x + 1, y + 1]
        consumer.compute_root()
        producer.compute_root().async_()
        p2.compute_root().async_()
        return consumer
    producer[x, y, c] = (x + y) * (c + 1)
    consumer[x, y, c] = producer[x - 1, y - 1, c] + producer[x, y, c] + producer[x + 1, y + 1, c]
    consumer.compute_root()
    if which == "fold":
        producer.async_().compute_at(consumer, c).store_at(consumer, m.Var.outermost()).fold_storage(c, 2)
    elif which == "ring":
        producer.async_().compute_at(consumer, c).hoist_storage(consumer, m.Var.outermost()).ring_buffer(2)
    elif which == "ring_tiled":
        consumer.tile(x, y, xo, yo, xi, yi, 16, 16, m.TailStrategy.Auto).vectorize(xi, 8)
        producer.async_().compute_at(consumer, xo).hoist_storage(consumer, m.Var.outermost()).ring_buffer(2)
    return consumer


@pytest.mark.parametrize("which,sizes", [("two_producers", [37, 19]), ("fold", [40, 24, 4]),
                                         ("ring", [33, 17, 3]), ("ring_tiled", [45, 35, 3])])
def test_lesson24_async_values(which, sizes):
    ours, theirs = _both(lambda m: _lesson24(m, which), sizes)
    np.testing.assert_array_equal(ours, theirs)


def test_async_warns_and_ring_buffer_needs_hoist_storage():
    x, y = hl.Var("x"), hl.Var("y")
    p, c = hl.Func("p"), hl.Func("c")
    p[x, y] = x + y
    c[x, y] = p[x, y] * 2
    p.compute_root().async_()
    with pytest.warns(hl.AsyncWarning, match="Func 'p': async_\\(\\) runs synchronously"):
        c.realize([4, 4])
    p.compute_at(c, y).ring_buffer(2)
    with pytest.raises(hl.HalideError, match="ring_buffer\\(\\), but has matching store_at and hoist_storage"):
        c.realize([4, 4])
    q, d = hl.Func("q"), hl.Func("d")
    q[x] = x
    d[x] = q[x]
    q.hoist_storage_root()
    with pytest.raises(hl.HalideError, match="scheduled hoist_storage_root\\(\\), but is inlined"):
        d.realize([4])
