"""A consumer whose producers are computed at its loops: the loops down to the deepest compute_at level
are emitted in the payload, and at each level the tiles of the producers the plan computes there, and one
slice of each viewed producer (see analysis/tiling.py for why).

Each level extracts its tile from the tensor the enclosing level carries and puts the computed tile back
(``scf.for`` iter_args + ``tensor.insert_slice``, or ``scf.forall`` shared_outs +
``tensor.parallel_insert_slice``), the standard tiled form that bufferization turns into in-place subviews.
The loops carry ``hl.loop`` attributes so the transform script can fuse producers into them. Nested parallel
levels collapsed into one (analysis/tiling.py ``Level.collapsed``) are one multi-dimensional ``scf.forall``, named
after its innermost loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis.plan import StagePlan
from ..error import InternalError
from ..lang.schedule import LoopKind
from .mlir_text import loop_attr, tensor_type
from .updates import _Frame, emit_loops, emit_reduction


@dataclass(frozen=True)
class Tile:
    """The part of a stage's region one generic computes: per Halide dim, an absolute start (``mins`` plus
    the SSA index ``dynamic[d]`` when inside payload loops) and a static extent."""

    mins: tuple
    extents: tuple
    dynamic: tuple = None

    def __post_init__(self):
        if self.dynamic is None:
            object.__setattr__(self, "dynamic", (None,) * len(self.mins))


@dataclass(frozen=True)
class View:
    """A tensor standing for a producer inside payload loops: it holds the producer's points from
    ``mins`` (+ SSA ``dynamic``) on, with static ``shape`` (numpy order)."""

    tensor: str
    shape: tuple
    mins: tuple
    dynamic: tuple
    fold: tuple | None = None  # (Halide dim, factor): a circular buffer, read at each row modulo the factor
    gather: bool = False  # read only through tensor.extract (a pyramid window: analysis/pyramid.py)


def emit_tiled_stage(pb, stage_plan: StagePlan) -> str:
    """The consumer's payload loops (its tile plan's levels) with its producers' tiles at each, around its
    generic over one tile; returns the tensor of its whole region."""
    stage, index, plan, name = stage_plan.stage, stage_plan.index, stage_plan.tile, stage_plan.name
    func = stage.func
    region = plan.region
    n = len(stage.vars)
    out_t = func.output_type()
    loc = pb.def_loc(func)
    lines = pb.lines

    def ttype(sizes) -> str:
        return tensor_type(tuple(reversed(sizes)), out_t)

    carried = pb.fresh("init")
    lines.append(f"{carried} = tensor.empty() : {ttype(region.extents)} {loc}")
    offs: dict[int, list] = {d: [] for d in range(n)}  # SSA index offsets per dim, relative to region min
    dyn = [None] * n  # their sum: the current tile's start per dim
    sizes = list(region.extents)
    views: dict = {}
    closers = []
    group = None  # an open collapsed forall (nested parallel levels): [ivs left, parent sizes, offsets]
    for li, lev in enumerate(plan.levels):
        l, d = lev.loop, lev.loop.dim
        iv, res = pb.fresh("iv"), pb.fresh("t")
        slid = [prod for prod in plan.producers.get(li, []) if prod.func in plan.slides]
        windows = []  # (buffer after warm-up, its type)
        buffer_views = []
        warm_views = dict(views)
        for prod in slid:  # a warm-up reads the warm-ups of the windows it reads
            windows.append(_warm_up(pb, prod, plan, dyn, warm_views))
            buffer_views.append(_buffer_view(pb, prod, plan, dyn, *windows[-1]))
            warm_views[prod.func] = buffer_views[-1]
        pyr = [prod for prod in plan.producers.get(li, []) if prod.func in plan.pyramids]
        for prod in pyr:  # no warm-up: the first iteration computes every row it needs
            btype = tensor_type(tuple(reversed(plan.pyramids[prod.func].buffer_extents())), prod.func.output_type())
            buf = pb.fresh("buf")
            # (not tensor.empty: CSE would make buffers of one type one value, and bufferization one buffer)
            lines.append(f"{buf} = bufferization.alloc_tensor() : {btype} {pb.def_loc(prod.func)}")
            windows.append((buf, btype))
        slid = slid + pyr
        if l.kind == LoopKind.PARALLEL and group is not None:
            iv = group[0].pop(0)  # an inner loop of the collapsed forall
        elif l.kind == LoopKind.PARALLEL:
            # this level and the collapsed ones after it: one forall over their iteration spaces
            members = [lev]
            while members[-1].collapsed:
                members.append(plan.levels[li + len(members)])
            ivs = [iv] + [pb.fresh("iv") for _ in members[1:]]
            inner = pb.fresh("so")
            lines.append(
                f"{res} = scf.forall ({', '.join(ivs)}) in ({', '.join(str(m.trip) for m in members)}) "
                f"shared_outs({inner} = {carried}) -> ({ttype(sizes)}) {{"
            )
            group = [ivs[1:], list(sizes), [0] * n, res, inner]
        else:
            inner = pb.fresh("acc")
            buffers = [pb.fresh("buf") for _ in slid]
            c0, c1, ub = (pb.index_const(v, loc) for v in (0, 1, lev.trip))
            args = ", ".join([f"{inner} = {carried}"] + [f"{b} = {w}" for b, (w, _) in zip(buffers, windows)])
            types = ", ".join([ttype(sizes)] + [t for _, t in windows])
            lines.append(
                f"{res}{f':{1 + len(slid)}' if slid else ''} = scf.for {iv} = {c0} to {ub} step {c1} "
                f"iter_args({args}) -> ({types}) {{"
            )
        # ShiftInwards: the last tile starts at parent_size - size, so every tile is full
        if lev.trip > 1:
            scaled, off = pb.fresh("o"), pb.fresh("o")
            lines.append(f"{scaled} = arith.muli {iv}, {pb.index_const(l.stride, loc)} : index {loc}")
            lines.append(
                f"{off} = arith.minsi {scaled}, {pb.index_const(lev.parent_size - lev.size, loc)} : index {loc}"
            )
            offs[d] = offs[d] + [off]
            dyn[d] = pb.index_sum([(1, o) for o in offs[d]], 0, loc)
            rel = [off if dd == d else 0 for dd in range(n)]
        else:
            rel = [0] * n
        parent_sizes = list(sizes)
        sizes = list(sizes)
        sizes[d] = lev.size
        if group is not None:
            group[2][d] = rel[d]
            if lev.collapsed:
                if plan.producers.get(li):
                    raise InternalError(
                        f"Func '{name}': a producer is computed at loop '{l.name}', which is "
                        f"collapsed with the parallel loop inside it",
                        stage="payload",
                    )
                continue
            _, parent_sizes, rel, res, inner = group
            group = None
        tile = pb.fresh("tile")
        lines.append(
            f"{tile} = tensor.extract_slice {inner}{_dims(rel)} {_dims(sizes)} {_dims([1] * n)} : "
            f"{ttype(parent_sizes)} to {ttype(sizes)} {loc}"
        )
        slid_results = []
        if pyr:
            first = len(slid) - len(pyr)
            rows = _pyramid_rows(pb, plan, li, pyr, buffers[first:], iv, off if lev.trip > 1 else None, dyn, views, loc)
            slid_results.extend(zip(rows, [t for _, t in windows[first:]]))
        for prod in plan.producers.get(li, []):
            if prod in pyr:
                continue
            if prod in slid:
                k = slid.index(prod)
                buf, views[prod.func] = _slide_step(
                    pb, prod, plan, dyn, buffers[k], windows[k][1], off, views, loc, buffer_views[k]
                )
                slid_results.append((buf, windows[k][1]))
            elif prod.func in plan.computed:
                views[prod.func] = _producer_tile(pb, prod, plan, dyn, views)
            elif prod.func in plan.viewed:
                views[prod.func] = _union_view(pb, prod, plan, dyn, loc)
        closers.append((l, res, inner, rel, list(sizes), parent_sizes, slid_results))
        carried = tile

    result = pb.emit_generic(index, stage, Tile(region.mins, tuple(sizes), tuple(dyn)), [carried], views)[0]
    for l, res, inner, rel, tile_sizes, parent_sizes, slid_results in reversed(closers):
        slice_txt = (
            f"{_dims(rel)} {_dims(tile_sizes)} {_dims([1] * n)} : {ttype(tile_sizes)} into {ttype(parent_sizes)}"
        )
        if l.kind == LoopKind.PARALLEL:
            lines.append("scf.forall.in_parallel {")
            lines.append(f"  tensor.parallel_insert_slice {result} into {inner}{slice_txt} {loc}")
            lines.append("}")
        else:
            put = pb.fresh("t")
            lines.append(f"{put} = tensor.insert_slice {result} into {inner}{slice_txt} {loc}")
            yielded = [put] + [b for b, _ in slid_results]
            types = [ttype(parent_sizes)] + [t for _, t in slid_results]
            lines.append(f"scf.yield {', '.join(yielded)} : {', '.join(types)} {loc}")
        lines.append(f"}} {{{loop_attr(name, l.name)}}} {loc}")
        result = f"{res}#0" if slid_results else res
    return result


def _pyramid_rows(pb, plan, li, pyr, bufs, iv, off, dyn, views, loc) -> list:
    """In an iteration of level ``li`` (``off``: its offset, None for one iteration): each pyramid window's rows
    no earlier iteration computed (the first iteration: all it needs), one generic per row, at the row modulo
    the fold (analysis/pyramid.py). Producers first; the rows needed are worked out consumers first."""
    lev = plan.levels[li]
    d = lev.loop.dim
    lines = pb.lines
    y = pb.index_sum([(1, dyn[d])] if dyn[d] else [], plan.region.mins[d], loc)
    prev_y = None
    if off is not None:
        back = pb.index_sum([(1, iv)], -1, loc)
        scaled, prev_off = pb.fresh("o"), pb.fresh("o")
        lines.append(f"{scaled} = arith.muli {back}, {pb.index_const(lev.loop.stride, loc)} : index {loc}")
        lines.append(
            f"{prev_off} = arith.minsi {scaled}, {pb.index_const(lev.parent_size - lev.size, loc)} : index {loc}"
        )
        prev_y = pb.index_sum([(1, y), (-1, off), (1, prev_off)], 0, loc)

    def plus(v, c: int):
        return v + c if isinstance(v, int) else pb.index_sum([(1, v)], c, loc)

    def floor(t, v):
        if isinstance(v, int):
            return t(v)
        lin = pb.index_sum([(t.a, v)], t.b, loc)
        if t.d == 1:
            return lin
        q = pb.fresh("o")
        lines.append(f"{q} = arith.floordivsi {lin}, {pb.index_const(t.d, loc)} : index {loc}")
        return q

    def combine(op, values):
        values = [pb.index_const(v, loc) if isinstance(v, int) else v for v in values]
        acc = values[0]
        for v in values[1:]:
            r = pb.fresh("o")
            lines.append(f"{r} = arith.{op} {acc}, {v} : index {loc}")
            acc = r
        return acc

    def needed(last: dict, op: str):
        for prod in reversed(pyr):  # consumers first
            w = plan.pyramids[prod.func]
            last[prod.func] = combine(op, [floor(t, last[r]) for r, ts in w.readers for t in ts])
        return last

    hi = needed({None: plus(y, lev.size - 1)}, "maxsi")
    lo = needed({None: y}, "minsi")
    prev_hi = needed({None: plus(prev_y, lev.size - 1)}, "maxsi") if prev_y is not None else None

    def ssa(v):
        return pb.index_const(v, loc) if isinstance(v, int) else v

    out = []
    c1 = pb.index_const(1, loc)
    for prod, buf in zip(pyr, bufs):
        w = plan.pyramids[prod.func]
        t = prod.func.output_type()
        btype = tensor_type(tuple(reversed(w.buffer_extents())), t)
        start = lo[prod.func]
        if prev_hi is not None:
            is_first, after = pb.fresh("o"), plus(prev_hi[prod.func], 1)
            lines.append(f"{is_first} = arith.cmpi eq, {iv}, {pb.index_const(0, loc)} : index {loc}")
            start = pb.fresh("o")
            lines.append(f"{start} = arith.select {is_first}, {ssa(lo[prod.func])}, {ssa(after)} : index {loc}")
        start, end = ssa(start), ssa(plus(hi[prod.func], 1))
        row, acc, res = pb.fresh("row"), pb.fresh("acc"), pb.fresh("rows")
        lines.append(f"{res} = scf.for {row} = {start} to {end} step {c1} iter_args({acc} = {buf}) -> ({btype}) {{")
        n = len(w.extents)
        at = [0] * n
        at[w.dim] = pb.index_mod(pb.index_sum([(1, row)], -w.mins[w.dim], loc), w.fold, loc)
        mins, extents = w.row()
        dynamic = [None] * n
        dynamic[w.dim] = row
        new = _compute_into(pb, prod, acc, btype, Tile(mins, extents, tuple(dynamic)), at, views, loc)
        lines.append(f"scf.yield {new} : {btype} {loc}")
        lines.append(f"}} {loc}")
        views[prod.func] = View(res, tuple(reversed(w.buffer_extents())), w.mins, (None,) * n, (w.dim, w.fold), True)
        out.append(res)
    return out


def _dims(values) -> str:
    return "[" + ", ".join(str(v) for v in reversed(values)) + "]"


def _tile_region(plan, func, dyn, pb) -> tuple:
    """A producer's tile at its level: static (mins, extents) and the SSA offsets added to the mins (a scaled
    span's whole start, clamped into the producer's region: TilePlan.scaled_start)."""
    mins, extents = plan.producer_tile(func)
    mins, dynamic = list(mins), []
    for j, s in enumerate(plan.spans[func]):
        if s.dim is None or not s.scaled:
            dynamic.append(None if s.dim is None else dyn[s.dim])
            continue
        num, const, den, lowest, highest = plan.scaled_start(func, j)
        start = pb.index_sum([(num, dyn[s.dim])] if dyn[s.dim] else [], const, "loc(unknown)")
        if isinstance(start, int):
            mins[j], start = min(max(start // den, lowest), highest), None
        else:
            start = _clamped_div(pb, start, den, lowest, highest)
        dynamic.append(start)
    return tuple(mins), extents, tuple(dynamic)


def _clamped_div(pb, value: str, den: int, lowest: int, highest: int) -> str:
    """``clamp(value / den, lowest, highest)`` (flooring) as an index value."""
    out = value
    if den != 1:
        out = pb.fresh("o")
        pb.lines.append(f"{out} = arith.floordivsi {value}, {pb.index_const(den, 'loc(unknown)')} : index")
    for op, bound in (("maxsi", lowest), ("minsi", highest)):
        r = pb.fresh("o")
        pb.lines.append(f"{r} = arith.{op} {out}, {pb.index_const(bound, 'loc(unknown)')} : index")
        out = r
    return out


def _producer_tile(pb, prod, plan, dyn, views):
    """The producer's generic over its tile (exactly Halide's bounds for this iteration), reading the
    producers already in place through their views."""
    mins, extents, dynamic = _tile_region(plan, prod.func, dyn, pb)
    sp = pb.plan.of(prod.func)
    tensor = pb.emit_generic(sp.index, prod, Tile(mins, extents, dynamic), None, views)[0]
    # scatters and scans (analysis/tiling.py _explicit_update_spans): their loops over the tile, here in the payload
    # because fuse_into_containing_op only fuses ops with the TilingInterface (linalg), not an scf.for nest that
    # carries the tensor; each iteration of the enclosing loop gets its own tile tensor (private under a forall)
    if sp.updates:
        loc = pb.def_loc(prod.func)
        starts = [
            m if dy is None else pb.index_to_i32(pb.index_sum([(1, dy)], m, loc), loc) for m, dy in zip(mins, dynamic)
        ]
        frame = _Frame(starts, list(extents))
        current = [tensor]
        for u in sp.updates:
            if u.reduction:  # a generic over the tile (analysis/tiling.py _tiled_updates), scheduled by the script
                current = emit_reduction(pb, prod, u.update, current, Tile(mins, extents, dynamic), views)
            else:
                current = emit_loops(pb, prod, u, current, frame)
        tensor = current[0]
    return View(tensor, tuple(reversed(extents)), mins, dynamic)


def _union_view(pb, prod, plan, dyn, loc):
    """One slice of ``prod`` holding every point its readers inside the current level read."""
    func = prod.func
    mins, extents, dynamic = _tile_region(plan, func, dyn, pb)
    pmins = pb.min_of[func]
    starts = [pb.index_sum([(1, dy)] if dy else [], lo - plo, loc) for lo, dy, plo in zip(mins, dynamic, pmins)]
    np_shape = tuple(reversed(extents))
    view = pb.fresh("view")
    t = func.output_type()
    pb.lines.append(
        f"{view} = tensor.extract_slice {pb.tensor_of[func][0]}{_dims(starts)} {_dims(extents)} "
        f"{_dims([1] * len(extents))} : {tensor_type(pb.shape_of[func], t)} to "
        f"{tensor_type(np_shape, t)} {loc}"
    )
    return View(view, np_shape, mins, dynamic)


def _slide_buffer(pb, prod, plan, dyn):
    """A sliding window's buffer (every window of the loop, or the fold's rows), its type, and the static mins
    and SSA offsets of its first row."""
    slide = plan.slides[prod.func]
    mins, extents, dynamic = _tile_region(plan, prod.func, dyn, pb)
    lev = plan.levels[slide.level]
    extents = list(extents)
    if slide.fold:
        extents[slide.dim] = slide.fold
    else:
        extents[slide.dim] += lev.parent_size - lev.size  # the last window starts parent_size - size later
    return mins, extents, dynamic


def _buffer_view(pb, prod, plan, dyn, buf, btype):
    """The whole buffer (a folded one is read at each row modulo its fold)."""
    slide = plan.slides[prod.func]
    mins, extents, dynamic = _slide_buffer(pb, prod, plan, dyn)
    return View(buf, tuple(reversed(extents)), mins, dynamic, (slide.dim, slide.fold) if slide.fold else None)


def _warm_up(pb, prod, plan, dyn, views):
    """Before the loop: the buffer, with the rows of the first window that its iteration does not compute."""
    slide = plan.slides[prod.func]
    mins, extents, dynamic = _slide_buffer(pb, prod, plan, dyn)
    t = prod.func.output_type()
    loc = pb.def_loc(prod.func)
    btype = tensor_type(tuple(reversed(extents)), t)
    buf = pb.fresh("buf")
    pb.lines.append(f"{buf} = tensor.empty() : {btype} {loc}")
    warm = list(extents)
    warm[slide.dim] = slide.warm_up
    tile = Tile(mins, tuple(warm), dynamic)
    return _compute_into(pb, prod, buf, btype, tile, [0] * len(warm), views, loc), btype


def _slide_step(pb, prod, plan, dyn, buf, btype, off, views, loc, buffer_view):
    """In an iteration (``off``: the loop's offset along the slide): the rows no earlier iteration computed,
    put into the carried buffer; returns the buffer and the view of this iteration's window (of a folded buffer:
    the whole buffer, read modulo the fold)."""
    slide = plan.slides[prod.func]
    cmins, cextents = plan.computed_tile(prod.func)
    _, wextents = plan.producer_tile(prod.func)
    wmins, _, wdynamic = _tile_region(plan, prod.func, dyn, pb)
    n = len(cextents)
    at = [0] * n
    at[slide.dim] = pb.index_sum([(1, off)], slide.warm_up, loc)
    if slide.fold:
        at[slide.dim] = pb.index_mod(at[slide.dim], slide.fold, loc)
    new = _compute_into(pb, prod, buf, btype, Tile(cmins, cextents, wdynamic), at, views, loc)
    if slide.fold:
        return new, View(new, buffer_view.shape, buffer_view.mins, buffer_view.dynamic, buffer_view.fold)
    start = [0] * n
    start[slide.dim] = off
    window = pb.fresh("window")
    wshape = tuple(reversed(wextents))
    t = prod.func.output_type()
    pb.lines.append(
        f"{window} = tensor.extract_slice {new}{_dims(start)} {_dims(wextents)} {_dims([1] * n)} : "
        f"{btype} to {tensor_type(wshape, t)} {loc}"
    )
    return new, View(window, wshape, wmins, wdynamic)


def _compute_into(pb, prod, buf, btype, tile, at, views, loc) -> str:
    """The producer's generic over ``tile`` (reading the producers in ``views`` there), written into ``buf`` at
    offsets ``at``; returns the new buffer."""
    n = len(tile.extents)
    t = prod.func.output_type()
    ttype = tensor_type(tuple(reversed(tile.extents)), t)
    dest, put = pb.fresh("dest"), pb.fresh("buf")
    index = pb.plan.of(prod.func).index
    slice_txt = f"{_dims(at)} {_dims(tile.extents)} {_dims([1] * n)}"
    pb.lines.append(f"{dest} = tensor.extract_slice {buf}{slice_txt} : {btype} to {ttype} {loc}")
    value = pb.emit_generic(index, prod, tile, [dest], views)[0]
    pb.lines.append(f"{put} = tensor.insert_slice {value} into {buf}{slice_txt} : {ttype} into {btype} {loc}")
    return put
