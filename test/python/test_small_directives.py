"""partition / never_partition / always_partition(_all), bound_extent, align_bounds, align_extent, align_storage,
bound_storage, hoist_storage(_root) and allow_race_conditions: values and errors against real Halide 21."""
import numpy as np
import pytest

import halide_mlir as hl

halide = pytest.importorskip("halide")


def run(mod, sched, sizes, w=37, h=23):
    """One pipeline (input -> repeat_edge -> g -> f) built with ``mod`` (hl or halide), scheduled by ``sched``."""
    x, y = mod.Var("x"), mod.Var("y")
    data = (np.arange(w * h, dtype=np.int32).reshape(h, w) * 7) % 251
    inp = mod.Buffer(data, name="inp")
    b = mod.BoundaryConditions.repeat_edge(inp)
    g, f = mod.Func("g"), mod.Func("f")
    g[x, y] = b[x - 1, y] + 2 * b[x + 1, y + 1]
    f[x, y] = g[x, y] + g[x + 3, y - 1]
    sched(mod, f, g, x, y)
    return np.asarray(f.realize(sizes))


def same(sched, sizes=(41, 19)):
    ours = run(hl, sched, list(sizes))
    ref = run(halide, sched, list(sizes))
    np.testing.assert_array_equal(ours, ref)


def refused(sched, match, sizes=(41, 19)):
    with pytest.raises(halide.HalideError):
        run(halide, sched, list(sizes))
    with pytest.raises(hl.HalideError, match=match):
        run(hl, sched, list(sizes))


# --- partition ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sched", [
    lambda m, f, g, x, y: f.partition(x, m.Partition.Never).partition(y, m.Partition.Never),
    lambda m, f, g, x, y: f.never_partition_all(),
    lambda m, f, g, x, y: (f.never_partition([y]), g.compute_root().always_partition([x])),
    lambda m, f, g, x, y: (f.vectorize(x, 8).always_partition([x]), g.compute_root().never_partition([x, y])),
    lambda m, f, g, x, y: (f.tile(x, y, m.Var("xo"), m.Var("yo"), m.Var("xi"), m.Var("yi"), 8, 4).parallel(
        m.Var("yo")).partition(m.Var("xo"), m.Partition.Never), g.compute_at(f, m.Var("xo")).vectorize(x, 4)),
])
def test_partition_values(sched):
    same(sched)
    same(sched, (5, 3))


def test_never_partition_is_one_piece():
    """Never: the stage is one generic with the clamps; Auto: the boundary's pieces (plan.py partition)."""
    def build(policy):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(np.zeros((8, 8), np.uint8), name="inp")
        b = hl.BoundaryConditions.repeat_edge(inp)
        f = hl.Func("f")
        f[x, y] = b[x - 1, y] + b[x + 1, y]
        f.partition(x, policy).partition(y, policy)
        return f.compile_to_mlir([12, 12], [-2, -2]).count(f'hl.func = "{f.name()}"')   # (the second f is f$1)
    assert build(hl.Partition.Auto) > 1
    assert build(hl.Partition.Never) == 1


def test_partition_errors():
    refused(lambda m, f, g, x, y: g.compute_root().partition(m.Var("z"), m.Partition.Never),
            "could not find var z to set loop partition policy")
    with pytest.raises(hl.HalideTypeError):
        hl.Func("f").partition(hl.Var("x"), 3)

    def always_without_clamp(mod):
        x = mod.Var("x")
        f = mod.Func("f")
        f[x] = x * 2
        f.always_partition([x])
        return f.realize([10])
    message = r"Always for f(\$\d+)?.s0.x, but no loop partitioning was performed"
    with pytest.raises(halide.HalideError, match=message):
        always_without_clamp(halide)
    with pytest.raises(hl.HalideError, match=message):
        always_without_clamp(hl)


# --- bound_extent, align_bounds, align_extent ---------------------------------------------------------------------

@pytest.mark.parametrize("sched", [
    lambda m, f, g, x, y: g.compute_root().bound_extent(x, 64),
    lambda m, f, g, x, y: g.compute_root().align_bounds(x, 8).align_bounds(y, 4, 3),
    lambda m, f, g, x, y: (g.compute_root().align_bounds(x, 16, -5).vectorize(x, 16), f.parallel(y)),
    lambda m, f, g, x, y: g.compute_root().align_extent(x, 16).align_extent(y, 3),
    lambda m, f, g, x, y: (f.split(y, m.Var("yo"), m.Var("yi"), 4).parallel(m.Var("yo")),
                           g.compute_at(f, m.Var("yo")).align_bounds(y, 4).vectorize(x, 8)),
    lambda m, f, g, x, y: f.bound_extent(x, 64).align_bounds(y, 8),   # an output's region is its buffer's
])
def test_bound_family_values(sched):
    same(sched)
    same(sched, (13, 7))


def test_align_bounds_grows_the_region():
    """The region of g grows to the alignment (Halide's BoundsInference): [x - 0, x + 3] over 0..40 -> 0..47."""
    from halide_mlir import driver
    x, y = hl.Var("x"), hl.Var("y")
    g, f = hl.Func("g"), hl.Func("f")
    g[x, y] = x + y
    f[x, y] = g[x, y] + g[x + 3, y + 1]
    g.compute_root().align_bounds(x, 16, 2).align_extent(y, 8)
    plan = driver.stages(f, [41, 19]).plan
    region = plan.of(g).region
    assert region.mins == (-14, 0) and region.extents == (64, 24)


def test_bound_family_errors():
    refused(lambda m, f, g, x, y: g.compute_root().bound_extent(x, 8), "do not cover required region")
    with pytest.raises(hl.HalideError, match="do not cover required region"):   # garbage beyond it in Halide
        run(hl, lambda m, f, g, x, y: f.bound_extent(x, 8), [41, 19])
    refused(lambda m, f, g, x, y: g.compute_root().align_bounds(m.Var("q"), 4),
            r"Can't align bounds of variable q of function g(\$\d+)? because q is not one of the pure variables of g")
    refused(lambda m, f, g, x, y: g.compute_root().align_extent(m.Var("q"), 4),
            "Can't align extent of variable q")
    refused(lambda m, f, g, x, y: g.compute_root().bound_extent(m.Var("q"), 4), "Can't bound variable q")
    refused(lambda m, f, g, x, y: g.compute_root().align_bounds(x, 2.5), "Can't represent modulus as int32")
    with pytest.raises(hl.HalideError, match="modulus must be positive"):   # garbage bounds in Halide
        run(hl, lambda m, f, g, x, y: g.compute_root().align_bounds(x, 0), [8, 8])


# --- storage -------------------------------------------------------------------------------------------------------

def test_storage_values_and_errors():
    same(lambda m, f, g, x, y: g.compute_root().bound_storage(x, 64).bound_storage(y, 32))
    # align_storage pads g's buffer (test_store_in.py checks the allocation; lit bufferized_align_storage.py)
    same(lambda m, f, g, x, y: g.compute_root().align_storage(x, 16))
    same(lambda m, f, g, x, y: g.compute_root().align_storage(x, 16).align_storage(y, 3), (5, 3))
    refused(lambda m, f, g, x, y: g.compute_root().bound_storage(x, 8),
            r"The explicit allocation bound \(8\) of dimension x of g(\$\d+)? is too small to store the required")
    refused(lambda m, f, g, x, y: g.compute_root().bound_storage(m.Var("q"), 8),
            "could not find var q to bound the storage of")
    refused(lambda m, f, g, x, y: g.compute_root().align_storage(m.Var("q"), 8),
            "could not find var q to align the storage of")


# --- hoist_storage -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sched", [
    lambda m, f, g, x, y: g.compute_at(f, x).hoist_storage(f, y),
    lambda m, f, g, x, y: g.compute_at(f, x).hoist_storage_root(),
    lambda m, f, g, x, y: g.compute_at(f, y).hoist_storage(f, m.Var.outermost()).vectorize(x, 8),
    lambda m, f, g, x, y: (f.split(y, m.Var("yo"), m.Var("yi"), 4).parallel(m.Var("yo")),
                           g.compute_at(f, m.Var("yi")).hoist_storage(f, m.Var("yo"))),
    lambda m, f, g, x, y: (g.compute_root().hoist_storage_root(), f.hoist_storage_root()),
])
def test_hoist_storage_values(sched):
    same(sched)
    same(sched, (6, 5))


def test_hoist_storage_errors():
    refused(lambda m, f, g, x, y: g.hoist_storage(f, y), "is scheduled hoist_storage\\(\\), but is inlined")
    refused(lambda m, f, g, x, y: g.hoist_storage_root(), "is scheduled hoist_storage_root\\(\\), but is inlined")
    refused(lambda m, f, g, x, y: g.compute_at(f, y).hoist_storage(f, x), "invalid location")
    refused(lambda m, f, g, x, y: g.compute_root().hoist_storage(f, y), "invalid location")
    refused(lambda m, f, g, x, y: (f.parallel(y), g.compute_at(f, x).hoist_storage_root()),
            r"storage is hoisted outside the parallel/vectorized/gpu_block loop over f(\$\d+)?\.y")
    refused(lambda m, f, g, x, y: f.hoist_storage(g, x), "is an output")


# --- allow_race_conditions ------------------------------------------------------------------------------------------

def race_pipeline(mod, sched, n=61):
    """A permutation scatter: every RVar iteration writes its own point, so the races are harmless."""
    x = mod.Var("x")
    r = mod.RDom([(0, n)])
    f = mod.Func("f")
    f[x] = x * 0 - 1
    f[(r.x * 7) % n] = r.x * 3 + 1
    sched(mod, f, r)
    return np.asarray(f.realize([n]))


@pytest.mark.parametrize("sched", [
    lambda m, f, r: f.update().allow_race_conditions().parallel(r.x),
    lambda m, f, r: f.update().allow_race_conditions().split(r.x, m.RVar("ro"), m.RVar("ri"), 8).parallel(
        m.RVar("ro")),
    lambda m, f, r: f.update().allow_race_conditions().atomic().parallel(r.x),
])
def test_allow_race_conditions(sched):
    np.testing.assert_array_equal(race_pipeline(hl, sched), race_pipeline(halide, sched))


def test_parallel_rvar_without_it_is_refused():
    with pytest.raises(halide.HalideError):
        race_pipeline(halide, lambda m, f, r: f.update().parallel(r.x))
    with pytest.raises(hl.HalideError, match="can't parallelize loop 'r"):
        race_pipeline(hl, lambda m, f, r: f.update().parallel(r.x))
