"""``atomic()`` against real Halide 21: Halide's atomics.py, histograms whose RVar loops run in parallel (split,
odd sizes, clamped bins), max and product scatters (``memref.atomic_rmw`` and ``generic_atomic_rmw``), scatters
parallel over a pure Var (no atomics needed), and the errors Halide raises."""
import warnings

import numpy as np
import pytest

from oracle import raises_both, run_both

IMG = np.random.default_rng(21).integers(0, 256, (23, 37)).astype(np.uint8)
IMG16 = IMG.astype(np.uint16) * 3  # (kept alive here: Halide's Buffer does not own the array)


def test_halide_atomics_py():                 # python_bindings/test/correctness/atomics.py
    def build(hl):
        x = hl.Var("x")
        im, f = hl.Func("im"), hl.Func("f")
        im[x] = (x * x) % 5
        r = hl.RDom([(0, 100)])
        f[x] = 0
        f[hl.Expr(im[r])] += 1
        f.compute_root().update().atomic().parallel(r)
        return f
    run_both(build, [5])


@pytest.mark.parametrize("shape, split", [((23, 37), 4), ((8, 8), 3), ((1, 5), 2)])
def test_parallel_histogram(shape, split):     # hist[clamp(in[r.x, r.y], 0, 255)] += 1, rows of r.y in parallel
    h_, w_ = shape

    def build(hl):
        inp = hl.Buffer(np.ascontiguousarray(IMG[:h_, :w_]), "input")
        x = hl.Var("x")
        hist = hl.Func("hist")
        hist[x] = 0
        r = hl.RDom([(0, w_), (0, h_)])
        hist[hl.clamp(hl.i32(inp[r.x, r.y]) // 3, 0, 63)] += 1
        ryo, ryi = hl.RVar("ryo"), hl.RVar("ryi")
        hist.compute_root().update().atomic().split(r.y, ryo, ryi, split).parallel(ryo)
        hist.vectorize(x, 8)
        return hist
    run_both(build, [64])


def test_parallel_max_scatter():                # maxs atomic_rmw
    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x = hl.Var("x")
        m = hl.Func("mx")
        m[x] = hl.i32(-1)
        r = hl.RDom([(0, IMG.shape[1]), (0, IMG.shape[0])])
        b = hl.i32(inp[r.x, r.y]) % 10
        m[b] = hl.max(m[b], r.x * 100 + r.y)
        m.update().atomic().parallel(r.y)
        return m
    run_both(build, [10])


def test_parallel_product_scatter():            # no atomicrmw for mul: a generic_atomic_rmw (compare-and-swap)
    def build(hl):
        x = hl.Var("x")
        p = hl.Func("prod")
        p[x] = hl.u32(1)
        r = hl.RDom([(0, 61)])
        p[r.x % 7] = p[r.x % 7] * hl.u32(r.x + 1)
        p.update().atomic().parallel(r.x)
        return p
    run_both(build, [7])


def test_parallel_float_min_of_an_input():     # minnumf atomic_rmw (the fuzzer's seed 16, example 359)
    def build(hl):
        inp = hl.Buffer(IMG16, "input")
        b = hl.BoundaryConditions.mirror_image(inp)
        x, y = hl.Var("x"), hl.Var("y")
        r = hl.RDom([(-1, 3), (0, 1)])
        f = hl.Func("fmin")
        f[x, y] = hl.f32(b[x - 1, y])
        f[x, y] = hl.min(f[x, y], hl.f32(b[x + r.x, y + r.y]))
        f.update().atomic().parallel(r.x)
        return f
    run_both(build, [37, 23])


def test_parallel_float_max_scatter():          # maxnumf atomic_rmw
    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x = hl.Var("x")
        m = hl.Func("fmx")
        m[x] = hl.f32(-1)
        r = hl.RDom([(0, IMG.shape[1]), (0, IMG.shape[0])])
        b = hl.i32(inp[r.x, r.y]) % 10
        m[b] = hl.max(m[b], hl.f32(r.x) * 0.5 + hl.f32(inp[r.x, r.y]))
        m.update().atomic().parallel(r.y)
        return m
    run_both(build, [10])


def test_parallel_product_of_an_input():        # a compare-and-swap loop whose factor is an input's value: the
    def build(hl):                              # input is read before the loop (no memory reads in its region)
        inp = hl.Buffer(IMG, "input")
        x = hl.Var("x")
        p = hl.Func("prodin")
        p[x] = hl.u32(1)
        r = hl.RDom([(0, 37), (0, 3)])
        p[r.x % 7] = p[r.x % 7] * (hl.u32(inp[r.x, r.y]) % 3 + 1)
        p.update().atomic().parallel(r.y)
        return p
    run_both(build, [7])


def test_parallel_float_product_scatter():      # a compare-and-swap loop on the bits of f32 / f64 (cmpxchg takes
    for bits in (32, 64):                       # integers)
        def build(hl):
            x = hl.Var("x")
            p = hl.Func(f"fprod{bits}")
            p[x] = hl.cast(hl.Float(bits), 1)
            r = hl.RDom([(0, 61)])
            p[r.x % 7] = p[r.x % 7] * (hl.cast(hl.Float(bits), r.x % 3) * 0.5 + 1)
            p.update().atomic().parallel(r.x)
            return p
        run_both(build, [7])


def test_override_associativity():              # a constant store: no proof needed, any order gives the same
    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x = hl.Var("x")
        seen = hl.Func("seen")
        seen[x] = hl.u8(0)
        r = hl.RDom([(0, IMG.shape[1]), (0, IMG.shape[0])])
        seen[hl.i32(inp[r.x, r.y]) // 4] = hl.u8(1)
        seen.update().atomic(override_associativity_test=True).parallel(r.y)
        return seen
    run_both(build, [64])


def test_scatter_parallel_over_pure_var():      # rows written by their own iteration: plain stores
    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x, y = hl.Var("x"), hl.Var("y")
        h = hl.Func("rowhist")
        h[x, y] = 0
        r = hl.RDom([(0, IMG.shape[1])])
        h[hl.i32(inp[r.x, y]) // 32, y] += 1
        h.update().parallel(y)
        return h
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SerialUpdateWarning: the schedule is applied
        import halide_mlir as hl
        if True:
            run_both(build, [8, IMG.shape[0]])
    assert hl is not None


def test_atomic_ir():
    import halide_mlir as hl
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = 0
    r = hl.RDom([(0, 100)])
    f[(r.x * r.x) % 5] += 1
    f.update().atomic().parallel(r.x)
    assert "memref.atomic_rmw addi" in f.compile_to_mlir([5])
    low = f.compile_to_lowered_mlir([5])
    assert "llvm.atomicrmw add" in low and "omp.wsloop" in low


def test_refuses_non_commutative_atomic():
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("fna")
        f[x] = 0
        r = hl.RDom([(0, 10)])
        f[x] = f[x] * 2 + r.x
        f.update().atomic().parallel(r.x)
    ref, msg = raises_both(program)
    assert "since it can't prove associativity or commutativity of the operator" in ref
    assert "Failed to call atomic() on fna.update(0) since it can't prove associativity or commutativity" in msg


def test_refuses_parallel_rvar_without_atomic():
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("frace")
        f[x] = 0
        r = hl.RDom([(0, 10)])
        f[r.x % 3] += 1
        f.update().parallel(r.x)
        f.realize([3])
    assert "atomic()" in raises_both(program)[1]


def test_parallel_rvar_of_a_plain_reduction_with_atomic_is_race_free():
    """``f[x, y] += g(x + r.x, y)`` is a reduction (one linalg.generic), but with ``atomic().parallel(r.x)`` its
    RVar loop runs in parallel: it must become loops with atomic read-modify-writes, not a reduction dim tiled by
    tile_using_forall (which raced on the output: found by the fuzzer, wrong in about half the runs)."""
    import halide_mlir as hl

    x, y = hl.Var("x"), hl.Var("y")
    a = np.random.default_rng(3).uniform(-4, 4, (23, 60)).astype(np.float32)
    inp = hl.Buffer(a, "in_race")
    r = hl.RDom([(-1, 3)], "r")
    f = hl.Func("f_race")
    f[x, y] = hl.f32(0)
    f[x, y] += inp[x + r.x + 1, y]
    f.compute_root()
    f.update(0).atomic().parallel(r.x)
    out = hl.Func("out_race")
    out[x, y] = f[x, y] * 2
    expected = 2 * (a[:, 0:37] + a[:, 1:38] + a[:, 2:39])
    for _ in range(20):
        assert np.allclose(np.asarray(out.realize([37, 23])), expected, rtol=1e-5, atol=1e-5)
    assert "atomic_rmw" in f.compile_to_mlir([37, 23])
