"""An update reading its input at a negative coefficient of a loop dim (``inp[x - r.x]``).

Such a read was an indexing map ``d1 - d2`` of the update's generic, and linalg's tiling asserts on a negative
coefficient (Linalg/Utils "nonpositive multiplying coefficient"): any tiling of the op (a ``compute_at`` fusing
it, a vectorized or parallel loop) aborted the Python process. It is a ``tensor.extract`` now
(analysis/affine.py map_forms). ``fuzz.check`` runs each case in the fuzzer's worker process, so an abort is a
failure here, not a dead pytest; the values are compared with real Halide's.
"""
import textwrap

import pytest

from halide_mlir.tools import fuzz

HEADER = f"import numpy as np\n\nW, H = {fuzz.W}, {fuzz.H}\n"

PROGRAM = """
    IN0 = np.random.default_rng(0).random((H + 8, W + 16)).astype(np.float32)


    def build(hl, schedule=True):
        x, y = hl.Var("x"), hl.Var("y")
        xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
        in0 = hl.Buffer(IN0, "in0")
        r = hl.RDom([(0, 5)])
        g, out = hl.Func("g"), hl.Func("out")
        g[x, y] = hl.f32(0)
        g[x, y] += in0[x - r.x + 8, y] * hl.f32(1.5) + hl.f32(r.x)
        out[x, y] = g[x, y] * 2
        if schedule:
            SCHEDULE
        return out
    """

SCHEDULES = {
    "tile_compute_at_xo": "out.tile(x, y, xo, yo, xi, yi, 8, 8); g.compute_at(out, xo)",
    "tile_compute_at_xo_vectorized": (
        "out.tile(x, y, xo, yo, xi, yi, 8, 8); g.compute_at(out, xo); g.update().vectorize(x, 4)"
    ),
    "compute_at_y": "g.compute_at(out, y)",
    "root_parallel_vectorized": "g.compute_root(); g.update().parallel(y).vectorize(x, 8)",
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_update_reads_input_at_minus_rvar(name):
    source = HEADER + textwrap.dedent(PROGRAM).replace("SCHEDULE", SCHEDULES[name])
    outcome = fuzz.check(source)
    assert outcome.status == "pass", f"{outcome.status}: {outcome.detail}\n\n{fuzz.reproducer(source, outcome)}"


def test_update_reads_producer_at_minus_rvar():
    """A producer read at ``x - r.x`` is gathered, so it is not fused through a slice of its tile."""
    source = HEADER + textwrap.dedent("""
        IN0 = np.random.default_rng(1).integers(0, 255, (H + 8, W + 16), endpoint=True).astype(np.uint8)


        def build(hl, schedule=True):
            x, y = hl.Var("x"), hl.Var("y")
            in0 = hl.Buffer(IN0, "in0")
            r = hl.RDom([(0, 3)])
            p, g, out = hl.Func("p"), hl.Func("g"), hl.Func("out")
            p[x, y] = hl.cast(hl.Int(32), in0[x + 4, y]) * 3
            g[x, y] = 0
            g[x, y] += p[x - r.x, y] * (r.x + 1)
            out[x, y] = g[x, y] + 1
            if schedule:
                p.compute_at(g, y)
                g.compute_at(out, y)
                g.update().vectorize(x, 8)
            return out
        """)
    outcome = fuzz.check(source)
    assert outcome.status == "pass", f"{outcome.status}: {outcome.detail}\n\n{fuzz.reproducer(source, outcome)}"
