"""Nested parallel loops of one stage run as ONE parallel loop over their collapsed iteration space (a
multi-dimensional scf.forall, OpenMP's collapsed omp.wsloop; analysis/loop_nest.py serialize_nested_parallel):
conv_layer's parallel(co).parallel(n).parallel(y). Values against real Halide 21 (which runs each nested
parallel loop in parallel) with odd sizes, vectorize, compute_at, updates; the script shows which loops were
collapsed (one tile_using_forall) and which stayed serial (a nested parallel loop after a serial one, or inside a
loop a producer is computed at)."""
import re

import pytest

from helpers import V
from oracle import image_f32, run_both

RGB = image_f32(53, 37, seed=61, c=3)        # odd sizes: partial vectors, rows not a multiple of anything
VOL = image_f32(32, 23, seed=62, c=5)


def foralls(script: str) -> list[str]:
    """The tile sizes of each tile_using_forall in a transform script."""
    return re.findall(r"tile_using_forall \S+ tile_sizes \[([^\]]*)\]", script)


def pointwise(hl, order="xcy", par="cy", vec=16):
    inp = hl.Buffer(RGB, "input")
    x, y, c = V(hl, "x y c")
    out = hl.Func("out")
    out[x, y, c] = inp[x, y, c] * 2.0 + hl.sqrt(inp[x, y, c])
    out.reorder(*(dict(x=x, y=y, c=c)[v] for v in order))
    if vec:
        out.vectorize(x, vec)
    for v in par:
        out.parallel(dict(x=x, y=y, c=c)[v])
    return out


def split_tiles(hl):
    """tile(x, y) with both outer loops parallel, the inner x vectorized: a 2-D forall over the tiles."""
    inp = hl.Buffer(RGB, "input")
    x, y, c, xo, yo, xi, yi = V(hl, "x y c xo yo xi yi")
    out = hl.Func("out")
    out[x, y, c] = inp[x, y, c] - 0.5 * inp[x, y, 2 - c]
    out.tile(x, y, xo, yo, xi, yi, 16, 8).reorder(xi, yi, c, xo, yo).vectorize(xi).parallel(yo).parallel(xo)
    return out


def compute_at_inside(hl, at="xo"):
    """A producer computed inside the collapsed loops (the payload spells out the loops: codegen/tiled.py);
    at="c": it is computed at the outer parallel loop, so y inside it stays serial."""
    inp = hl.Buffer(RGB, "input")
    x, y, c, xo, xi = V(hl, "x y c xo xi")
    f, out = hl.Func("f"), hl.Func("out")
    f[x, y, c] = inp[x, y, c] * 2.0
    out[x, y, c] = f[x, y, c] + f[x + 1, y, c] + f[x, y, c] * f[x + 2, y, c]
    out.split(x, xo, xi, 16).reorder(xi, xo, y, c).vectorize(xi).parallel(y).parallel(c)
    f.compute_at(out, dict(xo=xo, c=c)[at]).vectorize(x, 16)
    return out


def conv(hl):
    """conv_layer's schedule (bench/suite.py) at a small size: parallel(y).parallel(n).parallel(co) around a
    register tile, conv computed at xo with a reduction update."""
    inp, filt, bias = (hl.Buffer(a, k) for a, k in ((CONV_IN, "input"), (CONV_F, "filter"), (CONV_B, "bias")))
    c, x, y, n, co, ci, xo, xi = V(hl, "c x y n co ci xo xi")
    r = hl.RDom([hl.Range(0, CONV_IN.shape[3]), hl.Range(0, 3), hl.Range(0, 3)])
    cv, relu = hl.Func("conv"), hl.Func("relu")
    cv[c, x, y, n] = bias[c]
    cv[c, x, y, n] += filt[c, r.y, r.z, r.x] * inp[r.x, x + r.y, y + r.z, n]
    relu[c, x, y, n] = hl.max(0, cv[c, x, y, n])
    relu.split(c, co, ci, 16).split(x, xo, xi, 3).reorder(ci, xi, xo, y, n, co)
    relu.vectorize(ci, 8).unroll(xi).parallel(y).parallel(n).parallel(co)
    cv.compute_at(relu, xo).vectorize(c, 8).unroll(x)
    cv.update().reorder(c, x, y, r.x, r.y, r.z, n).vectorize(c, 8).unroll(x)
    return relu


def _conv_arrays():
    import numpy as np
    rng = np.random.default_rng(63)
    n, h, w, ci, co = 3, 9, 11, 5, 32      # w - 2 = 9 columns: tiles of 3; h - 2 = 7 rows
    return (rng.random((n, h, w, ci), dtype=np.float32) - 0.5, rng.random((ci, 3, 3, co), dtype=np.float32) - 0.5,
            rng.random((co,), dtype=np.float32))


CONV_IN, CONV_F, CONV_B = _conv_arrays()


def update_parallel(hl):
    """An update definition's nested parallel pure loops (an RVar loop inside them)."""
    inp = hl.Buffer(VOL, "input")
    x, y, c = V(hl, "x y c")
    r = hl.RDom([hl.Range(0, 3)])
    f = hl.Func("f")
    f[x, y, c] = inp[x, y, c]
    f[x, y, c] += inp[x, y, (c + r.x) % 5] * 0.25
    f.update().reorder(r.x, x, c, y).vectorize(x, 8).parallel(c).parallel(y)
    return f


def producer_inside(hl):
    """A producer computed inside the collapsed loops has parallel loops of its own: they run serially."""
    inp = hl.Buffer(VOL, "input")
    x, y, c = V(hl, "x y c")
    g, out = hl.Func("g"), hl.Func("out")
    g[x, y, c] = inp[x, y, c] + 1.0
    out[x, y, c] = g[x, y, c] * g[x, y, c]
    out.reorder(x, c, y).parallel(c).parallel(y).vectorize(x, 8)
    g.compute_at(out, c).parallel(x)
    return out


@pytest.mark.parametrize("order,par", [("xcy", "cy"), ("xyc", "yc"), ("xcy", "ycx"), ("xcy", "c")])
def test_pointwise_values(order, par):
    run_both(lambda hl: pointwise(hl, order, par), [53, 37, 3])


def test_collapsed_forall_in_script():
    import halide_mlir as hl
    assert foralls(pointwise(hl).transform_script([53, 37, 3])) == ["1, 1, 0"]   # y and c: one 2-D forall
    # parallel(x) after vectorize(x, 16) is the loop over vectors: y, c and x, one 3-D forall
    assert foralls(pointwise(hl, "xcy", "ycx").transform_script([53, 37, 3])) == ["1, 1, 16"]


def test_not_adjacent_stays_serial():
    """parallel(c) outside a serial y outside parallel x: x runs serially (as before), values the same."""
    import halide_mlir as hl

    def build(hl):
        inp = hl.Buffer(RGB, "input")
        x, y, c, xo, xi = V(hl, "x y c xo xi")
        out = hl.Func("out")
        out[x, y, c] = inp[x, y, c] * 3.0
        out.split(x, xo, xi, 8).reorder(xi, xo, y, c).vectorize(xi).parallel(c).parallel(xo)
        return out
    run_both(build, [53, 37, 3])
    assert foralls(build(hl).transform_script([53, 37, 3])) == ["1, 0, 0"]


def test_tiles_values():
    import halide_mlir as hl
    run_both(split_tiles, [53, 37, 3])
    assert foralls(split_tiles(hl).transform_script([53, 37, 3])) == ["0, 8, 16"]


@pytest.mark.parametrize("at", ["xo", "c"])
def test_compute_at_values(at):
    import halide_mlir as hl
    run_both(lambda hl: compute_at_inside(hl, at), [50, 37, 3])
    payload = compute_at_inside(hl, at).compile_to_mlir([50, 37, 3])
    dims = [m.count("%") for m in re.findall(r"scf\.forall \(([^)]*)\)", payload)]
    assert dims == ([2] if at == "xo" else [1])   # at c: y stays serial (f is computed per c)


def test_conv_values():
    import halide_mlir as hl
    run_both(conv, [32, 9, 7, 3], rtol=1e-4, atol=1e-5)
    payload = conv(hl).compile_to_mlir([32, 9, 7, 3])
    assert re.search(r"scf\.forall \(%\w+, %\w+, %\w+\) in \(2, 3, 7\)", payload), payload


def test_update_values():
    import halide_mlir as hl
    run_both(update_parallel, [32, 23, 5])
    assert foralls(update_parallel(hl).transform_script([32, 23, 5])) == ["1, 1, 0, 0"]   # (c, y, x, r.x)


def test_producer_inside_values():
    run_both(producer_inside, [32, 23, 5])


@pytest.mark.parametrize("threads,runtime", [("2", "openmp"), ("2", "async"), ("1", "openmp")])
def test_runtimes_agree(threads, runtime, monkeypatch):
    """The collapsed loops on both parallel runtimes (a multi-dimensional scf.parallel: OpenMP's collapsed
    wsloop, async-parallel-for's blocks) and serially give the serial results, realize after realize."""
    import numpy as np

    import halide_mlir as hl
    monkeypatch.setenv("HL_NUM_THREADS", "1")
    want = [np.asarray(b(hl).realize(s)).copy() for b, s in ((conv, [32, 9, 7, 3]), (compute_at_inside, [50, 37, 3]))]
    monkeypatch.setenv("HL_NUM_THREADS", threads)
    monkeypatch.setenv("HALIDE_MLIR_PARALLEL_RUNTIME", runtime)
    for (b, s), w in zip(((conv, [32, 9, 7, 3]), (compute_at_inside, [50, 37, 3])), want):
        f = b(hl)
        for _ in range(5):
            np.testing.assert_array_equal(np.asarray(f.realize(s)), w)
