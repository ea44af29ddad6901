"""Update definitions (``f[...] = ...`` after the pure one) in the payload.

A *reduction* update writes every point of the Func at its own pure coordinates and reads the Func only
there (``f[x, y] += g(x, r.x)``): it becomes a ``linalg.generic`` whose outs is the Func's current value,
with one reduction iterator per RVar, so the transform dialect can tile, interchange and vectorize it.

Any other update (a scatter ``h[img[r]] += 1``, a scan ``c[r] = c[r - 1] + h[r]``, a write to a fixed row)
has data-dependent or loop-carried coordinates and is not a ``linalg.generic``: it becomes explicit
``scf.for`` loops in Halide's order (pure Vars outside, ``r.x`` innermost) carrying the Func's tensor and
updating it with ``tensor.extract`` / ``tensor.insert``, which is exactly Halide's sequential semantics.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

from ..analysis.affine import map_forms
from ..analysis.scan_lanes import split_guards, update_nest
from ..error import InternalError, SerialUpdateWarning
from ..lang.schedule import LoopKind
from ..lang.types import Int
from ..lang.traversal import walk
from . import relocatable, trace
from .body import BodyEmitter
from .vector_updates import emit_vector_body
from .mlir_text import affine_map, memref_type, mlir_string, out_block_arg, storage, tensor_type, update_loop_attr


def _plain_dims(map_text: str) -> list[int]:
    """Loop dims that are a whole result of an affine_map<(...) -> (...)> (``d3``, not ``d0 + d3``)."""
    results = map_text.split("-> (", 1)[1].rsplit(")", 1)[0]
    return [int(r.strip()[1:]) for r in results.split(",") if r.strip().startswith("d") and r.strip()[1:].isdigit()]


def _affine_text(coef: dict, const: int) -> str:
    terms = []
    for d, c in sorted(coef.items()):
        if c == 0:
            continue
        terms.append(f"d{d}" if c == 1 else f"d{d} * {c}")
    if const or not terms:
        terms.append(str(const))
    return " + ".join(terms).replace("+ -", "- ")


def _uses_var_value(e) -> bool:
    """Does ``e`` use a Var as a value (a bare Var as a call's coordinate is an indexing map, not a value)?"""
    if e.kind == "var":
        return True
    if e.kind == "call":
        return any(a.kind != "var" and _uses_var_value(a) for a in e.args)
    return any(_uses_var_value(a) for a in e.args)


def emit_reduction(pb, stage, u, current: list, tile=None, views=None) -> list:
    """A ``linalg.generic`` with reduction iterators over the update's RVars. ``tile`` (codegen/tiled.py Tile):
    over that tile of a consumer's payload loops (``current`` is the tile), reading the producers in ``views``
    (their tiles there) through slices (analysis/tiling.py update_reads)."""
    b = pb.b
    func = stage.func
    region = b.region(func) if tile is None else tile
    views = views or {}
    n, k = len(stage.vars), len(u.rvars)
    loc0 = u.site.mlir_loc() if u.site else "loc(unknown)"
    # a tile's start per pure dim (an index value, or None): added to its Var's values and to the read offsets
    dyn = list(tile.dynamic) if tile is not None else [None] * n
    dyn_i32 = {d: pb.index_to_i32(v, loc0) for d, v in enumerate(dyn) if v is not None}
    total = n + k
    # loop dims: pure Vars outermost-first, then RVars outermost-first (r.x last, innermost)
    dim_of, base_of = {}, {}
    for d, v in enumerate(stage.vars):
        dim_of[v], base_of[v] = n - 1 - d, region.mins[d]
    for i, r in enumerate(u.rvars):
        dim_of[r.name()], base_of[r.name()] = n + k - 1 - i, b.rvar_range(r)[0]
    shape = tuple(reversed(region.extents))
    out_types = func.output_types()
    loc = u.site.mlir_loc() if u.site else "loc(unknown)"
    extent_of = {n - 1 - d: region.extents[d] for d in range(n)}
    extent_of.update({n + k - 1 - i: b.rvar_range(r)[1] for i, r in enumerate(u.rvars)})

    operands, slot, access_of = [], {}, {}
    for e in [*u.values, *u.predicates]:
        for node in walk(e):
            if node.kind != "call" or id(node) in access_of:
                continue
            if node.value is func:
                access_of[id(node)] = "self"
                continue
            forms = map_forms(node, dim_of, base_of)
            if forms is None:
                if node.value in views:
                    raise InternalError(
                        f"Func '{stage.name}': update {u.index} over a tile reads '{node.value.name()}' at "
                        f"coordinates that are not an indexing map",
                        stage="payload",
                    )
                access_of[id(node)] = "extract"
                continue
            view = views.get(node.value)
            mins = pb.min_of[node.value] if view is None else view.mins
            full = pb.shape_of[node.value] if view is None else view.shape
            m = len(node.args)

            def moved(j, coef, static):
                """The offset along read dim ``j``: ``static`` plus the tile's starts of its loop dims, minus
                the view's start (the same index value cancels: index_sum)."""
                terms = [(coef[d], dyn[n - 1 - d]) for d in coef if d < n and coef[d] and dyn[n - 1 - d]]
                if view is not None and view.dynamic[j] is not None:
                    terms.append((-1, view.dynamic[j]))
                return pb.index_sum(terms, static, loc0)

            # A coordinate that is one loop dim plus a constant reads a slice of exactly that loop's extent
            # through a plain dim (linalg takes loop extents from plain dims, so a wider tensor would make the
            # loop wider; it also keeps the read vectorizable); sums of dims keep the whole tensor dim.
            offsets, sizes, results = [], [], []
            for j in reversed(range(m)):
                coef, c = forms[j]
                dims = [d for d, k in coef.items() if k]
                if len(dims) == 1 and coef[dims[0]] == 1:
                    offsets.append(moved(j, coef, c - mins[j]))
                    sizes.append(extent_of[dims[0]])
                    results.append(f"d{dims[0]}")
                elif not dims:
                    offsets.append(moved(j, coef, c - mins[j]))
                    sizes.append(1)
                    results.append("0")
                else:
                    # a sum of dims (x + r.x) reads a slice from its first element: no constant in the map,
                    # which, once tiling leaves unit dims and they are folded, would be a constant index the
                    # vectorizer refuses (a zero is fine); no coefficient is negative (map_forms)
                    offsets.append(moved(j, coef, c - mins[j]))
                    sizes.append(sum(coef[d] * (extent_of[d] - 1) for d in dims) + 1)
                    results.append(_affine_text(coef, 0))
            key = (node.value, node.index, tuple(offsets), tuple(results))
            if key not in slot:
                slot[key] = len(operands)
                src = pb.tensor_of[node.value][node.index] if view is None else view.tensor
                if tuple(sizes) != tuple(full) or any(o != 0 for o in offsets):
                    sliced = pb.fresh("s")
                    pb.lines.append(
                        f"{sliced} = tensor.extract_slice {src}[{', '.join(map(str, offsets))}] "
                        f"[{', '.join(map(str, sizes))}] [{', '.join(['1'] * m)}] : "
                        f"{tensor_type(full, node.type)} to {tensor_type(tuple(sizes), node.type)} {loc}"
                    )
                    src = sliced
                operands.append(
                    (src, tensor_type(tuple(sizes), node.type), affine_map(total, results), storage(node.type))
                )
            access_of[id(node)] = slot[key]

    # linalg infers each loop's extent from an operand dimension indexed by that loop alone; an RVar that
    # only appears in sums (x + r.x) or not at all gets a never-read "domain" operand to carry its extent
    plain = {n_: True for o in operands for n_ in _plain_dims(o[2])} | {d: True for d in range(n)}
    missing = [d for d in range(total) if d not in plain]
    if missing:
        extents = [b.rvar_range(u.rvars[n + k - 1 - d])[1] for d in missing]
        dom = pb.fresh("domain")
        pb.lines.append(f"{dom} = tensor.empty() : tensor<{'x'.join(map(str, extents))}xi8> {loc}")
        operands.append(
            (dom, f"tensor<{'x'.join(map(str, extents))}xi8>", affine_map(total, [f"d{d}" for d in missing]), "i8")
        )

    # An update with no RVars combining its own value (the output block argument) with a Var's index is taken
    # by linalg's vectorizer for a reduction over no dims: the index of the innermost dim vectorizes to a vector
    # of lower rank than the tile's, the combiner's operand shapes differ, and it builds an invalid
    # vector.multi_reduction; a folder then asserts ("incorrect fold result type"), killing the process. Such
    # updates read their current values through an input operand of the same tensor instead (the loops read
    # the tensor as it was: bufferization copies it once; updates without a Var keep the output argument).
    self_operand = {}
    if k == 0 and any(_uses_var_value(e) for e in [*u.values, *u.predicates]):
        for j, t in enumerate(out_types):
            self_operand[j] = len(operands)
            operands.append(
                (current[j], tensor_type(shape, t), affine_map(total, [f"d{i}" for i in range(n)]), storage(t))
            )
    block_args = [f"%a{i}" for i in range(len(operands))]
    body_lines: list[str] = []
    index_cache: dict = {}

    def current_value(j: int) -> str:
        return block_args[self_operand[j]] if self_operand else out_block_arg(j)

    def leaf(e) -> str:
        if e.kind == "param":
            return pb.param_value(em, e)
        if e.kind in ("var", "rvar"):
            name = e.value.name()
            if name not in index_cache:
                idx = em.op(f"linalg.index {dim_of[name]} : index", "i")
                v = em.op(f"arith.index_cast {idx} : index to i32", "x")
                # a pure Var's min is the region's position: an argument in relocatable code (the pure
                # definition's own, codegen/relocatable.py); an RVar's is the RDom's, the same everywhere
                at = None
                if e.kind == "var":
                    site = ("coord", pb.name_of(func), n - 1 - dim_of[name])
                    at = relocatable.position(pb.origins, site, base_of[name], e.type)
                    if (n - 1 - dim_of[name]) in dyn_i32:  # a tile's start
                        v = em.op(f"arith.addi {v}, {dyn_i32[n - 1 - dim_of[name]]} : i32", "x")
                if at is not None or base_of[name]:
                    v = em.op(f"arith.addi {v}, {at or em.const(base_of[name], e.type)} : i32", "x")
                index_cache[name] = v
            return index_cache[name]
        acc = access_of[id(e)]
        if acc == "self":
            return trace.load(pb, em, e, em.from_storage(current_value(e.index), e.type))
        if acc == "extract":
            return trace.load(pb, em, e, pb.emit_extract(em, e))
        return trace.load(pb, em, e, em.from_storage(block_args[acc], e.type))

    em = BodyEmitter(body_lines, pb.fresh, loc, leaf)
    em.trace_lanes = next((p.trace_lanes for p in pb.plan.of(func).updates if p.update is u), 1)
    results = [em.emit(v) for v in u.values]
    cond = None
    if u.predicates:
        cond = em.emit(u.predicates[0])
        for p in u.predicates[1:]:
            cond = em.op(f"arith.andi {cond}, {em.emit(p)} : i1")
    trace.stores(em, func, pb.name_of(func), lambda: [em.emit(a) for a in u.args], results, out_types, cond)
    if u.predicates:
        results = [
            em.op(f"arith.select {cond}, {r}, {em.from_storage(current_value(j), t)} : {t.mlir}")
            for j, (r, t) in enumerate(zip(results, out_types))
        ]
    results = [em.to_storage(r, t) for r, t in zip(results, out_types)]

    maps = [o[2] for o in operands] + [affine_map(total, [f"d{i}" for i in range(n)])] * len(out_types)
    attrs = f"hl.update_of = {mlir_string(pb.name_of(func))}, hl.update = {u.index} : i64"
    return pb.generic_op(
        maps,
        ["parallel"] * n + ["reduction"] * k,
        operands,
        block_args,
        current,
        shape,
        out_types,
        attrs,
        body_lines,
        results,
        loc,
    )


def emit_loops(pb, stage, up, current: list, tile=None) -> list:
    """Explicit loops for scatters and scans (see the module docstring for why), in the schedule's order.
    Serial: ``scf.for`` carrying the tensors. A parallel loop over a pure Var whose iterations' slices of the
    Func are static (analysis/scan_lanes.py parallel_slice) is an ``scf.forall`` over the tensor, each iteration
    updating its slice in place (disjoint: Halide's update rule). Any other parallel loop: the loops store into
    the Func's buffer (a copy of it), the parallel one an ``scf.forall``; over a pure Var its iterations write
    disjoint points, over an RVar (``atomic()``) each store is an atomic read-modify-write. ``tile``: a
    ``_Frame`` (its mins ints or i32 values) when a consumer's payload loops compute the Func tile by tile
    (codegen/tiled.py): the loops run over the tile's pure coordinates and ``current`` is the tile."""
    b = pb.b
    u = up.update
    func = stage.func
    region = b.region(func) if tile is None else tile
    nest, span, over = update_nest(stage, up.loops, region, b.rvar_range, u)
    par = next((i for i, l in enumerate(nest) if l[2] == LoopKind.PARALLEL), None)
    n_r = len(u.rvars)
    # a vectorized pure Var loop: its lanes are independent (codegen/vector_updates.py); unrolled loops are
    # tagged for the script's unroll (any loop: unrolling keeps the order)
    lanes_plan = up.lanes
    lane_loop = next((l for l in nest if lanes_plan is not None and l[0] == lanes_plan.loop), None)
    in_copy = par is not None and up.sliced is None  # the loops store into a copy of the buffer: no unroll tags
    serial_kinds = (LoopKind.VECTORIZED,)
    lanes = [(name, kind) for name, _, kind, _, _ in nest if kind in serial_kinds and name != (lane_loop or ("",))[0]]
    if lanes:
        # the values are the same serially; say so rather than let a vectorize/unroll request silently do nothing
        site = next((d.site for d in u.schedule.directives if d.args and d.args[0] == lanes[0][0]), None)
        warnings.warn(
            f"{site}: update {u.index} of Func '{stage.name}' writes data-dependent or shifted "
            f"coordinates (a scatter, a scan or a fixed row), so its {lanes[0][1]} loop "
            f"'{lanes[0][0]}' runs as a serial scalar loop",
            SerialUpdateWarning,
            stacklevel=2,
        )
    dim_of = {r.name(): i for i, r in enumerate(u.rvars)} | {v: n_r + d for d, v in enumerate(stage.vars)}
    if in_copy:
        return _emit_memref_loops(pb, stage, u, current, region, nest, span, over, par, dim_of, lanes_plan)
    types = func.output_types()
    shape = tuple(reversed(region.extents))
    ttypes = [tensor_type(shape, t) for t in types]
    m = len(ttypes)
    loc = u.site.mlir_loc() if u.site else "loc(unknown)"
    types_txt = ", ".join(ttypes)

    def results_of(name: str) -> list:
        return [name] if m == 1 else [f"{name}#{k}" for k in range(m)]

    lines = pb.lines
    c0, c1 = pb.fresh("c"), pb.fresh("c")
    lines.append(f"{c0} = arith.constant 0 : index {loc}")
    lines.append(f"{c1} = arith.constant 1 : index {loc}")
    acc = list(current)
    ivs: dict = {}
    opened = []  # per loop: its result, the loop, its iter_args' types, and for the forall its slices' ends
    frame = region  # the index space of the tensors the body updates: the Func's, or a parallel iteration's slice
    loops = [l for l in nest if l is not lane_loop]
    for loop in loops:
        name, ext = loop[0], loop[1]
        iv, res = pb.fresh("iv"), pb.fresh("t")
        its = [pb.fresh("acc") for _ in range(m)]
        carried = ", ".join(f"{it} = {a}" for it, a in zip(its, acc))
        ivs[name] = iv
        if par is not None and loop is nest[par]:
            lines.append(
                f"{res}{f':{m}' if m > 1 else ''} = scf.forall ({iv}) in ({ext}) shared_outs({carried}) "
                f"-> ({types_txt}) {{"
            )
            frame, ends, acc, ttypes = _slice(pb, up.sliced, n_r, nest[: par + 1], ivs, region, its, types, loc, func)
            opened.append((res, loop, types_txt, (its, ends)))
            types_txt = ", ".join(ttypes)
            continue
        ub = pb.fresh("c")
        lines.append(f"{ub} = arith.constant {ext} : index {loc}")
        lines.append(
            f"{res}{f':{m}' if m > 1 else ''} = scf.for {iv} = {c0} to {ub} step {c1} "
            f"iter_args({carried}) -> ({types_txt}) {{"
        )
        opened.append((res, loop, types_txt, None))
        acc = its

    body: list[str] = []
    shape = tuple(reversed(frame.extents))
    if lane_loop is not None:
        vspan, shifts = span, None
        if tile is not None:  # the plan's dense forms count from the region's (static) mins: shift by the tile's
            vspan, shifts = _tile_shifts(pb, b.region(func), tile, span, n_r, loc)
        new = emit_vector_body(
            pb, body, loc, u, loops, lanes_plan, vspan, over, dim_of, ivs, acc, frame, func, shifts=shifts
        )
        cond = em = None
    else:
        em, cond = _body_emitter(
            pb,
            body,
            loc,
            u,
            nest,
            span,
            over,
            dim_of,
            ivs,
            lambda em_, e: pb.emit_extract(em_, e, tensor=acc[e.index], mins=frame.mins, shape=shape),
            func,
        )
    if cond is not None:  # RDom.where or a split's guard: the update is not evaluated where it is false
        new = pb.fresh("t")
        body.append(f"{new}{f':{m}' if m > 1 else ''} = scf.if {cond} -> ({types_txt}) {{")
        updated = _insert(pb, em, u, acc, frame, ttypes, loc, func)
        body.append(f"scf.yield {', '.join(updated)} : {types_txt} {loc}")
        body.append("} else {")
        body.append(f"scf.yield {', '.join(acc)} : {types_txt} {loc}")
        body.append(f"}} {loc}")
        new = results_of(new)
    elif em is not None:
        new = _insert(pb, em, u, acc, frame, ttypes, loc, func)
    lines.extend(body)
    for res, (name, _, kind, _, _), level_types, forall in reversed(opened):
        if forall is not None:  # each iteration's slice back into the Func, in place
            lines.append("scf.forall.in_parallel {")
            lines.extend(f"tensor.parallel_insert_slice {v} into {it}{end} {loc}" for v, it, end in zip(new, *forall))
            lines.append(f"}} {loc}")
            lines.append(f"}} {loc}")
        else:
            lines.append(f"scf.yield {', '.join(new)} : {level_types} {loc}")
            tag = f" {{{update_loop_attr(pb.name_of(func), u.index, name)}}}" if kind == LoopKind.UNROLLED else ""
            lines.append(f"}}{tag} {loc}")
        new = results_of(res)
    return new


def _tile_shifts(pb, region, tile, span, n_r, loc) -> tuple:
    """For the vector body over a tile (emit_loops ``tile``): the span with the region's static mins, and per
    pure dim starting at a dynamic tile start, that start minus the region's min (an i32 value)."""
    vspan, shifts = dict(span), {}
    for d, lo in enumerate(tile.mins):
        if n_r + d not in span:
            continue
        vspan[n_r + d] = (region.mins[d], span[n_r + d][1])
        if isinstance(lo, str) or lo != region.mins[d]:
            c, off = pb.fresh("c"), pb.fresh("x")
            pb.lines.append(f"{c} = arith.constant {region.mins[d]} : i32 {loc}")
            lo_v = lo
            if not isinstance(lo, str):
                lo_v = pb.fresh("c")
                pb.lines.append(f"{lo_v} = arith.constant {lo} : i32 {loc}")
            pb.lines.append(f"{off} = arith.subi {lo_v}, {c} : i32 {loc}")
            shifts[n_r + d] = off
    return vspan, shifts


class _Frame(NamedTuple):
    mins: list  # per Halide dim: an int, or an i32 SSA value (a parallel iteration's slice)
    extents: list


def _slice(pb, sliced, n_r, outside, ivs, region, outs, types, loc, func):
    """The slice of the Func one iteration of the parallel loop updates (analysis/scan_lanes.py parallel_slice):
    its frame, the text after each shared out in ``tensor.parallel_insert_slice``, the slices, their types."""
    dim, size = sliced
    d = dim - n_r  # the Halide dim
    lines = pb.lines
    off = None
    for name, _, _, dd, st in outside:  # the slice's first point: the loops of its dim at or outside the forall
        if dd != dim:
            continue
        t = ivs[name]
        if st != 1:
            k = pb.fresh("c")
            lines.append(f"{k} = arith.constant {st} : index {loc}")
            t2 = pb.fresh("i")
            lines.append(f"{t2} = arith.muli {t}, {k} : index {loc}")
            t = t2
        if off is not None:
            t2 = pb.fresh("i")
            lines.append(f"{t2} = arith.addi {off}, {t} : index {loc}")
            t = t2
        off = t
    lo = pb.fresh("x")
    lines.append(f"{lo} = arith.index_cast {off} : index to i32 {loc}")
    k = _position(pb, ("min", id(func), d), region.mins[d])
    if k is not None or region.mins[d]:
        lo2 = pb.fresh("x")
        if k is None:
            k = pb.fresh("c")
            lines.append(f"{k} = arith.constant {region.mins[d]} : i32 {loc}")
        lines.append(f"{lo2} = arith.addi {lo}, {k} : i32 {loc}")
        lo = lo2
    mins, extents = list(region.mins), list(region.extents)
    mins[d], extents[d] = lo, size
    full, part = tuple(reversed(region.extents)), tuple(reversed(extents))
    rank = len(full)
    offsets = ", ".join(off if j == rank - 1 - d else "0" for j in range(rank))
    end = f"[{offsets}] [{', '.join(map(str, part))}] [{', '.join(['1'] * rank)}]"
    slices, ttypes = [], []
    for o, t in zip(outs, types):
        s = pb.fresh("s")
        lines.append(f"{s} = tensor.extract_slice {o}{end} : {tensor_type(full, t)} to {tensor_type(part, t)} {loc}")
        slices.append(s)
        ttypes.append(tensor_type(part, t))
    ends = [f"{end} : {tensor_type(part, t)} into {tensor_type(full, t)}" for t in types]
    return _Frame(mins, extents), ends, slices, ttypes


def _position(pb, site: tuple, value, t=None):
    """``value`` (a position: a pure coordinate's min, the Func's min) as an argument of relocatable code, or
    None (codegen/relocatable.py). The Func's min shares its site with the reads of the Func (emit_extract)."""
    if isinstance(value, str):
        return None
    return relocatable.position(pb.origins, site, value, Int(32) if t is None else t)


def _body_emitter(pb, body, loc, u, nest, span, over, dim_of, ivs, self_read, func):
    """The emitter of the loop body (each dim's coordinate: its min plus sum(iv * stride) of its loops) and
    the condition under which the update runs there (RDom.where, split guards), or None."""
    coords: dict = {}

    def coord(dim) -> str:
        if dim not in coords:
            coords[dim] = em.index_sum([(ivs[name], st) for name, _, _, d, st in nest if d == dim])
        return coords[dim]

    def leaf(e) -> str:
        if e.kind == "param":
            return pb.param_value(em, e)
        if e.kind in ("var", "rvar"):
            dim = dim_of[e.value.name()]
            lo = span[dim][0]
            if isinstance(lo, str):  # (an i32 value: the start of a tile, codegen/tiled.py)
                return em.op(f"arith.addi {coord(dim)}, {lo} : i32", "x")
            # a pure Var's min is the region's position (an argument in relocatable code: _position)
            at = _position(pb, ("coord", pb.name_of(func), dim - len(u.rvars)), lo) if e.kind == "var" else None
            if at is None and not lo:
                return coord(dim)
            return em.op(f"arith.addi {coord(dim)}, {at or em.const(lo, Int(32))} : i32", "x")
        if e.value is func:
            return trace.load(pb, em, e, self_read(em, e))
        return trace.load(pb, em, e, pb.emit_extract(em, e))

    em = BodyEmitter(body, pb.fresh, loc, leaf)
    conds = [em.op(f"arith.cmpi slt, {coord(dim)}, {em.const(span[dim][1], Int(32))} : i32") for dim in sorted(over)]
    for finer, s in split_guards(nest):
        sub = em.index_sum([(ivs[name], st) for name, st in finer])
        conds.append(em.op(f"arith.cmpi slt, {sub}, {em.const(s, Int(32))} : i32"))
    conds += [em.emit(p) for p in u.predicates]
    cond = None
    for c in conds:
        cond = c if cond is None else em.op(f"arith.andi {cond}, {c} : i1")
    return em, cond


# memref.atomic_rmw kinds LLVM has an atomicrmw for; other ops are a generic_atomic_rmw (a compare-and-swap loop)
_RMW = {
    ("add", "i"): "addi",
    ("add", "f"): "addf",
    ("min", "f"): "minnumf",  # (body.py's min / max of floats: the same ops, atomic)
    ("max", "f"): "maxnumf",
    ("max", "s"): "maxs",
    ("max", "u"): "maxu",
    ("min", "s"): "mins",
    ("min", "u"): "minu",
    ("or", "b"): "ori",
    ("and", "b"): "andi",
}


def _rmw_kind(op: str, t) -> str | None:
    if t.is_bool():
        return _RMW.get((op, "b"))
    if t.is_float():
        return _RMW.get((op, "f"))
    return _RMW.get((op, "i")) or _RMW.get((op, "u" if t.is_uint() else "s"))


def _emit_memref_loops(pb, stage, u, current, region, nest, span, over, par, dim_of, lanes=None) -> list:
    """The loops of an update with a parallel loop, storing into the Func's buffers (see emit_loops)."""
    from ..lang.rfactor import prove_associativity, same_expr

    func = stage.func
    shape = tuple(reversed(region.extents))
    types = func.output_types()
    loc = u.site.mlir_loc() if u.site else "loc(unknown)"
    # iterations of an RVar loop may hit the same point: atomic(), else allow_race_conditions(): plain stores
    atomic = nest[par][3] < len(u.rvars) and u.schedule.atomic
    patterns = prove_associativity(func, u) if atomic else None
    # an update no atomicrmw does is a compare-and-swap loop; LLVM's cmpxchg takes integers: a float Func's
    # buffer is also seen as integers of its width (int_mem), the loop swaps those bits
    cas = atomic and not (patterns is not None and _rmw_kind(patterns[0].op, types[0]))
    cas = cas and any(n.kind == "call" and n.value is func for n in walk(u.values[0]))
    int_mem = None
    lines = pb.lines
    mems = []
    for t, cur in zip(types, current):
        # a buffer of its own, not to_buffer of the tensor: canonicalization folds to_tensor(to_buffer(t)) into t,
        # which would drop the stores (one copy of the Func per update)
        mem = pb.fresh("mem")
        if cas and t.is_float() and not mems:
            raw, at, int_mem = pb.fresh("raw"), pb.fresh("c"), pb.fresh("mem")
            nbytes = t.bits() // 8
            for n in shape:
                nbytes *= n
            lines.append(f"{raw} = memref.alloc() {{alignment = 64 : i64}} : memref<{nbytes}xi8> {loc}")
            lines.append(f"{at} = arith.constant 0 : index {loc}")
            for name, et in ((mem, storage(t)), (int_mem, f"i{t.bits()}")):
                lines.append(
                    f"{name} = memref.view {raw}[{at}][] : memref<{nbytes}xi8> to "
                    f"memref<{''.join(f'{n}x' for n in shape)}{et}> {loc}"
                )
        else:
            lines.append(f"{mem} = memref.alloc() {{alignment = 64 : i64}} : {memref_type(shape, t)} {loc}")
        lines.append(
            f"bufferization.materialize_in_destination {cur} in restrict writable {mem} : "
            f"({tensor_type(shape, t)}, {memref_type(shape, t)}) -> () {loc}"
        )
        mems.append(mem)
    c0, c1 = pb.fresh("c"), pb.fresh("c")
    lines.append(f"{c0} = arith.constant 0 : index {loc}")
    lines.append(f"{c1} = arith.constant 1 : index {loc}")
    ivs: dict = {}
    loops = [l for l in nest if lanes is None or l[0] != lanes.loop]  # the lanes of a vector: no loop of their own
    for loop in loops:
        name, ext = loop[0], loop[1]
        iv = pb.fresh("iv")
        if loop is nest[par]:
            lines.append(f"scf.forall ({iv}) in ({ext}) {{")
        else:
            ub = pb.fresh("c")
            lines.append(f"{ub} = arith.constant {ext} : index {loc}")
            lines.append(f"scf.for {iv} = {c0} to {ub} step {c1} {{")
        ivs[name] = iv

    def index_of(em, args) -> list:
        m = len(args)
        idx = [None] * m
        for j, a in enumerate(args):
            v = em.emit(a)
            at = _position(pb, ("min", id(func), j), region.mins[j], a.type)
            if at is not None or region.mins[j]:
                v = em.op(f"arith.subi {v}, {at or em.const(region.mins[j], a.type)} : i32", "x")
            idx[m - 1 - j] = em.op(f"arith.index_cast {v} : i32 to index", "i")
        return idx

    def load(em, e) -> str:
        idx = index_of(em, e.args)
        v = em.op(f"memref.load {mems[e.index]}[{', '.join(idx)}] : {memref_type(shape, e.type)}", "g")
        return em.from_storage(v, e.type)

    def unroll_tag(loop) -> str:
        # serial unrolled loops are tagged for the script's unroll, as in emit_loops
        if loop[2] == LoopKind.UNROLLED and loop is not nest[par]:
            return f" {{{update_loop_attr(pb.name_of(func), u.index, loop[0])}}}"
        return ""

    body: list[str] = []
    if lanes is not None:  # its iterations write disjoint points (a pure Var's): plain vector stores
        emit_vector_body(pb, body, loc, u, loops, lanes, span, over, dim_of, ivs, mems, region, func, memref=True)
        return _close_memref_loops(pb, body, loops, mems, types, shape, loc, unroll_tag)
    em, cond = _body_emitter(pb, body, loc, u, nest, span, over, dim_of, ivs, load, func)
    inner: list[str] = []
    if cond is not None:
        body.append(f"scf.if {cond} {{")
    idx = index_of(em, u.args)
    where = ", ".join(idx)
    if not atomic:
        values = [em.to_storage(em.emit(v), v.type) for v in u.values]  # all read before any is stored
        for v, mem, t in zip(values, mems, types):
            inner.append(f"memref.store {v}, {mem}[{where}] : {memref_type(shape, t)} {loc}")
    elif patterns is not None and _rmw_kind(patterns[0].op, types[0]):
        t = types[0]
        v = em.to_storage(em.emit(patterns[0].other), t)
        inner.append(
            f"{pb.fresh('old')} = memref.atomic_rmw {_rmw_kind(patterns[0].op, t)} {v}, "
            f"{mems[0]}[{where}] : ({storage(t)}, {memref_type(shape, t)}) -> {storage(t)} {loc}"
        )
    elif not any(n.kind == "call" and n.value is func for n in walk(u.values[0])):  # a store of its own value
        t = types[0]
        v = em.to_storage(em.emit(u.values[0]), t)
        inner.append(
            f"{pb.fresh('old')} = memref.atomic_rmw assign {v}, {mems[0]}[{where}] : "
            f"({storage(t)}, {memref_type(shape, t)}) -> {storage(t)} {loc}"
        )
    else:  # any other update (override_associativity_test, a mul): a compare-and-swap loop
        t = types[0]
        cur = pb.fresh("cur")
        region_lines: list[str] = []

        def rleaf(e) -> str:
            if e.kind == "call" and e.value is func and all(same_expr(a, b) for a, b in zip(e.args, u.args)):
                return rem.from_storage(cur, t)  # the point being updated is the loop's argument
            # anything else is read once, in the loop body before the loop: the region may hold no memory reads
            return em.emit(e)

        rem = BodyEmitter(region_lines, pb.fresh, loc, rleaf)
        new = rem.to_storage(rem.emit(u.values[0]), t)
        res = pb.fresh("old")
        if int_mem is None:
            inner.append(f"{res} = memref.generic_atomic_rmw {mems[0]}[{where}] : {memref_type(shape, t)} {{")
            inner.append(f"^bb0({cur}: {storage(t)}):")
            yielded, yield_type = new, storage(t)
        else:  # the loop swaps the bits: the value is a bitcast of them, and back
            bits, yield_type = pb.fresh("bits"), f"i{t.bits()}"
            inner.append(
                f"{res} = memref.generic_atomic_rmw {int_mem}[{where}] : "
                f"memref<{''.join(f'{n}x' for n in shape)}{yield_type}> {{"
            )
            inner.append(f"^bb0({bits}: {yield_type}):")
            inner.append(f"{cur} = arith.bitcast {bits} : {yield_type} to {storage(t)} {loc}")
            yielded = pb.fresh("bits")
            region_lines.append(f"{yielded} = arith.bitcast {new} : {storage(t)} to {yield_type} {loc}")
        inner.extend(region_lines)
        inner.append(f"memref.atomic_yield {yielded} : {yield_type} {loc}")
        inner.append(f"}} {loc}")
    body.extend(inner)
    if cond is not None:
        body.append(f"}} {loc}")
    return _close_memref_loops(pb, body, nest, mems, types, shape, loc, unroll_tag)


def _close_memref_loops(pb, body, loops, mems, types, shape, loc, tag=lambda loop: "") -> list:
    """The body, the loops' ends (each with ``tag(loop)``), and the Func's buffers back as tensors."""
    lines = pb.lines
    lines.extend(body)
    for loop in reversed(loops):
        lines.append(f"}}{tag(loop)} {loc}")
    out = []
    for t, mem in zip(types, mems):
        name = pb.fresh("t")
        lines.append(
            f"{name} = bufferization.to_tensor {mem} restrict writable : {memref_type(shape, t)} to "
            f"{tensor_type(shape, t)} {loc}"
        )
        out.append(name)
    return out


def _insert(pb, em, u, acc: list, region, ttypes: list, loc, func) -> list:
    """All the Tuple's new values are computed from the old ones before any is stored (Halide's semantics); with
    several stores (hl.scatter/gather: ``u.stores``), every lane's values before any lane is stored."""
    lanes = [(u.args, u.values), *u.stores]
    computed = []
    for args, exprs in lanes:
        values = [em.emit(v) for v in exprs]
        trace.stores(
            em, func, pb.name_of(func), lambda a=args: [em.emit(x) for x in a], values, [v.type for v in exprs]
        )
        computed.append([em.to_storage(v, e.type) for v, e in zip(values, exprs)])
    for (args, _), values in zip(lanes, computed):
        acc = _insert_lane(pb, em, args, values, acc, region, ttypes, loc, func)
    return acc


def _insert_lane(pb, em, args, values, acc: list, region, ttypes: list, loc, func) -> list:
    m = len(args)
    idx = [None] * m
    for j, a in enumerate(args):
        v = em.emit(a)
        if isinstance(region.mins[j], str):  # a parallel iteration's slice: its dynamic min
            v = em.op(f"arith.subi {v}, {region.mins[j]} : i32", "x")
        else:
            at = _position(pb, ("min", id(func), j), region.mins[j], a.type)
            if at is not None or region.mins[j]:
                v = em.op(f"arith.subi {v}, {at or em.const(region.mins[j], a.type)} : i32", "x")
        idx[m - 1 - j] = em.op(f"arith.index_cast {v} : i32 to index", "i")
    out = []
    for value, tensor, ttype in zip(values, acc, ttypes):
        name = pb.fresh("t")
        em.lines.append(f"{name} = tensor.insert {value} into {tensor}[{', '.join(idx)}] : {ttype} {loc}")
        out.append(name)
    return out
