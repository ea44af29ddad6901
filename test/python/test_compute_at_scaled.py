"""compute_at producers read at scaled coordinates (``f[x // 2, y // 2]``, ``f[2 * x, 2 * y + 1]``): upsampling and
downsampling at the consumer's loops. The producer's tile per iteration is the interval bounds inference gives
(scaled from the consumer's tile, analysis/tiling.py Span), so it is computed per row/tile as in Halide, not once at
the root (no ComputeAtWarning); strided reads of the tile are slices, divided ones gathers. Odd sizes, checked
against real Halide 21."""

import warnings

import pytest

from helpers import V
from oracle import image_f32, image_u16, run_both

W, H = 45, 31
IMG = image_f32(2 * W + 6, 2 * H + 6, seed=41)


def two_stage(hl, sched, kind="up"):
    inp = hl.Buffer(IMG, "input")
    x, y, xo, yo, xi, yi = V(hl, "x y xo yo xi yi")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = inp[x + 1, y] * 2.0 + inp[x, y + 2]
    if kind == "up":
        g[x, y] = f[x // 2, y // 2] - f[(x + 3) // 2, (y + 1) // 2]
    else:
        g[x, y] = f[2 * x, 2 * y + 1] * 0.5 + f[2 * x + 1, 2 * y]
    if sched == "row":
        f.compute_at(g, y)
    elif sched == "row_vec":
        f.compute_at(g, y).vectorize(x, 8)
        g.vectorize(x, 8)
    elif sched == "tile":
        g.tile(x, y, xo, yo, xi, yi, 8, 4)
        f.compute_at(g, xo)
    elif sched == "tile_yo":
        g.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 8).parallel(yo)
        f.compute_at(g, yo).vectorize(x, 8)
    return g


def downsample_only(hl):
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = inp[x, y] + inp[x + 1, y + 1]
    g[x, y] = f[2 * x, 2 * y] + f[2 * x + 1, 2 * y + 1]
    g.vectorize(x, 8)
    f.compute_at(g, y).vectorize(x, 8)
    return g


SCHEDS = ["row", "row_vec", "tile", "tile_yo"]


@pytest.mark.parametrize("kind", ["up", "down"])
@pytest.mark.parametrize("sched", SCHEDS)
def test_matches_halide(sched, kind):
    run_both(lambda hl: two_stage(hl, sched, kind), [W, H], mins=[0, 1] if kind == "down" else [3, 2])


def test_downsample_matches_halide():
    run_both(downsample_only, [W, H])


def mixed(hl):
    """f[x / 2] and f[2 * x] in one dim: two scales, so f stays computed at the root (with a ComputeAtWarning;
    analysis/placement.py does not know yet that no loop tiles x here)."""
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = inp[x, y] - inp[x + 2, y + 1]
    g[x, y] = f[x // 2, y // 2] + f[2 * x, y // 2 + 1]
    f.compute_at(g, y)
    return g


@pytest.mark.filterwarnings("ignore::halide_mlir.ComputeAtWarning")
def test_mixed_scales_matches_halide():
    run_both(mixed, [W, H])


@pytest.mark.parametrize("kind", ["up", "down"])
@pytest.mark.parametrize("sched", SCHEDS)
def test_computed_at_the_loop(sched, kind):
    """No hoisting warning; the producer's generic sits inside the consumer's payload loop."""
    import halide_mlir as hl
    from halide_mlir.driver import stages

    with warnings.catch_warnings():
        warnings.simplefilter("error", hl.ComputeAtWarning)
        s = stages(two_stage(hl, sched, kind), [W, H])
        payload = s.payload
    assert payload.count('hl.func = "f"') == 1
    assert "scf.for" in payload or "scf.forall" in payload
    if sched in ("row_vec", "tile_yo"):  # vectorize() applies: no generic left after the schedule
        assert "linalg.generic" not in s.scheduled()


@pytest.mark.parametrize("sched", ["row_vec", "tile_yo"])
def test_divided_reads_are_dense_loads(sched):
    """f[x / 2] along the vector: one masked dense load plus shuffles (codegen/divided_gathers.py), no gather."""
    import halide_mlir as hl
    from halide_mlir.driver import stages

    s = stages(two_stage(hl, sched, "up"), [W, H])
    assert "vector.gather" not in s.bufferized()
    assert "vector.shuffle" in s.bufferized()


IMG16 = image_u16(30, 20, seed=43)


@pytest.mark.parametrize("d", [2, 3])
def test_divided_reads_u16_tails(d):
    """u16 upsampling with tails (45 is not a multiple of 16), against Halide: by 2 at g's rows, by 3 from the
    root (f[x / 3] and f[(x - 1) / 3 + 1]: one scale, the tile plan path; then a root read by 2 too)."""
    def build(hl):
        inp = hl.Buffer(IMG16, "input")
        x, y = V(hl, "x y")
        f, g, h = hl.Func("f"), hl.Func("g"), hl.Func("h")
        f[x, y] = inp[x, y] + inp[x + 1, y]
        h[x, y] = inp[x, y] * 2
        g[x, y] = f[x // d, y // 2] * 3 + f[(x - 1) // d + 1, y // 2] + h[(x + 1) // 2, y // 2]
        f.compute_at(g, y).vectorize(x, 16)
        h.compute_root()
        g.vectorize(x, 16)
        return g
    run_both(build, [W, 38])
