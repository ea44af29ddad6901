"""Vectorized loops with other loops in their lanes: short loops inside them, finer loops of a strided one."""
import numpy as np
import pytest

from oracle import run_both

IMG = np.random.default_rng(3).random((3, 37, 53), dtype=np.float32)


@pytest.mark.parametrize("schedule", ["channels_inside", "rows_inside", "bounded_channels"])
def test_vectorized_loop_with_inner_loops(schedule):
    def build(hl):
        x, y, c, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("yo"), hl.Var("yi")
        inp = hl.Buffer(IMG, "img")
        f = hl.Func("f")
        f[x, y, c] = inp[x, y, c] * hl.f32(c + 1) + inp[x + 1, y, c]
        if schedule == "channels_inside":
            f.reorder(c, x, y).vectorize(x, 8)
        elif schedule == "rows_inside":
            f.split(y, yo, yi, 4).reorder(yi, x, yo, c).vectorize(x, 16)
        else:
            f.reorder(c, x, y).bound(c, 0, 3).vectorize(x, 8).parallel(y)
        return f

    run_both(build, [52, 37, 3])


BIG = np.random.default_rng(4).random((300, 70), dtype=np.float32)


# A long loop inside the vectorized one (or one a producer is computed at) runs around the vector instead:
# Halide runs it once per vector, and each point's value is the same.
@pytest.mark.parametrize("schedule", ["long_rows_inside", "producer_at_inner_loop"])
def test_vectorized_loop_with_a_long_inner_loop(schedule):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(BIG, "big")
        g = hl.Func("g")
        g[x, y] = inp[x, y] * 2.0
        f = hl.Func("f")
        f[x, y] = g[x, y] + g[x + 1, y]
        f.reorder(y, x).vectorize(x, 8)          # y (299 rows) inside the vector loop
        if schedule == "producer_at_inner_loop":
            g.compute_at(f, y)
        return f

    run_both(build, [64, 299])


def test_vectorized_loop_with_too_many_strided_lanes_is_refused():
    import halide_mlir as hl
    x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
    f = hl.Func("f")
    f[x, y] = x + y
    f.split(y, yo, yi, 64).reorder(yo, x, yi).vectorize(yo, 32)   # lanes 64 rows apart: 2048-element block
    with pytest.raises(hl.HalideError, match="more than 1024"):
        f.realize([16, 4096])


# A vectorized loop whose lanes step s elements apart (Halide reads them strided, the finer loops of that
# dimension around or inside it): those loops become lanes too, one contiguous vector block.
@pytest.mark.parametrize("schedule", ["outer_of_split_x", "outer_of_split_y", "three_level", "one_lane",
                                      "update_outer_of_split"])
def test_vectorized_loop_with_strided_lanes(schedule):
    def build(hl):
        x, y, xo, xi, yo, yi = (hl.Var(n) for n in ("x", "y", "xo", "xi", "yo", "yi"))
        xio, xii = hl.Var("xio"), hl.Var("xii")
        inp = hl.Buffer(IMG[0], "img")
        f = hl.Func("f")
        f[x, y] = inp[x, y] * 3.0 - inp[x + 1, y + 2]
        if schedule == "outer_of_split_x":      # the fuzzer's pattern: split, outer innermost, vectorize it
            f.split(x, xo, xi, 3).reorder(xo, y, xi).vectorize(xo, 8)
        elif schedule == "outer_of_split_y":    # lanes 5 rows apart; 23 rows: masked edge block
            f.split(y, yo, yi, 5).reorder(yo, yi, x).vectorize(yo, 4)
        elif schedule == "three_level":         # lanes 8 apart, xii (finer) outside, xo between
            f.split(x, xo, xi, 32).split(xi, xio, xii, 8).reorder(xio, xo, y, xii).vectorize(xio, 4)
        elif schedule == "one_lane":            # vectorize by 1: a plain loop
            f.split(x, xo, xi, 4).reorder(xo, xi, y).vectorize(xo, 1)
        else:
            r = hl.RDom([(0, 3)], "r")
            g = hl.Func("g")
            g[x, y] = 0.0
            g[x, y] += f[x + r.x, y]
            f.compute_root()
            g.update(0).split(x, xo, xi, 2).reorder(xo, xi, r.x, y).vectorize(xo, 8)
            return g
        return f

    run_both(build, [45, 23])


def test_vectorized_strided_loop_with_a_parallel_finer_loop_warns():
    """The parallel finer loop has to be lanes of the contiguous vector: same values, and a warning that it
    does not run in parallel."""
    def build(hl):
        x, y, xo, xi = hl.Var("x"), hl.Var("y"), hl.Var("xo"), hl.Var("xi")
        inp = hl.Buffer(IMG[1], "img")
        f = hl.Func("f")
        f[x, y] = inp[x, y] + inp[x + 2, y]
        f.split(x, xo, xi, 4).reorder(xo, y, xi).parallel(xi).vectorize(xo, 8)
        return f

    with pytest.warns(RuntimeWarning, match="parallel loop xi runs as lanes"):
        run_both(build, [45, 23])


def test_update_vectorized_with_rvar_inside():
    """Halide's default update order puts the RVar innermost: update().vectorize(x) runs it per vector. The
    RVar loop moves outside the vector (each x still sums in r order)."""
    A = np.random.default_rng(5).random((24, 48), dtype=np.float32)

    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        a = hl.Buffer(A, "a")
        r = hl.RDom([(0, 24)], "r")
        c = hl.Func("c")
        c[x, y] = 0.0
        c[x, y] += a[x, r] * a[y, r]
        c.update().vectorize(x, 16)
        return c

    run_both(build, [48, 40])


@pytest.mark.parametrize("schedule", ["rvar_inside", "rvar_outside", "over_y"])
def test_update_vectorized_over_a_raw_read_at_a_sum_of_dims(schedule):
    """f[x, y] += in[x + r.x + 100, y + 100]: the input is sliced from the sum's first element, so the folded
    op reads through a map without a constant and vectorizes (it used to fail in MLIR)."""
    IN = np.random.default_rng(6).integers(-3000, 3000, (223, 237)).astype(np.int16)

    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IN, "in0")
        r = hl.RDom([(-1, 3)], "r")
        f = hl.Func("f")
        f[x, y] = hl.cast(hl.Int(32), 0)
        f[x, y] += hl.cast(hl.Int(32), inp[x + r.x + 100, y + 100]) * 5
        if schedule == "rvar_inside":
            f.update(0).vectorize(x, 8)
        elif schedule == "rvar_outside":
            f.update(0).reorder(x, r.x).vectorize(x, 8)
        else:
            f.update(0).reorder(y, x).vectorize(y, 8)
        return f

    run_both(build, [37, 23])


def test_update_with_a_loop_left_one_iteration_by_a_finer_loop_outside():
    """Found by the fuzzer (example 806 of `--examples 1000 --seed 23`): xi (step 1) runs outside xo (step 13), so
    xo has one iteration per xi; tiling it made a dynamically sized one-column tile the vectorizer could not
    fold ("Attempted to vectorize, but failed"). Such a loop is not tiled now."""
    IN = np.random.default_rng(7).integers(-3000, 3000, (23, 37)).astype(np.int16)

    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
        inp = hl.Buffer(IN, "in0")
        b = hl.BoundaryConditions.constant_exterior(inp, 0)
        r = hl.RDom([(-1, 2), (0, 2)], "r")
        f = hl.Func("f")
        f[x, y] = hl.cast(hl.UInt(8), 0)
        f[x, y] += hl.cast(hl.UInt(8), b[x + r.x, y + r.y])
        f.update(0).tile(x, y, xo, yo, xi, yi, 13, 16).reorder(yo, r.x, xo, xi, r.y, yi).vectorize(yo, 8)
        return f

    run_both(build, [37, 23])
