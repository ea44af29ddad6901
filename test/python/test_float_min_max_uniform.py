"""Float min / max are Halide's select(a < b, a, b) / select(a > b, a, b) (CodeGen_LLVM; one minps / maxps on x86,
codegen/body.py; with NaNs Halide's results depend on how LLVM commutes the operands, so none here), and reads at
constant coordinates of a Func computed at the root are extracted once before their generic (codegen/payload.py
uniform_reads). Values against real Halide 21."""
import numpy as np
import pytest

import halide_mlir

halide = pytest.importorskip("halide")


def _both(build, sizes):
    ref = np.asarray(build(halide).realize(sizes))
    got = np.asarray(build(halide_mlir).realize(sizes))
    np.testing.assert_array_equal(got, ref)


def _values(n, seed):
    a = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    a[1::7] = 0.5  # ties with the constant
    return a


@pytest.mark.parametrize("vec", [1, 8])
@pytest.mark.parametrize("op", ["min", "max"])
def test_float_min_max_clamp(op, vec):
    a, b = _values(61, 1), _values(61, 2)
    b[::2] = a[::2]

    def build(hl):
        x = hl.Var("x")
        fa, fb = hl.Buffer(a, "a"), hl.Buffer(b, "b")
        f = hl.Func("f")
        pick = hl.min if op == "min" else hl.max
        f[x] = pick(pick(fa[x], fb[x]), pick(hl.clamp(fa[x], -0.25, 0.25), pick(fb[x], hl.f32(0.5)) - 1))
        if vec > 1:
            f.vectorize(x, vec)
        return f
    _both(build, [61])


def test_unrolled_taps_weighted_by_a_root_lut_in_parallel_rows():
    """A 9-tap row filter whose weights come from a Func computed at the root, the taps unrolled, the output's rows
    parallel and vectorized: each weight read is at a constant coordinate (a uniform value of the row's loop)."""
    data = np.random.default_rng(3).random((23, 80), dtype=np.float32)

    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(data, "inp")
        w, out = hl.Func("w"), hl.Func("out")
        w[x] = hl.f32(x * x % 5) * 0.25 - 0.5
        r = hl.RDom([hl.Range(-4, 9)])
        out[x, y] = hl.maximum(inp[x + 4 + r.x, y] * w[r.x + 4])
        w.compute_root()
        out.parallel(y).vectorize(x, 8)
        return out
    _both(build, [64, 23])
