"""Unrolling the loops of a producer computed at a consumer's loop, against numpy and real Halide.

The unroll factor of such a loop is its trip count in one computation of the producer (the tile bounds
inference gives at that loop, analysis/bounds.py computed_region), not in the producer's whole region: with
the latter, transform.loop.unroll got a factor above the trip count and silently left the loop rolled. An
unroll that still does not happen is an UnrollWarning (runtime/jit.py check_unroll_factors), which the test
configuration turns into an error.
"""
import re
import warnings

import numpy as np
import pytest

import halide_mlir
from helpers import matmul
from oracle import run_both

A = np.random.default_rng(3).uniform(-1, 1, (80, 80)).astype(np.float32)
B = np.random.default_rng(4).uniform(-1, 1, (80, 80)).astype(np.float32)
IMG_U8 = np.random.default_rng(5).integers(0, 255, (29, 37), endpoint=True).astype(np.uint8)


def fresh_names():
    from halide_mlir.lang import func
    func._name_counts.clear()


def matmul_n(hl, n):
    """Halide's matrix_multiplication schedule (helpers.matmul): prod is computed per 4-row strip of a 32x32
    tile, so its y loop runs 4 times there, its update's x loop 2 vectors of 16."""
    return matmul(hl, A[:n, :n], B[:n, :n])


def unroll_factors(script: str) -> dict:
    """'Func ...: unrolled loop ...' -> the factor @halide_unroll unrolls it by."""
    ids = dict(re.findall(r'transform\.param\.constant (\d+) : i64.*\n.*"hl\.unroll".*\n'
                          r'.*transform\.param\.constant "[^"]*(Func [^"]*)"', script))
    factors = dict(re.findall(r"hl\.unroll = (\d+) : i64\} in .*\n.*\{factor = (\d+)\}", script))
    return {what: int(factors[k]) for k, what in ids.items()}


@pytest.mark.parametrize("n", [64, 80])  # 80: edge tiles of 16 rows and columns
def test_matmul_schedule_unrolls_the_fused_producer(n):
    ref, ours = run_both(lambda hl: matmul_n(hl, n), [n, n], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ours, A[:n, :n] @ B[:n, :n], rtol=1e-4, atol=1e-4)
    fresh_names()   # (a second build names its Funcs as the first did: p, not p$1)
    factors = unroll_factors(matmul_n(halide_mlir, n).transform_script([n, n]))
    assert factors["Func 'prod': unrolled loop 'y'"] == 4
    assert factors["Func 'prod.update(0)': unrolled loop 'y'"] == 4
    assert factors["Func 'prod.update(0)': unrolled loop 'x'"] == 2


def test_unroll_of_a_producer_computed_inside_a_fused_consumer():
    """Two levels of compute_at: p is computed per column of c (x is c's outer loop), c per 8-row strip of
    out, which needs 10 rows of c (out reads c at y and y + 2): p's y loop has 10 iterations there (p's whole
    region: 27)."""
    def build(hl):
        x, y, yo, yi = (hl.Var(v) for v in "x y yo yi".split())
        inp = hl.Buffer(IMG_U8, "in0")
        p, c, out = hl.Func("p"), hl.Func("c"), hl.Func("out")
        p[x, y] = hl.i32(inp[x, y]) * 3
        c[x, y] = p[x, y + 1] * 2 + 1
        out[x, y] = c[x, y] - c[x, y + 2]
        out.split(y, yo, yi, 8)
        c.compute_at(out, yo).reorder(y, x)
        p.compute_at(c, x).unroll(y)
        return out

    run_both(build, [37, 24])
    fresh_names()   # (a second build names its Funcs as the first did: p, not p$1)
    factors = unroll_factors(build(halide_mlir).transform_script([37, 24]))
    assert factors["Func 'p': unrolled loop 'y'"] == 10


def test_an_unroll_that_does_not_happen_warns():
    """p is read at two taps by q, whose fused copies take one copy of p each (one copy per use:
    docs/mlir-pitfalls.md#fuse-once-per-use), of 4 rows, where Halide computes one tile of 5: unroll(y) by 5 would
    leave each copy's loop as it is. Same values as Halide, and a warning naming the Func, the loop and the
    schedule line."""
    def build(hl):
        x, y, yo, yi = (hl.Var(v) for v in "x y yo yi".split())
        inp = hl.Buffer(IMG_U8, "in0")
        p, q, c, out = hl.Func("p"), hl.Func("q"), hl.Func("c"), hl.Func("out")
        p[x, y] = hl.i32(inp[hl.clamp(x, 0, 36), hl.clamp(y, 0, 28)]) * 3
        q[x, y] = p[x, y] + p[x + 1, y + 1]
        c[x, y] = q[x, y] * 2 + 1
        out[x, y] = c[x, y] - c[x, y + 1]
        out.split(y, yo, yi, 8)
        c.compute_at(out, yo).split(y, yo, yi, 4)
        p.compute_at(c, yo).unroll(y)
        q.compute_at(c, yi)
        return out

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", halide_mlir.UnrollWarning)
        run_both(build, [35, 26])
    messages = [str(w.message) for w in caught if issubclass(w.category, halide_mlir.UnrollWarning)]
    assert len(messages) == 1, messages
    assert re.search(r"test_unroll\.py:\d+: Func 'p': unrolled loop 'y' is not fully unrolled: it "
                     r"runs 4 iterations in the compiled code, but is unrolled by 5", messages[0]), messages[0]


def test_unroll_by_more_than_the_loop_runs():
    """split(y, yo, yi, 16).unroll(yo, 5) over 23 rows: the unrolled loop runs 2 times (Halide guards the
    other 3 copies away), so it is unrolled by 2, not by 5 (which would leave it rolled)."""
    def build(hl):
        x, y, yo, yi = (hl.Var(v) for v in "x y yo yi".split())
        inp = hl.Buffer(IMG_U8, "in0")
        f = hl.Func("f")
        f[x, y] = hl.i32(inp[x, y]) * 5 - 3
        f.split(y, yo, yi, 16).unroll(yo, 5)
        return f

    run_both(build, [37, 23])
    fresh_names()   # (a second build names its Funcs as the first did: p, not p$1)
    factors = unroll_factors(build(halide_mlir).transform_script([37, 23]))
    assert list(factors.values()) == [2], factors
