"""Producers computed at different loops of the same consumer, read by each other, against real Halide.

A producer P computed at an outer loop of C, read only by a producer Q computed at an inner loop of C: when
P is fused into the outer loop, Q is not inside it yet, and fuse_into_containing_op (which fuses a producer
where it is read inside the loop) failed with "could not find next producer to fuse into container" (found
by `python -m halide_mlir.tools.fuzz --examples 1500 --seed 81`). Q now goes into the outer loop first, then P,
then Q into its own loop (codegen/transform.py FuseAt.movers): P is computed once per iteration of its loop,
as in Halide.
"""
import numpy as np
import pytest

from oracle import run_both

IMG = np.random.default_rng(21).integers(0, 255, (29, 37), endpoint=True).astype(np.uint8)


def chain(hl, schedule):
    x, y, yo, yi, xo, xi = (hl.Var(v) for v in "x y yo yi xo xi".split())
    inp = hl.Buffer(IMG, "in0")
    p, q, r, c, out = (hl.Func(n) for n in ("p", "q", "r", "c", "out"))
    p[x, y] = hl.i32(inp[hl.clamp(x, 0, 36), hl.clamp(y, 0, 28)]) * 3
    q[x, y] = p[x, y] + p[x + 1, y + 1]
    if schedule == "p_also_read_by_c":
        c[x, y] = q[x, y] * 2 + p[x, y]
    elif schedule == "three_levels":
        r[x, y] = q[x, y] - 7
        c[x, y] = r[x, y] * 2 + 1
    else:
        c[x, y] = q[x, y] * 2 + 1
    out[x, y] = c[x, y] - c[x, y + 1]
    if schedule == "consumer_is_output":  # the payload's loops (analysis/tiling.py), not a fused consumer
        out.split(y, yo, yi, 4)
        p.compute_at(out, yo)
        q.compute_at(out, yi)
        c.compute_inline()
        return out
    out.split(y, yo, yi, 8)
    c.compute_at(out, yo).split(y, yo, yi, 4)
    p.compute_at(c, yo)
    q.compute_at(c, yi)
    if schedule == "vectorized":
        c.vectorize(x, 8)
        q.vectorize(x, 8)
        p.vectorize(x, 16)
    elif schedule == "three_levels":
        c.split(x, xo, xi, 16)
        r.compute_at(c, xo)
    elif schedule == "parallel_outer":
        out.parallel(yo)
    return out


@pytest.mark.parametrize("schedule", ["plain", "p_also_read_by_c", "vectorized", "three_levels", "parallel_outer",
                                      "consumer_is_output"])
def test_producer_read_only_by_a_producer_at_an_inner_loop(schedule):
    run_both(lambda hl: chain(hl, schedule), [35, 26])
