"""Bounds and loops of a pipeline compiled for any size (ahead-of-time functions called with buffers of sizes known
only at run time).

The class of pipelines handled (anything else is refused with a HalideError, see ``refuse``): pure definitions
and updates at the pure Vars over small constant RDoms, no Tuples, every Func inlined or computed at the root
(``compute_at`` is computed at the root, same values, with a SlowPathWarning), Funcs of the output's rank and
ImageParams read at ``var + constant`` (slices), at ``±var + constant`` of any one Var or a constant per dimension
(transposes, flips: gathers), ImageParams also at coordinates clamped to the buffer's own bounds
(``BoundaryConditions``), inputs ImageParams and Params, schedules ``split``/``tile``/``reorder``/``vectorize``/
``parallel``/``unroll``.

Regions are Halide's Box of Exprs in the only form this class needs: each dim of a stage (and of what an input
must cover) is a union of intervals affine in one output dim's runtime min and max, ``[out.min_od + lo,
out.max_od + hi]``, or flipped ``[lo - out.max_od, hi - out.min_od]`` (``c - x`` over [min, max] reads
[c - max, c - min]), or constant (see InputNeed; the common case: dim d of the output widened by its taps). The
payload computes them with index arithmetic (codegen/dynamic_payload.py) and the wrapper checks the inputs
against theirs (aot/anysize.py).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from ..error import ComputeAtWarning, HalideError
from ..lang.gpu_schedule import MemoryType, memory_type
from ..lang.param import ImageParam
from ..lang.schedule import DirectiveKind, LevelKind
from ..lang.source import user_site
from ..lang.traversal import rebuild, walk
from .affine import linear_form, slice_forms


ANY_SIZE_MEMORY = (MemoryType.Auto, MemoryType.Heap, MemoryType.Stack)


class AnySizeComputeAtWarning(ComputeAtWarning):
    """A compute_at Func in an any-size AOT function is computed at the root (same values, more memory traffic)."""


def refuse(what: str) -> HalideError:
    return HalideError(
        f"{user_site()}: {what}: halide_mlir can't compile this pipeline for sizes known only at run time; give the "
        f"output (and the ImageParams) estimates (set_estimates) to get a function compiled for that fixed size"
    )


@dataclass
class Loop:
    """One loop of a stage's nest: over Halide dim ``dim`` in steps of ``stride``; ``extent`` is its trip count
    when constant (the inner loop of a split), None when it depends on the runtime size."""

    name: str
    dim: int
    stride: int
    extent: int | None
    kind: str = "serial"  # serial, parallel, vectorized, unrolled


@dataclass
class Gather:
    """A read of an ImageParam at coordinates clamped to its own bounds (or ``var + c`` in some dims)."""

    holder: object
    call: object


@dataclass
class DynStage:
    func: object
    name: str
    vars: list
    value: object  # the (inlined) Expr
    region: list  # per dim, its forms (see InputNeed): {(output dim, sign): (lo, hi)}
    slices: list = field(default_factory=list)  # (source Func or ImageParam, offsets per Halide dim), distinct
    loops: list = field(default_factory=list)  # Loop, innermost first
    # boundary conditions (Halide's loop partitioning): per dim, the (id(ImageParam), c) of reads at
    # clamp(var + c) in it; per gather call (by id), its coordinates' offsets inside the clamps, or None
    clamps: dict = field(default_factory=dict)
    gathers: dict = field(default_factory=dict)
    updates: list = field(default_factory=list)  # DynUpdate
    func_gathers: set = field(default_factory=set)  # id of each call of a Func read transposed or flipped

    def partitioned(self) -> bool:
        """Computed in pieces: an interior where no clamp changes a coordinate (the gathers are slices there)
        and the borders around it (gathers)."""
        return bool(self.gathers) and all(v is not None for v in self.gathers.values())


# An update's RDom is unrolled into the element body (one generic reading slices, vectorized like a pure stage):
# up to this many points.
MAX_RDOM_POINTS = 64


@dataclass
class DynUpdate:
    """A pure-coordinate update ``f(x, y) op= ...`` over an RDom of constant bounds: one elementwise generic after
    the pure definition, its body the update applied at each point of the RDom in Halide's loop order (the first
    RVar innermost), so each point's value is computed in the same order as Halide's loops."""

    index: int
    value: object
    rvars: list  # (name, min, extent) per RVar
    loops: list
    reads: list = field(default_factory=list)  # (source, per Halide dim (constant, RVar index or None)), distinct


@dataclass
class InputNeed:
    """What an ImageParam must cover: per dim None where it is only read at clamped coordinates (then any nonempty
    buffer will do), else {(output dim od, sign): (lo, hi)}, the region the union of: sign 1, [out.min_od + lo,
    out.max_od + hi] (reads at ``var_od + c``); sign -1, [lo - out.max_od, hi - out.min_od] (reads at ``c - var_od``);
    od None and sign 0, [lo, hi] (constants). ``gathered``: read through gathers (dense rows, aot/anysize.py)."""

    holder: object
    span: list
    clamped: bool = False
    gathered: bool = False


@dataclass
class DynPlan:
    pipeline: object
    output: object
    stages: list  # DynStage in realization order, the output last
    inputs: list  # ImageParams in the pipeline's order
    needs: dict  # id(ImageParam) -> InputNeed


def _bounded(e, holder, d: int):
    """If ``e`` stays inside [holder.min(d), holder.max(d)] by construction, as the boundary conditions write their
    coordinates (repeat_edge and constant_exterior clamp, repeat_image wraps, mirror_* reflect), the coordinate
    ``v`` it is computed from (``e == v`` wherever ``v`` is inside); else None."""

    def dim(x, what):
        return x.kind == "buffer_dim" and x.value[0] is holder and x.value[1] == d and x.value[2] == what

    def ext_minus_1(x):
        return x.kind == "sub" and dim(x.args[0], "extent") and x.args[1].kind == "const" and x.args[1].value == 1

    def zero(x):
        return x.kind == "const" and x.value == 0

    if _clamped(e, holder, d):
        return e.args[0].args[0]
    if e.kind == "add" and dim(e.args[1], "min"):
        a = e.args[0]
        if a.kind == "mod" and dim(a.args[1], "extent") and a.args[0].kind == "sub" and dim(a.args[0].args[1], "min"):
            return a.args[0].args[0]  # repeat_image: (v - min) % extent + min
    # mirror_*: select(v < min, R, select(v < min + extent, v, R)), R = clamp(_, 0, extent - 1) + min
    if e.kind == "select" and e.args[2].kind == "select":
        c1, r1, (c2, v, r2) = e.args[0], e.args[1], e.args[2].args

        def reflected(r):
            if r.kind != "add" or not dim(r.args[1], "min"):
                return False
            c = r.args[0]
            return c.kind == "max" and zero(c.args[1]) and c.args[0].kind == "min" and ext_minus_1(c.args[0].args[1])

        def same(a, b):  # (inlining may copy the coordinate into each of its uses)
            return a is b or str(a) == str(b)

        lo_ok = c1.kind == "lt" and same(c1.args[0], v) and dim(c1.args[1], "min")
        hi = c2.args[1] if c2.kind == "lt" else None
        hi_ok = same(c2.args[0], v) and hi is not None and hi.kind == "add" and dim(hi.args[0], "min")
        if lo_ok and hi_ok and dim(hi.args[1], "extent") and reflected(r1) and reflected(r2):
            return v
    return None


def _clamped(e, holder, d: int) -> bool:
    """Is ``e`` clamped to [holder.min(d), holder.max(d)] (``max(min(v, min + extent - 1), min)`` as
    BoundaryConditions write it, or ``min(max(v, min), max)``)?"""

    def is_min(x):
        return x.kind == "buffer_dim" and x.value[0] is holder and x.value[1] == d and x.value[2] == "min"

    def is_max(x):
        if x.kind != "sub" or x.args[1].kind != "const" or x.args[1].value != 1 or x.args[0].kind != "add":
            return False
        a, b = x.args[0].args
        ext = b.kind == "buffer_dim" and b.value[0] is holder and b.value[1] == d and b.value[2] == "extent"
        return is_min(a) and ext

    if e.kind == "max" and is_min(e.args[1]) and e.args[0].kind == "min":
        return is_max(e.args[0].args[1])
    if e.kind == "min" and is_max(e.args[1]) and e.args[0].kind == "max":
        return is_min(e.args[0].args[1])
    return False


def _loops(stage, rank: int, auto_lanes: int | None, update=None, extents=None) -> list:
    """The stage's loop nest (innermost first) from its directives, in the form the transform script needs; of
    its update ``update``: the RVars' loops (dims rank, rank + 1, ...) innermost, then the pure Vars'.
    ``extents``: {dim: constant extent} the output's constraints fix (its buffer is checked against them)."""
    loops = [Loop(v, d, 1, (extents or {}).get(d)) for d, v in enumerate(stage.vars)]
    directives = stage.directives
    if update is not None:
        loops = [Loop(r.name(), rank + j, 1, None) for j, r in enumerate(update.rvars)] + loops
        directives = update.schedule.directives

    def find(name: str) -> int:
        for i, lp in enumerate(loops):
            if lp.name == name:
                return i
        raise refuse(f"loop '{name}' of Func '{stage.func.name()}' is not one the any-size path models")

    vectorized = False
    for dv in directives:
        k, a = dv.kind, dv.args
        if update is not None and any(lp.dim >= rank and lp.name in a[:3] for lp in loops if isinstance(a[0], str)):
            if k != DirectiveKind.REORDER:
                raise refuse(f"{k.value}() of an RVar in an update of Func '{stage.func.name()}'")
        if k == DirectiveKind.SPLIT:
            old, outer, inner, factor = a[0], a[1], a[2], a[3]
            if not isinstance(factor, int) or factor < 1:
                raise refuse(f"split of '{old}' in Func '{stage.func.name()}' by a non-constant factor")
            i = find(old)
            lp = loops[i]
            if lp.extent is not None and lp.extent % factor:
                raise refuse(f"split of the constant-extent loop '{old}' by {factor}, which does not divide it")
            loops[i : i + 1] = [
                Loop(inner, lp.dim, lp.stride, factor),
                Loop(outer, lp.dim, lp.stride * factor, None if lp.extent is None else lp.extent // factor),
            ]
        elif k == DirectiveKind.REORDER:
            idx = [find(n) for n in a]
            picked = [loops[i] for i in idx]
            for i, lp in zip(sorted(idx), picked):
                loops[i] = lp
        elif k in (DirectiveKind.VECTORIZE, DirectiveKind.PARALLEL, DirectiveKind.UNROLL, DirectiveKind.SERIAL):
            lp = loops[find(a[0])]
            if k in (DirectiveKind.VECTORIZE, DirectiveKind.UNROLL) and lp.extent is None:
                raise refuse(
                    f"{k.value}({a[0]}) of Func '{stage.func.name()}' needs a constant extent (split it first)"
                )
            lp.kind = {"vectorize": "vectorized", "parallel": "parallel", "unroll": "unrolled"}.get(k.value, "serial")
            vectorized |= k == DirectiveKind.VECTORIZE
        else:
            raise refuse(f"the directive {k.value}() on Func '{stage.func.name()}'")
    if not vectorized and auto_lanes and update is None and loops[0].extent is None and loops[0].dim == 0:
        # auto-vectorization (analysis/vectorize.py): the innermost loop over x split by the natural lanes
        lp = loops[0]
        loops[0:1] = [Loop(lp.name + "_vec", 0, 1, auto_lanes, "vectorized"), Loop(lp.name, 0, auto_lanes, None)]
        loops[1].kind = lp.kind
    if update is not None:  # RVar loops inside the vector: outside it (each lane sums in the same order)
        k = next((i for i, lp in enumerate(loops) if lp.kind == "vectorized"), 0)
        if all(lp.dim >= rank for lp in loops[:k]):
            loops = [loops[k]] + loops[:k] + loops[k + 1 :]
    for i, lp in enumerate(loops):
        if lp.kind == "vectorized" and i != 0:
            raise refuse(f"vectorized loop '{lp.name}' of Func '{stage.func.name()}' is not the innermost loop")
        for inner in loops[:i]:
            if inner.dim == lp.dim and inner.stride > lp.stride:
                raise refuse(f"loop '{inner.name}' inside the finer loop '{lp.name}' of Func '{stage.func.name()}'")
    return loops


def _fixed_extents(func) -> dict:
    """{dim: extent} of the dims ``func.output_buffer().dim(d).set_bounds/set_extent`` fix to a constant (lesson 16's
    interleaved ``c`` of extent 3, unrolled); the wrapper refuses a buffer of another extent (aot/anysize.py)."""
    from ..lang.constraints import constraints

    holders = func.__dict__.get("_output_params") or ()
    out = {}
    for (d, what), e in (constraints(holders[0]) if holders else {}).items():
        if what == "extent" and e.kind == "const":
            out[d] = int(e.value)
    return out


def plan_any_size(pipeline, output, extents=None) -> DynPlan:
    """The any-size plan of ``pipeline`` (analysis/pipeline.py, after placement), or a HalideError naming what is
    outside the class. ``extents``: {dim: extent} of the output a specialization's condition fixes."""
    from . import vectorize
    from .specialize import forced

    if pipeline.specializations and not forced():  # (forced: one variant of aot/specialized.py)
        raise refuse("specialize()")
    if pipeline.index_params:
        raise refuse(f"Param '{pipeline.index_params[0].name()}' used in coordinates or RDom bounds")
    for h in pipeline.inputs:
        if not isinstance(h, ImageParam):
            raise refuse(f"Buffer '{h.name()}' read by the pipeline (compiled in at its fixed size)")
    rank = output.dimensions()
    stages = []
    by_func = {}
    values, kept = _inline_boundary_reads(pipeline.stages, output)
    for s in kept:
        name = s.func.name()
        sched = s.func.schedule()
        for what, on in (
            ("compute_with", sched.compute_with is not None),
            ("fold_storage", bool(sched.folds)),
            ("align_storage / bound_storage", bool(sched.storage)),
            ("hoist_storage", sched.hoist is not None),
            # (buffers of sizes known at run time are on the heap: Halide's choice for Heap and for a big Stack)
            (f"store_in(MemoryType.{memory_type(s.func).name})", memory_type(s.func) not in ANY_SIZE_MEMORY),
        ):
            if on:
                raise refuse(f"{what} of Func '{name}'")
        ups = [_update(s, u, rank) for u in s.updates]
        if len(s.values) != 1:
            raise refuse(f"Tuple-valued Func '{name}'")
        if len(s.vars) != rank:
            raise refuse(f"Func '{name}' has {len(s.vars)} dimensions and the output {rank}")
        if s.func is not output and s.compute.kind == LevelKind.AT:
            warnings.warn(
                AnySizeComputeAtWarning(
                    f"{s.compute.site}: " * (s.compute.site is not None) + f"Func '{name}' is scheduled compute_at("
                    f"{s.compute.func.name()}, {s.compute.var}) but the function for any size computes it once at the "
                    f"root (same values)"
                ),
                stacklevel=2,
            )
        value = values.get(id(s.func), s.values[0])
        for n in walk(value):
            if n.kind in ("rvar",) or (n.kind == "call" and n.value is not None and not hasattr(n.value, "name")):
                raise refuse(f"'{n}' in Func '{name}'")
        lanes = None
        if vectorize.enabled():
            lanes = vectorize.natural_lanes(s.values, s.func.output_types(), s.vars[0])
        st = DynStage(s.func, name, list(s.vars), value, [None] * rank)
        fixed = {**_fixed_extents(s.func), **(extents or {})} if s.func is output else None
        st.loops = _loops(s, rank, lanes, extents=fixed)
        for up, u in zip(ups, s.updates):
            # the RVars' loops are unrolled in the element body (codegen/dynamic_payload.py): the pure loops stay
            up.loops = [lp for lp in _loops(s, rank, None, u) if lp.dim < rank]
        st.updates = ups
        stages.append(st)
        by_func[id(s.func)] = st
    for s in kept:  # a compute_at Func computed at the root keeps its consumer's parallelism
        consumer = by_func.get(id(s.compute.func)) if s.compute.kind == LevelKind.AT else None
        st = by_func[id(s.func)]
        if consumer is None or any(lp.kind == "parallel" for lp in st.loops):
            continue
        for lp in reversed(consumer.loops):
            if lp.kind == "parallel":
                mine = [m for m in st.loops if m.dim == lp.dim and m.kind == "serial"]
                if mine:
                    mine[-1].kind = "parallel"  # its outermost loop over that dim: rows in parallel
                break
    out = by_func[id(output)]
    out.region = [{(d, 1): (0, 0)} for d in range(rank)]
    needs = {id(h): InputNeed(h, [None] * h.dimensions()) for h in pipeline.inputs}

    def affine_read(st, a):
        """The Region forms coordinate ``a`` of a read in ``st`` covers (``±var + c`` or ``c``), or None."""
        form = linear_form(a)
        if form is None:
            return None
        v, coef, c = form
        if v is None:
            return {(None, 0): (c, c)}
        if v not in st.vars or coef not in (1, -1):
            return None
        forms = st.region[st.vars.index(v)]
        return shift(forms, c, c) if coef == 1 else flip(forms, c)

    for st in reversed(stages):
        if st.region[0] is None:
            raise refuse(f"Func '{st.name}' is not read by the output")
        for up in st.updates:
            for src, dims in up.reads:
                spans = []
                for d, (c, j) in enumerate(dims):
                    rmin, rext = (up.rvars[j][1], up.rvars[j][2]) if j is not None else (0, 1)
                    spans.append(shift(st.region[d], c + rmin, c + rmin + rext - 1))
                if isinstance(src, ImageParam):
                    for d, sp in enumerate(spans):
                        merge(needs[id(src)].span, d, sp)
                    continue
                p = by_func.get(id(src))
                if p is None:
                    raise refuse(f"a call of Func '{src.name()}' in an update of Func '{st.name}'")
                for d, sp in enumerate(spans):
                    merge(p.region, d, sp)
        seen = set()
        for n in walk(st.value):
            if n.kind != "call":
                continue
            if any(m.kind == "call" for a in n.args for m in walk(a)):
                raise refuse(f"a data-dependent coordinate in '{n}' (Func '{st.name}')")
            src = n.value
            forms = slice_forms(n)
            if isinstance(src, ImageParam):
                need = needs[id(src)]
                if len(n.args) == rank and _same_dims_slice(st, src, forms, seen, need.span):
                    continue
                offs = []  # the coordinates' var + c inside the clamps (None: not of that form)
                for d, a in enumerate(n.args):  # a gather: each coordinate clamped, or var + c of the same dim
                    inner = _bounded(a, src, d)
                    if inner is not None:
                        need.clamped = True
                        form = linear_form(inner)
                        ok = d < rank and form is not None and form[0] == st.vars[d] and form[1] == 1
                        offs.append(form[2] if ok else None)
                        if ok:
                            st.clamps.setdefault(d, set()).add((id(src), form[2]))
                        continue
                    form = linear_form(a)
                    if d < rank and form is not None and form[0] == st.vars[d] and form[1] == 1:
                        merge(need.span, d, shift(st.region[d], form[2], form[2]))
                        offs.append(form[2])
                        continue
                    read = affine_read(st, a)  # a transpose, flip or constant: a gather (no slice offset)
                    if read is not None:
                        merge(need.span, d, read)
                        need.gathered = True
                        offs.append(None)
                        continue
                    raise refuse(
                        f"ImageParam '{src.name()}' read at '{a}' in Func '{st.name}' (only ±var + constant, "
                        f"constants or coordinates clamped to its bounds are supported)"
                    )
                st.gathers[id(n)] = None if None in offs or len(offs) != rank else tuple(offs)
                continue
            p = by_func.get(id(src))
            if p is None:
                raise refuse(f"a call of '{n}' in Func '{st.name}'")
            if _same_dims_slice(st, src, forms, seen, p.region):
                continue
            reads = [affine_read(st, a) for a in n.args]  # a transpose or flip: a gather of the computed Func
            if any(r is None for r in reads):
                raise refuse(f"Func '{p.name}' read at '{n}' in Func '{st.name}' (only ±var + constant per dimension)")
            for d, r in enumerate(reads):
                merge(p.region, d, r)
            st.func_gathers.add(id(n))
    for need in needs.values():
        if any(sp is None for sp in need.span):
            need.clamped = True
    return DynPlan(pipeline, output, stages, list(pipeline.inputs), needs)


def _same_dims_slice(st, src, forms, seen: set, region: list) -> bool:
    """Is the read (``forms``: slice_forms of the call) each dim's own Var plus a constant? Then it is a slice of
    ``src``, recorded once per offsets in ``st.slices``, and ``region`` (an input's span or a producer's region)
    covers the stage's region shifted by them."""
    if forms is None or not all(v == st.vars[d] for d, (v, _) in enumerate(forms)):
        return False
    key = (id(src), tuple(c for _, c in forms))
    if key not in seen:
        seen.add(key)
        st.slices.append((src, [c for _, c in forms]))
    for d, (_, c) in enumerate(forms):
        merge(region, d, shift(st.region[d], c, c))
    return True


def merge(region: list, d: int, forms: dict) -> None:
    """Widen dim ``d`` of ``region`` (a stage's region or an InputNeed's span) by ``forms``."""
    region[d] = region[d] or {}
    for k, (lo, hi) in forms.items():
        was = region[d].get(k)
        region[d][k] = (lo, hi) if was is None else (min(was[0], lo), max(was[1], hi))


def shift(forms: dict, a: int, b: int) -> dict:
    """The forms of [A + a, B + b] where ``forms`` are those of [A, B] (reads at ``var + c``, RVar windows)."""
    return {k: (lo + a, hi + b) for k, (lo, hi) in forms.items()}


def flip(forms: dict, c: int) -> dict:
    """The forms of [c - B, c - A]: a flip swaps min and max (``c - (out.min + lo)`` is ``(c - lo) - out.min``)."""
    return {(od, -sign): (c - hi, c - lo) for (od, sign), (lo, hi) in forms.items()}


def _inline_boundary_reads(pipeline_stages, output) -> tuple[dict, list]:
    """Halide inlines an unscheduled BoundaryConditions Func; analysis/pipeline.py keeps it a padded copy at the
    root except where a consumer reads it at ``var + c``. Read transposed or flipped, the copy would be a Func read
    across dims (outside the class), so those reads are inlined here, as Halide's: gathers of the ImageParam at
    clamped (wrapped, reflected) coordinates. Returns {id(Func): its value so rewritten} and the stages still
    read."""
    from .pipeline import substitute

    copies = {
        id(s.func): s
        for s in pipeline_stages
        if s.func is not output
        and s.func.schedule().padded_copy
        and not s.func.schedule().directives
        and not s.updates
        and len(s.values) == 1
    }
    values = {}
    for s in pipeline_stages:
        if id(s.func) in copies or len(s.values) != 1:
            continue

        def leaf(n, args, s=s):
            bc = copies.get(id(n.value)) if n.kind == "call" else None
            if bc is None:
                return None
            forms = slice_forms(n)
            if (
                forms is not None
                and len(forms) == len(s.vars)
                and all(v == s.vars[d] for d, (v, _) in enumerate(forms))
            ):
                return None  # (a slice of the copy, as analysis/pipeline.py left it)
            return substitute(bc.values[0], dict(zip(bc.vars, args)))

        v = rebuild(s.values[0], leaf)
        if v is not s.values[0]:
            values[id(s.func)] = v
    if not values:
        return values, list(pipeline_stages)
    read = set()
    for s in pipeline_stages:
        for e in [values.get(id(s.func), s.values[0]), *s.values[1:], *(x for u in s.updates for x in u.exprs())]:
            read |= {id(n.value) for n in walk(e) if n.kind == "call"}
    kept = [s for s in pipeline_stages if id(s.func) not in copies or id(s.func) in read]
    return values, kept


def linear_terms(e):
    """``e`` as ({var or RVar name: coefficient}, constant) if it is a sum of them times integer constants."""
    k = e.kind
    if k == "const" and not e.type.is_float():
        return {}, int(e.value)
    if k in ("var", "rvar"):
        return {e.value.name(): 1}, 0
    if k in ("add", "sub"):
        a, b = linear_terms(e.args[0]), linear_terms(e.args[1])
        if a is None or b is None:
            return None
        sign = 1 if k == "add" else -1
        t = dict(a[0])
        for n, c in b[0].items():
            t[n] = t.get(n, 0) + sign * c
        return t, a[1] + sign * b[1]
    if k == "mul":
        a, b = linear_terms(e.args[0]), linear_terms(e.args[1])
        if a is None or b is None or (a[0] and b[0]):
            return None
        (t, c), m = (a, b[1]) if not b[0] else (b, a[1])
        return {n: v * m for n, v in t.items()}, c * m
    return None


def _update(s, u, rank: int) -> DynUpdate:
    """An update in the class (pure coordinates on the left, an RDom of constant bounds, reads at var (+ RVar) +
    constant), or a HalideError."""
    name = s.func.name()
    if u.predicates:
        raise refuse(f"an RDom with a where() predicate in an update of Func '{name}'")
    if (
        len(u.values) != 1
        or u.stores  # (hl.scatter/gather)
        or [a.kind for a in u.args] != ["var"] * rank
        or [a.value.name() for a in u.args] != list(s.vars)
    ):
        raise refuse(f"an update of Func '{name}' at coordinates other than its pure Vars (a scatter)")
    rvars = []
    for r in u.rvars:
        lo, ext = r.min(), r.extent()
        if lo.kind != "const" or ext.kind != "const":
            raise refuse(f"RVar '{r.name()}' of Func '{name}' has bounds that are not constants")
        rvars.append((r.name(), int(lo.value), int(ext.value)))
    points = 1
    for r in rvars:
        points *= max(r[2], 0)
    if points > MAX_RDOM_POINTS:
        raise refuse(f"an RDom of {points} points in an update of Func '{name}' (at most {MAX_RDOM_POINTS})")
    rnames = [r[0] for r in rvars]
    up = DynUpdate(u.index, u.values[0], rvars, [])
    seen = set()
    for n in walk(u.values[0]):
        if n.kind != "call":
            continue
        if n.value is s.func:
            if [a.kind for a in n.args] == ["var"] * rank and [a.value.name() for a in n.args] == list(s.vars):
                continue
            raise refuse(f"Func '{name}' read at '{n}' in its own update (only at its pure Vars)")
        if not isinstance(n.value, ImageParam) and not hasattr(n.value, "output_types"):
            raise refuse(f"'{n}' in an update of Func '{name}'")
        if len(n.args) != rank:
            raise refuse(f"'{n}' in an update of Func '{name}' (another dimensionality)")
        dims = []
        for d, a in enumerate(n.args):
            t = linear_terms(a)
            ok = t is not None and t[0].get(s.vars[d], 0) == 1
            others = {k: v for k, v in (t[0].items() if t else ()) if k != s.vars[d] and v != 0}
            rv = [k for k in others if k in rnames]
            if not ok or len(others) > 1 or (others and (not rv or others[rv[0]] != 1)):
                raise refuse(
                    f"'{a}' in an update of Func '{name}' (only var + constant, plus at most one RVar, per dim)"
                )
            dims.append((t[1], rnames.index(rv[0]) if rv else None))
        key = (id(n.value), tuple(dims))
        if key not in seen:
            seen.add(key)
            up.reads.append((n.value, dims))
    return up
