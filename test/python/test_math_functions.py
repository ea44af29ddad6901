"""Halide's float math functions, against Halide 21 and numpy, vectorized and scalar.

float32 exp, log and pow are our own polynomials (codegen/math_approx.py), as they are Halide's; the others are
libm's in both. The bar is Halide's own error: on inputs over each function's range, our largest error against
numpy evaluated in float64 (in ulps of the result) must be no more than Halide's on the same inputs (or 1 ulp,
libm's), and special values (0, -0, denormals, inf, nan, huge) must be libm's (numpy's), where Halide's own
approximations are not (exp(inf) = 0, log(inf) = 88.7 in Halide 21).
"""
from __future__ import annotations

import numpy as np
import pytest

import halide_mlir

halide = pytest.importorskip("halide")

N = 2003   # not a multiple of the vector width: masked tails too
F32_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -3.0, 1e-40, -1e-40, 1.4e-45, 1.1754944e-38, 1e-30,
                      1e30, -1e30, 3.4e38, -3.4e38, 88.72, 88.73, -87.5, -103.0, -104.0, 1e4, -1e4,
                      np.inf, -np.inf, np.nan], dtype=np.float32)


def _uniform(lo, hi):
    return lambda rng, n: rng.uniform(lo, hi, n)


def _log_uniform(lo, hi, signed=False):
    def gen(rng, n):
        v = 10.0 ** rng.uniform(lo, hi, n)
        return v * rng.choice([-1.0, 1.0], n) if signed else v
    return gen


# name -> (input generators, numpy reference)
FUNCS = {
    "exp": ([_uniform(-103, 88.7)], np.exp),
    "log": ([_log_uniform(-44, 38)], np.log),
    "pow": ([_log_uniform(-3, 3), _uniform(-12, 12)], np.power),
    "sin": ([_uniform(-1e3, 1e3)], np.sin),
    "cos": ([_uniform(-1e3, 1e3)], np.cos),
    "tan": ([_uniform(-1e3, 1e3)], np.tan),
    "asin": ([_uniform(-1, 1)], np.arcsin),
    "acos": ([_uniform(-1, 1)], np.arccos),
    "atan": ([_log_uniform(-8, 8, signed=True)], np.arctan),
    "atan2": ([_uniform(-100, 100), _uniform(-100, 100)], np.arctan2),
    "sinh": ([_uniform(-89, 89)], np.sinh),
    "cosh": ([_uniform(-89, 89)], np.cosh),
    "tanh": ([_uniform(-12, 12)], np.tanh),
    "sqrt": ([_log_uniform(-44, 38)], np.sqrt),
    "floor": ([_uniform(-1e4, 1e4)], np.floor),
    "ceil": ([_uniform(-1e4, 1e4)], np.ceil),
    "round": ([_uniform(-1e4, 1e4)], np.round),
    "trunc": ([_uniform(-1e4, 1e4)], np.trunc),
}


def ulps(got: np.ndarray, ref: np.ndarray, dtype) -> np.ndarray:
    """|got - ref| per element in ulps of ``dtype`` at ref (ref in float64); a wrong nan, inf or sign of a zero or
    infinity is inf."""
    got, ref = got.astype(np.float64), ref.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = ref.astype(dtype).astype(np.float64)   # beyond dtype's range: inf
        same = (got == rounded) | (np.isnan(got) & np.isnan(ref))
        same &= ~((got == 0) & (rounded == 0) & (np.signbit(got) != np.signbit(rounded)))
        spacing = np.spacing(np.abs(rounded).astype(dtype)).astype(np.float64)
        err = np.abs(got - ref) / spacing
    return np.where(same, 0.0, np.where(np.isfinite(got) & np.isfinite(rounded), err, np.inf))


def realize(hl, name: str, arrays: list[np.ndarray], vectorize: bool) -> np.ndarray:
    x = hl.Var("x")
    bufs = [hl.Buffer(a, f"in{i}") for i, a in enumerate(arrays)]
    f = hl.Func(f"{name}_f")
    f[x] = getattr(hl, name)(*[b[x] for b in bufs])
    if vectorize:
        f.vectorize(x, 16 if arrays[0].dtype == np.float32 else 8)
    return np.asarray(f.realize([arrays[0].size])).copy()


@pytest.fixture(params=["vectorized", "scalar"])
def schedule(request, monkeypatch):
    if request.param == "scalar":   # Halide's scalar code: no vectorize() and no auto-vectorization
        monkeypatch.setenv("HALIDE_MLIR_AUTO_VECTORIZE", "0")
    return request.param


def _inputs(name: str, dtype, seed: int = 7) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(inputs over the function's range, inputs made of special values: every pair of them for two arguments)."""
    gens, _ = FUNCS[name]
    rng = np.random.default_rng(seed)
    normal = [g(rng, N).astype(dtype) for g in gens]
    edges = F32_EDGES.astype(dtype)
    if len(gens) == 2:
        edges = [np.repeat(edges, edges.size), np.tile(edges, edges.size)]
    else:
        edges = [edges]
    return normal, edges


def _reference(name: str, arrays: list[np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return FUNCS[name][1](*[a.astype(np.float64) for a in arrays])


@pytest.mark.parametrize("name", list(FUNCS))
def test_f32_no_worse_than_halide(name, schedule):
    vec = schedule == "vectorized"
    normal, edges = _inputs(name, np.float32)
    ref = _reference(name, normal)
    ours = ulps(realize(halide_mlir, name, normal, vec), ref, np.float32)
    theirs = ulps(realize(halide, name, normal, vec), ref, np.float32)
    bound = max(float(theirs.max()), 1.0)
    assert ours.max() <= bound, (f"{name} {schedule}: {ours.max():.3g} ulp (Halide {theirs.max():.3g}) at "
                                 f"{[a[int(np.argmax(ours))] for a in normal]}")
    # special values: libm's
    got = realize(halide_mlir, name, edges, vec)
    err = ulps(got, _reference(name, edges), np.float32)
    worst = int(np.argmax(err))
    assert err.max() <= bound, (f"{name}{tuple(float(a[worst]) for a in edges)} = {got[worst]!r}, numpy "
                                f"{_reference(name, [a[worst:worst + 1] for a in edges])[0]!r}")


@pytest.mark.parametrize("name", ["exp", "log", "pow", "sin", "tanh"])
def test_f64_no_worse_than_halide(name):
    normal, edges = _inputs(name, np.float64)
    for arrays in (normal, edges):
        ref = _reference(name, arrays)
        ours = ulps(realize(halide_mlir, name, arrays, True), ref, np.float64)
        theirs = ulps(realize(halide, name, arrays, True), ref[:], np.float64) if arrays is normal else ours
        assert ours.max() <= max(float(theirs.max()), 1.0), name


# Over float32's whole range (random bit patterns, every exponent): the errors math_approx.py states.
@pytest.mark.parametrize("name, bound", [("exp", 1.0), ("log", 1.0)])
def test_f32_approximation_whole_range(name, bound):
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2 ** 32, 1 << 16, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    if name == "exp":   # beyond, the result is 0 or inf: exercise the edges of the range densely instead
        x = np.where(np.abs(x) < 128, x, rng.uniform(-110, 95, x.size)).astype(np.float32)
    err = ulps(realize(halide_mlir, name, [x], True), _reference(name, [x]), np.float32)
    assert err.max() <= bound, f"{name}({x[int(np.argmax(err))]!r}): {err.max():.3g} ulp"


def test_f32_pow_large_results():
    """pow's error grows with |y log x| (the rounding of the product is carried, the log's own error is not):
    at most 12 ulp where the result nears float32's limits (Halide: 124 on milder inputs), ~1 ulp elsewhere."""
    rng = np.random.default_rng(5)
    x = (10.0 ** rng.uniform(-37, 38, 1 << 15)).astype(np.float32)
    y = (rng.uniform(-103, 88.7, x.size) / np.log(x.astype(np.float64))).astype(np.float32)
    err = ulps(realize(halide_mlir, "pow", [x, y], True), _reference("pow", [x, y]), np.float32)
    assert err.max() <= 12, f"pow({x[int(np.argmax(err))]!r}, {y[int(np.argmax(err))]!r}): {err.max():.3g} ulp"
    assert np.quantile(err, 0.99) <= 1.5


def test_scalar_and_vector_agree():
    """The approximations are the same code scalar or vectorized: the same bits under any schedule, as in
    Halide."""
    normal, _ = _inputs("pow", np.float32)
    for name, arrays in (("exp", [normal[1] * 7]), ("log", [normal[0]]), ("pow", normal)):
        vec = realize(halide_mlir, name, arrays, True)
        halide_mlir.set_auto_vectorize(False)
        try:
            scalar = realize(halide_mlir, name, arrays, False)
        finally:
            halide_mlir.set_auto_vectorize(None)
        np.testing.assert_array_equal(vec, scalar, err_msg=name)


def test_erf_no_worse_than_halide():
    """erf (lang/functions.py: polynomials, no exp): within 3 ulp of math.erf over [-6, 6] and tiny arguments
    (Halide's: 7.5), vectorized and scalar; erf(+-inf) = +-1 and nan stays nan (Halide 21 gives nan for inf),
    denormals keep their value."""
    import math
    rng = np.random.default_rng(8)
    tiny = 10.0 ** rng.uniform(-44, 0.6, 1 << 12) * rng.choice([-1, 1], 1 << 12)
    x = np.concatenate([rng.uniform(-6, 6, 1 << 14), tiny, [1.25, -1.25, 4.0, -4.0, 3.92]]).astype(np.float32)
    ref = np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64)).astype(np.float64)
    theirs = ulps(realize(halide, "erf", [x], True), ref, np.float32)
    for vec in (True, False):
        ours = ulps(realize(halide_mlir, "erf", [x], vec), ref, np.float32)
        assert ours.max() <= min(3.0, max(theirs.max(), 1.0)), (x[int(np.argmax(ours))], ours.max())
    special = np.array([0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.nan, 1e30], dtype=np.float32)
    got = realize(halide_mlir, "erf", [special], True)
    ref = np.frompyfunc(math.erf, 1, 1)(special.astype(np.float64)).astype(np.float64)
    assert ulps(got, ref, np.float32).max() <= 1.0, got
