"""Halide's fast_* math (lang/fast_math.py), against Halide 21 and numpy evaluated in float64.

The bar is Halide's own accuracy: on inputs over each function's range our largest error (ulps of the result, and
absolute) is no more than Halide's fast_* on the same inputs, vectorized (masked tails: N is odd) and scalar. Special
values (0, -0, denormals, inf, nan) give libm's (numpy's) results: Halide's estimates differ there (fast_exp(inf) is
nan, fast_inverse flushes denormal inputs to 0, so 1/1e-40 is inf), which test_specials_vs_halide spells out.
"""
from __future__ import annotations

import numpy as np
import pytest

import halide_mlir
from test_math_functions import _log_uniform, _uniform, ulps

halide = pytest.importorskip("halide")

N = 2003
SPECIALS = np.array([0.0, -0.0, 1e-40, -1e-40, 1.4e-45, 1.1754944e-38, 1e-30, 1.0, -1.0, 3e4, -3e4, 1e30, -1e30,
                     np.inf, -np.inf, np.nan], dtype=np.float32)

# name -> (input generators, numpy reference, bound on our max ulp over the range)
FAST = {
    "fast_sin": ([_uniform(-100, 100)], np.sin, None),
    "fast_cos": ([_uniform(-100, 100)], np.cos, None),
    "fast_exp": ([_uniform(-87, 88)], np.exp, 1.0),
    "fast_log": ([_log_uniform(-37, 38)], np.log, 1.0),
    "fast_pow": ([_log_uniform(-3, 3), _uniform(-10, 10)], np.power, 128.0),   # y log x rounded: Halide 159
    "fast_inverse": ([_log_uniform(-37, 37, signed=True)], lambda v: 1 / v, 0.5),
    "fast_inverse_sqrt": ([_log_uniform(-37, 38)], lambda v: 1 / np.sqrt(v), 1.5),
}


def realize(hl, name, arrays, vectorize):
    x = hl.Var("x")
    bufs = [hl.Buffer(a, f"in{i}") for i, a in enumerate(arrays)]
    f = hl.Func(f"{name}_f")
    f[x] = getattr(hl, name)(*[b[x] for b in bufs])
    if vectorize:
        f.vectorize(x, 16)
    return np.asarray(f.realize([arrays[0].size])).copy()


def _reference(name, arrays):
    with np.errstate(all="ignore"):
        return FAST[name][1](*[a.astype(np.float64) for a in arrays])


@pytest.mark.parametrize("vectorize", [True, False])
@pytest.mark.parametrize("name", list(FAST))
def test_no_worse_than_halide(name, vectorize, monkeypatch):
    if not vectorize:
        monkeypatch.setenv("HALIDE_MLIR_AUTO_VECTORIZE", "0")
    gens, _, bound = FAST[name]
    rng = np.random.default_rng(11)
    arrays = [g(rng, N).astype(np.float32) for g in gens]
    ref = _reference(name, arrays)
    ours, theirs = realize(halide_mlir, name, arrays, vectorize), realize(halide, name, arrays, vectorize)
    u_ours, u_theirs = ulps(ours, ref, np.float32), ulps(theirs, ref, np.float32)
    assert u_ours.max() <= max(float(u_theirs.max()), 1.0), (name, u_ours.max(), u_theirs.max())
    if bound is not None:
        assert u_ours.max() <= bound, (name, u_ours.max())
    with np.errstate(invalid="ignore"):
        assert np.nanmax(np.abs(ours - ref) / np.maximum(np.abs(ref), 1.0)) <= \
            max(np.nanmax(np.abs(theirs - ref) / np.maximum(np.abs(ref), 1.0)), 1e-7)


@pytest.mark.parametrize("name", ["fast_sin", "fast_cos"])
def test_sin_cos_wide_range(name):
    """Within 2 ulp (absolute 1e-7 near the zeros) where the reduction by pi/2 in three parts is exact."""
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.uniform(-1e4, 1e4, 1 << 14), 10.0 ** rng.uniform(-30, 4, 1 << 12)]).astype(np.float32)
    got = realize(halide_mlir, name, [x], True)
    ref = _reference(name, [x])
    assert np.abs(got - ref).max() <= 1.2e-7
    err = ulps(got, ref, np.float32)
    assert err[np.abs(ref) > 1e-3].max() <= 2.0


@pytest.mark.parametrize("name", [n for n in FAST if n != "fast_pow"])
def test_specials_are_libms(name):
    got = realize(halide_mlir, name, [SPECIALS], True)
    ref = _reference(name, [SPECIALS])
    err = ulps(got, ref, np.float32)
    if name in ("fast_sin", "fast_cos"):   # beyond 1e4 the reduction is inexact: in [-1, 1] is all it promises
        huge = np.abs(SPECIALS) > 1e4
        assert np.all(np.abs(got[huge & np.isfinite(SPECIALS)]) <= 1)
        err[huge & np.isfinite(SPECIALS)] = 0
    assert err.max() <= 1.0, [(float(a), float(g), float(r)) for a, g, r, e in zip(SPECIALS, got, ref, err) if e > 1]


def test_specials_vs_halide():
    """Where Halide 21's estimates are not libm's (documented, not followed)."""
    a = np.array([1e-40, np.inf] * 8, dtype=np.float32)   # (a whole vector: Halide shifts a short one inwards)
    assert realize(halide, "fast_inverse", [a], True)[0] == np.inf             # Halide flushes the denormal
    assert realize(halide_mlir, "fast_inverse", [a], True)[0] == np.float32(np.inf)  # 1e40 overflows float32 too
    assert realize(halide_mlir, "fast_inverse_sqrt", [a], True)[0] == np.float32(1 / np.sqrt(np.float64(a[0])))
    assert np.isnan(realize(halide, "fast_exp", [a], True)[1])
    assert realize(halide_mlir, "fast_exp", [a], True)[1] == np.inf


def test_pow_rules():
    """fast_pow: 0 where x is 0 (any y, as Halide), an integer constant exponent is repeated multiplication (x < 0
    is nonsense in both otherwise)."""
    x = np.array([0.0, -0.0, 2.0, 0.25, 0.5, 3.0, 1.5, 7.0] * 2, dtype=np.float32)
    y = np.array([-1.0, 2.0, 0.5, 2.0, -3.0, 0.0, 1.5, -2.5] * 2, dtype=np.float32)
    ours, theirs = realize(halide_mlir, "fast_pow", [x, y], True), realize(halide, "fast_pow", [x, y], True)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours[~np.isnan(ours)], theirs[~np.isnan(theirs)], rtol=1e-5)

    def cube(hl):
        v = hl.Var("v")
        b = hl.Buffer(x, "x")
        f = hl.Func("cube")
        f[v] = hl.fast_pow(b[v], 3) + hl.fast_pow(-b[v], 3)
        return np.asarray(f.realize([x.size])).copy()
    np.testing.assert_array_equal(cube(halide_mlir), cube(halide))


@pytest.mark.parametrize("name", ["fast_exp", "fast_log", "fast_inverse", "fast_inverse_sqrt"])
def test_float32_only(name):
    x = halide_mlir.Var("x")
    with pytest.raises(halide_mlir.HalideError, match=name):
        getattr(halide_mlir, name)(halide_mlir.f64(x))
    with pytest.raises(halide_mlir.HalideError, match=name):
        getattr(halide_mlir, name)(x)


def test_pow_edges():
    """fast_pow's own code (2^(y log2 x) from bits): x^0 = 1, 0^y = 0, x < 0 and nan give nan, beyond float32's range
    inf, below 2^-126 0 (Halide's give 0 there too), inf^y by y's sign."""
    x = np.array([4.0, 0.0, -2.0, np.nan, 2.0, 2.0, 2.0, 0.5, np.inf, np.inf, 3.0, 1e30] * 2, dtype=np.float32)
    y = np.array([0.0, -2.0, 2.0, 1.0, np.nan, 200.0, -200.0, 300.0, 1.0, -1.0, 2.0, 1.5] * 2, dtype=np.float32)
    got = realize(halide_mlir, "fast_pow", [x, y], True)
    want = np.float32([1.0, 0.0, np.nan, np.nan, np.nan, np.inf, 0.0, 0.0, np.inf, 0.0, 9.0, np.inf] * 2)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=2e-6)
