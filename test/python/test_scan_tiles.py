"""A scan (an update over an RDom, explicit loops) computed at a loop of the output and read by a stage computed
inside that loop at coordinates that are not slices along the scan's dims (analysis/scan_tiles.py): the output's
payload loops compute it per iteration, its whole region along those dims, as Halide does, instead of once at
the root with a ComputeAtWarning. Values against real Halide 21."""
import math
import warnings

import numpy as np
import pytest

import halide_mlir
from halide_mlir.error import ComputeAtWarning

halide = pytest.importorskip("halide")


def _both(build, sizes):
    ref = np.asarray(build(halide).realize(sizes))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComputeAtWarning)  # computed where the schedule says
        got = np.asarray(build(halide_mlir).realize(sizes))
    np.testing.assert_array_equal(got, ref)


def _max_filter(data, radius, split):
    """Halide's apps/max_filter with its schedule (bench/apps.py max_filter_build), at a small radius and split."""
    _, h, w = data.shape

    def build(hl):
        inp = hl.Buffer(data, "input")
        x, y, c, t, tx = (hl.Var(n) for n in "x y c t tx".split())
        clamped = hl.BoundaryConditions.repeat_edge(inp, [hl.Range(0, w), hl.Range(0, h)])
        slices = int(math.ceil(math.log(radius) / math.log(2))) + 1
        vert_log = hl.Func("vert_log")
        vert_log[x, y, c, t] = clamped[x, y, c]
        r = hl.RDom([hl.Range(-radius, h + radius), hl.Range(1, slices - 1)])
        vert_log[x, r.x, c, r.y] = hl.max(
            vert_log[x, r.x, c, r.y - 1], vert_log[x, r.x + hl.clamp(1 << (r.y - 1), 0, radius * 2), c, r.y - 1])
        slice_for_radius = hl.Func("slice_for_radius")
        slice_for_radius[t] = hl.i32(hl.floor(hl.log(hl.f32(2 * t + 1)) / hl.f32(math.log(2))))
        vert = hl.Func("vert")
        sl = hl.clamp(slice_for_radius[t], 0, slices)
        vert[x, y, c, t] = hl.max(
            vert_log[x, y - t, c, sl], vert_log[x, y + t + 1 - hl.clamp(1 << sl, 0, 2 * radius), c, sl])
        filter_height = hl.Func("filter_height")
        dy = hl.RDom([hl.Range(0, radius + 1)])
        filter_height[x] = hl.sum(hl.select(x * x + dy.x * dy.x < (radius + 0.25) * (radius + 0.25), 1, 0))
        dx = hl.RDom([hl.Range(-radius, 2 * radius + 1)])
        out = hl.Func("max_filter")
        out[x, y, c] = hl.maximum(vert[x + dx.x, y, c, hl.clamp(filter_height[dx.x], 0, radius + 1)])
        slice_for_radius.compute_root()
        filter_height.compute_root()
        out.compute_root().split(x, tx, x, split).reorder(x, y, c, tx).fuse(c, tx, t).parallel(t).vectorize(x, 8)
        vert_log.compute_at(out, t).vectorize(x, 8)
        vert_log.update().reorder(x, r.x, r.y, c).vectorize(x, 8)
        vert.compute_at(out, y).vectorize(x, 8)
        return out
    return build


@pytest.mark.parametrize("w, h, radius, split", [(64, 23, 5, 32), (48, 40, 9, 16)])
def test_max_filter_pyramid_per_strip(w, h, radius, split):
    """max_filter: ``vert_log`` (a log-stepped scan over rows and slices) computed at the output's fused parallel
    strip loop, read by ``vert`` (computed per output row) at ``vert_log[x, y - t, c, lut[t]]``."""
    data = np.random.default_rng(1).random((3, h, w), dtype=np.float32)
    _both(_max_filter(data, radius, split), [w, h, 3])


@pytest.mark.parametrize("w, h", [(32, 20), (40, 17)])
def test_prefix_sum_box_filter_per_strip(w, h):
    """A box filter from a running sum down the columns (a scan over y), computed per strip of columns of the
    output, read by a stage computed per output row at clamped rows (gathers along the scanned dim)."""
    data = np.random.default_rng(2).integers(0, 100, (h, w + 16), dtype=np.int32)  # room for vector overreads

    def build(hl):
        x, y, xo, xi = (hl.Var(n) for n in "x y xo xi".split())
        inp = hl.Buffer(data, "inp")
        cs, box, out = hl.Func("cs"), hl.Func("box"), hl.Func("out")
        cs[x, y] = inp[x, y]
        r = hl.RDom([hl.Range(1, h - 1)])
        cs[x, r.x] = cs[x, r.x - 1] + inp[x, r.x]
        box[x, y] = cs[x, hl.min(y + 3, h - 1)] - cs[x, hl.max(y - 4, 0)] + (y < 4) * cs[x, 0]
        out[x, y] = box[x, y] * 2 + box[x + 1, y]
        out.split(x, xo, xi, 16).reorder(xi, y, xo).parallel(xo).vectorize(xi, 8)
        cs.compute_at(out, xo).vectorize(x, 8)
        cs.update().vectorize(x, 8)
        box.compute_at(out, y).vectorize(x, 8)
        return out
    _both(build, [w, h])
