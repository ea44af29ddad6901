"""hl.scatter / hl.gather: several stores in one update definition (every lane's value computed, then each lane
stored in order: a swap, a sorting network, an in-place rotation), against Halide 21's values and errors (the
shapes of Halide's test/correctness/multiple_scatter.cpp, written anew)."""

import importlib

import numpy as np
import pytest

BOTH = pytest.mark.parametrize("mod", ["halide", "halide_mlir"])
IMG = np.array([[5, 1, 4, 2], [9, 8, 7, 6], [0, 3, 3, 1]], dtype=np.int32)
ROT = np.arange(49, dtype=np.uint8).reshape(7, 7)


def swap(m):
    x = m.Var("x")
    f = m.Func("f")
    f[x] = x * 10
    f[m.scatter([0, 3])] = m.gather([f[3], f[0]])
    return f.realize([5])


def broadcast_and_last_wins(m):
    x = m.Var("x")
    f = m.Func("f")
    f[x] = 0
    f[m.scatter([0, 1, 2, 3])] = 5
    f[3] = m.gather([1, 9])
    return f.realize([5])


def bubble_sort(m):
    x = m.Var("x")
    f = m.Func("f")
    f[x] = (13 - x % 10) * 7 % 11
    r = m.RDom([(0, 9), (0, 9)])
    r.where(r.x < 9 - r.y)
    r.where(f[r.x] > f[r.x + 1])
    f[m.scatter([r.x, r.x + 1])] = f[m.gather([r.x + 1, r.x])]
    return f.realize([10])


def sorting_network(m):
    inp = m.Buffer(IMG)
    x, y = m.Var("x"), m.Var("y")
    g = m.Func("g")
    g[x, y] = inp[x, y]
    for a, b in [(0, 1), (1, 2), (0, 1)]:
        g[x, m.scatter([a, b])] = m.gather([m.min(g[x, a], g[x, b]), m.max(g[x, a], g[x, b])])
    return g.realize([4, 3])


def rotation(m):
    sz = 7
    inp = m.Buffer(ROT)
    x, y = m.Var("x"), m.Var("y")
    f = m.Func("rot")
    f[x, y] = inp[x, y]
    r = m.RDom([(0, (sz + 1) // 2), (0, sz // 2)])
    sx = [r.x, sz - 1 - r.y, sz - 1 - r.x, r.y]
    sy = [r.y, r.x, sz - 1 - r.y, sz - 1 - r.x]
    f[m.scatter(sx[1:] + sx[:1]), m.scatter(sy[1:] + sy[:1])] = f[m.gather(sx), m.gather(sy)]
    return f.realize([sz, sz])


def tuple_swap(m):
    x = m.Var("x")
    f = m.Func("f")
    f[x] = (x, x * 2)
    f[m.scatter([0, 1])] = (m.gather([f[1][0], f[0][0]]), m.gather([f[1][1], f[0][1]]))
    return f.realize([3])


def producer_computed_at_consumer(m):
    x, y = m.Var("x"), m.Var("y")
    h = m.Func("h")
    h[x, y] = x + 10 * y
    r = m.RDom([(0, 3)])
    h[m.scatter([2 * r, 2 * r + 1]), y] = m.gather([h[2 * r + 1, y], h[2 * r, y]])  # swaps pairs, up to x = 5
    out = m.Func("out")
    out[x, y] = h[x, y] * 2 + h[x + 1, y]
    h.compute_at(out, y)
    return out.realize([5, 3])


def pure_gather(m):
    x = m.Var("x")
    f = m.Func("f")
    f[x] = m.gather([x, x * 7])
    return f.realize([4])


CASES = [swap, broadcast_and_last_wins, bubble_sort, sorting_network, rotation, tuple_swap,
         producer_computed_at_consumer, pure_gather]


def _arrays(r):
    return [np.asarray(b) for b in r] if not hasattr(r, "dimensions") else [np.asarray(r)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_same_values_as_halide(case):
    import halide

    import halide_mlir

    theirs, ours = _arrays(case(halide)), _arrays(case(halide_mlir))
    assert len(theirs) == len(ours)
    for t, o in zip(theirs, ours):
        np.testing.assert_array_equal(o, t)


@BOTH
def test_mismatched_lanes_refused(mod):
    m = importlib.import_module(mod)
    x = m.Var("x")
    f = m.Func("f")
    f[x] = 0
    with pytest.raises(m.HalideError, match="mismatched sizes"):
        f[m.scatter([0, 1])] = m.gather([1, 2, 3])
        f.realize([4])


@BOTH
def test_pure_var_in_a_scatter_refused(mod):
    m = importlib.import_module(mod)
    x = m.Var("x")
    f = m.Func("f")
    f[x] = x
    with pytest.raises(m.HalideError):
        f[m.scatter([x, x + 1])] = m.gather([f[x + 1], f[x]])
        f.realize([4])


@BOTH
def test_takes_a_list(mod):
    m = importlib.import_module(mod)
    with pytest.raises(TypeError):
        m.scatter(0, 1)


def test_parallel_or_vectorized_multi_store_refused():
    import halide_mlir as hl

    x, y = hl.Var("x"), hl.Var("y")
    g = hl.Func("g")
    g[x, y] = x + y
    g[x, hl.scatter([0, 1])] = hl.gather([g[x, 1], g[x, 0]])
    g.update().vectorize(x, 4)
    with pytest.raises(hl.HalideError, match="serially.*vectorized loop"):
        g.realize([8, 2])
