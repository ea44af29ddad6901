"""Halide tutorial lesson 8 ("scheduling multi-stage pipelines"), every schedule, checked against real Halide 21.

The lesson's pipeline (Python version)::

    producer[x, y] = sqrt(x * y)
    consumer[x, y] = producer[x, y] + producer[x, y + 1] + producer[x + 1, y] + producer[x + 1, y + 1]

scheduled inline (the default), compute_root, compute_at(consumer, y), store_root + compute_at y (the sliding
window), store_root + compute_at x, tile 2x2 + compute_at x_outer, and the "mixed" schedule (split y by 16,
parallel strips, vectorize by 4, store_at yo / compute_at yi, producer vectorized) -- at the lesson's sizes (4x4;
800x600 for "mixed") and at non-divisible sizes (odd extents, shifted output mins) that exercise the edges of every
split.  The oracle's result is pinned to a float64 numpy evaluation of the algorithm (loose tolerance: Halide
computes in f32), then ours is compared to the oracle (rtol 1e-5).
"""

import numpy as np
import pytest

import halide_mlir
from helpers import NOT_YET, lesson8
from oracle import assert_same, run_both, run_program_both


def numpy_reference(sizes, mins=(0, 0)):
    w, h = sizes
    xs = np.arange(mins[0], mins[0] + w + 1, dtype=np.int64)
    ys = np.arange(mins[1], mins[1] + h + 1, dtype=np.int64)
    prod = (ys[:, None] * xs[None, :]).astype(np.int32)  # x * y is Int(32) in Halide
    with np.errstate(invalid="ignore"):
        p = np.sqrt(prod.astype(np.float64))  # sqrt of an int promotes to float
    return (p[:-1, :-1] + p[1:, :-1] + p[:-1, 1:] + p[1:, 1:]).astype(np.float32)


# --- the lesson's schedules ------------------------------------------------------------------------------------

def s_inline(hl, p, c, x, y):
    pass


def s_root(hl, p, c, x, y):
    p.compute_root()


def s_compute_at_y(hl, p, c, x, y):
    p.compute_at(c, y)


def s_compute_at_x(hl, p, c, x, y):  # mentioned by the lesson ("very similar to full inlining")
    p.compute_at(c, x)


def s_store_root_compute_at_y(hl, p, c, x, y):
    p.store_root()
    p.compute_at(c, y)


def s_store_root_compute_at_x(hl, p, c, x, y):
    p.store_root().compute_at(c, x)


def s_tile_compute_at(hl, p, c, x, y):
    x_outer, y_outer, x_inner, y_inner = hl.Var("x_outer"), hl.Var("y_outer"), hl.Var("x_inner"), hl.Var("y_inner")
    c.tile(x, y, x_outer, y_outer, x_inner, y_inner, 2, 2)
    p.compute_at(c, x_outer)


def s_mixed(hl, p, c, x, y):
    yo, yi = hl.Var("yo"), hl.Var("yi")
    c.split(y, yo, yi, 16)
    c.parallel(yo)
    c.vectorize(x, 4)
    p.store_at(c, yo)
    p.compute_at(c, yi)
    p.vectorize(x, 4)


# --- variants around the lesson's schedules --------------------------------------------------------------------

def s_mixed_compute_at_only(hl, p, c, x, y):
    """"mixed" without the store_at: the producer computed and stored per scanline of the strip."""
    yo, yi = hl.Var("yo"), hl.Var("yi")
    c.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4)
    p.compute_at(c, yi).vectorize(x, 4)


def s_mixed_wide(hl, p, c, x, y):
    """"mixed" with AVX-512-wide vectors (16 f32)."""
    yo, yi = hl.Var("yo"), hl.Var("yi")
    c.split(y, yo, yi, 16).parallel(yo).vectorize(x, 16)
    p.store_at(c, yo).compute_at(c, yi).vectorize(x, 16)


def s_tile_compute_at_vectorized(hl, p, c, x, y):
    x_outer, y_outer, x_inner, y_inner = hl.Var("x_outer"), hl.Var("y_outer"), hl.Var("x_inner"), hl.Var("y_inner")
    c.tile(x, y, x_outer, y_outer, x_inner, y_inner, 32, 8).vectorize(x_inner, 8).parallel(y_outer)
    p.compute_at(c, x_outer).vectorize(x, 8)


def s_tile_compute_at_y_inner(hl, p, c, x, y):
    """compute_at a loop made by tile that is not the outer tile loop."""
    x_outer, y_outer, x_inner, y_inner = hl.Var("x_outer"), hl.Var("y_outer"), hl.Var("x_inner"), hl.Var("y_inner")
    c.tile(x, y, x_outer, y_outer, x_inner, y_inner, 8, 4)
    p.compute_at(c, y_inner)


def s_store_at_tile_compute_at_y_inner(hl, p, c, x, y):
    x_outer, y_outer, x_inner, y_inner = hl.Var("x_outer"), hl.Var("y_outer"), hl.Var("x_inner"), hl.Var("y_inner")
    c.tile(x, y, x_outer, y_outer, x_inner, y_inner, 8, 4)
    p.store_at(c, x_outer).compute_at(c, y_inner)


def s_root_tiled_both(hl, p, c, x, y):
    p.compute_root().tile(x, y, hl.Var("pxo"), hl.Var("pyo"), hl.Var("pxi"), hl.Var("pyi"), 8, 8).vectorize(
        hl.Var("pxi")).parallel(hl.Var("pyo"))
    c.vectorize(x, 8).parallel(y)


def s_compute_at_reorder(hl, p, c, x, y):
    """compute_at the outer loop of a reordered (column-major) consumer."""
    c.reorder(y, x)
    p.compute_at(c, x)


LESSON = [
    # (id, schedule, sizes)
    ("inline", s_inline, [4, 4]),
    ("root", s_root, [4, 4]),
    ("compute_at_y", s_compute_at_y, [4, 4]),
    ("compute_at_x", s_compute_at_x, [4, 4]),
    ("store_root_compute_at_y", s_store_root_compute_at_y, [4, 4]),
    ("store_root_compute_at_x", s_store_root_compute_at_x, [4, 4]),
    ("tile_compute_at_x_outer", s_tile_compute_at, [4, 4]),
    ("mixed_800x600", s_mixed, [800, 600]),
]

VARIANTS = [
    ("inline_odd", s_inline, [37, 23]),
    ("root_odd", s_root, [37, 23]),
    ("compute_at_y_odd", s_compute_at_y, [37, 23]),
    ("compute_at_x_odd", s_compute_at_x, [11, 7]),
    ("store_root_compute_at_y_odd", s_store_root_compute_at_y, [37, 23]),
    ("store_root_compute_at_x_odd", s_store_root_compute_at_x, [11, 7]),
    ("tile_compute_at_x_outer_5x5", s_tile_compute_at, [5, 5]),
    ("tile_compute_at_x_outer_160", s_tile_compute_at, [160, 160]),
    ("mixed_160x160", s_mixed, [160, 160]),
    ("mixed_odd_803x601", s_mixed, [803, 601]),
    ("mixed_compute_at_only_803x601", s_mixed_compute_at_only, [803, 601]),
    ("mixed_wide_803x601", s_mixed_wide, [803, 601]),
    ("tile_vectorized_parallel_203x77", s_tile_compute_at_vectorized, [203, 77]),
    ("tile_compute_at_y_inner_29x13", s_tile_compute_at_y_inner, [29, 13]),
    ("store_at_tile_compute_at_y_inner_29x13", s_store_at_tile_compute_at_y_inner, [29, 13]),
    ("root_tiled_both_67x45", s_root_tiled_both, [67, 45]),
    ("compute_at_reorder_13x9", s_compute_at_reorder, [13, 9]),
]


def _build(tag, schedule):
    def build(hl):
        p, c, x, y = lesson8(hl, tag)
        schedule(hl, p, c, x, y)
        return c
    return build


@pytest.mark.parametrize("tag,schedule,sizes",
                         [pytest.param(t, s, z, id=t) for t, s, z in LESSON + VARIANTS])
def test_lesson08(tag, schedule, sizes):
    ref, _ = run_both(_build(tag, schedule), sizes)
    assert_same(numpy_reference(sizes), ref, rtol=1e-4, what="oracle vs numpy")


@pytest.mark.parametrize("tag,schedule,sizes,mins", [
    pytest.param("root_shifted", s_root, [9, 7], [3, 5], id="root_shifted"),
    pytest.param("compute_at_y_shifted", s_compute_at_y, [9, 7], [3, 5], id="compute_at_y_shifted"),
    pytest.param("store_root_y_shifted", s_store_root_compute_at_y, [9, 7], [3, 5], id="store_root_y_shifted"),
    pytest.param("tile_shifted", s_tile_compute_at, [9, 7], [1, 2], id="tile_shifted"),
    pytest.param("mixed_shifted", s_mixed, [101, 37], [5, 3], id="mixed_shifted"),
])
def test_lesson08_shifted(tag, schedule, sizes, mins):
    ref, _ = run_both(_build(tag, schedule), sizes, mins=mins, mode="numpy", out_dtype=np.float32)
    assert_same(numpy_reference(sizes, mins), ref, rtol=1e-4, what="oracle vs numpy")


@pytest.mark.parametrize("schedule", [
    pytest.param(s_compute_at_y, id="compute_at_y"),
    pytest.param(s_store_root_compute_at_y, id="store_root_compute_at_y"),
    pytest.param(s_mixed, id="mixed"),
])
def test_lesson08_realize_twice_different_sizes(schedule):
    """A sliding window keeps state across loop iterations: a second realize (new size, new cached kernel) and a
    repeat of the first must not see stale rows."""
    def program(hl):
        p, c, x, y = lesson8(hl, "twice")
        schedule(hl, p, c, x, y)
        a = np.asarray(c.realize([40, 33])).copy()
        b = np.asarray(c.realize([17, 50])).copy()
        a2 = np.asarray(c.realize([40, 33])).copy()
        return [a, b, a2]
    run_program_both(program)


def test_lesson08_all_schedules_agree_with_inline():
    """Halide's promise, checked on halide_mlir alone across every lesson schedule it supports: the same bits
    (up to float reassociation) as the inline schedule."""
    hl = halide_mlir
    sizes = [45, 31]
    ref = np.asarray(_build("agree_inline", s_inline)(hl).realize(sizes))
    tried = 0
    for tag, schedule, _ in LESSON + VARIANTS:
        try:
            got = np.asarray(_build("agree_" + tag, schedule)(hl).realize(sizes))
        except NOT_YET:
            continue
        tried += 1
        assert_same(ref, got, rtol=1e-5, what=f"schedule {tag} vs inline")
    assert tried >= 3
