"""Sliding windows (issue 5): a producer stored outside the serial loop it is computed at keeps the rows earlier
iterations computed, as in Halide (analysis/tiling.py): a warm-up before the loop, then only the new rows in each
iteration. Checked against real Halide 21 at odd sizes (ShiftInwards tails), several window steps and extents,
parallel strips, 3-D consumers, chains, and the cases that must not slide; the payload is checked to compute
one producer tile of the new rows per iteration, not the whole window.
"""

import re

import pytest

from helpers import V, lesson8
from oracle import image_f32, run_both

W, H = 61, 37
IMG = image_f32(W + 8, H + 8, seed=21)
RGB = image_f32(W + 8, H + 8, seed=22, c=3)


def blur(hl, taps=(0, 1, 2), image=IMG):
    inp = hl.Buffer(image, "input")
    x, y = V(hl, "x y")
    bx, by = hl.Func("bx"), hl.Func("by")
    bx[x, y] = inp[x, y + 3] + 2 * inp[x + 1, y + 3] + inp[x + 2, y + 3]
    by[x, y] = sum((k + 1) * bx[x, y + t] for k, t in enumerate(taps))
    return bx, by, x, y


def slides(hl, out, sizes, producer) -> bool:
    """The payload computes ``producer`` into a buffer carried by a loop (the sliding window)."""
    text = out.compile_to_mlir(sizes)
    return bool(re.search(r"scf\.for .*iter_args\(%acc\d+ = [^,]+, %buf", text)) and \
        len(re.findall(rf'hl\.func = "{re.escape(producer)}(?:\$\d+)?"', text)) == 2   # (a rebuilt bx is bx$1)


SCHEDULES = {
    # name: (schedule(hl, bx, by, x, y), taps, slides?)
    "store_root_y": (lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y), (0, 1, 2), True),
    "store_root_y_vector": (lambda hl, bx, by, x, y: (by.vectorize(x, 16), bx.store_root().compute_at(by, y)
                                                      .vectorize(x, 16)), (0, 1, 2), True),
    "strips_parallel": (lambda hl, bx, by, x, y: (
        by.split(y, hl.Var("yo"), hl.Var("yi"), 8).parallel(hl.Var("yo")).vectorize(x, 8),
        bx.store_at(by, hl.Var("yo")).compute_at(by, hl.Var("yi")).vectorize(x, 8)), (0, 1, 2), True),
    "negative_taps": (lambda hl, bx, by, x, y: bx.store_root().compute_at(by, y), (-2, 0, 1), True),
    "step_2": (lambda hl, bx, by, x, y: (by.split(y, hl.Var("yo"), hl.Var("yi"), 2),
                                         bx.store_root().compute_at(by, hl.Var("yo"))), (0, 1, 2), True),
    "step_4_of_8": (lambda hl, bx, by, x, y: (by.split(y, hl.Var("yo"), hl.Var("yi"), 4),
                                              bx.store_root().compute_at(by, hl.Var("yo"))),
                    (0, 2, 4), True),
    "tile_x_outside": (lambda hl, bx, by, x, y: (
        by.split(x, hl.Var("xo"), hl.Var("xi"), 16).reorder(hl.Var("xi"), y, hl.Var("xo")),
        bx.store_at(by, hl.Var("xo")).compute_at(by, y)), (0, 1, 2), True),
    # no overlap between iterations: nothing to keep
    "step_equals_window": (lambda hl, bx, by, x, y: (by.split(y, hl.Var("yo"), hl.Var("yi"), 3),
                                                     bx.store_root().compute_at(by, hl.Var("yo"))), (0,), False),
    # stored at the loop it is computed at
    "store_at_compute_level": (lambda hl, bx, by, x, y: bx.store_at(by, y).compute_at(by, y), (0, 1, 2), False),
    # a parallel loop can't carry the window (Halide recomputes too)
    "parallel_compute_loop": (lambda hl, bx, by, x, y: (by.parallel(y), bx.store_root().compute_at(by, y)),
                              (0, 1), False),
    # the slide would be along x, the dimension that is vectorized
    "along_x": (lambda hl, bx, by, x, y: bx.store_root().compute_at(by, x), (0, 1, 2), False),
}


@pytest.mark.parametrize("name", SCHEDULES)
@pytest.mark.parametrize("sizes", [(W, H), (32, 16)])
def test_blur_sliding(name, sizes):
    schedule, taps, expect_slide = SCHEDULES[name]
    if name == "parallel_compute_loop":
        pytest.skip("Halide rejects store_root outside a parallel loop it is computed inside (a race)")

    def build(hl):
        bx, by, x, y = blur(hl, taps)
        schedule(hl, bx, by, x, y)
        return by

    run_both(build, list(sizes))
    import halide_mlir as hl
    assert slides(hl, build(hl), list(sizes), "bx") == expect_slide


def test_rgb_consumer_of_gray_window():
    """A 3-D consumer (c inside y) reading a 2-D producer that slides along y."""
    def build(hl):
        inp = hl.Buffer(RGB, "input")
        x, y, c = V(hl, "x y c")
        gray, out = hl.Func("gray"), hl.Func("out")
        gray[x, y] = 0.3 * inp[x, y, 0] + 0.6 * inp[x, y, 1] + 0.1 * inp[x, y, 2]
        out[x, y, c] = inp[x, y, c] * (gray[x, y] + gray[x, y + 1] + gray[x + 1, y + 2])
        out.reorder(x, c, y).vectorize(x, 16)
        gray.store_root().compute_at(out, y).vectorize(x, 16)
        return out

    run_both(build, [W, H, 3])
    import halide_mlir as hl
    assert slides(hl, build(hl), [W, H, 3], "gray")


def test_chain_reads_window():
    """A producer computed per row (blur_y) reads the sliding one (gray) through its window."""
    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x, y, yo, yi = V(hl, "x y yo yi")
        gray, blur_y, out = hl.Func("gray"), hl.Func("blur_y"), hl.Func("out")
        gray[x, y] = hl.sqrt(hl.abs(inp[x, y])) + 1
        blur_y[x, y] = gray[x, y] + 2 * gray[x, y + 1] + gray[x, y + 2]
        out[x, y] = blur_y[x, y] * gray[x + 1, y + 3] - blur_y[x + 2, y]
        out.split(y, yo, yi, 8).parallel(yo).vectorize(x, 16)
        gray.store_at(out, yo).compute_at(out, yi).vectorize(x, 16)
        blur_y.compute_at(out, yi).vectorize(x, 16)
        return out

    run_both(build, [W - 4, H - 4])
    import halide_mlir as hl
    assert slides(hl, build(hl), [W - 4, H - 4], "gray")


def test_lesson8_mixed():
    """Tutorial lesson 8's "mixed" schedule, at a size with a partial last strip."""
    def build(hl):
        producer, consumer, x, y = lesson8(hl)
        yo, yi = V(hl, "yo yi")
        consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4)
        producer.store_at(consumer, yo).compute_at(consumer, yi).vectorize(x, 4)
        return consumer

    run_both(build, [75, 53])
    import halide_mlir as hl
    assert slides(hl, build(hl), [75, 53], "producer")


@pytest.mark.parametrize("strip", [8, 32])
def test_harris_app_schedule(strip):
    """Halide's apps/harris CPU schedule: gray, Ix and Iy slide together (Ix and Iy read gray's window)."""
    def build(hl):
        inp = hl.Buffer(RGB, "input")
        x, y, yo, yi = V(hl, "x y yo yi")
        gray, ix, iy, out = hl.Func("gray"), hl.Func("Ix"), hl.Func("Iy"), hl.Func("harris")
        gray[x, y] = 0.299 * inp[x, y, 0] + 0.587 * inp[x, y, 1] + 0.114 * inp[x, y, 2]
        iy[x, y] = gray[x, y + 2] - gray[x, y] + 2 * (gray[x + 1, y + 2] - gray[x + 1, y]) + gray[x + 2, y + 2] \
            - gray[x + 2, y]
        ix[x, y] = gray[x + 2, y] - gray[x, y] + 2 * (gray[x + 2, y + 1] - gray[x, y + 1]) + gray[x + 2, y + 2] \
            - gray[x, y + 2]
        sxx = sum(ix[x + i, y + j] * ix[x + i, y + j] for i in range(3) for j in range(3))
        syy = sum(iy[x + i, y + j] * iy[x + i, y + j] for i in range(3) for j in range(3))
        sxy = sum(ix[x + i, y + j] * iy[x + i, y + j] for i in range(3) for j in range(3))
        out[x, y] = sxx * syy - sxy * sxy - 0.04 * (sxx + syy) * (sxx + syy)
        out.split(y, yo, yi, strip).parallel(yo).vectorize(x, 16)
        for f in (gray, ix, iy):
            f.store_at(out, yo).compute_at(out, yi).vectorize(x, 16)
        return out

    sizes = [W - 4, H - 4]
    run_both(build, sizes, rtol=1e-4, atol=1e-4)
    import halide_mlir as hl
    for f in ("gray", "Ix", "Iy"):
        assert slides(hl, build(hl), sizes, f)


def test_window_read_by_unslid_chain():
    """Only the first producer of a chain slides (the second is stored at the loop it is computed at)."""
    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x, y = V(hl, "x y")
        a, b, out = hl.Func("a"), hl.Func("b"), hl.Func("out")
        a[x, y] = inp[x, y] * 3 - 1
        b[x, y] = a[x, y] * a[x, y + 1] + a[x + 1, y + 2]
        out[x, y] = b[x, y] + b[x, y + 1] + a[x, y + 3]
        a.store_root().compute_at(out, y)
        b.compute_at(out, y)
        return out

    run_both(build, [W - 4, H - 6])
    import halide_mlir as hl
    assert slides(hl, build(hl), [W - 4, H - 6], "a")
    assert not slides(hl, build(hl), [W - 4, H - 6], "b")


@pytest.mark.parametrize("strips", [False, True])
def test_two_windows_same_shape(strips):
    """Two sliding windows of one shape and type at one loop keep two buffers (a tensor.empty per window would be
    one value after CSE, and bufferization would give both windows one buffer)."""
    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x, y, yo, yi = V(hl, "x y yo yi")
        f, g, out = hl.Func("f"), hl.Func("g"), hl.Func("out")
        f[x, y] = inp[x, y] * 2 + 1
        g[x, y] = inp[x + 1, y] - 3
        out[x, y] = f[x, y] + 2 * f[x, y + 1] + f[x, y + 2] - g[x, y] * g[x, y + 2]
        if strips:
            out.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8)
            f.store_at(out, yo).compute_at(out, yi).vectorize(x, 8)
            g.store_at(out, yo).compute_at(out, yi).vectorize(x, 8)
        else:
            f.store_root().compute_at(out, y)
            g.store_root().compute_at(out, y)
        return out

    run_both(build, [W - 4, H - 4])
    import halide_mlir as hl
    assert slides(hl, build(hl), [W - 4, H - 4], "f") and slides(hl, build(hl), [W - 4, H - 4], "g")
