"""compute_at of Funcs with update definitions (issue 20): a reduction (``f[x, y] += g[x + r.x, y]``), a
scatter whose stored coordinate is data dependent (a histogram, as bilateral_grid's) and a scan, each computed
per iteration of its consumer's loop (a row, a tile, a parallel loop), as Halide computes them: the pure
definition and each update over the region that iteration needs (for a scatter's data-dependent dims, the
Func's whole region). Sizes that are not multiples of the tiles; parallel consumer loops (each iteration's
producer storage is its own). Checked against real Halide 21; no ComputeAtWarning where the producer is now
computed in the loop, and the warning where it still is not."""

import warnings

import pytest

from helpers import V
from oracle import image_f32, run_both

W, H = 37, 23  # not multiples of the tiles below
IMG = image_f32(2 * W + 8, 2 * H + 8, seed=41)


def _no_compute_at_warning(hl_mod):
    warnings.simplefilter("error", hl_mod.ComputeAtWarning)


def reduction(hl, sched):
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    r = hl.RDom([hl.Range(0, 3)])
    g, f, c = hl.Func("g"), hl.Func("f"), hl.Func("c")
    g[x, y] = inp[x, y] * 2.0
    f[x, y] = hl.f32(0)
    f[x, y] += g[x + r.x, y]
    c[x, y] = f[x, y] + f[x, y + 1]
    g.compute_root()
    sched(hl, c, f, x, y)
    return c


def histogram(hl, sched, bins=10):
    """bilateral_grid's shape: a scatter into z at a data-dependent bin over a 2x2 RDom per (x, y)."""
    inp = hl.Buffer(IMG, "input")
    x, y, z = V(hl, "x y z")
    r = hl.RDom([hl.Range(0, 2), hl.Range(0, 2)])
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    val = clamped[2 * x + r.x, 2 * y + r.y]
    h, c = hl.Func("h"), hl.Func("c")
    h[x, y, z] = hl.f32(0)
    h[x, y, hl.clamp(hl.i32(val * bins), 0, bins - 1)] += val
    c[x, y, z] = h[x, y, z] + h[x, y, z + 1] * 2.0 + h[x + 1, y, z]
    sched(hl, c, h, x, y, z)
    return c


def scan(hl, sched):
    """A running sum down the columns (a scan over an RVar writing y) read per tile of columns."""
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    r = hl.RDom([hl.Range(1, H)])
    s, c = hl.Func("s"), hl.Func("c")
    s[x, y] = inp[x, y]
    s[x, r] = s[x, r] + s[x, r - 1]
    c[x, y] = s[x, y] * 0.5 + s[x + 1, y]
    sched(hl, c, s, x, y)
    return c


def at_row(hl, c, f, x, y, *_):
    f.compute_at(c, y)


def at_row_parallel(hl, c, f, x, y, *_):
    c.parallel(y)
    f.compute_at(c, y)


def at_tile_parallel(hl, c, f, x, y, *_):
    xo, yo, xi, yi = V(hl, "xo yo xi yi")
    c.tile(x, y, xo, yo, xi, yi, 8, 4).parallel(yo)
    f.compute_at(c, xo)


def at_row_vectorized(hl, c, f, x, y, *_):
    c.parallel(y).vectorize(x, 8)
    f.compute_at(c, y).vectorize(x, 8)


@pytest.mark.parametrize("sched", [at_row, at_row_parallel, at_tile_parallel, at_row_vectorized])
def test_reduction_at_consumer_loop(sched):
    _no_compute_at_warning(__import__("halide_mlir"))
    run_both(lambda hl: reduction(hl, sched), [W, H])


def hist_at_z(hl, c, h, x, y, z):
    c.reorder(x, z, y)
    h.compute_at(c, z)  # z is a dim the scatter writes: the tile spans h's whole z range


def hist_at_row_parallel_vectorized(hl, c, h, x, y, z):
    c.reorder(z, x, y).parallel(y).vectorize(x, 8)
    h.compute_at(c, y).vectorize(x, 8)


def hist_at_tile(hl, c, h, x, y, z):
    xo, yo, xi, yi = V(hl, "xo yo xi yi")
    c.reorder(z, x, y).tile(x, y, xo, yo, xi, yi, 8, 3).parallel(yo)
    h.compute_at(c, xo)


@pytest.mark.parametrize("sched", [at_row, at_row_parallel, hist_at_z, hist_at_row_parallel_vectorized, hist_at_tile])
def test_scatter_at_consumer_loop(sched):
    _no_compute_at_warning(__import__("halide_mlir"))
    run_both(lambda hl: histogram(hl, sched), [W, H, 9])


def scan_at_column_tiles(hl, c, s, x, y):
    xo, xi = V(hl, "xo xi")
    c.split(x, xo, xi, 8).reorder(xi, y, xo).parallel(xo)
    s.compute_at(c, xo)


@pytest.mark.parametrize("sched", [scan_at_column_tiles])
def test_scan_at_consumer_loop(sched):
    _no_compute_at_warning(__import__("halide_mlir"))
    run_both(lambda hl: scan(hl, sched), [W, H])


def test_scatter_read_by_two_consumers_in_the_tile():
    """A scatter also read by another producer computed at the same loop: both are computed by the consumer's
    payload loops (analysis/scan_tiles.py; it was computed at the root, with a ComputeAtWarning)."""
    import halide_mlir

    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x, y, z = V(hl, "x y z")
        r = hl.RDom([hl.Range(0, 2)])
        h, d, c = hl.Func("h"), hl.Func("d"), hl.Func("c")
        h[x, y, z] = hl.f32(0)
        h[x, y, hl.clamp(hl.i32(inp[2 * x + r.x, y] * 4), 0, 3)] += 1.0
        d[x, y, z] = h[x, y, z] * 3.0
        c[x, y, z] = h[x, y, z] + d[x, y, z]
        d.compute_at(c, y)
        h.compute_at(c, y)
        return c

    _no_compute_at_warning(halide_mlir)
    run_both(build, [W, H, 4])


def histogram_where_unrolled(hl, sched):
    """bilateral_grid's schedule shape: two channels in the scatter, unrolled; an RDom predicate; a LUT."""
    inp = hl.Buffer(IMG, "input")
    x, y, z, c = V(hl, "x y z c")
    r = hl.RDom([hl.Range(0, 3), hl.Range(0, 2)])
    r.where(r.x + r.y < 3)
    lut, h, out = hl.Func("lut"), hl.Func("h"), hl.Func("out")
    lut[x] = hl.f32(x) * 0.5 + 1.0
    val = inp[2 * x + r.x, 2 * y + r.y]
    zi = hl.clamp(hl.i32(val * 6), 0, 5)
    h[x, y, z, c] = hl.f32(0)
    h[x, y, zi, c] += hl.mux(c, [val * lut[zi], hl.f32(1)])
    out[x, y, z, c] = h[x, y, z, c] + h[x, y, z + 1, c]
    lut.compute_root()
    out.bound(c, 0, 2)
    sched(hl, out, h, x, y, z, c, r)
    return out


def bilateral_like(hl, out, h, x, y, z, c, r):
    out.reorder(c, z, x, y).parallel(y).vectorize(x, 8).unroll(c)
    h.compute_at(out, y)
    h.update().reorder(c, r.x, r.y, x, y).unroll(c)


def test_scatter_with_predicate_lut_and_unroll():
    _no_compute_at_warning(__import__("halide_mlir"))
    run_both(lambda hl: histogram_where_unrolled(hl, bilateral_like), [W, H, 5, 2])


def test_scatter_and_scan_vectorized_in_tile():
    """Vectorized scatters and scans computed in a tile keep their vector form (codegen/vector_updates.py, its
    coordinates shifted by the tile's start): no SerialUpdateWarning, same values, tails included."""
    import halide_mlir

    def hist_sched(hl, c, h, x, y, z):
        c.reorder(z, x, y).parallel(y)
        h.compute_at(c, y)
        h.update().vectorize(x, 8)

    def scan_sched(hl, c, s, x, y):
        xo, xi = V(hl, "xo xi")
        c.split(x, xo, xi, 16).reorder(xi, y, xo).parallel(xo)
        s.compute_at(c, xo)
        s.update().vectorize(x, 8)

    with warnings.catch_warnings():
        warnings.simplefilter("error", halide_mlir.SerialUpdateWarning)
        _no_compute_at_warning(halide_mlir)
        run_both(lambda hl: histogram(hl, hist_sched), [W, H, 9])
        run_both(lambda hl: scan(hl, scan_sched), [W, H])


def test_scatter_stored_outside_its_loop():
    """store_root() / store_at an outer loop with compute_at: the tile is computed per iteration (nothing of a
    scatter slides); same values as Halide."""

    def store_root(hl, c, h, x, y, z):
        c.reorder(x, z, y)
        h.store_root().compute_at(c, y)

    def store_at_outer(hl, c, h, x, y, z):
        yo, yi = V(hl, "yo yi")
        c.reorder(x, z, y).split(y, yo, yi, 4)
        h.store_at(c, yo).compute_at(c, yi)

    _no_compute_at_warning(__import__("halide_mlir"))
    run_both(lambda hl: histogram(hl, store_root), [W, H, 9])
    run_both(lambda hl: histogram(hl, store_at_outer), [W, H, 9])


def consumer_with_update(hl, sched):
    """A producer read only by its consumer's update (lesson 9's ``consumer[x] += producer[x]``, nl_means's
    blur_d in the weighted sum): Halide's compute_at(consumer, y) names loop y of any definition, here the
    update's, so the producer is computed per iteration of the update's loop (placement.py update_home)."""
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    r = hl.RDom([hl.Range(0, 3)])
    p, c = hl.Func("p"), hl.Func("c")
    p[x, y] = inp[x, y] * 3.0 + inp[x + 1, y + 1]
    c[x, y] = hl.f32(x + y)
    c[x, y] += p[x + r.x, y] * 0.5
    sched(hl, c, p, x, y, r)
    return c


def in_update_row(hl, c, p, x, y, r):
    p.compute_at(c, y)


def in_update_row_parallel_vectorized(hl, c, p, x, y, r):
    c.update().parallel(y).vectorize(x, 8)
    p.compute_at(c, y).vectorize(x, 8)


def in_update_rvar(hl, c, p, x, y, r):
    c.update().reorder(x, r.x, y)
    p.compute_at(c, r.x)


@pytest.mark.parametrize("sched", [in_update_row, in_update_row_parallel_vectorized, in_update_rvar])
def test_producer_in_consumer_update_loop(sched):
    _no_compute_at_warning(__import__("halide_mlir"))
    run_both(lambda hl: consumer_with_update(hl, sched), [W, H])


def test_producer_in_update_of_a_fused_consumer_still_warns():
    """The consumer with the update is itself computed at a loop (nl_means's weighted sum): not yet, so the
    producer is computed at the root with the warning (same values)."""
    import halide_mlir

    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x, y = V(hl, "x y")
        r = hl.RDom([hl.Range(0, 3)])
        p, c, out = hl.Func("p"), hl.Func("c"), hl.Func("out")
        p[x, y] = inp[x, y] * 3.0
        c[x, y] = hl.f32(0)
        c[x, y] += p[x + r.x, y]
        out[x, y] = c[x, y] * 2.0
        c.compute_at(out, y)
        p.compute_at(c, y)
        return out

    with pytest.warns(halide_mlir.ComputeAtWarning, match="has update definitions"):
        run_both(build, [W, H])
