"""Chains of inline Funcs that each read the previous one several times.

Inlining copies a Func's definition into every call site, so such a chain is a tree exponentially larger than
the program. The fuzzer's seed 3030 example 2400 (unscheduled: everything inlined) made a payload of 163k lines
whose transform script never ended (a "hang" at the fuzzer's 120 s limit), and auto-vectorization's lane count
walked every subtree again for each node. The body emitter now emits each distinct subtree once (Halide's CSE,
codegen/body.py BodyEmitter.structure), and the payload stays the size of the program.
"""
import textwrap

import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir import driver
from halide_mlir.tools import fuzz

halide = pytest.importorskip("halide")

W, H = 37, 23
DATA = np.random.default_rng(5).integers(0, 256, (H + 8, W + 8)).astype(np.uint8)


def chain(h, levels=6):
    """f_k[x, y] = f_{k-1}[x, y] * 3 + f_{k-1}[x, y] ^ f_{k-1}[x + 1, y] ... : 4 reads of the previous level."""
    x, y = h.Var("x"), h.Var("y")
    inp = h.Buffer(DATA, "inp")
    prev = h.Func("f0")
    prev[x, y] = h.cast(h.UInt(16), inp[x, y])
    for k in range(1, levels + 1):
        f = h.Func(f"f{k}")
        f[x, y] = (prev[x, y] * 3 + (prev[x, y] ^ prev[x + 1, y])) + (prev[x, y] >> 2)
        prev = f
    return prev


def test_inlined_chain_payload_is_small_and_right():
    ours = chain(hl)
    payload = driver.stages(ours, [W, H]).text("payload")
    # each level: one load per distinct read, a handful of ops; the tree would have 4**6 copies of f0's load
    assert payload.count("\n") < 400, payload.count("\n")
    np.testing.assert_array_equal(np.asarray(ours.realize([W, H])), np.asarray(chain(halide).realize([W, H])))


# python -m halide_mlir.tools.fuzz --seed 3030 --show 2400, reduced by hand: the unscheduled run inlines f0 (many
# reads of the repeat_edge input) into f1 (many reads of f0) into f2 into f3.
SEED_3030 = """
    import numpy as np

    W, H = 37, 23

    IN0 = np.random.default_rng(3).integers(0, 255, (H, W), endpoint=True).astype(np.uint8)

    GPU = True


    def build(hl, schedule=True):
        x, y = hl.Var("x"), hl.Var("y")
        in0 = hl.Buffer(IN0, "in0")
        b0 = hl.BoundaryConditions.repeat_edge(in0)
        f0 = hl.Func("f0")
        a, b, c = (hl.cast(hl.UInt(8), b0[2 * x - 2, (y + 2) / 2]), hl.cast(hl.UInt(8), b0[2 * x, (y + 1) / 2]),
                   hl.cast(hl.UInt(8), b0[2 * x, (y - 1) / 2]))
        m = hl.cast(hl.UInt(8), hl.f64(a) * 0.75 + hl.f64(c) * 0.25)
        s = hl.select((a - b) == m, a - b, m <= hl.min(b, c), m, hl.min(b, c))
        c2 = hl.cast(hl.UInt(8), hl.abs(c * 2))
        s = hl.select(s == c2, s, c2 < a, c2, a)
        f0[x, y] = hl.cast(hl.UInt(8), s + a + c)
        f1 = hl.Func("f1")
        p = hl.cast(hl.Int(16), f0[x, y - 2])
        ap = hl.cast(hl.Int(16), hl.abs(p))
        q = hl.min(ap, p + hl.cast(hl.Int(16), b0[x, y - 2]))
        r = hl.max(hl.mux((x + y) % 2, [p, p]), hl.rounding_halving_add(p, p))
        t = hl.mux((x + y) % 3, [hl.cast(hl.Int(16), b0[x, y - 2]), p]) - hl.lerp(p, p, hl.cast(hl.UInt(8), x * 37 + y))
        f1[x, y] = hl.cast(hl.Int(16), hl.select(q > ap % 7, q, ap % 7 < r, ap % 7, r <= t, r, t))
        f2 = hl.Func("f2")
        u, v = hl.cast(hl.UInt(8), f1[x - 2, y - 1]), hl.cast(hl.UInt(8), f1[x - 1, y - 2])
        w = hl.saturating_cast(hl.UInt(8), hl.widening_add(u * 3, hl.select(u <= v, u, v == u, v, u)))
        f2[x, y] = hl.cast(hl.UInt(8), hl.max(w, u) + hl.cast(hl.UInt(8), f1[x + 2, y]) + u + v)
        f3 = hl.Func("f3")
        f3[x, y] = hl.cast(hl.UInt(16), f2[x + 1, y - 2])
        if schedule:
            f0_bx, f0_tx, f0_by, f0_ty = hl.Var("f0_bx"), hl.Var("f0_tx"), hl.Var("f0_by"), hl.Var("f0_ty")
            f3.gpu_blocks(y).gpu_threads(x)
            f1.compute_root().gpu_tile(x, hl.Var("bx"), hl.Var("tx"), 32).gpu_blocks(y)
            f0.compute_root().split(x, f0_bx, f0_tx, 1).split(y, f0_by, f0_ty, 32)
            f0.reorder(f0_tx, f0_ty, f0_bx, f0_by).gpu(f0_bx, f0_by, f0_tx, f0_ty)
        return f3
    """


def test_fuzz_seed_3030_inlined_chain():
    source = textwrap.dedent(SEED_3030)
    outcome = fuzz.check(source)
    assert outcome.status == "pass", f"{outcome.status}: {outcome.detail}\n\n{fuzz.reproducer(source, outcome)}"
