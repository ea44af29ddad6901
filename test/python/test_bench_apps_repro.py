"""Minimal reproducers of the halide_mlir bugs that Halide's apps in bench/apps.py ran into (issue 20's broader
suite). Each builds the same program with Halide (the oracle) and halide_mlir and compares; each docstring
names the app and the failure, and the fix."""
import numpy as np
import pytest

import halide_mlir

halide = pytest.importorskip("halide")


def _both(build, sizes):
    ref = np.asarray(build(halide).realize(sizes))
    got = np.asarray(build(halide_mlir).realize(sizes))
    np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_inline_sum_of_producer_computed_at_tile():
    """nl_means: an inline reduction (``hl.sum``) of a Func computed at a tile's loop, its consumer computed at
    that loop too, was left at the root and the valid schedule refused ("Func 'd' is computed at out.tx, but it
    is used by Func 'sum'"); it is now computed at its consumer's level (analysis/placement.py)."""
    data = np.random.default_rng(0).random((40, 64), dtype=np.float32)

    def build(hl):
        x, y, tx, ty, xi, yi = (hl.Var(n) for n in "x y tx ty xi yi".split())
        inp = hl.Buffer(data, "inp")
        d, b, out = hl.Func("d"), hl.Func("b"), hl.Func("out")
        d[x, y] = inp[x, y] * 2
        r = hl.RDom([hl.Range(0, 3)])
        b[x, y] = hl.sum(d[x, y + r.x])
        out[x, y] = b[x, y] + 1
        out.tile(x, y, tx, ty, xi, yi, 16, 8)
        b.compute_at(out, tx)
        d.compute_at(out, tx)
        return out
    _both(build, [64, 32])


@pytest.mark.parametrize("w, h", [(32, 16), (29, 13)])
def test_compute_at_vector_loop_read_at_constant_channel(w, h):
    """nl_means: a producer with an update, computed at the consumer's vectorized x with c unrolled, read at c
    and at the constant c = 3, was fused once per read (two tiles, and the script's vectorize of the update
    failed: 'requires exactly one target handle'); its tile now spans the consumer's untiled c and the constant
    in one slice (analysis/tiling.py ``_union_spans``)."""
    data = np.random.default_rng(0).random((3, h, w), dtype=np.float32) + 1

    def build(hl):
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        inp = hl.Buffer(data, "inp")
        f, out = hl.Func("f"), hl.Func("out")
        f[x, y, c] = hl.select(c < 3, inp[x, y, hl.clamp(c, 0, 2)], hl.f32(1))
        r = hl.RDom([hl.Range(0, 2)])
        f[x, y, c] += f[x, y, c] * r.x
        out[x, y, c] = f[x, y, c] / f[x, y, 3]
        out.reorder(c, x, y).vectorize(x, 8)
        f.compute_at(out, x).reorder(c, x, y).bound(c, 0, 4).unroll(c).vectorize(x, 8)
        f.update().reorder(c, x, r.x).unroll(c).vectorize(x, 8)
        return out
    _both(build, [w, h, 3])


@pytest.mark.parametrize("w, h", [(32, 16), (27, 11)])
def test_vectorized_producer_read_through_lut_in_inline_maximum(w, h):
    """max_filter: a vectorized producer computed at the consumer's y, read at a data-dependent coordinate (a LUT
    of the RVar) inside hl.maximum, was cloned whole into the loop by fuse_into_containing_op and the script's
    vectorize failed ('Attempted to vectorize, but failed'); placement then computed it at the root (a
    ComputeAtWarning). Now the maximum is unrolled into the output (analysis/unrolled_reductions.py) and the
    output's payload loops compute the producer per row, its whole region along the LUT-chosen dim
    (analysis/tiling.py lut_reads), as Halide does: no warning."""
    data = np.random.default_rng(0).random((16, 64), dtype=np.float32)

    def build(hl):
        x, y, t = hl.Var("x"), hl.Var("y"), hl.Var("t")
        inp = hl.Buffer(data, "inp")
        lut, g, out = hl.Func("lut"), hl.Func("g"), hl.Func("out")
        lut[x] = x * x % 3
        g[x, y, t] = inp[hl.clamp(x, 0, 63), hl.clamp(y - t, 0, 15)]
        dx = hl.RDom([hl.Range(-2, 5)])
        out[x, y] = hl.maximum(g[x + dx.x, y, hl.clamp(lut[dx.x], 0, 2)])
        lut.compute_root()
        out.vectorize(x, 8)
        g.compute_at(out, y).vectorize(x, 8)
        return out
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", halide_mlir.ComputeAtWarning)
        _both(build, [w, h])


@pytest.mark.parametrize("w, h", [(48, 6), (32, 5), (16, 3), (47, 4), (40, 7)])
def test_partial_tile_of_loop_with_fused_producers_is_peeled(w, h):
    """camera_pipe: curved (2562 wide, tiled by 64) has demosaiced and corrected fused at its x loop; the partial
    last tile made every tile's extent dynamic (``min(64, 2562 - x)``), so each fused producer's tile was a heap
    allocation per iteration and every vector op masked at run time (3x the time of a 2560-wide curved). The
    loop's last tile is now peeled off (analysis/loop_schedule.py ``_peel``); the values stay Halide's, with the
    tail narrower than the vector, one lane, or none, in a parallel loop."""
    data = np.random.default_rng(1).integers(0, 1000, (h + 2, w + 2), dtype=np.uint16)

    def build(hl):
        x, y, xo, xi, yo, yi = (hl.Var(n) for n in "x y xo xi yo yi".split())
        inp = hl.Buffer(data, "inp")
        f, g, out = hl.Func("f"), hl.Func("g"), hl.Func("out")
        f[x, y] = inp[x, y] * 3 + inp[x + 1, y]
        g[x, y] = f[x, y] + f[x, y + 1]
        out[x, y] = g[x, y] + g[x + 1, y] + g[x, y + 1]  # g is w + 1 wide
        out.split(y, yo, yi, 2).parallel(yo).vectorize(x, 16)
        g.compute_at(out, yo).split(x, xo, xi, 16).vectorize(xi)
        f.compute_at(g, xo).vectorize(x, 16)
        return out

    _both(build, [w, h])
    f = build(halide_mlir)
    from halide_mlir import driver
    from halide_mlir.runtime.realize import output_region

    comp = driver.compile_pipeline(f, output_region(f, [w, h], None))
    assert ("transform.loop.peel" in comp.transform) == ((w + 1) > 16 and (w + 1) % 16 != 0)


@pytest.mark.parametrize("w, h, strip", [(64, 32, 8), (45, 27, 8), (40, 13, 4)])
def test_window_read_at_scaled_rows_is_computed_once_per_strip(w, h, strip):
    """camera_pipe: denoised, deinterleaved, g_r, g_b and curved are ``store_at(out, yo).compute_at(out, yi)``,
    read at ``2 * y`` or ``y / 2`` (or reading such windows): the payload can't slide them, and recomputing each
    iteration's window computed every row 2 to 5 times (3x Halide's time). They are now computed once per
    iteration of their storage loop, over the rows its iterations need (analysis/tiling.py ``_unslid_windows``),
    with a StorageWarning for the fold_storage that is then not applied; a window reading them still slides.
    Same values as Halide, in the strips of a parallel loop, with odd sizes."""
    data = np.random.default_rng(2).integers(0, 1000, (2 * h + 6, w + 4), dtype=np.int32)

    def build(hl):
        x, y, yo, yi = (hl.Var(n) for n in "x y yo yi".split())
        inp = hl.Buffer(data, "inp")
        half, up, out = hl.Func("half"), hl.Func("up"), hl.Func("out")
        half[x, y] = inp[x, 2 * y] + inp[x + 1, 2 * y + 1] * 2  # read at 2 * y: a scaled span
        up[x, y] = half[x, y // 2] + half[x, (y + 1) // 2] + half[x, y // 2 + 1]
        out[x, y] = up[x, y] + up[x, y + 1] * 3
        out.split(y, yo, yi, strip).parallel(yo).vectorize(x, 8)
        half.store_at(out, yo).compute_at(out, yi).vectorize(x, 8).fold_storage(y, 4)
        up.store_at(out, yo).compute_at(out, yi).vectorize(x, 8)  # (it slides: a window of `half`'s rows)
        return out

    ref = np.asarray(build(halide).realize([w, h]))
    f = build(halide_mlir)
    from halide_mlir import driver
    from halide_mlir.runtime.realize import output_region

    with pytest.warns(halide_mlir.StorageWarning, match="fold_storage"):
        got = np.asarray(f.realize([w, h]))
        plan = next(sp for sp in driver.compile_pipeline(f, output_region(f, [w, h], None)).plan.stages if sp.tile)
    np.testing.assert_array_equal(got, ref)
    assert [p.name for p in plan.tile.producers[0]] == ["half"]  # at yo, where it is stored
    assert [f.name() for f in plan.tile.slides] == ["up"]
