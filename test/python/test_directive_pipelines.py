"""Issue 16's value column where a directive had fewer than three pipelines against real Halide 21: the bound/align
family, bound_storage, hoist_storage(_root), compute_with, specialize_fail not taken, clone_in and
allow_race_conditions, each on three pipelines (u8 blur, f32 with an inline reduction, i32 through a boundary
condition), at an odd size, combined with tile/vectorize/parallel/compute_at. docs/directives.md's "Done-means
checklist" points here.
"""

import numpy as np
import pytest

from oracle import run_both

W, H = 48, 32
U8 = (np.arange((H + 4) * (W + 4), dtype=np.int64).reshape(H + 4, W + 4) * 37 % 256).astype(np.uint8)
F32 = np.random.default_rng(5).uniform(-1, 1, (H + 4, W + 4)).astype(np.float32)
I32 = (np.arange(H * W, dtype=np.int32).reshape(H, W) * 7) % 251


def blur_u8(hl):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(U8, "inp")
    g, h, out = hl.Func("g"), hl.Func("h"), hl.Func("out")
    g[x, y] = hl.u16(inp[x, y]) + inp[x + 1, y] + inp[x + 2, y]
    h[x, y] = hl.u16(inp[x, y + 1]) * 2
    out[x, y] = hl.u8((g[x, y] + g[x, y + 1] + h[x, y]) // 8)
    return out, g, h, x, y


def reduction_f32(hl):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(F32, "inp")
    r = hl.RDom([(0, 3)])
    g, h, out = hl.Func("g"), hl.Func("h"), hl.Func("out")
    g[x, y] = hl.sum(inp[x + r.x, y + 1])
    h[x, y] = inp[x, y] * 0.5
    out[x, y] = g[x, y] - g[x + 1, y + 1] * 0.25 + h[x, y]
    return out, g, h, x, y


def boundary_i32(hl):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(I32, "inp")
    b = hl.BoundaryConditions.repeat_edge(inp)
    g, h, out = hl.Func("g"), hl.Func("h"), hl.Func("out")
    g[x, y] = b[x - 1, y] * 3 + b[x, y + 1]
    h[x, y] = b[x + 1, y - 1]
    out[x, y] = g[x, y] + g[x + 2, y] - h[x, y]
    return out, g, h, x, y


PIPELINES = {"blur_u8": blur_u8, "reduction_f32": reduction_f32, "boundary_i32": boundary_i32}


def _tile(m, out, x, y, tx=16, ty=8):
    v = [m.Var(n) for n in ("xo", "yo", "xi", "yi")]
    out.tile(x, y, *v, tx, ty)
    return v


def align_bounds_root_parallel(m, out, g, h, x, y):
    g.compute_root().align_bounds(x, 8).align_bounds(y, 4).vectorize(x, 8)   # (within the inputs)
    out.parallel(y).vectorize(x, 8)


def align_extent_at_tile(m, out, g, h, x, y):
    xo, yo, xi, yi = _tile(m, out, x, y)
    out.parallel(yo).vectorize(xi, 8)
    g.compute_at(out, xo).align_extent(y, 4).align_extent(x, 8)


def bound_extent_root(m, out, g, h, x, y):
    g.compute_root().bound_extent(x, 44).vectorize(x, 16)
    out.vectorize(x, 8)


def bound_storage_at_row(m, out, g, h, x, y):
    yo, yi = m.Var("yo"), m.Var("yi")
    out.split(y, yo, yi, 4).parallel(yo)
    g.compute_at(out, yi).bound_storage(x, 64).bound_storage(y, 2).vectorize(x, 8)


def hoist_storage_tile(m, out, g, h, x, y):
    xo, yo, xi, yi = _tile(m, out, x, y, 8, 8)
    out.parallel(yo)
    g.compute_at(out, xo).hoist_storage(out, yo)


def hoist_storage_root_strip(m, out, g, h, x, y):
    yo, yi = m.Var("yo"), m.Var("yi")
    out.split(y, yo, yi, 4)
    g.compute_at(out, yo).hoist_storage_root().vectorize(x, 8)


def compute_with_rows(m, out, g, h, x, y):
    g.compute_root().vectorize(x, 8)
    h.compute_root().vectorize(x, 8)
    h.compute_with(g, y)


def compute_with_parallel_aligned(m, out, g, h, x, y):
    g.compute_root().parallel(y)
    h.compute_root().parallel(y)
    h.compute_with(g, y, m.LoopAlignStrategy.AlignStart)


def specialize_fail_not_taken(m, out, g, h, x, y):
    p = m.Param(m.Int(32), "p", 5)
    xo, yo, xi, yi = _tile(m, out, x, y)
    out.specialize(p > 0).vectorize(xi, 8).parallel(yo)
    out.specialize_fail("p must be positive")
    g.compute_at(out, xo)


def clone_in_at_tile(m, out, g, h, x, y):
    xo, yo, xi, yi = _tile(m, out, x, y)
    out.parallel(yo).vectorize(xi, 8)
    g.compute_root()   # (the clone replaces g in out: g itself is then computed for no one, in neither)
    g.clone_in(out).compute_at(out, xo).vectorize(x, 8)


SCHEDULES = [align_bounds_root_parallel, align_extent_at_tile, bound_extent_root, bound_storage_at_row,
             hoist_storage_tile, hoist_storage_root_strip, compute_with_rows, compute_with_parallel_aligned,
             specialize_fail_not_taken, clone_in_at_tile]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=[s.__name__ for s in SCHEDULES])
@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_directive_on_three_pipelines(pipeline, schedule):
    def build(hl):
        out, g, h, x, y = PIPELINES[pipeline](hl)
        schedule(hl, out, g, h, x, y)
        return out
    run_both(build, [37, 23])   # odd: edge tiles and guarded vectors everywhere


@pytest.mark.parametrize("schedule", [align_bounds_root_parallel, hoist_storage_tile, compute_with_rows],
                         ids=lambda s: s.__name__)
def test_directive_at_an_even_size(schedule):
    def build(hl):
        out, g, h, x, y = blur_u8(hl)
        schedule(hl, out, g, h, x, y)
        return out
    run_both(build, [32, 16])


# --- allow_race_conditions: scatters whose RVar iterations write distinct points --------------------------------

def _permutation_1d(hl, sched):
    x = hl.Var("x")
    r = hl.RDom([(0, 61)])
    f = hl.Func("f")
    f[x] = x * 0 - 1
    f[(r.x * 7) % 61] = r.x * 3 + 1
    sched(hl, f.update(), r.x, r.x)
    return f


def _transpose_2d(hl, sched):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(I32, "inp")
    r = hl.RDom([(0, 23), (0, 23)])
    f = hl.Func("f")
    f[x, y] = 0
    f[r.y, r.x] = inp[r.x, r.y] + 1
    sched(hl, f.update(), r.y, r.x)
    return f


def _rows_scattered_at_consumer(hl, sched):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(I32, "inp")
    r = hl.RDom([(0, 37)])
    f, out = hl.Func("f"), hl.Func("out")
    f[x, y] = 0
    f[(r.x * 5) % 37, y] = inp[r.x, y] * 2
    out[x, y] = f[x, y] + 1
    f.compute_at(out, y)
    sched(hl, f.update(), r.x, r.x)
    return out


RACES = [
    lambda m, s, ro, ri: s.allow_race_conditions().parallel(ro),
    lambda m, s, ro, ri: s.allow_race_conditions().split(ri, m.RVar("a"), m.RVar("b"), 8).parallel(m.RVar("a")),
]


@pytest.mark.parametrize("sched", RACES, ids=["parallel", "split_parallel"])
@pytest.mark.parametrize("pipeline,sizes", [(_permutation_1d, [61]), (_transpose_2d, [23, 23]),
                                            (_rows_scattered_at_consumer, [37, 9])],
                         ids=["permutation_1d", "transpose_2d", "rows_at_consumer"])
def test_allow_race_conditions_on_three_pipelines(pipeline, sizes, sched):
    run_both(lambda hl: pipeline(hl, sched), sizes)
