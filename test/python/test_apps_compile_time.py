"""Compile-time scaling of Halide's apps (bench/apps.py, issue 20): stencil_chain's producers fused into a fused
parallel tile loop (``tile().fuse(xo, yo, t).parallel(t)``) fell back to plain fusion, one producer copy per tap
and per level of the chain (25^10 copies: the transform interpreter never finished); camera_pipe's demosaiced,
fused into curved's x loop, was vectorized over its whole region (130 lanes of gathers: a minute of LLVM). Values
are checked against Halide 21; the plans (cheap) against the shapes that keep compile time linear."""
import os
import sys

import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir import driver
from halide_mlir.runtime.realize import output_region

halide = pytest.importorskip("halide")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from bench import apps  # noqa: E402

SMOKE = 1 / 16


def _chain(h, inp_np, stencils, group, vec=32):
    """stencil_chain's algorithm and schedule (bench/apps.py) with fewer stencils."""
    inp = h.Buffer(inp_np, "input")
    rows, cols = inp_np.shape
    x, y = h.Var("x"), h.Var("y")
    stages = [h.BoundaryConditions.repeat_edge(inp)]
    for s in range(stencils):
        f = h.Func(f"stage_{s}")
        e = h.u16(0)
        for i in range(-2, 3):
            for j in range(-2, 3):
                e = e + h.u16((i + 3) * (j + 3)) * stages[-1][x + i, y + j]
        f[x, y] = e
        stages.append(f)
    out = h.Func("stencil_chain")
    out[x, y] = stages[-1][x, y]
    yi, yo, xo, xi, t = (h.Var(n) for n in "yi yo xo xi t".split())
    last = len(stages) - 1
    for j in range(last, 0, -group):
        o = out if j == last else stages[j]
        expansion = 4 * (last - j)
        tw, th = (cols + expansion) // 4, (rows + expansion) // 4
        o.compute_root().tile(x, y, xo, yo, xi, yi, tw, th).fuse(xo, yo, t).parallel(t).vectorize(xi, vec)
        for i in range(max(0, j - group + 1), j):
            if i == 0:
                continue
            stages[i].store_at(o, t).compute_at(o, yi).vectorize(x, vec)
    return out, [cols, rows]


def test_fused_tile_loop_is_spelled_out():
    """Two groups of a chain: each group's producers are computed in the payload's loops (a collapsed forall
    for t = fuse(xo, yo), then yi) as sliding windows; nothing is fused per tap, and the values are Halide's."""
    data = np.random.default_rng(0).integers(0, 65536, (64, 128), dtype=np.uint16)
    f, sizes = _chain(hl, data, 6, 3)
    comp = driver.compile_pipeline(f, output_region(f, sizes, None))
    tiled = [sp for sp in comp.plan.stages if sp.tile is not None]
    assert [[lev.loop.name for lev in sp.tile.levels] for sp in tiled] == [["t$part0", "t", "yi"]] * 2
    assert all(sp.tile.slides for sp in tiled)
    assert "fuse_into_containing_op" not in comp.transform
    ref = np.asarray(_chain(halide, data, 6, 3)[0].realize(sizes))
    np.testing.assert_array_equal(np.asarray(f.realize(sizes)), ref)


def test_stencil_chain_plan_is_linear():
    """The app at the smoke size: three tile plans, no per-tap fusion, a script of ~5 ops per stage."""
    ins = apps.stencil_chain_inputs(SMOKE)
    f, sizes = apps.stencil_chain_build(hl, ins)
    comp = driver.compile_pipeline(f, output_region(f, sizes, None))
    assert sum(sp.tile is not None for sp in comp.plan.stages) == 3
    assert "fuse_into_containing_op" not in comp.transform
    assert comp.transform.count("\n") < 10 * len(comp.plan.stages)


def test_camera_pipe_fused_vectors_span_one_computation():
    """demosaiced and corrected are computed at curved's x loop (64 wide): their vectors are 64 lanes, not
    their whole region's 130."""
    ins = apps.camera_pipe_inputs(SMOKE)
    f, sizes = apps.camera_pipe_build(hl, ins)
    comp = driver.compile_pipeline(f, output_region(f, sizes, None))
    by_name = {sp.name: sp for sp in comp.plan.stages}
    for name in ("demosaiced", "corrected"):
        assert by_name[name].schedule.vector_sizes == (1, 1, 64)
    assert "130]" not in "".join(l for l in comp.transform.splitlines() if "vector_sizes" in l)


def test_camera_pipe_windows_computed_once_per_strip():
    """camera_pipe's windows stored at the strip (yo) and computed per 2-row step (yi) can't slide (read at
    ``2 * y``, ``y / 2``): they are computed once per strip, where they are stored (curved: 34 rows for 32 output
    rows, not 4 per step), and curved's x loop, 2 elements longer than a multiple of 64 and with demosaiced and
    corrected fused in it, has its partial tile peeled (analysis/loop_schedule.py)."""
    ins = apps.camera_pipe_inputs(SMOKE)
    f, sizes = apps.camera_pipe_build(hl, ins)
    with pytest.warns(hl.StorageWarning, match="fold_storage"):
        comp = driver.compile_pipeline(f, output_region(f, sizes, None))
    by_name = {sp.name: sp for sp in comp.plan.stages}
    tile = by_name["camera_pipe"].tile
    assert [lev.loop.name for lev in tile.levels] == ["yo"]
    assert by_name["curved"].extents[1] == 34
    assert comp.transform.count("transform.loop.peel") == 1


@pytest.mark.slow
@pytest.mark.parametrize("app", ["stencil_chain", "camera_pipe"])
def test_app_matches_halide(app):
    """The whole app at the smoke size against Halide 21 (each compiles in a few seconds, Halide's too)."""
    b = {x.name: x for x in apps.APP_BENCHMARKS}[app]
    ins = b.inputs(SMOKE)
    ref_f, sizes = b.build(halide, ins)
    ref = np.asarray(ref_f.realize(sizes)).astype(np.int64)
    f, sizes = b.build(hl, ins)
    got = np.asarray(f.realize(sizes)).astype(np.int64)
    np.testing.assert_array_equal(got, ref)
