"""Sliding windows over pyramid levels (analysis/pyramid.py): producers read at ``(a * y + b) // d`` of their
consumer's row (upsampling ``y // 2``, downsampling ``2 * y + 1``), stored outside the serial loop they are
computed at, are computed row by row as the loop needs them and kept in a circular buffer of a few rows (Halide's
sliding window and storage folding), not computed whole at the root. Values against real Halide 21 at odd sizes;
the buffers' rows from the payload."""

import re
import warnings

import pytest

from helpers import V
from oracle import image_f32, run_both

RGBA = image_f32(45, 39, seed=41, c=4, lo=0.0, hi=1.0)
IMG = image_f32(64, 64, seed=42)  # (module-level: Halide's Buffer does not keep the array alive)
IMG2 = image_f32(90, 90, seed=43)


def pyramid_rows(out, sizes) -> list:
    """The rows of every pyramid window's buffer in the payload, in order (deepest level first)."""
    text = out.compile_to_mlir(sizes)
    return [int(r) for r in re.findall(r"bufferization\.alloc_tensor\(\) : tensor<(?:\d+x)?(\d+)x\d+xf32>", text)]


def interpolate(hl, levels=4, w=45, h=39):
    """apps/interpolate at a few levels with the app's CPU schedule (every interpolated level a sliding window
    of the output's strips, the first downsampling a window of the second level's)."""
    inp = hl.Buffer(RGBA, "input")
    x, y, c, xo, xi, yo, yi = V(hl, "x y c xo xi yo yi")
    down = [hl.Func(f"downsampled_{i}") for i in range(levels)]
    downx = [hl.Func(f"downx_{i}") for i in range(levels)]
    interp = [hl.Func(f"interpolated_{i}") for i in range(levels)]
    up = [hl.Func(f"upsampled_{i}") for i in range(levels)]
    upx = [hl.Func(f"upsampledx_{i}") for i in range(levels)]
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    down[0][x, y, c] = hl.select(c < 3, clamped[x, y, c] * clamped[x, y, 3], clamped[x, y, 3])
    for lv in range(1, levels):
        prev = down[lv - 1]
        downx[lv][x, y, c] = (prev[x * 2 - 1, y, c] + 2 * prev[x * 2, y, c] + prev[x * 2 + 1, y, c]) * 0.25
        dx = downx[lv]
        down[lv][x, y, c] = (dx[x, y * 2 - 1, c] + 2 * dx[x, y * 2, c] + dx[x, y * 2 + 1, c]) * 0.25
    interp[levels - 1][x, y, c] = down[levels - 1][x, y, c]
    for lv in range(levels - 2, -1, -1):
        upx[lv][x, y, c] = (interp[lv + 1][x // 2, y, c] + interp[lv + 1][(x + 1) // 2, y, c]) / 2
        up[lv][x, y, c] = (upx[lv][x, y // 2, c] + upx[lv][x, (y + 1) // 2, c]) / 2
        interp[lv][x, y, c] = down[lv][x, y, c] + (1.0 - down[lv][x, y, 3]) * up[lv][x, y, c]
    out = hl.Func("interpolate")
    out[x, y, c] = interp[0][x, y, c] / (interp[0][x, y, 3] + 1.0)
    for lv in range(1, levels - 1):
        down[lv].compute_root().reorder(x, c, y).split(y, yo, yi, 8).parallel(yo).vectorize(x, 8)
    down[0].clone_in(downx[1]).store_at(down[1], yo).compute_at(down[1], yi).reorder(c, x, y).unroll(c).vectorize(x, 8)
    out.bound(x, 0, w).bound(y, 0, h).bound(c, 0, 3).split(x, xo, xi, 8).split(y, yo, yi, 16)
    out.reorder(xi, c, xo, yi, yo).unroll(c).vectorize(xi).parallel(yo)
    for lv in range(1, levels):
        interp[lv].store_at(out, yo).compute_at(out, yi).vectorize(x, 8)
    return out


@pytest.mark.parametrize("levels", [3, 4])
def test_interpolate_schedule(levels):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing hoisted to the root (ComputeAtWarning)
        run_both(lambda hl: interpolate(hl, levels), [45, 39, 3], rtol=1e-4, atol=1e-5)
    import halide_mlir as hl
    # the clone of level 0 (a window of downsampled_1's rows: 2 new rows per row, 3 read), then each level: 2 rows
    assert pyramid_rows(interpolate(hl, levels), [45, 39, 3]) == [4] + [2] * (levels - 1)


def two_levels(hl, sizes=(37, 29)):
    x, y, yo, yi = V(hl, "x y yo yi")
    inp = hl.Buffer(IMG, "input")
    f, g, out = hl.Func("f"), hl.Func("g"), hl.Func("out")
    f[x, y] = inp[x, y] * 2
    g[x, y] = f[x // 2, y // 2] + 3 * f[x // 2, (y + 1) // 2]
    out[x, y] = g[x // 2, y // 2] - g[(x + 1) // 2, (y + 1) // 2]
    out.split(y, yo, yi, 8).parallel(yo).vectorize(x, 4)
    g.store_at(out, yo).compute_at(out, yi).vectorize(x, 4)
    f.store_at(out, yo).compute_at(out, yi)
    return out


@pytest.mark.parametrize("sizes", [(37, 29), (8, 11), (16, 64)])
def test_two_level_pyramid(sizes):
    run_both(lambda hl: two_levels(hl), list(sizes))
    import halide_mlir as hl
    # f is read by g (2 rows) and by out at its own row, which runs ahead of g's: 4 rows in flight at most
    assert pyramid_rows(two_levels(hl), list(sizes)) == [2, 2]


def downsample(hl, up_too=False):
    x, y, yo, yi = V(hl, "x y yo yi")
    inp = hl.Buffer(IMG2, "input")
    f, g, out = hl.Func("f"), hl.Func("g"), hl.Func("out")
    f[x, y] = hl.sqrt(hl.abs(inp[x, y + 3])) + 1
    g[x, y] = f[x, 2 * y - 1] + 2 * f[x, 2 * y] + f[x, 2 * y + 1]
    if up_too:
        out[x, y] = g[x, y // 2] + g[x, (y + 1) // 2]
        g.store_root().compute_at(out, y)
    else:
        out[x, y] = g[x, y]
    f.store_root().compute_at(out if up_too else g, y)
    if not up_too:
        g.compute_root()
        return g
    return out


@pytest.mark.parametrize("sizes", [(21, 17), (5, 2)])
def test_window_advancing_two_rows(sizes):
    """f[x, 2y - 1 .. 2y + 1]: 2 new rows of f per row of g, 3 read: a 4-row buffer (Halide's fold), not 2h+1."""
    run_both(lambda hl: downsample(hl), list(sizes))
    import halide_mlir as hl
    assert pyramid_rows(downsample(hl), list(sizes)) == [4]


@pytest.mark.parametrize("sizes", [(21, 17), (7, 30)])
def test_downsample_then_upsample(sizes):
    run_both(lambda hl: downsample(hl, True), list(sizes))
    import halide_mlir as hl
    assert all(r <= 8 for r in pyramid_rows(downsample(hl, True), list(sizes)))


