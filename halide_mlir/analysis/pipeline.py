"""From an output Func to the list of stages to realize: inlining and realization order.

A *stage* is a Func that gets its own storage (the output, and every Func not computed inline).
Inline Funcs are substituted into their callers here, so codegen only sees calls to stages and inputs.
Where each stage is computed is settled afterwards, by placement.py (driver.py runs the steps in order).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.expr import REQUIRE, Expr, cast, const
from ..lang.func import Func
from ..lang.param import ImageParam, Param
from ..lang.schedule import GPU_DIRECTIVES, DirectiveKind, LevelKind, LoopKind, LoopLevel
from ..lang.debugging import per_occurrence
from ..lang.traversal import Structures, rebuild, walk
from .affine import slice_forms
from .compute_with import adjacent_partners
from .memoize import redirect as redirect_memoized
from .specialize import resolve as resolve_specializations, specialized as specialized_schedules
from .unrolled_reductions import unrolled_into, unrolled_values
from .wrappers import Wrapping


@dataclass
class Update:
    """One update definition, with inline Funcs substituted."""

    index: int
    args: tuple  # LHS coordinates (Exprs of pure Vars, RVars, data)
    values: tuple  # one Expr per Tuple element (one for an ordinary Func)
    rvars: list  # the RVars it iterates, r.x first
    predicates: list  # RDom.where conditions
    schedule: object  # FuncSchedule of f.update(index)
    site: object
    stores: tuple = ()  # hl.scatter/gather: the other lanes' (args, values), stored after lane 0 (serial loops)

    @property
    def value(self) -> Expr:
        return self.values[0]

    def exprs(self) -> list[Expr]:
        return [*self.args, *self.values, *self.predicates, *(x for sa, sv in self.stores for x in (*sa, *sv))]


@dataclass(eq=False)  # (identity: stages are dictionary keys)
class Stage:
    func: Func
    vars: list[str]  # pure var names, Halide order (dimension 0 first)
    values: tuple  # the definition's Tuple elements with inline Funcs substituted
    consumers: list = field(default_factory=list)
    updates: list = field(default_factory=list)
    compute: LoopLevel = None  # where it is computed: the Func's LoopLevel, or where placement.py places it
    hoisted_from: LoopLevel | None = None  # the level the schedule asked for, when placement.py moved it to the root
    directives: list = field(default_factory=list)  # its pure definition's, of the specialization chosen

    @property
    def body(self) -> Expr:
        return self.values[0]

    def exprs(self) -> list[Expr]:
        """Every Expr the stage evaluates: the pure values, then each update's."""
        return [*self.values, *(e for u in self.updates for e in u.exprs())]

    @property
    def name(self) -> str:
        return self.func.name()


@dataclass
class Pipeline:
    output: Func
    stages: list[Stage]  # realization order: producers before consumers, output last
    inputs: list  # Buffers and ImageParams read by the pipeline, in first-use order
    params: list[Param]  # scalar Params read by the pipeline
    index_params: list[Param]  # Params that appear in coordinates: their values shape the code
    specializations: list = field(default_factory=list)  # (where, schedule) with specialize()s: analysis/specialize.py
    requirements: list = field(default_factory=list)  # hl.require conditions, checked before each run

    def stage(self, func: Func) -> Stage:
        return next(s for s in self.stages if s.func is func)


def is_reduction(stage: Stage, u: Update) -> bool:
    """Does the update write every point at its own pure coordinates and read the Func only there
    (``f[x, y] += g(x, r.x)``)? The others are scatters (``h[img[r]] += 1``) and scans (``c[r] = c[r - 1]``)."""
    pure_lhs = all(a.kind == "var" and a.value.name() == v for a, v in zip(u.args, stage.vars))
    if not pure_lhs or u.stores:  # (several stores per point: serial loops)
        return False
    for e in [u.value, *u.predicates]:
        for n in walk(e):
            if n.kind == "call" and n.value is stage.func:
                if not all(a.kind == "var" and a.value.name() == v for a, v in zip(n.args, stage.vars)):
                    return False
    return True


def as_generic(stage: Stage, u: Update) -> bool:
    """Is the update one ``linalg.generic`` with reduction iterators (else explicit loops, codegen/updates.py)? A
    reduction is, unless an RVar loop runs in parallel (``atomic()``, ``allow_race_conditions()``): tiling a
    reduction dim with ``tile_using_forall`` would race on the output, so those run as loops with atomic
    read-modify-writes."""
    from .loop_nest import update_loops  # (loop_nest's annotations name this module's Stage and Update)

    if not is_reduction(stage, u):
        return False
    n_r = len(u.rvars)
    return not any(l.kind == LoopKind.PARALLEL and any(dim < n_r for dim, _ in l.parts) for l in update_loops(stage, u))


def _strip_requirements(e: Expr, found: list, memo: dict) -> Expr:
    """``e`` with each ``hl.require(c, v)`` replaced by ``v``, its condition added to ``found``: conditions are of
    Params only, checked before the pipeline runs (driver.realize, aot/requirements.py), so the analyses and
    codegen never see them."""

    def leaf(n, args):
        if n.kind != REQUIRE:
            return None
        if n.value not in found:
            found.append(n.value)
        return args[0]

    return rebuild(e, leaf, memo)


def substitute(e: Expr, env: dict[str, Expr], memo: dict | None = None) -> Expr:
    """Replace Vars by Exprs."""
    return rebuild(
        e, lambda n, args: env.get(n.value.name()) if n.kind == "var" else None, {} if memo is None else memo
    )


def _is_stage(f: Func, output: Func, consumer: Func | None = None) -> bool:
    """Funcs with update definitions can't be inlined (Halide computes them where they are used), but for small
    inline reductions unrolled into ``consumer`` (analysis/unrolled_reductions.py)."""
    if f is output or f.schedule().compute.kind != LevelKind.INLINE:
        return True
    return f.has_update_definition() and (consumer is None or unrolled_values(f, consumer, output) is None)


def _inline(e: Expr, output: Func, memo: dict, wrapping: Wrapping, consumer: Func | None = None) -> Expr:
    """Substitute every call to an inline Func by its definition (recursively), its calls to wrapped Funcs
    redirected to their wrappers first (analysis/wrappers.py); given the ``consumer`` (the stage whose
    definition this is), small inline reductions too."""

    def leaf(n, args):
        if n.kind == "call" and isinstance(n.value, Func) and not _is_stage(n.value, output, consumer):
            # equal calls share one inlined tree: a chain of inline Funcs each reading the previous one several
            # times is otherwise exponential in its length (test/python/test_inlined_chains.py)
            shapes = memo.setdefault("structures", Structures(per_occurrence))
            key = ("inlined", id(n.value), n.index, tuple(shapes.of(a) for a in args))
            hit = memo.get(key)
            if hit is not None:
                return hit[1]
            d = n.value._definition()
            if n.value.has_update_definition():
                values = unrolled_values(n.value, consumer, output)
            else:
                values = d.values
            value = wrapping.wrap(n.value, values[n.index])
            r = _inline(
                substitute(value, {v.name(): a for v, a in zip(d.args, args)}), output, memo, wrapping, consumer
            )
            if not shapes.impure(r):  # a print or traced load stays one per call
                memo[key] = (n.value, r)
            return r
        return None

    return rebuild(e, leaf, memo)


def build_pipeline(output: Func, memoized: bool = False) -> Pipeline:
    """Stages in realization order, each compute level as the user scheduled it; ``memoized``: calls to memoized
    Funcs read their cached values, inputs of the pipeline (analysis/memoize.py)."""
    if not output.defined():
        raise HalideError(f"Func '{output.name()}' can't be realized: it has no definition")

    funcs: list[Func] = []  # reachable stages, discovered consumers-first
    bodies: dict[Func, tuple] = {}
    updates: dict[Func, list] = {}
    memos: dict = {None: {}}  # per stage whose small inline reductions may be unrolled, else shared (None)
    wrapping = Wrapping()

    requirements: list = []
    strip_memo: dict = {}

    def inline(f, e):
        consumer = f if unrolled_into(f, output) else None
        memo = memos.setdefault(None if consumer is None else id(consumer), {})
        e = _inline(wrapping.wrap(f, e), output, memo, wrapping, consumer)
        e = _strip_requirements(e, requirements, strip_memo)
        return redirect_memoized(f, e, output) if memoized else e

    work = [output]
    while work:
        f = work.pop()
        if f in bodies:
            continue
        _check_self_references(f)
        values = tuple(inline(f, v) for v in f._definition().values)
        bodies[f] = values
        updates[f] = [
            Update(
                i,
                tuple(inline(f, a) for a in u.args),
                tuple(inline(f, v) for v in u.values),
                u.rvars(),
                [inline(f, p) for p in u.predicates()],
                u.schedule,
                u.site,
                tuple((tuple(inline(f, a) for a in sa), tuple(inline(f, v) for v in sv)) for sa, sv in u.stores),
            )
            for i, u in enumerate(f.updates())
        ]
        funcs.append(f)
        for e in [*values, *(x for u in updates[f] for x in u.exprs())]:
            for n in walk(e):
                if n.kind == "call" and isinstance(n.value, Func) and n.value is not f:
                    if not n.value.defined():
                        raise HalideError(f"Func '{f.name()}' calls Func '{n.value.name()}', which has no definition")
                    work.append(n.value)

    wrapping.check()

    # depth-first post order from the output gives producers before consumers
    order: list[Func] = []
    state: dict[Func, int] = {}

    def visit(f: Func, path: list[str]):
        s = state.get(f)
        if s == 2:
            return
        if s == 1:
            raise HalideError(f"Funcs call each other in a cycle: {' -> '.join(path + [f.name()])}")
        state[f] = 1
        for e in [*bodies[f], *(x for u in updates[f] for x in u.exprs())]:
            for n in walk(e):
                if n.kind == "call" and isinstance(n.value, Func) and n.value is not f:
                    visit(n.value, path + [f.name()])
        state[f] = 2
        order.append(f)

    visit(output, [])
    order = _inline_padded_copies(order, bodies, updates, output)
    stages = [
        Stage(f, [v.name() for v in f._definition().args], bodies[f], updates=updates[f], compute=f.schedule().compute)
        for f in order
    ]
    index = {s.func: s for s in stages}
    inputs, params, index_params = [], [], []
    for s in stages:
        for n in (n for e in s.exprs() for n in walk(e)):
            if n.kind == "call" and n.value is s.func:
                continue
            if n.kind == "call" and isinstance(n.value, Func):
                consumers = index[n.value].consumers
                if s not in consumers:
                    consumers.append(s)
            elif n.kind == "call" and isinstance(n.value, (Buffer, ImageParam)):
                if not any(n.value is i for i in inputs):
                    inputs.append(n.value)
            elif n.kind == "param" and not any(n.value is p for p in params):
                params.append(n.value)
            if n.kind == "call":
                for a in n.args:
                    for m in walk(a):
                        if m.kind == "param" and not any(m.value is p for p in index_params):
                            index_params.append(m.value)
    for s in stages:  # RDom bounds are compile-time values too
        for u in s.updates:
            for r in u.rvars:
                for e in r.domain().bounds()[r.index()]:
                    for m in walk(e):
                        if m.kind == "param" and not any(m.value is p for p in index_params):
                            index_params.append(m.value)
    for s in stages:  # so are Exprs given to bound()
        for d in s.func.schedule().directives:
            for m in (m for a in d.args if isinstance(a, Expr) for m in walk(a)):
                if m.kind == "param" and not any(m.value is p for p in index_params):
                    index_params.append(m.value)
    stages = adjacent_partners(stages)  # compute_with groups run together (analysis/compute_with.py)
    pipeline = Pipeline(
        output, stages, inputs, params, index_params, specialized_schedules(stages), requirements=requirements
    )
    resolve_specializations(pipeline)  # each stage's directives: those of the specialization the values choose
    return pipeline


def partitionable(f: Func, output: Func, funcs: list[Func]) -> bool:
    """Can codegen compute ``f`` in pieces cut at the bounds of the clamps in its body (codegen/payload.py
    partition): a stage at the root with no update, no unroll (the pieces' loops are shorter), no Func
    computed at one of its loops (a tiled stage is one loop nest) and no compute_with (its loops are fused with
    another stage's: one loop nest; it reads a boundary condition's padded copy through plain slices)."""
    s = f.schedule()
    return (
        (f is output or s.compute.kind == LevelKind.ROOT)
        and not in_compute_with(f, funcs)
        and not f.has_update_definition()
        and not any(d.kind == DirectiveKind.UNROLL for d in _all_directives(s))
        and not any(g.schedule().compute.kind == LevelKind.AT and g.schedule().compute.func is f for g in funcs)
    )


def in_compute_with(f: Func, funcs: list[Func]) -> bool:
    """Is ``f`` computed with another Func, or another with it?"""
    cw = f.schedule().compute_with
    return cw is not None or any(
        g.schedule().compute_with is not None and g.schedule().compute_with.parent is f for g in funcs
    )


def _all_directives(s):
    """A schedule's directives and those of all its specializations (a stage computed in pieces must be in
    pieces under every one of them)."""
    return [*s.directives, *(d for sp in s.specializations for d in _all_directives(sp.schedule))]


def _inline_padded_copies(order: list, bodies: dict, updates: dict, output: Func) -> list:
    """A BoundaryConditions Func left to its default is a padded copy at the root (lang/boundary.py); a
    consumer that codegen computes in pieces reads the condition inlined instead, as in Halide: its interior
    piece reads the source through plain slices, so the copy (written, then read again) is not needed for it.
    The copy stays for the other consumers, over the region they read; it goes when none is left. In a GPU
    pipeline every consumer reads it inlined (Halide's default inline schedule): a copy with no GPU schedule
    would be a stage on the host, which the GPU backend does not run."""
    gpu = any(d.kind in GPU_DIRECTIVES for f in order for d in _all_directives(f.schedule()))
    for bc in [f for f in order if f is not output and f.schedule().padded_copy and not _all_directives(f.schedule())]:
        d = bc._definition()
        # (repeat_edge, constant_exterior: a wrapped or reflected coordinate would stay a gather)
        clamps_only = not any(n.kind in ("div", "mod") for e in bodies[bc] for n in walk(e))
        for c in order:
            calls = [n for e in bodies[c] for n in walk(e) if n.kind == "call" and n.value is bc]
            if (
                c is bc
                or not calls
                or not gpu
                and (not partitionable(c, output, order) or any(slice_forms(n) is None for n in calls))
                and not (clamps_only and _pointwise(c, calls))
            ):
                continue

            def leaf(n, args):
                if n.kind == "call" and n.value is bc:
                    return substitute(bodies[bc][n.index], {v.name(): a for v, a in zip(d.args, args)})
                return None

            bodies[c] = tuple(rebuild(v, leaf, {}) for v in bodies[c])
        _inline_into_scatters(bc, order, bodies, updates)
    used = {
        n.value
        for f in order
        for e in [*bodies[f], *(x for u in updates[f] for x in u.exprs())]
        for n in walk(e)
        if n.kind == "call" and isinstance(n.value, Func) and n.value is not f
    }
    return [f for f in order if f is output or f in used]


def _pointwise(c: Func, calls: list) -> bool:
    """Does ``c`` read the boundary condition only at its own coordinates (``bc[x, y, c]``, ``bc[x, y, 3]``)? Then
    each element of a padded copy is read once: the copy adds a write and a read of the whole region and saves no
    clamp. Inlined, a clamp along the vectorized dim makes a gather, a dense load wherever the clamp changes no
    lane (codegen/clamped_gathers.py), as in Halide's partitioned loops (interpolate: a 64 MB RGBA copy)."""
    pure = [v.name() for v in c._definition().args]
    for n in calls:
        forms = slice_forms(n)
        if forms is None or any(
            v is not None and (k >= len(pure) or v != pure[k] or off) for k, (v, off) in enumerate(forms)
        ):
            return False
    return True


def _inline_into_scatters(bc: Func, order: list, bodies: dict, updates: dict) -> None:
    """A scatter or scan update that is not vectorized reads each point with a scalar ``tensor.extract``
    (codegen/updates.py): the boundary condition inlined there is a clamp of the coordinates, as in Halide,
    where the padded copy would write and read the whole image again (bilateral_grid's histogram)."""
    d = bc._definition()

    def leaf(n, args):
        if n.kind == "call" and n.value is bc:
            return substitute(bodies[bc][n.index], dict(zip(names, args)))
        return None

    names = [v.name() for v in d.args]
    for c in order:
        for k, u in enumerate(updates[c]):
            pure = [v.name() for v in c._definition().args]
            scatter = not all(a.kind == "var" and a.value.name() == v for a, v in zip(u.args, pure))
            vector = any(x.kind == DirectiveKind.VECTORIZE for x in u.schedule.directives)
            reads = any(n.kind == "call" and n.value is bc for e in u.exprs() for n in walk(e))
            if c is bc or not scatter or vector or not reads:
                continue
            updates[c][k] = replace(
                u,
                args=tuple(rebuild(a, leaf, {}) for a in u.args),
                values=tuple(rebuild(v, leaf, {}) for v in u.values),
                predicates=[rebuild(p, leaf, {}) for p in u.predicates],
            )


def _check_self_references(f: Func) -> None:
    """Halide's rule for update definitions: where the left-hand side has a pure Var, every call of the Func
    to itself has that same Var in that place (``g[x] = g[x - 1]`` is refused). Without it the update would
    read outside the region bounds inference gives the Func (an out-of-bounds read in compiled code)."""
    pure = [v.name() for v in f._definition().args]
    for i, u in enumerate(f.updates()):
        lhs = [a.value.name() if a.kind == "var" and a.value.name() in pure else None for a in u.args]
        for e in [*u.args, u.value, *u.predicates()]:
            for n in walk(e):
                if n.kind != "call" or n.value is not f:
                    continue
                for j, v in enumerate(lhs):
                    a = n.args[j]
                    if v is not None and not (a.kind == "var" and a.value.name() == v):
                        raise HalideError(
                            f'{u.site}: In definition of Func "{f.name()}" (update definition {i}): '
                            f"All of a function's recursive references to itself must contain the "
                            f"same pure variables in the same places as on the left-hand-side "
                            f"('{v}' in argument {j})"
                        )


def resolve_buffer_dims(e: Expr) -> Expr:
    """``ImageParam.width()`` and friends become constants: code is specialized to the bound buffers."""
    if not any(n.kind == "buffer_dim" for n in walk(e)):
        return e
    if e.kind == "buffer_dim":
        holder, dim, field_ = e.value
        buf = holder.bound_buffer()
        if dim >= buf.dimensions():
            raise HalideError(f"ImageParam '{holder.name()}' has no dimension {dim}")
        d = buf.dim(dim)
        return const(d.min() if field_ == "min" else d.extent() if field_ == "extent" else d.stride(), e.type)
    return e.copy_with(tuple(resolve_buffer_dims(a) for a in e.args))


__all__ = ["Stage", "Pipeline", "build_pipeline", "substitute", "resolve_buffer_dims", "cast", "is_reduction"]
