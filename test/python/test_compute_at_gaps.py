"""compute_at schedules Halide accepts that the schedule fuzzer found refused (issue 6), against real Halide."""
import numpy as np
import pytest

from oracle import run_both

IMG = np.random.default_rng(11).uniform(-4, 4, (23, 37)).astype(np.float32)
IMG_U8 = np.random.default_rng(12).integers(0, 255, (23, 37), endpoint=True).astype(np.uint8)


# An inline reduction (hl.sum, hl.maximum ...) is a Func with an update: Halide computes it inside the innermost
# loop of its consumer, so its producers may be computed at any loop of that consumer.
@pytest.mark.parametrize("schedule", ["at_x", "at_y_vectorized", "at_inner_split_parallel", "chain", "root_consumer"])
def test_producer_of_an_inline_reduction_computed_at_its_consumer(schedule):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        yo, yi, xv = hl.Var("yo"), hl.Var("yi"), hl.Var("xv")
        inp = hl.Buffer(IMG, "in0")
        b = hl.BoundaryConditions.mirror_image(inp)
        r = hl.RDom([(-1, 2), (0, 3)], "r")
        f = hl.Func("f")
        f[x, y] = hl.sum(b[x + r.x, y + r.y] * 2.0)
        if schedule == "at_x":
            b.compute_at(f, x)
        elif schedule == "at_y_vectorized":
            f.vectorize(x, 8)
            b.compute_at(f, y)
        elif schedule == "at_inner_split_parallel":
            f.split(y, yo, yi, 4).split(x, x, xv, 4).vectorize(xv).parallel(yi)
            b.compute_at(f, yi)
        elif schedule == "chain":        # a maximum of a sum: both go to f's loop
            r1 = hl.RDom([(0, 2)], "r1")
            g = hl.Func("g")
            g[x, y] = f[x, y]
            h = hl.Func("h")
            h[x, y] = hl.maximum(g[x + r1.x, y])
            b.compute_at(h, x)
            return h
        else:                            # the consumer is itself computed at the root
            g = hl.Func("g")
            g[x, y] = f[x, y] - f[x + 1, y]
            f2 = hl.Func("f2")
            f2[x, y] = g[x, y] * 0.5
            g.compute_root()
            b.compute_at(g, y)
            return f2
        return f

    run_both(build, [37, 23], rtol=1e-5, atol=1e-5)
