"""compute_at at the less usual loops Halide accepts, against real Halide: producers of an inline reduction at
its consumer's loops, loops only an update has (an RVar's, a split of an update's Var), producers with scatter or
scan updates, vector lane loops. The schedule fuzzer found them refused (issue 6)."""
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


# A loop that only an update of the consumer has (an RVar's, or a split of an update's Var) is a legal
# compute_at location in Halide. Ours computes the producer before the consumer's loop nests (same values).
@pytest.mark.parametrize("schedule", ["rvar", "rvar_with_inline_reduction", "update_split_var"])
def test_producer_computed_at_an_update_loop(schedule):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        yo, yi = hl.Var("yo"), hl.Var("yi")
        inp = hl.Buffer(IMG_U8, "in0")
        b = hl.BoundaryConditions.constant_exterior(inp, 1)
        f0 = hl.Func("f0")
        f0[x, y] = hl.cast(hl.Int(16), b[x - 1, y]) + hl.cast(hl.Int(16), b[x, y + 1])
        r = hl.RDom([(-1, 2), (0, 2)], "r")
        f1 = hl.Func("f1")
        f1[x, y] = 0
        if schedule == "rvar_with_inline_reduction":   # g (an update, not scheduled) goes inside f1's loop
            r0 = hl.RDom([(0, 2)], "r0")
            g = hl.Func("g")
            g[x, y] = hl.cast(hl.Int(16), 0)
            g[x, y] += f0[x + r0.x, y]
            f1[x, y] += hl.cast(hl.Int(32), g[x + r.x, y + r.y])
        else:
            f1[x, y] += hl.cast(hl.Int(32), f0[x + r.x, y + r.y]) % 16
        if schedule == "update_split_var":
            f1.update(0).split(y, yo, yi, 4).parallel(yo)
            f0.compute_at(f1, yi)
        else:
            f1.tile(x, y, hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi"), 8, 5)
            f0.compute_at(f1, r.x)
        return f1

    run_both(build, [37, 23])


def test_producer_at_an_update_loop_used_by_the_pure_definition_is_refused():
    from oracle import raises_both

    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        p, c = hl.Func("p"), hl.Func("c")
        p[x, y] = x * y
        c[x] = p[x, 1]                    # the pure definition has no loop r.x
        r = hl.RDom([(0, 10)], "r")
        c[x] += p[x, r]
        p.compute_at(c, r.x)
        return c.realize([10])

    ref, msg = raises_both(program)
    assert "invalid location" in msg and "pure definition" in msg


# A Func with a scatter or scan update computed at a consumer's loop: Halide computes all of it at each
# iteration; ours once, before the consumer's loops (its updates are serial loops that can't be fused), with
# the Funcs computed at the consumer's loops that feed it. Same values.
@pytest.mark.parametrize("schedule", ["histogram_at_tile", "scan_at_y", "feeder_at_same_loop", "parallel_consumer"])
def test_scatter_or_scan_computed_at_a_consumer_loop(schedule):
    def build(hl):
        x, y, i = hl.Var("x"), hl.Var("y"), hl.Var("i")
        xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
        inp = hl.Buffer(IMG_U8, "in0")
        g = hl.Func("g")
        g[x, y] = inp[x, y] // 8
        r = hl.RDom([(0, 37), (0, 23)], "r")
        hist = hl.Func("hist")
        if schedule == "scan_at_y":   # a running sum along x of each row
            rs = hl.RDom([(1, 36)], "rs")
            hist[x, y] = hl.cast(hl.Int(32), g[x, y])
            hist[rs.x, y] = hist[rs.x - 1, y] + hist[rs.x, y]
        else:
            hist[i] = 0
            hist[hl.cast(hl.Int(32), g[r.x, r.y])] += 1
        out = hl.Func("out")
        if schedule == "scan_at_y":
            out[x, y] = hist[x, y] + hist[36 - x, y]
        else:
            out[x, y] = hist[(x + y) % 32] * 3 + hl.cast(hl.Int(32), inp[x, y])
        if schedule == "histogram_at_tile":
            out.tile(x, y, xo, yo, xi, yi, 8, 8).vectorize(xi)
            hist.compute_at(out, xo)
        elif schedule == "scan_at_y":
            hist.compute_at(out, y)
        elif schedule == "feeder_at_same_loop":   # g is computed at out.y too, feeding hist there
            hist.compute_at(out, y)
            g.compute_at(out, y)
        else:
            out.parallel(y).vectorize(x, 8)
            hist.compute_at(out, y).vectorize(i, 8)
        return out

    run_both(build, [37, 23])


# compute_at the vectorized loop itself, or a loop that runs as its lanes: the producer is computed at the loop
# around the vector block (or before the consumer's loops when there is none). Same values.
@pytest.mark.parametrize("schedule", ["at_vectorized_loop", "at_vectorized_loop_no_outer", "at_finer_lane_loop"])
def test_producer_computed_at_a_vector_lane_loop(schedule):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        xo, xi, xv = hl.Var("xo"), hl.Var("xi"), hl.Var("xv")
        inp = hl.Buffer(IMG, "in0")
        b = hl.BoundaryConditions.mirror_image(inp)
        if schedule == "at_vectorized_loop_no_outer":   # a 1-D Func whose only loop is the vector
            g = hl.Func("g")
            g[x] = b[x + 1, 2] + b[x, 4]
            g.bound(x, 0, 16).vectorize(x)
            b.compute_at(g, x)
            return g
        f = hl.Func("f")
        f[x, y] = b[x - 1, y] + b[x + 2, y + 1] * 0.5
        if schedule == "at_vectorized_loop":
            f.split(x, x, xv, 8).vectorize(xv).parallel(y)
            b.compute_at(f, xv)
        else:   # xi (finer than the vectorized xo) becomes lanes: b goes to the y loop around the block
            f.split(x, xo, xi, 4).reorder(xo, y, xi).vectorize(xo, 4)
            b.compute_at(f, xi)
        return f

    run_both(build, [16] if schedule == "at_vectorized_loop_no_outer" else [37, 23])


def test_producer_at_a_loop_of_a_consumer_with_updates_reads_a_fused_producer():
    """Found by the fuzzer (example 658 of `--examples 1000 --seed 11`): f2 is computed at a loop of f3, which has
    a scatter update, so f2 runs before f3's loops; f1, computed at f2's loop, read at three taps, must still be
    fused into it once ('requires exactly one containing_op handle (got 3)' before)."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(IMG, "in0")
        b = hl.BoundaryConditions.constant_exterior(inp, 0.0)
        f0 = hl.Func("f0")
        f0[x, y] = b[x, y] + b[x + 2, y - 2]
        r1 = hl.RDom([(0, 3)], "r1")
        f1 = hl.Func("f1")
        f1[x, y] = hl.maximum(f0[x + r1.x, y])
        f2 = hl.Func("f2")
        f2[x, y] = f1[x + 1, y + 1] + f1[x + 2, y - 2] - f1[x + 1, y - 1]
        r3 = hl.RDom([(0, 37)], "r3")
        f3 = hl.Func("f3")
        f3[x, y] = 0.0
        f3[hl.clamp((r3.x * 7 + 3) % 37, 0, 36), y] += f2[r3.x, y]
        f2.compute_at(f3, y)
        f1.compute_at(f2, y)
        f0.compute_at(f1, y)
        return f3

    run_both(build, [37, 23])
