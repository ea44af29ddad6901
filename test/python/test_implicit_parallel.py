"""Stages halide_mlir computes at the root where Halide's schedule runs them inside a parallel loop run in
parallel too (analysis/plan.py _implicit_parallel): a BoundaryConditions padded copy read by a parallel
consumer (Halide inlines it there), and a producer analysis/legality.py hoists out of a loop inside a parallel
loop (a gather-read compute_at producer). Same values as real Halide; serial where Halide's is serial."""
import re

import pytest

from helpers import V
from oracle import image_f32, image_u16, run_both

IMG = image_f32(70, 50, seed=51)
RGB = image_u16(40, 30, seed=52, c=3)


def padded_copy(hl, parallel=True, user_root=False):
    """The copy's reader is computed at the output's rows, so it reads the copy (it is not computed in pieces
    at the root, where it would read the condition inlined: analysis/pipeline.py partitionable)."""
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    blur, out = hl.Func("blur"), hl.Func("out")
    blur[x, y] = clamped[x - 1, y - 1] + clamped[x + 1, y + 1] * 2.0
    out[x, y] = blur[x, y] * 0.5
    blur.compute_at(out, y).vectorize(x, 8)
    out.vectorize(x, 8)
    if parallel:
        out.parallel(y)
    if user_root:
        clamped.compute_root()
    return out


def color_padded_copy(hl):
    """A 3-D padded copy (x, y, c): the rows (y) run in parallel, the loop over c moved inside them."""
    inp = hl.Buffer(RGB, "input")
    x, y, c = V(hl, "x y c")
    floating = hl.Func("floating")
    floating[x, y, c] = hl.f32(inp[x, y, c]) / 65535.0
    clamped = hl.BoundaryConditions.repeat_edge(floating, [hl.Range(0, 40), hl.Range(0, 30), hl.Range(0, 3)])
    gray = hl.Func("gray")
    gray[x, y] = 0.25 * clamped[x - 2, y - 3, 0] + 0.5 * clamped[x + 2, y, 1] + 0.25 * clamped[x, y + 3, 2]
    gray.parallel(y).vectorize(x, 8)
    return gray


def hoisted_upsample(hl):
    """f is computed per row of a parallel consumer in Halide; read at x // 2 it is hoisted to the root."""
    inp = hl.Buffer(IMG, "input")
    x, y = V(hl, "x y")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = inp[x + 2, y + 1] * 2.0 + inp[x + 1, y]
    g[x, y] = 0.25 * f[(x // 2) - 1 + 2 * (x % 2), y // 2] + 0.75 * f[x // 2 + 1, y // 2 + 1]
    f.compute_at(g, y).vectorize(x, 8)
    g.parallel(y).vectorize(x, 8)
    return g


def _forall_stages(func, sizes):
    from halide_mlir.driver import stages
    script = stages(func, sizes).transform
    handles = dict(re.findall(r'(%\w+) = transform\.structured\.match .* attributes \{hl\.func = "([^"]+)"\}', script))
    parallel = set()
    for target in re.findall(r"tile_using_forall (%\w+)", script):
        # the target is a stage handle or a handle tiled from one: follow the chain back to a stage name
        while target not in handles:
            m = re.search(rf"{re.escape(target)}, %\w+ = transform\.structured\.tile_using_\w+ (%\w+)", script)
            if m is None:
                break
            target = m.group(1)
        parallel.add(handles.get(target))
    return parallel


@pytest.mark.parametrize("build", [padded_copy, color_padded_copy, hoisted_upsample],
                         ids=["padded_copy", "color_padded_copy", "hoisted_upsample"])
def test_matches_halide(build):
    run_both(build, [40, 30] if build is not color_padded_copy else [36, 26])


def test_padded_copy_of_a_parallel_consumer_is_parallel():
    import halide_mlir as hl
    assert "repeat_edge_input" in _forall_stages(padded_copy(hl), [40, 30])


def test_a_consumer_in_pieces_reads_the_condition_inlined():
    """gray is computed at the root in pieces: it reads the condition inlined, so there is no copy."""
    import halide_mlir as hl
    from halide_mlir.driver import stages
    s = stages(color_padded_copy(hl), [36, 26])
    assert "repeat_edge_floating" not in s.payload
    assert s.payload.count('hl.func = "gray"') > 1
    assert "vector.gather" not in s.bufferized()


def test_hoisted_producer_of_a_parallel_loop_is_parallel():
    import halide_mlir as hl
    assert "f" in _forall_stages(hoisted_upsample(hl), [40, 30])


def test_serial_where_halide_is_serial():
    """No parallel consumer, or the user scheduled the boundary Func: no parallel loop is added."""
    import halide_mlir as hl
    assert "repeat_edge_input" not in _forall_stages(padded_copy(hl, parallel=False), [40, 30])
    assert "repeat_edge_input" not in _forall_stages(padded_copy(hl, user_root=True), [40, 30])
    run_both(lambda hl: padded_copy(hl, user_root=True), [40, 30])



def color_padded_copy_read_per_row(hl):
    """A 3-D padded copy read by a producer computed per row of a parallel consumer: materialized at the root."""
    inp = hl.Buffer(RGB, "input")
    x, y, c = V(hl, "x y c")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    blur, out = hl.Func("blur"), hl.Func("out")
    blur[x, y, c] = hl.f32(clamped[x - 1, y - 2, c]) + hl.f32(clamped[x + 1, y + 1, c]) * 2.0
    out[x, y, c] = blur[x, y, c] * 0.5
    blur.compute_at(out, y).vectorize(x, 8)
    out.reorder(x, c, y).vectorize(x, 8).parallel(y)
    return out


def test_padded_copy_rows_parallel_outside_channels():
    """One parallel loop over the rows with the channels inside, not one parallel loop per channel (a fork/join
    each: apps/interpolate's RGBA copy made 36 of them, 2 threads slower than 1 on a shared core)."""
    run_both(color_padded_copy_read_per_row, [40, 30, 3])
    import halide_mlir as hl
    from halide_mlir.driver import stages
    plan = stages(color_padded_copy_read_per_row(hl), [40, 30, 3]).text("plan")
    copy = next(b for b in plan.split("stage ")[1:] if b.startswith("0 "))
    assert "repeat_edge" in copy.splitlines()[0], plan
    loops = [l.split()[0] for l in copy.splitlines()[1:] if "iterations" in l]
    assert loops[0] == "parallel" and "serial" in loops[1:], copy
