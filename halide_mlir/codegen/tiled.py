"""A consumer whose producers are computed at its loops: the loops down to the deepest compute_at level
are emitted in the payload, with one slice of each producer per level (see analysis/tiling.py for why).

Each level extracts its tile from the tensor the enclosing level carries and puts the computed tile back
(``scf.for`` iter_args + ``tensor.insert_slice``, or ``scf.forall`` shared_outs +
``tensor.parallel_insert_slice``), the standard tiled form that bufferization turns into in-place subviews.
The loops carry ``hl.loop`` attributes so the transform script can fuse producers into them.
"""
from __future__ import annotations

from ..lang.traversal import walk
from .mlir_text import mlir_string, tensor_type


def loop_attr(stage_name: str, loop_name: str) -> str:
    return f"hl.loop = {mlir_string(f'{stage_name}.s0.{loop_name}')}"


def emit_tiled_stage(pb, index: int, stage, plan) -> str:
    from .payload import Tile, View
    func = stage.func
    region = pb.b.region(func)
    n = len(stage.vars)
    out_t = func.output_type()
    loc = pb.def_loc(func)
    lines = pb.lines
    name = pb.stage_names[index]

    def ttype(sizes) -> str:
        return tensor_type(tuple(reversed(sizes)), out_t)

    carried = pb.fresh("init")
    lines.append(f"{carried} = tensor.empty() : {ttype(region.extents)} {loc}")
    offs: dict[int, list] = {d: [] for d in range(n)}   # SSA index offsets per dim, relative to region min
    sizes = list(region.extents)
    views: dict = {}
    closers = []
    for li, lev in enumerate(plan.levels):
        l, d = lev.loop, lev.loop.dim
        iv, res = pb.fresh("iv"), pb.fresh("t")
        if l.kind == "parallel":
            inner = pb.fresh("so")
            lines.append(f"{res} = scf.forall ({iv}) in ({lev.trip}) shared_outs({inner} = {carried}) -> "
                         f"({ttype(sizes)}) {{")
        else:
            inner = pb.fresh("acc")
            c0, c1, ub = (pb.index_const(v, loc) for v in (0, 1, lev.trip))
            lines.append(f"{res} = scf.for {iv} = {c0} to {ub} step {c1} iter_args({inner} = {carried}) -> "
                         f"({ttype(sizes)}) {{")
        # ShiftInwards: the last tile starts at parent_size - size, so every tile is full
        if lev.trip > 1:
            scaled, off = pb.fresh("o"), pb.fresh("o")
            lines.append(f"{scaled} = arith.muli {iv}, {pb.index_const(l.stride, loc)} : index {loc}")
            lines.append(f"{off} = arith.minsi {scaled}, {pb.index_const(lev.parent_size - lev.size, loc)} "
                         f": index {loc}")
            offs[d] = offs[d] + [off]
            rel = [off if dd == d else 0 for dd in range(n)]
        else:
            rel = [0] * n
        parent_sizes = list(sizes)
        sizes = list(sizes)
        sizes[d] = lev.size
        tile = pb.fresh("tile")
        lines.append(f"{tile} = tensor.extract_slice {inner}{_dims(rel)} {_dims(sizes)} {_dims([1] * n)} : "
                     f"{ttype(parent_sizes)} to {ttype(sizes)} {loc}")
        for prod in plan.producers.get(li, []):
            if id(prod.func) in plan.direct:
                views[id(prod.func)] = _union_view(pb, stage, prod, region, offs, sizes, loc, View)
        closers.append((l, res, inner, rel, list(sizes), parent_sizes))
        carried = tile

    dynamic = tuple(pb.index_sum([(1, o) for o in offs[d]], 0, loc) if offs[d] else None for d in range(n))
    result = pb.emit_generic(index, stage, Tile(region.mins, tuple(sizes), dynamic), [carried], views)[0]
    for l, res, inner, rel, tile_sizes, parent_sizes in reversed(closers):
        slice_txt = f"{_dims(rel)} {_dims(tile_sizes)} {_dims([1] * n)} : {ttype(tile_sizes)} into " \
                    f"{ttype(parent_sizes)}"
        if l.kind == "parallel":
            lines.append("scf.forall.in_parallel {")
            lines.append(f"  tensor.parallel_insert_slice {result} into {inner}{slice_txt} {loc}")
            lines.append("}")
        else:
            put = pb.fresh("t")
            lines.append(f"{put} = tensor.insert_slice {result} into {inner}{slice_txt} {loc}")
            lines.append(f"scf.yield {put} : {ttype(parent_sizes)} {loc}")
        lines.append(f"}} {{{loop_attr(name, l.name)}}} {loc}")
        result = res
    return result


def _dims(values) -> str:
    return "[" + ", ".join(str(v) for v in reversed(values)) + "]"


def _union_view(pb, stage, prod, region, offs, sizes, loc, View):
    """One slice of ``prod`` holding every point the consumer's current level reads."""
    func = prod.func
    m = len(prod.vars)
    lo, hi, var_dim = [None] * m, [None] * m, [None] * m
    for node in walk(pb.b.bodies[id(stage.func)][0]):
        if node.kind != "call" or node.value is not func:
            continue
        from ..analysis.affine import linear_form
        for j, a in enumerate(node.args):
            v, c = linear_form(a)
            if v is not None:
                var_dim[j] = stage.vars.index(v)
            lo[j] = c if lo[j] is None else min(lo[j], c)
            hi[j] = c if hi[j] is None else max(hi[j], c)
    pmins = pb.min_of[id(func)]
    mins, dyn, shape, starts = [], [], [], []
    for j in range(m):
        d = var_dim[j]
        if d is None:
            mins.append(lo[j])
            dyn.append(None)
            shape.append(hi[j] - lo[j] + 1)
            starts.append(lo[j] - pmins[j])
        else:
            mins.append(region.mins[d] + lo[j])
            dyn.append(pb.index_sum([(1, o) for o in offs[d]], 0, loc) if offs[d] else None)
            shape.append(sizes[d] + hi[j] - lo[j])
            starts.append(pb.index_sum([(1, dyn[-1])] if dyn[-1] else [], mins[-1] - pmins[j], loc))
    full = pb.shape_of[id(func)]
    np_shape = tuple(reversed(shape))
    view = pb.fresh("view")
    t = func.output_type()
    pb.lines.append(f"{view} = tensor.extract_slice {pb.tensor_of[id(func)][0]}{_dims(starts)} {_dims(shape)} "
                    f"{_dims([1] * m)} : {tensor_type(full, t)} to {tensor_type(np_shape, t)} {loc}")
    return View(view, np_shape, tuple(mins), tuple(dyn))
