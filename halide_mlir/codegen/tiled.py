"""A consumer whose producers are computed at its loops: the loops down to the deepest compute_at level
are emitted in the payload, and at each level the tiles of the producers the plan computes there, and one
slice of each viewed producer (see analysis/tiling.py for why).

Each level extracts its tile from the tensor the enclosing level carries and puts the computed tile back
(``scf.for`` iter_args + ``tensor.insert_slice``, or ``scf.forall`` shared_outs +
``tensor.parallel_insert_slice``), the standard tiled form that bufferization turns into in-place subviews.
The loops carry ``hl.loop`` attributes so the transform script can fuse producers into them.
"""
from __future__ import annotations

from .mlir_text import mlir_string, tensor_type


def loop_attr(stage_name: str, loop_name: str) -> str:
    return f"hl.loop = {mlir_string(f'{stage_name}.s0.{loop_name}')}"


def emit_tiled_stage(pb, index: int, stage, plan) -> str:
    from .payload import Tile
    func = stage.func
    region = plan.region
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
    dyn = [None] * n  # their sum: the current tile's start per dim
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
            dyn[d] = pb.index_sum([(1, o) for o in offs[d]], 0, loc)
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
            if id(prod.func) in plan.computed:
                views[id(prod.func)] = _producer_tile(pb, prod, plan, dyn, views)
            elif id(prod.func) in plan.viewed:
                views[id(prod.func)] = _union_view(pb, prod, plan, dyn, loc)
        closers.append((l, res, inner, rel, list(sizes), parent_sizes))
        carried = tile

    result = pb.emit_generic(index, stage, Tile(region.mins, tuple(sizes), tuple(dyn)), [carried], views)[0]
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


def _tile_region(plan, func, dyn) -> tuple:
    """A producer's tile at its level: static (mins, extents) and the SSA offsets added to the mins."""
    mins, extents = plan.producer_tile(func)
    return mins, extents, tuple(None if s.dim is None else dyn[s.dim] for s in plan.spans[id(func)])


def _producer_tile(pb, prod, plan, dyn, views):
    """The producer's generic over its tile (exactly Halide's bounds for this iteration), reading the
    producers already in place through their views."""
    from .payload import Tile, View
    mins, extents, dynamic = _tile_region(plan, prod.func, dyn)
    index = next(i for i, s in enumerate(pb.p.stages) if s.func is prod.func)
    tensor = pb.emit_generic(index, prod, Tile(mins, extents, dynamic), None, views)[0]
    return View(tensor, tuple(reversed(extents)), mins, dynamic)


def _union_view(pb, prod, plan, dyn, loc):
    """One slice of ``prod`` holding every point its readers inside the current level read."""
    from .payload import View
    func = prod.func
    mins, extents, dynamic = _tile_region(plan, func, dyn)
    pmins = pb.min_of[id(func)]
    starts = [pb.index_sum([(1, dy)] if dy else [], lo - plo, loc) for lo, dy, plo in zip(mins, dynamic, pmins)]
    np_shape = tuple(reversed(extents))
    view = pb.fresh("view")
    t = func.output_type()
    pb.lines.append(f"{view} = tensor.extract_slice {pb.tensor_of[id(func)][0]}{_dims(starts)} {_dims(extents)} "
                    f"{_dims([1] * len(extents))} : {tensor_type(pb.shape_of[id(func)], t)} to "
                    f"{tensor_type(np_shape, t)} {loc}")
    return View(view, np_shape, mins, dynamic)
