"""``Stage.rfactor`` against real Halide 21: sums and histograms factored over one or two RVars (split or not), at
odd sizes (splits that do not divide: Halide's guard), with the intermediate Func scheduled parallel, vectorized
and computed at the root or at its consumer, and the errors Halide raises (non-associative updates, RVars not in
the domain)."""
import numpy as np
import pytest

from oracle import raises_both, run_both

IMG = np.random.default_rng(18).integers(0, 256, (23, 37)).astype(np.uint8)
VEC = np.random.default_rng(19).integers(-1000, 1000, (1003,)).astype(np.int32)
VEC_F = np.random.default_rng(20).uniform(-1, 1, (1003,)).astype(np.float32)


@pytest.mark.parametrize("n, split", [(1003, 16), (64, 8), (7, 4)])
def test_parallel_sum(n, split):          # Halide's parallel sum: rfactor the outer part of a split RVar
    def build(hl):
        inp = hl.Buffer(VEC[:n], "vec")
        x, u = hl.Var("x"), hl.Var("u")
        s = hl.Func("s")
        s[x] = 0
        r = hl.RDom([(0, n)])
        s[x] += inp[r.x] * (x + 1)
        rxo, rxi = hl.RVar("rxo"), hl.RVar("rxi")
        s.update().split(r.x, rxo, rxi, split)
        intm = s.update().rfactor(rxo, u)
        intm.compute_root().update().parallel(u)
        return s
    run_both(build, [3])


def test_float_sum_vectorized_intermediate():   # the inner part factored out: the lanes are the new Var
    def build(hl):
        inp = hl.Buffer(VEC_F, "vecf")
        x, u = hl.Var("x"), hl.Var("u")
        s = hl.Func("sf")
        s[x] = 0.0
        r = hl.RDom([(0, VEC_F.shape[0])])
        s[x] += inp[r.x]
        rxo, rxi = hl.RVar("rxo"), hl.RVar("rxi")
        s.update().split(r.x, rxo, rxi, 8)
        intm = s.update().rfactor(rxi, u)
        intm.compute_root().vectorize(u, 8).update().vectorize(u, 8)
        return s
    run_both(build, [1])


@pytest.mark.parametrize("shape", [(23, 37), (8, 8)])
def test_histogram_rows_parallel(shape):   # lesson 18: rfactor(r.y, y), intermediate rows in parallel
    h_, w_ = shape

    def build(hl):
        inp = hl.Buffer(np.ascontiguousarray(IMG[:h_, :w_]), "input")
        x, y = hl.Var("x"), hl.Var("y")
        hist = hl.Func("hist")
        hist[x] = 0
        r = hl.RDom([(0, w_), (0, h_)])
        hist[inp[r.x, r.y] // 32] += 1
        intm = hist.update().rfactor([(r.y, y)])
        intm.compute_root().update().parallel(y)
        intm.vectorize(x, 8)
        hist.vectorize(x, 8)
        return hist
    run_both(build, [8])


@pytest.mark.parametrize("shape", [(23, 37), (8, 8)])
def test_histogram_tiles(shape):            # lesson 18's tiled form: two split RVars factored, reordered
    h_, w_ = shape

    def build(hl):
        inp = hl.Buffer(np.ascontiguousarray(IMG[:h_, :w_]), "input")
        x, u, v = hl.Var("x"), hl.Var("u"), hl.Var("v")
        hist = hl.Func("hist_tile")
        hist[x] = 0
        r = hl.RDom([(0, w_), (0, h_)])
        hist[inp[r.x, r.y] // 16] += 1
        rxo, rxi, ryo, ryi = (hl.RVar(n) for n in ("rx_outer", "rx_inner", "ry_outer", "ry_inner"))
        hist.update().split(r.x, rxo, rxi, 4).split(r.y, ryo, ryi, 4)
        intm = hist.update().rfactor([(rxo, u), (ryo, v)])
        intm.compute_root().update().parallel(u).parallel(v)
        intm.update().reorder(rxi, ryi, u, v)
        return hist
    run_both(build, [16])


def test_max_rows_at_consumer():             # an associative max, the intermediate computed at its consumer
    def build(hl):
        inp = hl.Buffer(IMG, "input")
        y, u = hl.Var("y"), hl.Var("u")
        m = hl.Func("mx")
        m[y] = hl.u8(0)
        r = hl.RDom([(0, IMG.shape[1])])
        m[y] = hl.max(m[y], inp[r.x, y])
        rxo, rxi = hl.RVar("rxo"), hl.RVar("rxi")
        m.update().split(r.x, rxo, rxi, 5)
        intm = m.update().rfactor(rxo, u)
        intm.compute_at(m, y)
        m.parallel(y)
        return m
    run_both(build, [IMG.shape[0]])


def test_intermediate_name():
    import halide_mlir as hl
    x, u = hl.Var("x"), hl.Var("u")
    f = hl.Func("f")
    f[x] = 0
    r = hl.RDom([(0, 10)])
    f[x] += r.x
    intm = f.update().rfactor(r.x, u)
    assert intm.name() == "f_intm" and [a.name() for a in intm.args()] == ["x", "u"]
    assert list(np.asarray(f.realize([2]))) == [45, 45]


def test_refuses_non_associative():
    def program(hl):
        x, u = hl.Var("x"), hl.Var("u")
        f = hl.Func("fna")
        f[x] = 0
        r = hl.RDom([(0, 10)])
        f[x] = f[x] * 2 + r.x
        f.update().rfactor(r.x, u)
    ref, msg = raises_both(program)
    assert "can't perform rfactor() because we can't prove associativity of the operator" in ref
    assert "can't perform rfactor() because we can't prove associativity of the operator" in msg
    assert "test_rfactor.py" in msg


def test_refuses_subtraction():               # Halide does not prove x - y associative either
    def program(hl):
        x, u = hl.Var("x"), hl.Var("u")
        f = hl.Func("fsub")
        f[x] = 0
        r = hl.RDom([(0, 10)])
        f[x] -= r.x
        f.update().rfactor(r.x, u)
    assert "associativity" in raises_both(program)[1]


def test_refuses_rvar_not_in_domain():
    def program(hl):
        x, u = hl.Var("x"), hl.Var("u")
        f = hl.Func("fnd")
        f[x] = 0
        r = hl.RDom([(0, 10)])
        f[x] += r.x
        f.update().rfactor(hl.RVar("zz"), u)
    ref, msg = raises_both(program)
    assert "can't perform rfactor() on zz since either it is not in the reduction domain" in ref
    assert "can't perform rfactor() on zz since either it is not in the reduction domain" in msg
