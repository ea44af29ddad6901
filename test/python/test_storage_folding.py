"""Storage folding (analysis/folding.py): a sliding window's buffer holds only the rows in flight, a circular buffer
of Halide's fold factor (the window rounded up to a power of two) or of ``fold_storage``'s, not the whole loop.
Values against real Halide 21 at odd sizes, with parallel strips, vectorized rows, tiles and chains of windows; the
buffer's rows from the payload; Halide's error for a fold smaller than the window."""

import re
import warnings

import numpy as np
import pytest

from helpers import V
from oracle import image_f32, run_both

W, H = 61, 37
IMG = image_f32(W + 8, H + 8, seed=31)
RGB = image_f32(W + 8, H + 8, seed=32, c=3)


def buffer_rows(out, sizes) -> list:
    """The rows of every sliding-window buffer of the payload, in order."""
    text = out.compile_to_mlir(sizes)
    return [int(r) for r in re.findall(r"%buf\d+ = tensor\.empty\(\) : tensor<(\d+)x", text)]


def blur(hl, schedule, taps=(0, 1, 2)):
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    bx, by = hl.Func("bx"), hl.Func("by")
    bx[x, y] = inp[x, y + 3] + 2 * inp[x + 1, y + 3] + inp[x + 2, y + 3]
    by[x, y] = sum((k + 1) * bx[x, y + t] for k, t in enumerate(taps))
    schedule(hl, bx, by, x, y)
    return by


def lesson8(hl):
    x, y, yo, yi = V(hl, "x y yo yi")
    producer, consumer = hl.Func("producer"), hl.Func("consumer")
    producer[x, y] = hl.sqrt(x * y)
    consumer[x, y] = producer[x, y] + producer[x, y + 1] + producer[x + 1, y] + producer[x + 1, y + 1]
    consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4)
    producer.store_at(consumer, yo).compute_at(consumer, yi).vectorize(x, 4)
    return consumer


@pytest.mark.parametrize("sizes", [(75, 53), (33, 16), (8, 3)])
def test_lesson8_mixed_folds_to_two_rows(sizes):
    """Lesson 8's mixed schedule: per strip, 2 rows of the producer (Halide's fold), not the strip's 17."""
    run_both(lesson8, list(sizes))
    import halide_mlir as hl
    assert buffer_rows(lesson8(hl), list(sizes)) == [2]


def strips(fold=None):
    def schedule(hl, bx, by, x, y):
        yo, yi = V(hl, "yo yi")
        by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8)
        bx.store_at(by, yo).compute_at(by, yi).vectorize(x, 8)
        if fold is not None:
            bx.fold_storage(y, fold)
    return schedule


def tiles(hl, bx, by, x, y):
    xo, yo, xi, yi = V(hl, "xo yo xi yi")
    by.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo)
    bx.store_at(by, xo).compute_at(by, yi).vectorize(x, 8)


@pytest.mark.parametrize("name, schedule, taps, rows", [
    ("store_root", lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y), (0, 1, 2), 4),
    ("store_root_explicit_3", lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y).fold_storage(y, 3),
     (0, 1, 2), 3),
    ("negative_taps_explicit_5", lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y).fold_storage(y, 5),
     (-2, 0, 1), 5),
    ("strips_parallel_vector", strips(), (0, 1, 2), 4),
    ("strips_explicit_3", strips(3), (0, 1, 2), 3),
    ("tiles", tiles, (0, 1, 2), 4),
    ("wide_window", lambda hl, bx, by, x, y: (by.vectorize(x, 16), bx.store_root().compute_at(by, y)
                                               .vectorize(x, 16)), (0, 2, 5), 8),
])
@pytest.mark.parametrize("sizes", [(W, H), (17, 9)])
def test_blur_folded(name, schedule, taps, rows, sizes):
    def build(hl):
        return blur(hl, schedule, taps)

    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a fold applied never warns
        run_both(build, list(sizes))
        import halide_mlir as hl
        assert buffer_rows(build(hl), list(sizes)) == [rows]


def test_harris_chain_folded():
    """Halide's apps/harris schedule: gray, Ix and Iy slide together, each in its own folded buffer (gray's window
    is 5 rows: 8; Ix's and Iy's 3: 4)."""
    def build(hl):
        inp = hl.Buffer(RGB, "input")
        x, y, yo, yi = V(hl, "x y yo yi")
        gray, ix, iy, out = hl.Func("gray"), hl.Func("Ix"), hl.Func("Iy"), hl.Func("harris")
        gray[x, y] = hl.f32(0.25) * inp[x, y, 0] + hl.f32(0.5) * inp[x, y, 1] + hl.f32(0.25) * inp[x, y, 2]
        iy[x, y] = gray[x, y + 2] - gray[x, y] + 2 * (gray[x + 1, y + 2] - gray[x + 1, y]) + gray[x + 2, y + 2] \
            - gray[x + 2, y]
        ix[x, y] = gray[x + 2, y] - gray[x, y] + 2 * (gray[x + 2, y + 1] - gray[x, y + 1]) + gray[x + 2, y + 2] \
            - gray[x, y + 2]
        sxx = sum(ix[x + i, y + j] * ix[x + i, y + j] for i in range(3) for j in range(3))
        syy = sum(iy[x + i, y + j] * iy[x + i, y + j] for i in range(3) for j in range(3))
        sxy = sum(ix[x + i, y + j] * iy[x + i, y + j] for i in range(3) for j in range(3))
        out[x, y] = sxx * syy - sxy * sxy - hl.f32(0.04) * (sxx + syy) * (sxx + syy)
        out.split(y, yo, yi, 32).parallel(yo).vectorize(x, 16)
        for f in (gray, ix, iy):
            f.store_at(out, yo).compute_at(out, yi).vectorize(x, 16)
        return out

    sizes = [W - 4, H - 4]
    run_both(build, sizes, rtol=1e-4, atol=1e-4)
    import halide_mlir as hl
    assert sorted(buffer_rows(build(hl), sizes)) == [4, 4, 8]


def test_fold_smaller_than_window_is_refused():
    """Halide's error (a run-time assertion there, halide_error_fold_factor_too_small), at compile time here."""
    import halide
    with pytest.raises(halide.HalideError, match=r"fold factor \(2\) of dimension y of bx\S* is too small"):
        blur(halide, lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y).fold_storage(y, 2)).realize([W, H])
    import halide_mlir as hl
    out = blur(hl, lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y).fold_storage(y, 2))
    with pytest.raises(hl.HalideError, match=r"test_storage_folding\.py:\d+: The fold factor \(2\) of dimension y "
                                             r"of bx is too small to store the required region accessed by loop "
                                             r"by\.s0\.y \(3\)"):
        out.realize([W, H])


def test_fold_not_applied_warns():
    """Two rows per iteration (compute_at the outer loop of a split): the window's reads would cross the end of
    the circular buffer; the buffer spans the loop, with a StorageWarning (same values as Halide)."""
    def schedule(hl, bx, by, x, y):
        yo, yi = V(hl, "yo yi")
        by.split(y, yo, yi, 2)
        bx.store_root().compute_at(by, yo).fold_storage(y, 4)

    import halide_mlir as hl
    with pytest.warns(hl.StorageWarning, match=r"Func 'bx': fold_storage\(y, 4\) is not applied"):
        run_both(lambda hl: blur(hl, schedule), [W, H])


@pytest.mark.parametrize("schedule", [
    lambda hl, bx, by, x, y: bx.compute_root().fold_storage(y, 4),          # no loop to fold over
    lambda hl, bx, by, x, y: bx.compute_at(by, y).fold_storage(y, 4),       # stored where it is computed
    lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y).fold_storage(x, 4),   # x does not slide
    lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y).fold_storage(y, 64),  # the whole loop fits
])
def test_fold_with_nothing_to_fold(schedule):
    """As in Halide: accepted, nothing folded, same values, no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_both(lambda hl: blur(hl, schedule), [W, H])


def test_fold_of_unknown_var():
    import halide_mlir as hl
    x, y, z = V(hl, "x y z")
    f = hl.Func("f")
    f[x, y] = x + y
    with pytest.raises(hl.HalideError, match=r"In schedule for f, could not find var z to fold the storage of\."
                                             r"\nVars: x y"):
        f.fold_storage(z, 2)
    f.fold_storage(y, 2)
    assert np.array_equal(np.asarray(f.realize([5, 3])), np.add.outer(np.arange(3), np.arange(5)))
