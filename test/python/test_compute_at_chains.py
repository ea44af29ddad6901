"""Chains of compute_at producers (issue 5): producers computed at an output's loops that the output reads only
through other producers computed there (unsharp's gray -> blur_y -> ratio, Harris's gray -> Ix, Iy). The payload
computes each producer's tile once per iteration of its loop, with Halide's bounds (analysis/tiling.py; lit
sched_compute_at_chained.py pins the "once"). Checked against real Halide 21 at odd sizes, several tile sizes,
producers at the same and at deeper loops, chains that fall back to plain fusion, and producers computed at
different loops of the same consumer that read each other.
"""

import math

import numpy as np
import pytest

from helpers import V, box_blur
from oracle import image_f32, image_u16, run_both

SIZES = [(61, 37), (83, 45)]
TILES = [8, 16, 32]
# hl.Buffer(ndarray) does not copy and real Halide does not keep the array alive: keep the inputs here.
RGB = {size: image_f32(size[0] + 4, size[1] + 4, seed=11, c=3, lo=0.05, hi=1.0) for size in SIZES}
GRAY16 = {size: image_u16(size[0] + 4, size[1] + 4, seed=12) for size in SIZES}


def gray_of(hl, inp, x, y):
    gray = hl.Func("gray")
    gray[x, y] = 0.299 * inp[x, y, 0] + 0.587 * inp[x, y, 1] + 0.114 * inp[x, y, 2]
    return gray


# --- unsharp mask: gray -> blur_y -> (blur_x, sharpen inline) -> ratio -> output -----------------------------

def unsharp(hl, image):
    inp = hl.Buffer(image, "input")
    x, y, c = V(hl, "x y c")
    k = [math.exp(-i * i / 4.5) / (math.sqrt(2 * math.pi) * 1.5) for i in range(3)]
    gray = gray_of(hl, inp, x, y)
    blur_y, blur_x = hl.Func("blur_y"), hl.Func("blur_x")
    sharpen, ratio, out = hl.Func("sharpen"), hl.Func("ratio"), hl.Func("unsharp")
    blur_y[x, y] = (k[0] * gray[x, y + 2] + k[1] * (gray[x, y + 1] + gray[x, y + 3])
                    + k[2] * (gray[x, y] + gray[x, y + 4]))
    blur_x[x, y] = (k[0] * blur_y[x + 2, y] + k[1] * (blur_y[x + 1, y] + blur_y[x + 3, y])
                    + k[2] * (blur_y[x, y] + blur_y[x + 4, y]))
    sharpen[x, y] = 2 * gray[x + 2, y + 2] - blur_x[x, y]
    ratio[x, y] = sharpen[x, y] / gray[x + 2, y + 2]
    out[x, y, c] = ratio[x, y] * inp[x + 2, y + 2, c]
    return gray, blur_y, ratio, out, x, y, c


def unsharp_strips(hl, gray, blur_y, ratio, out, x, y, c, t):
    """The app's schedule: gray per strip of t rows, blur_y and ratio per row."""
    yo, yi = V(hl, "yo yi")
    out.split(y, yo, yi, t).vectorize(x, 16).parallel(yo).reorder(x, c, yi, yo)
    gray.compute_at(out, yo).vectorize(x, 16)
    blur_y.compute_at(out, yi).vectorize(x, 16)
    ratio.compute_at(out, yi).vectorize(x, 16)


def unsharp_tiles(hl, gray, blur_y, ratio, out, x, y, c, t):
    """Every producer at the same loop: one t x t tile each."""
    xo, yo, xi, yi = V(hl, "xo yo xi yi")
    out.tile(x, y, xo, yo, xi, yi, t, t).reorder(xi, yi, c, xo, yo).parallel(yo).vectorize(xi, 8)
    for f in (gray, blur_y, ratio):
        f.compute_at(out, xo).vectorize(x, 8)


def unsharp_three_levels(hl, gray, blur_y, ratio, out, x, y, c, t):
    """gray per strip, blur_y per 2-D tile of the strip, ratio per row of the tile."""
    xo, yo, xi, yi = V(hl, "xo yo xi yi")
    out.tile(x, y, xo, yo, xi, yi, t, t // 2).reorder(xi, c, yi, xo, yo)
    gray.compute_at(out, yo)
    blur_y.compute_at(out, xo).vectorize(x, 4)
    ratio.compute_at(out, yi)


def unsharp_split_producers(hl, gray, blur_y, ratio, out, x, y, c, t):
    """The producers' own splits, unrolls and vectors apply to their tiles."""
    yo, yi, xo, xi = V(hl, "yo yi xo xi")
    out.split(y, yo, yi, t).reorder(x, c, yi, yo)
    gray.compute_at(out, yo).split(x, xo, xi, 8).vectorize(xi)
    blur_y.compute_at(out, yo).split(y, yo, yi, 2).unroll(yi).vectorize(x, 8)
    ratio.compute_at(out, yi)


UNSHARP = {"strips": unsharp_strips, "tiles": unsharp_tiles, "three_levels": unsharp_three_levels,
           "split_producers": unsharp_split_producers}


@pytest.mark.parametrize("t", TILES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("schedule", list(UNSHARP))
def test_unsharp_chain(schedule, size, t):
    def build(hl):
        gray, blur_y, ratio, out, x, y, c = unsharp(hl, RGB[size])
        UNSHARP[schedule](hl, gray, blur_y, ratio, out, x, y, c, t)
        return out
    run_both(build, [*size, 3], rtol=1e-4, atol=1e-5)


# --- Harris: gray -> Ix, Iy (read by the output only through inline products and box sums) -----------------

def harris(hl, image):
    inp = hl.Buffer(image, "input")
    x, y = V(hl, "x y")
    gray = gray_of(hl, inp, x, y)
    ix, iy = hl.Func("Ix"), hl.Func("Iy")
    iy[x, y] = ((gray[x + 2, y + 2] - gray[x, y]) + 2 * (gray[x + 1, y + 2] - gray[x + 1, y])
                + gray[x, y + 2] - gray[x + 2, y])
    ix[x, y] = ((gray[x + 2, y + 2] - gray[x, y]) + 2 * (gray[x + 2, y + 1] - gray[x, y + 1])
                + gray[x + 2, y] - gray[x, y + 2])
    prods = []
    for a, b in ((ix, ix), (iy, iy), (ix, iy)):
        p = hl.Func()
        p[x, y] = a[x, y] * b[x, y]
        prods.append(p)
    sums = []
    for p in prods:
        s = hl.Func()
        s[x, y] = sum((p[x + i, y + j] for j in range(3) for i in range(3)), hl.f32(0))
        sums.append(s)
    sxx, syy, sxy = sums
    out = hl.Func("harris")
    out[x, y] = sxx[x, y] * syy[x, y] - sxy[x, y] * sxy[x, y] - 0.04 * (sxx[x, y] + syy[x, y]) * (sxx[x, y] + syy[x, y])
    return gray, ix, iy, out, x, y


def harris_strips(hl, gray, ix, iy, out, x, y, t):
    yo, yi = V(hl, "yo yi")
    out.split(y, yo, yi, t).parallel(yo).vectorize(x, 16)
    for f in (gray, ix, iy):
        f.compute_at(out, yo).vectorize(x, 16)


def harris_tiles(hl, gray, ix, iy, out, x, y, t):
    """gray per strip of tiles, Ix and Iy per tile."""
    xo, yo, xi, yi = V(hl, "xo yo xi yi")
    out.tile(x, y, xo, yo, xi, yi, t, t).parallel(yo).vectorize(xi, 8)
    gray.compute_at(out, yo).vectorize(x, 8)
    ix.compute_at(out, xo).vectorize(x, 8)
    iy.compute_at(out, xo)


HARRIS = {"strips": harris_strips, "tiles": harris_tiles}


@pytest.mark.parametrize("t", TILES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("schedule", list(HARRIS))
def test_harris_chain(schedule, size, t):
    def build(hl):
        gray, ix, iy, out, x, y = harris(hl, RGB[size])
        HARRIS[schedule](hl, gray, ix, iy, out, x, y, t)
        return out
    run_both(build, list(size), rtol=1e-4, atol=1e-4)


# --- integer chains (exact), transposed reads, and chains that fall back to plain fusion -------------------

def blur16(hl, image):
    inp = hl.Buffer(image, "input")
    bx, by, x, y = box_blur(hl, inp)
    return inp, bx, by, hl.Func("out"), x, y


CHAINS16 = {  # name -> (out's definition, vectorized)
    # out reads bx directly and through by: bx's tile covers both
    "direct_and_chained": (lambda hl, inp, bx, by, x, y: by[x, y] - bx[x + 1, y + 2] / 2, True),
    # taps on both sides of the tile in both dimensions
    "shifted": (lambda hl, inp, bx, by, x, y: by[x + 1, y + 1] - by[x, y] / 2 + bx[x + 2, y] / 4, True),
    # a fixed row of by beside its tile (no static tile shape covers both): plain fusion for by and bx
    "fixed_row": (lambda hl, inp, bx, by, x, y: by[x, y] + by[x, 0] / 4, True),
    # a data-dependent read of by: plain fusion (vectorizing such gathers is not supported yet, nor is
    # auto-vectorizing them)
    "gather": (lambda hl, inp, bx, by, x, y: by[x, y] / 2 + by[x, hl.clamp(hl.i32(inp[x, y]) % 7, 0, 4)] / 2, False),
}


@pytest.mark.parametrize("t", [8, 16])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("chain", list(CHAINS16))
def test_u16_chain(chain, size, t, monkeypatch):
    definition, vec = CHAINS16[chain]
    if not vec:
        monkeypatch.setenv("HALIDE_MLIR_AUTO_VECTORIZE", "0")

    def build(hl):
        inp, bx, by, out, x, y = blur16(hl, GRAY16[size])
        out[x, y] = definition(hl, inp, bx, by, x, y)
        xo, yo, xi, yi = V(hl, "xo yo xi yi")
        out.tile(x, y, xo, yo, xi, yi, t, t).parallel(yo)
        bx.compute_at(out, yo)
        by.compute_at(out, xo)
        if vec:
            for f, v in ((out, xi), (bx, x), (by, x)):
                f.vectorize(v, 8)
        return out
    run_both(build, list(size))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_chain_through_update(size):
    """A producer with an update definition in the chain: it is fused as before (one slice per level), and the
    producer it reads falls back to plain fusion."""
    def build(hl):
        inp, bx, by, out, x, y = blur16(hl, GRAY16[size])
        acc = hl.Func("acc")
        acc[x, y] = bx[x, y]
        acc[x, y] += bx[x, y + 2]
        out[x, y] = acc[x, y] + acc[x + 1, y + 1]
        yo, yi = V(hl, "yo yi")
        out.split(y, yo, yi, 8).vectorize(x, 8)
        bx.compute_at(out, yo)
        acc.compute_at(out, yi)
        return out
    run_both(build, list(size))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_chain_transposed(size):
    """A chained producer read transposed: its tile follows the other consumer dimension."""
    def build(hl):
        inp, bx, by, out, x, y = blur16(hl, GRAY16[size])
        tr = hl.Func("tr")
        tr[x, y] = by[y, x] + bx[y + 1, x]
        out[x, y] = tr[y, x] * 2
        yo, yi = V(hl, "yo yi")
        out.split(y, yo, yi, 8)
        bx.compute_at(out, yo)
        by.compute_at(out, yo)
        tr.compute_at(out, yi)
        return out
    run_both(build, list(size))


# --- producers at different loops of the same consumer, read by each other -----------------------------------------
# A producer P computed at an outer loop of C, read only by a producer Q computed at an inner loop of C: when
# P is fused into the outer loop, Q is not inside it yet, and fuse_into_containing_op (which fuses a producer
# where it is read inside the loop) failed with "could not find next producer to fuse into container" (found
# by `python -m halide_mlir.tools.fuzz --examples 1500 --seed 81`). Q now goes into the outer loop first, then P,
# then Q into its own loop (codegen/transform.py FuseAt.movers): P is computed once per iteration of its loop,
# as in Halide.

IMG_U8 = np.random.default_rng(21).integers(0, 255, (29, 37), endpoint=True).astype(np.uint8)


def nested_chain(hl, schedule):
    x, y, yo, yi, xo, xi = (hl.Var(v) for v in "x y yo yi xo xi".split())
    inp = hl.Buffer(IMG_U8, "in0")
    p, q, r, c, out = (hl.Func(n) for n in ("p", "q", "r", "c", "out"))
    p[x, y] = hl.i32(inp[hl.clamp(x, 0, 36), hl.clamp(y, 0, 28)]) * 3
    q[x, y] = p[x, y] + p[x + 1, y + 1]
    if schedule == "p_also_read_by_c":
        c[x, y] = q[x, y] * 2 + p[x, y]
    elif schedule == "three_levels":
        r[x, y] = q[x, y] - 7
        c[x, y] = r[x, y] * 2 + 1
    else:
        c[x, y] = q[x, y] * 2 + 1
    out[x, y] = c[x, y] - c[x, y + 1]
    if schedule == "consumer_is_output":  # the payload's loops (analysis/tiling.py), not a fused consumer
        out.split(y, yo, yi, 4)
        p.compute_at(out, yo)
        q.compute_at(out, yi)
        c.compute_inline()
        return out
    out.split(y, yo, yi, 8)
    c.compute_at(out, yo).split(y, yo, yi, 4)
    p.compute_at(c, yo)
    q.compute_at(c, yi)
    if schedule == "vectorized":
        c.vectorize(x, 8)
        q.vectorize(x, 8)
        p.vectorize(x, 16)
    elif schedule == "three_levels":
        c.split(x, xo, xi, 16)
        r.compute_at(c, xo)
    elif schedule == "parallel_outer":
        out.parallel(yo)
    return out


@pytest.mark.parametrize("schedule", ["plain", "p_also_read_by_c", "vectorized", "three_levels", "parallel_outer",
                                      "consumer_is_output"])
def test_producer_read_only_by_a_producer_at_an_inner_loop(schedule):
    run_both(lambda hl: nested_chain(hl, schedule), [35, 26])
