"""prefetch(input, at, from, offset, strategy): values against real Halide 21 under the same schedules (a prefetch
never changes them), the memref.prefetch ops in the loop ``at``, and Halide's errors (lang/prefetch.py,
analysis/prefetch.py, codegen/prefetch.py)."""
import re

import halide
import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir.driver import stages

IMG = np.random.default_rng(3).integers(0, 1000, (40, 45)).astype(np.float32)
IMG3 = np.random.default_rng(4).integers(0, 256, (3, 35, 41)).astype(np.uint8)


def _blur(m, schedule, strategy="GuardWithIf", offset=1):
    inp = m.ImageParam(m.Float(32), 2, "inp")
    x, y, xo, yo, xi, yi = (m.Var(n) for n in "x y xo yo xi yi".split())
    bx, f = m.Func("bx"), m.Func("f")
    bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
    f[x, y] = bx[x, y] + bx[x, y + 2] * 0.5 + inp[x + 1, y + 1]  # (f reads inp itself: Halide's prefetch box)
    s = getattr(m.PrefetchBoundStrategy, strategy)
    if schedule == "split":
        f.split(y, yo, yi, 4).vectorize(x, 8).prefetch(inp, yo, yo, offset, s)
    elif schedule == "tile_parallel":  # from the parallel loop, at the loop inside it
        f.tile(x, y, xo, yo, xi, yi, 16, 8).parallel(yo).vectorize(xi, 8).prefetch(inp, xo, yo, offset, s)
    elif schedule == "compute_at":  # bx per strip of f, f prefetches the next strip's rows
        f.split(y, yo, yi, 8).vectorize(x, 8).prefetch(inp, yo, yo, offset, s)
        bx.compute_at(f, yo).vectorize(x, 8)
    elif schedule == "plain_y":  # a loop that no other directive splits
        f.prefetch(inp, y, y, offset, s)
    inp.set(m.Buffer(IMG, "img"))
    return f


@pytest.mark.parametrize("strategy", ["GuardWithIf", "Clamp", "NonFaulting"])
@pytest.mark.parametrize("schedule", ["split", "tile_parallel", "compute_at", "plain_y"])
def test_blur_values_as_halide(schedule, strategy):
    sizes = [37, 29]  # odd: edge tiles
    ours = np.asarray(_blur(hl, schedule, strategy, 2).realize(sizes))
    theirs = np.asarray(_blur(halide, schedule, strategy, 2).realize(sizes))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def _three_d(m):
    inp = m.ImageParam(m.UInt(8), 3, "rgb")
    inp.set(m.Buffer(IMG3, "rgb"))
    x, y, c = m.Var("x"), m.Var("y"), m.Var("c")
    f = m.Func("gray")
    f[x, y, c] = m.u8((m.u16(inp[x, y, c]) + inp[x + 1, y + 1, c]) // 2)
    f.reorder(x, y, c).parallel(c).vectorize(x, 16).prefetch(inp, y, y, 3, m.PrefetchBoundStrategy.Clamp)
    return f


def test_three_dims_u8_buffer():
    ours = np.asarray(_three_d(hl).realize([39, 33, 3]))
    theirs = np.asarray(_three_d(halide).realize([39, 33, 3]))
    np.testing.assert_array_equal(ours, theirs)


def _update(m):
    inp = m.ImageParam(m.Float(32), 2, "img")
    inp.set(m.Buffer(IMG, "img"))
    x, y = m.Var("x"), m.Var("y")
    r = m.RDom([(0, 5)], "r")
    f = m.Func("f")
    f[x, y] = 0.0
    f[x, y] += inp[x + r.x, y] * (r.x + 1)
    f.update().reorder(r.x, x, y).prefetch(inp, y, y)
    return f


def test_stage_prefetch_of_an_update():
    ours = np.asarray(_update(hl).realize([31, 23]))
    theirs = np.asarray(_update(halide).realize([31, 23]))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_prefetch_ops_in_the_at_loop():
    text = stages(_blur(hl, "split", "GuardWithIf", 1), [37, 29]).bufferized()
    # the yo loop (step 4) starts with the guarded prefetch of the next strip: rows of iteration yo + 1
    loop = re.search(r"scf\.for %(\w+) = %c0 to %c29 step %c4 \{\n(.*?)\n      \}\n      %\d+ = affine.min", text, re.S)
    assert loop is not None, text
    assert "scf.if" in loop.group(2) and "memref.prefetch %arg0[" in loop.group(2)
    assert "hl.prefetch_from_1" in text


def test_clamp_and_nonfaulting_have_no_guard():
    for strategy, has_if, has_clamp in (("Clamp", False, True), ("NonFaulting", False, False)):
        text = stages(_blur(hl, "split", strategy, 1), [37, 29]).bufferized()
        head = text.split("memref.prefetch")[0].split("step %c4 {")[1]
        # Clamp: the union of the taps' boxes intersected with the 40x45 input (rows [0, 40))
        clamped = re.search(r"arith.maxsi %\w+, %c0 ", head) and re.search(r"arith.minsi %\w+, %c40 ", head)
        assert ("scf.if" in head) == has_if and bool(clamped) == has_clamp


def _swapped(m):
    inp = m.ImageParam(m.Float(32), 2, "img")
    inp.set(m.Buffer(IMG, "img"))
    x, y, yo, yi = m.Var("x"), m.Var("y"), m.Var("yo"), m.Var("yi")
    f = m.Func("f")
    f[x, y] = inp[x, y] * 2
    f.split(y, yo, yi, 4).prefetch(inp, yo, yi)
    return f


def test_errors():
    with pytest.raises(hl.HalideError, match="Prefetch 'from' variable 'yi' could not be found in an active loop"):
        _swapped(hl).realize([37, 29])
    with pytest.raises(Exception, match="Prefetch 'from' variable"):
        _swapped(halide).realize([37, 29])
    x, y = hl.Var("x"), hl.Var("y")
    g, f = hl.Func("g"), hl.Func("f")
    g[x, y] = x + y
    f[x, y] = g[x, y]
    with pytest.raises(hl.HalideError, match="prefetching a Func .* is not supported yet"):
        f.prefetch(g, y, y)
    with pytest.raises(hl.HalideError, match="constant integer offset"):
        f.prefetch(hl.ImageParam(hl.Int(32), 2, "p"), y, y, x)


def test_prefetch_in_a_scatter_update_is_refused():
    inp = hl.ImageParam(hl.UInt(8), 2, "img8")
    inp.set(hl.Buffer(IMG3[0], "img8"))
    x = hl.Var("x")
    r = hl.RDom([(0, 41), (0, 35)], "r")
    hist = hl.Func("hist")
    hist[x] = 0
    hist[hl.i32(inp[r.x, r.y])] += 1
    hist.update().prefetch(inp, r.y, r.y)
    with pytest.raises(hl.HalideError, match="prefetch in update 0, a scatter or scan, is not supported yet"):
        hist.realize([256])


def test_prefetch_on_a_gpu_stage_is_refused():
    from halide_mlir import driver_gpu
    inp = hl.ImageParam(hl.Float(32), 2, "imgg")
    inp.set(hl.Buffer(IMG, "imgg"))
    x, y, xo, yo, xi, yi = (hl.Var(n) for n in "x y xo yo xi yi".split())
    f = hl.Func("fg")
    f[x, y] = inp[x, y] * 2
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8).prefetch(inp, yo, yo)
    with pytest.raises(hl.HalideError, match="prefetch on a GPU stage"):
        driver_gpu.realize_on_host(f, [16, 16])


def _unread(m):
    inp = m.ImageParam(m.Float(32), 2, "inp")
    inp.set(m.Buffer(IMG, "img"))
    x, y, yo, yi = m.Var("x"), m.Var("y"), m.Var("yo"), m.Var("yi")
    bx, f = m.Func("bx"), m.Func("f")
    bx[x, y] = inp[x, y] + inp[x + 1, y]
    f[x, y] = bx[x, y] * 2
    f.split(y, yo, yi, 4).prefetch(inp, yo, yo)
    bx.compute_at(f, yo)
    return f


def test_prefetch_of_an_input_only_a_producer_reads_is_removed_as_in_halide():
    # Halide's box is of the stage's own reads: bx, computed at yo, is outside it ("Removing prefetch ...")
    with pytest.warns(hl.PrefetchWarning, match=r"Removing prefetch of inp at loop nest of f\S*\.s0\.yo"):
        ours = np.asarray(_unread(hl).realize([37, 29]))
    np.testing.assert_allclose(ours, np.asarray(_unread(halide).realize([37, 29])), rtol=1e-6)


def _strided(m, strategy):
    # reads at 3 * x (a downsampling): after vectorization, views of stride 3 into the input (the fuzzer's seed
    # 2424 found it: "prefetch 1: a strided slice" was an InternalError)
    inp = m.ImageParam(m.Float(32), 2, "img")
    inp.set(m.Buffer(IMG, "img"))
    x, y = m.Var("x"), m.Var("y")
    f = m.Func("f")
    f[x, y] = inp[3 * x + 1, y] + inp[3 * x + 2, y + 1] * 0.5
    f.vectorize(x, 4).prefetch(inp, x, x, 2, getattr(m.PrefetchBoundStrategy, strategy))
    return f


@pytest.mark.parametrize("strategy", ["GuardWithIf", "Clamp", "NonFaulting"])
def test_prefetch_of_strided_reads(strategy):
    sizes = [13, 11]
    ours = np.asarray(_strided(hl, strategy).realize(sizes))
    theirs = np.asarray(_strided(halide, strategy).realize(sizes))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    text = stages(_strided(hl, strategy), sizes).bufferized()
    assert "memref.prefetch %arg0[" in text and "strided<[45, 3]" in text
