"""``specialize(cond)`` / ``specialize_fail(msg)`` against real Halide 21: conditions on Params and image sizes,
each version with its own schedule (vectorize, tile, parallel, unroll, compute_at inside), nested
specializations, specializations of updates, the version chosen per realize, and Halide's errors."""
import numpy as np
import pytest

import halide_mlir
from oracle import raises_both, run_both

IMG = np.random.default_rng(16).uniform(-1, 1, (40, 67)).astype(np.float32)
_CROPS: dict = {}   # real Halide does not keep a temporary array alive: the crops live here


def _crop(w, h):
    return _CROPS.setdefault((w, h), np.ascontiguousarray(IMG[:h, :w]))


def _blur(hl, w_value, h_value, cond_kind):
    """A box blur of an ImageParam; ``by`` specialized on the output width being a multiple of 16 (given as a
    Param) or on the input's width, with its own tile/vectorize/parallel; bx computed per tile of by."""
    x, y, xo, yo, xi, yi = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))
    inp = hl.ImageParam(hl.Float(32), 2, "inp")
    inp.set(hl.Buffer(_crop(w_value + 2, h_value + 2)))
    w = hl.Param(hl.Int(32), "w", w_value)
    bx, by = hl.Func("bx"), hl.Func("by")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    cond = w % 16 == 0 if cond_kind == "param" else (inp.width() - 2) % 16 == 0
    by.tile(x, y, xo, yo, xi, yi, 8, 4)
    by.specialize(cond).vectorize(xi, 8).parallel(yo)
    by.specialize(w > 1000).unroll(yi)          # never true here: the first true condition wins
    bx.compute_at(by, xo)
    return by


@pytest.mark.parametrize("cond_kind", ["param", "image_width"])
@pytest.mark.parametrize("size", [(32, 20), (37, 23), (64, 8)])
def test_blur_specialized_on_width(size, cond_kind):
    run_both(lambda hl: _blur(hl, size[0], size[1], cond_kind), list(size))


def test_the_chosen_version_is_the_one_compiled():
    hl = halide_mlir
    f = _blur(hl, 32, 8, "param")
    assert "vector_sizes [1, 8]" in f.transform_script([32, 8])
    # parallel(yo) of the specialization: the payload's yo loop is an scf.forall
    assert 'ops{["scf.forall"]} attributes {hl.loop = "by.s0.yo"}' in f.transform_script([32, 8])
    hl.set_auto_vectorize(False)
    try:
        g = _blur(hl, 37, 8, "param")
        script = g.transform_script([37, 8])
    finally:
        hl.set_auto_vectorize(None)  # (the environment decides again: not True, which overrides it)
    assert "vector_sizes" not in script                    # (g is by$1: Func names are unique, as in Halide)
    assert f'ops{{["scf.for"]}} attributes {{hl.loop = "{g.name()}.s0.yo"}}' in script


def test_param_changes_between_realizes():
    """The same Funcs realized with w = 48 (specialized) and w = 33 (not): each gives Halide's values."""
    x, y = halide_mlir.Var("x"), halide_mlir.Var("y")

    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        w = hl.Param(hl.Int(32), "w", 48)
        f = hl.Func("f")
        f[x, y] = hl.cast(hl.Float(32), x * w + y) * 0.5
        f.specialize(w % 16 == 0).vectorize(x, 16)
        f.specialize(w > 40).parallel(y)
        return f, w
    del x, y
    results = {}
    for mod in (halide_mlir, __import__("halide")):
        f, w = build(mod)
        outs = []
        for value in (48, 33, 41, 64):
            w.set(value)
            outs.append(np.asarray(f.realize([50, 7])).copy())
        results[mod.__name__] = outs
    for a, b in zip(results["halide"], results["halide_mlir"]):
        np.testing.assert_allclose(b, a, rtol=1e-6)


@pytest.mark.parametrize("p_value,q_value", [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_nested_specializations(p_value, q_value):
    def build(hl):
        x, y, xi = hl.Var("x"), hl.Var("y"), hl.Var("xi")
        p = hl.Param(hl.Bool(), "p", bool(p_value))
        q = hl.Param(hl.Int(32), "q", q_value)
        f = hl.Func("f")
        f[x, y] = x * 3 - y * q
        f.split(x, x, xi, 4)
        sp = f.specialize(p)
        sp.vectorize(xi)
        sp.specialize(q > 0).parallel(y).unroll(x, 2)
        f.specialize(q > 0).reorder(y, x)
        return f
    run_both(build, [29, 11])


@pytest.mark.parametrize("k", [8, 5])
def test_specialized_update(k):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        n = hl.Param(hl.Int(32), "n", k)
        r = hl.RDom([(0, 3)])
        f = hl.Func("f")
        f[x, y] = x + y
        f[x, y] += f[x, y] * r.x + n
        f.update(0).specialize(n % 8 == 0).vectorize(x, 8).parallel(y)
        f.specialize(n > 6).vectorize(x, 4)
        return f
    run_both(build, [21, 9])


def test_specialize_returns_the_same_stage_for_the_same_condition():
    hl = halide_mlir
    x = hl.Var("x")
    p = hl.Param(hl.Int(32), "p", 3)
    f = hl.Func("f")
    f[x] = x * p
    f.specialize(p > 2).vectorize(x, 8)
    f.specialize(p > 2).parallel(x)      # the same specialization, one more directive
    assert len(f.schedule().specializations) == 1
    assert [d.kind.value for d in f.schedule().specializations[0].schedule.directives] == \
        ["split", "vectorize", "parallel"]
    assert list(np.asarray(f.realize([5]))) == [0, 3, 6, 9, 12]


def test_specialize_fail_is_raised_when_reached():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        p = hl.Param(hl.Int(32), "p", 3)
        f = hl.Func("f")
        f[x, y] = x + y * p
        f.specialize(p > 2).vectorize(x, 8)
        f.specialize_fail("p is too small")
        assert np.asarray(f.realize([10, 3]))[1, 3] == 6
        p.set(1)
        f.realize([10, 3])
    ref, ours = raises_both(program)
    assert "specialize_fail() was chosen: p is too small" in ref and \
        "specialize_fail() was chosen: p is too small" in ours


@pytest.mark.parametrize("case", ["var", "not_bool", "after_fail", "empty_fail", "two_fails"])
def test_bad_specializations_are_refused(case):
    def program(hl):
        x = hl.Var("x")
        p = hl.Param(hl.Int(32), "p", 3)
        f = hl.Func("f")
        f[x] = x
        if case == "var":
            f.specialize(x > 5)
        elif case == "not_bool":
            f.specialize(p + 1)
        elif case == "after_fail":
            f.specialize_fail("no")
            f.specialize(p > 1)
        elif case == "empty_fail":
            f.specialize_fail("")
        else:
            f.specialize_fail("a")
            f.specialize_fail("b")
    ref, ours = raises_both(program)
    first = ref.replace("Error: ", "").split(".")[0].split(" for ")[0].strip()
    assert first in ours
