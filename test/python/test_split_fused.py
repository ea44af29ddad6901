"""Splitting a fuse()d loop (Halide accepts it): the split becomes tiles of the fused loop's parts."""
import numpy as np
import pytest

from oracle import run_both

IMG = np.random.default_rng(21).random((40, 64), dtype=np.float32)


@pytest.mark.parametrize("schedule", ["split_inner_part", "vectorize_fused", "parallel_tiles_then_split",
                                      "inner_covers_rows", "fused_tile_vectorized_unrolled"])
def test_split_of_a_fused_loop(schedule):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        xo, yo, xi, yi, t, to, ti = (hl.Var(n) for n in ("xo", "yo", "xi", "yi", "t", "to", "ti"))
        inp = hl.Buffer(IMG, "img")
        f = hl.Func("f")
        f[x, y] = inp[x, y] * 2.0 + inp[x + 1, y] - inp[x, y + 1]
        if schedule == "split_inner_part":          # 16 divides the 48 columns
            f.fuse(x, y, t).split(t, to, ti, 16)
        elif schedule == "vectorize_fused":
            f.fuse(x, y, t).vectorize(t, 16).parallel(t)
        elif schedule == "parallel_tiles_then_split":
            f.tile(x, y, xo, yo, xi, yi, 16, 8).fuse(xo, yo, t).parallel(t).split(xi, xi, ti, 8).vectorize(ti)
        elif schedule == "inner_covers_rows":       # ti takes 2 whole rows of 4 columns
            f.tile(x, y, xo, yo, xi, yi, 4, 4).fuse(xi, yi, t).split(t, to, ti, 8)
        else:
            f.tile(x, y, xo, yo, xi, yi, 16, 4).fuse(xi, yi, t).split(t, to, ti, 16).vectorize(ti).unroll(to)
        return f

    run_both(build, [48, 32])


@pytest.mark.parametrize("factor", [7, 20])
def test_split_of_a_fused_loop_across_part_edges(factor):
    """Halide's inner loop would wrap around a row's end into the next row; ours stops at the row's end (a
    partial last tile): the same points in another order."""
    def build(hl):
        x, y, t, to, ti = hl.Var("x"), hl.Var("y"), hl.Var("t"), hl.Var("to"), hl.Var("ti")
        inp = hl.Buffer(IMG, "img")
        f = hl.Func("f")
        f[x, y] = inp[x, y] * 3.0
        f.fuse(x, y, t).split(t, to, ti, factor).vectorize(ti)
        return f

    run_both(build, [48, 10])


@pytest.mark.parametrize("schedule", ["tile_4x4", "tile_8x2_parallel"])
def test_vectorize_a_fused_loop_of_constant_parts(schedule):
    """fuse(xi, yi, t).vectorize(t) over a tile's inner loops: one vector over the whole tile (4x4 lanes)."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        xo, yo, xi, yi, t = (hl.Var(n) for n in ("xo", "yo", "xi", "yi", "t"))
        inp = hl.Buffer(IMG, "img")
        f = hl.Func("f")
        f[x, y] = inp[x, y] - inp[x + 1, y + 1] * 0.5
        if schedule == "tile_4x4":
            f.tile(x, y, xo, yo, xi, yi, 4, 4).fuse(xi, yi, t).vectorize(t)
        else:
            f.tile(x, y, xo, yo, xi, yi, 8, 2).fuse(xi, yi, t).vectorize(t).parallel(yo)
        return f

    run_both(build, [48, 30])


def test_vectorize_a_fused_loop_of_unknown_extent_is_refused():
    from oracle import realize_raises_both

    def build(hl):
        x, y, t = hl.Var("x"), hl.Var("y"), hl.Var("t")
        f = hl.Func("f")
        f[x, y] = x + y
        f.fuse(x, y, t).vectorize(t)
        return f

    realize_raises_both(build, [48, 10])
