"""Minimized examples found by the schedule fuzzer (halide_mlir/fuzz.py), kept as regular tests.

Each case is a standalone program in the fuzzer's format: ``build(hl, schedule=True)`` returns the output Func,
realized over W x H. ``fuzz.check`` runs it under halide_mlir (in the fuzzer's worker process, so a segfault is
a test failure, not a dead pytest) scheduled and unscheduled, and under real Halide with the same schedule, and
the test wants all three to agree. Cases for bugs that are not fixed yet are ``xfail(strict=True)``: remove the
mark when the fix lands.
"""
import textwrap

import pytest

from halide_mlir import fuzz

HEADER = f"import numpy as np\n\nW, H = {fuzz.W}, {fuzz.H}\n"


def check_case(body: str):
    source = HEADER + textwrap.dedent(body)
    outcome = fuzz.check(source)
    assert outcome.status == "pass", f"{outcome.status}: {outcome.detail}\n\n{fuzz.reproducer(source, outcome)}"


# Found at example 13 of `python -m halide_mlir.fuzz --examples 72 --seed 1 --shrink-internal`.
# Real Halide: abs of an i32 is a u32 (here 217 163 130 69 ...). Ours: "lowering to LLVM failed: failed to
# legalize operation 'math.absi' that was explicitly marked illegal" on vector<1x8xi32> (scalar code is fine).
@pytest.mark.xfail(strict=True, reason="vectorized hl.abs of an integer: math.absi on vector<1x8xi32> is not "
                                       "lowered to LLVM")
def test_vectorized_integer_abs():
    check_case("""
        IN0 = np.random.default_rng(0).integers(0, 255, (H, W), endpoint=True).astype(np.uint8)


        def build(hl, schedule=True):
            x, y = hl.Var("x"), hl.Var("y")
            in0 = hl.Buffer(IN0, "in0")
            f = hl.Func("f")
            f[x, y] = hl.abs(hl.cast(hl.Int(32), in0[x, y]))
            if schedule:
                f.vectorize(x, 8)
            return f
        """)
