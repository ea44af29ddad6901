"""Predicated RDoms, ``r.where(...)`` (Halide tutorial lesson 17, in our own words): masks, several predicates,
predicates reading other Funcs, the updated Func itself or a Buffer, and pure reductions with a pure Var in the
predicate. Each program runs under real Halide 21 and halide_mlir (oracle.run_both); where the result has a simple
closed form the oracle is also pinned to it (numpy)."""

import numpy as np

from oracle import image_u8, run_both


def test_l17_circle_mask():
    """Double the points of a 7x7 square that lie in a circle of radius^2 10 around (3, 3)."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        circle = hl.Func("circle")
        circle[x, y] = x + y
        r = hl.RDom([(0, 7), (0, 7)])
        r.where((r.x - 3) * (r.x - 3) + (r.y - 3) * (r.y - 3) <= 10)
        circle[r.x, r.y] *= 2
        return circle

    xs, ys = np.meshgrid(np.arange(7), np.arange(7))
    e = (xs + ys).astype(np.int32)
    inside = (xs - 3) ** 2 + (ys - 3) ** 2 <= 10
    e[inside] *= 2
    run_both(build, [7, 7], expected=e)


def test_l17_circle_mask_in_larger_output():
    """The same circle, realized over a larger region: points outside the RDom keep the pure value."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        circle = hl.Func("circle")
        circle[x, y] = x + y
        r = hl.RDom([(0, 7), (0, 7)])
        r.where((r.x - 3) * (r.x - 3) + (r.y - 3) * (r.y - 3) <= 10)
        circle[r.x, r.y] *= 2
        return circle

    run_both(build, [12, 9], mins=[-2, -1])


def test_l17_several_predicates_triangle():
    """Three where() clauses are and-ed: the update runs on a triangle inside an 8x10 box."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        triangle = hl.Func("triangle")
        triangle[x, y] = 10
        r = hl.RDom([(0, 8), (0, 10)])
        r.where(r.x + r.y > 5)
        r.where(3 * r.y - 2 * r.x < 15)
        r.where(4 * r.x - r.y < 20)
        triangle[r.x, r.y] *= 2
        return triangle

    xs, ys = np.meshgrid(np.arange(10), np.arange(10))
    e = np.full((10, 10), 10, np.int32)
    m = (xs < 8) & (xs + ys > 5) & (3 * ys - 2 * xs < 15) & (4 * xs - ys < 20)
    e[m] *= 2
    run_both(build, [10, 10], expected=e)


def test_l17_two_predicates_on_both_rvars():
    """Two where() calls, each with a predicate mixing both RVars."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = x - y
        r = hl.RDom([(1, 6), (0, 8)])
        r.where(r.x != r.y)
        r.where(r.x * 2 > r.y)
        f[r.x, r.y] = f[r.x, r.y] * 3 + 1
        return f

    run_both(build, [9, 9])


def test_l17_predicate_reads_another_func():
    """A predicate that reads a Func: update g where f (of the same point) is below a threshold."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f, g = hl.Func("f"), hl.Func("g")
        f[x, y] = 2 * x + y
        g[x, y] = 10
        r = hl.RDom([(0, 5), (0, 5)])
        r.where(f[r.x, r.y] < 10)
        g[r.x, r.y] += 1 + f[r.x, r.y]
        return g

    xs, ys = np.meshgrid(np.arange(5), np.arange(5))
    fv = 2 * xs + ys
    e = np.full((5, 5), 10, np.int32)
    e[fv < 10] += 1 + fv[fv < 10]
    run_both(build, [5, 5], expected=e)


def test_l17_predicate_reads_the_updated_func():
    """A predicate reading the Func being updated sees its current value (only where the update writes)."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = (x * 7 + y * 3) % 11
        r = hl.RDom([(0, 12), (0, 10)])
        r.where(f[r.x, r.y] > 4)
        f[r.x, r.y] = f[r.x, r.y] - 5
        return f

    xs, ys = np.meshgrid(np.arange(12), np.arange(10))
    e = ((xs * 7 + ys * 3) % 11).astype(np.int32)
    e[e > 4] -= 5
    run_both(build, [12, 10], expected=e)


PRED_IMG = image_u8(32, 24, seed=17)


def test_l17_predicate_reads_a_buffer_sum():
    """An inline sum over a predicated RDom whose predicate reads an input Buffer: the sum of the bright
    pixels of each row."""
    def build(hl):
        inp = hl.Buffer(PRED_IMG, "input")
        y = hl.Var("y")
        r = hl.RDom([(0, 32)])
        r.where(inp[r, y] > 128)
        f = hl.Func("f")
        f[y] = hl.sum(hl.cast(hl.UInt(32), inp[r, y]))
        return f

    img = PRED_IMG.astype(np.uint32)
    run_both(build, [24], expected=np.where(img > 128, img, 0).sum(axis=1).astype(np.uint32))


def test_l17_predicated_pure_reduction_with_pure_var_in_predicate():
    """A predicate that mentions a pure Var of the update (the RDom domain depends on x)."""
    def build(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = 0
        r = hl.RDom([(0, 20)])
        r.where(r < x)
        f[x] += r * r
        return f

    run_both(build, [25], expected=np.array([sum(i * i for i in range(min(x, 20))) for x in range(25)], np.int32))
