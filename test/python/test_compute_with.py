"""``compute_with`` against real Halide 21: two consumers of one producer computed in one loop nest (fused with
``transform.loop.fuse_sibling``), with vectorized and parallel loops, an odd size, every LoopAlignStrategy; inner
loops fused after bufferization;
stages of different extents along a fused loop lined up by each LoopAlignStrategy (guarded bodies), the alignments
not supported yet (ComputeWithWarning, same values); Halide's errors."""
import warnings

import numpy as np
import pytest

from oracle import realize_raises_both, run_both

IMG = np.random.default_rng(16).integers(0, 256, (19, 37)).astype(np.uint8)


def _pipeline(hl, schedule, align=None, shift=0, yshift=0, both=False):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(IMG, "input")
    prod = hl.Func("prod")
    prod[x, y] = hl.i32(inp[x, y]) * 3 + 1
    f, g, out = hl.Func("f"), hl.Func("g"), hl.Func("out")
    f[x, y] = prod[x, y] + prod[x + 1, y]
    g[x, y] = prod[x, y] * 2 - prod[x + 2, y]
    out[x, y] = f[x, y] + g[x + shift, y + yshift] * 5
    if both:  # g also read at (x, y): its region spans shift more columns and yshift more rows than f's
        out[x, y] = out[x, y] - g[x, y]
    prod.compute_root()
    f.compute_root()
    g.compute_root()
    if schedule == "vectorized":
        f.vectorize(x, 8)
        g.vectorize(x, 8)
    elif schedule == "parallel":
        for h in (f, g):
            h.parallel(y).vectorize(x, 4)
    elif schedule == "tiled":
        xo, xi = hl.Var("xo"), hl.Var("xi")
        for h in (f, g):
            h.split(x, xo, xi, 8).vectorize(xi)
    var = x if schedule == "tiled_xo" else y
    if schedule == "tiled_xo":
        xo, xi = hl.Var("xo"), hl.Var("xi")
        for h in (f, g):
            h.split(x, xo, xi, 8).vectorize(xi)
        var = xo
    if align is None:
        g.compute_with(f, var)
    else:
        g.compute_with(f, var, getattr(hl.LoopAlignStrategy, align))
    return out


def _fused(fn):
    import halide_mlir as hl
    with warnings.catch_warnings():
        warnings.simplefilter("error", hl.ComputeWithWarning)
        return fn()


@pytest.mark.parametrize("schedule", ["vectorized", "parallel", "tiled", "tiled_xo"])
@pytest.mark.parametrize("align", [None, "AlignStart", "AlignEnd", "NoAlign", "Auto"])
def test_two_consumers_of_one_producer(schedule, align):
    if align not in (None, "AlignEnd") and schedule != "vectorized":
        pytest.skip("every strategy once; the schedules with the default")
    _fused(lambda: run_both(lambda hl: _pipeline(hl, schedule, align), [IMG.shape[1] - 3, IMG.shape[0]]))


def test_fused_loop_in_script():
    import halide_mlir as hl
    out = _pipeline(hl, "parallel")
    script = out.transform_script([30, 19])
    assert script.count("transform.loop.fuse_sibling") == 1
    out = _pipeline(hl, "tiled_xo")   # y on tensors, xo after bufferization (tagged)
    script = _fused(lambda: out.transform_script([30, 19]))
    assert script.count("transform.loop.fuse_sibling") == 1 and script.count('"hl.compute_with_0"') == 2


@pytest.mark.parametrize("align", ["AlignStart", "AlignEnd", "NoAlign", "Auto"])
def test_different_extents_along_an_unfused_loop(align):   # g over 2 more columns than f, fused at y: no alignment
    sizes = [IMG.shape[1] - 5, IMG.shape[0]]
    _fused(lambda: run_both(lambda h: _pipeline(h, "vectorized", align, shift=2), sizes))


@pytest.mark.parametrize("schedule", ["vectorized", "parallel", "tiled"])
@pytest.mark.parametrize("align", ["AlignStart", "AlignEnd", "NoAlign", "Auto"])
def test_aligned_rows(schedule, align):   # g over 3 more rows than f: the fused y loop aligns them, guarded
    sizes = [IMG.shape[1] - 3, IMG.shape[0] - 3]
    _fused(lambda: run_both(lambda h: _pipeline(h, schedule, align, yshift=3, both=True), sizes))


@pytest.mark.parametrize("align", ["AlignStart", "AlignEnd", "NoAlign"])
def test_aligned_inner_loop(align):   # fused at (y, xo); g over 8 more columns: xo aligned by a whole tile
    sizes = [IMG.shape[1] - 11, IMG.shape[0]]
    _fused(lambda: run_both(lambda h: _pipeline(h, "tiled_xo", align, shift=8, both=True), sizes))


def test_alignments_not_supported_yet_warn():
    import halide_mlir as hl
    # AlignEnd shifts g's xo by 2 columns, not a whole tile of 8: y is fused, xo is not
    with pytest.warns(hl.ComputeWithWarning, match="fused down to loop 'y' only: AlignEnd at loop 'xo'"):
        run_both(lambda h: _pipeline(h, "tiled_xo", "AlignEnd", shift=2, both=True), [IMG.shape[1] - 5, 19])
    # NoAlign: g's columns start 2 after f's
    with pytest.warns(hl.ComputeWithWarning, match=r"NoAlign at loop 'xo' .* shifts g\S* by -2"):
        run_both(lambda h: _pipeline(h, "tiled_xo", "NoAlign", shift=2), [IMG.shape[1] - 5, IMG.shape[0]])
    # an alignment at y, above the innermost fused loop xo: y fused (guarded bodies), xo not
    with pytest.warns(hl.ComputeWithWarning, match="fused down to loop 'y' only: the loops inside loop 'y'"):
        run_both(lambda h: _pipeline(h, "tiled_xo", "AlignEnd", yshift=3, both=True), [34, 16])


def _bad(case):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        prod, f, g, out = hl.Func("prod"), hl.Func("f"), hl.Func("g"), hl.Func("out")
        prod[x, y] = x + 2 * y
        f[x, y] = prod[x, y] * 2
        g[x, y] = prod[x, y] + 7
        out[x, y] = f[x, y] + g[x, y]
        prod.compute_root()
        f.compute_root()
        g.compute_root()
        if case == "level":
            g.compute_at(out, y)
            g.compute_with(f, y)
        elif case == "novar":
            g.compute_with(f, hl.Var("z"))
        elif case == "dependency":
            g.compute_with(prod, y)
        elif case == "self":
            f.compute_with(f, y)
        return out
    return build


@pytest.mark.parametrize("case, message", [
    ("level", r"the compute levels of f\S*\.s0 \(computed at \.__root\) and g\S*\.s0 \(out\S*\.y\) do not match"),
    ("novar", r"cannot find z in f\S*\.s0"),
    ("dependency", r"there is dependency between prod\S* and g"),
    ("self", r"Cannot schedule f\S* to be computed with f\S*\.s0\.y")])
def test_errors_as_halide(case, message):
    ref, ours = realize_raises_both(_bad(case), [6, 5])
    import re
    assert re.search(message, ref) and re.search(message, ours), (ref, ours)


def _boundary_pipeline(hl, schedule, align, clamps=False):
    """f and g read the input through a boundary condition (or clamps of their own), over different rows (g over
    3 more): stages Halide partitions at the boundary; here each is one loop nest, fused with the other's (the
    condition is a padded copy read through slices; clamps of their own stay in the body)."""
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(IMG, "input")
    if clamps:
        def b(cx, cy):
            return inp[hl.clamp(cx, 0, IMG.shape[1] - 1), hl.clamp(cy, 0, IMG.shape[0] - 1)]
    else:
        edge = hl.BoundaryConditions.repeat_edge(inp)

        def b(cx, cy):
            return edge[cx, cy]
    f, g, out = hl.Func("f"), hl.Func("g"), hl.Func("out")
    f[x, y] = hl.i32(b(x - 1, y)) * 3 + b(x, y + 1)
    g[x, y] = hl.i32(b(x + 1, y - 1)) - b(x, y)
    out[x, y] = f[x, y] + f[x + 2, y] * 2 - g[x, y + 3] + g[x, y]
    for h in (f, g):
        h.compute_root()
        if schedule == "parallel":
            h.parallel(y).vectorize(x, 8)
        elif schedule == "vectorized":
            h.vectorize(x, 8)
    g.compute_with(f, y, getattr(hl.LoopAlignStrategy, align))
    return out


@pytest.mark.parametrize("schedule", ["vectorized", "parallel"])
@pytest.mark.parametrize("align", ["AlignStart", "AlignEnd", "NoAlign", "Auto"])
@pytest.mark.parametrize("clamps", [False, True], ids=["boundary_condition", "clamps"])
def test_boundary_stages(schedule, align, clamps):
    if align != "AlignEnd" and schedule != "vectorized":
        pytest.skip("every strategy once; the schedules with one")
    for sizes in ([IMG.shape[1], IMG.shape[0]], [20, 9]):
        _fused(lambda: run_both(lambda h: _boundary_pipeline(h, schedule, align, clamps), sizes))
