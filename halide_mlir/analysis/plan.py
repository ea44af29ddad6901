"""The StagePlan: everything codegen needs to know about one stage, worked out once.

After placement and bounds inference, ``plan_stages`` decides for each stage, consumers first (a producer's
loops depend on its consumer's: the tile it is computed in, whether it is inside a parallel loop):

- its unique name in the generated IR and its index in realization order;
- where it is computed (placement.py's level, the only one codegen reads) and stored;
- its effective directives: the user's, plus auto-vectorization (vectorize.py), plus an implicit parallel
  loop where Halide's schedule would run it inside one; and its loops after them, adjacent nested parallel loops
  collapsed into one, other nested ones made serial;
- the extents its loops run over (its region, or one tile of it when a consumer's payload loops compute
  it), the iterations of each loop in one computation (what an unroll unrolls);
- its tile plan (tiling.py: the loops the payload spells out for compute_at), the pieces a boundary
  condition cuts its region into (loop partitioning), the producers computed at its loops;
- per update definition: reduction or not, its loops, directives and trips.

Codegen's payload (codegen/payload.py) and transform script (codegen/transform.py) print these plans; neither
derives a schedule decision of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import itertools
from dataclasses import dataclass, field

from ..error import HalideError
from ..lang.func import Func
from ..lang.schedule import Directive, DirectiveKind, LevelKind, LoopKind, LoopLevel, Partition
from ..lang.traversal import walk
from . import tracing, vectorize
from .affine import linear_form, map_forms
from .bounds import Bounded, Region, computed_region
from .interval import bounds
from .loop_nest import Loop, serialize_nested_parallel, stage_loops, update_loops
from .loop_schedule import LoopSchedule, loop_schedule
from .placement import update_home
from .prefetch import read_prefetches
from .pipeline import Stage, Update, as_generic, in_compute_with, resolve_buffer_dims
from .scan_lanes import ScanLanes, parallel_slice, scan_lanes, update_nest
from .small_directives import check_always, check_storage_bounds, partition_policies
from .store_in import plan_aligned_storage
from .tiling import TilePlan, slice_fused, tile_plan

if TYPE_CHECKING:  # annotations only
    from collections.abc import Sequence

    from ..lang.expr import Expr
    from .pipeline import Pipeline

PARALLEL_MIN_EXTENT = 16  # rows: fewer would leave cores idle at a fork/join that costs ~1 us anyway


@dataclass(eq=False)
class UpdatePlan:
    """One update definition of a stage."""

    update: Update
    name: str  # "f.update(0)", for messages and the transform script
    reduction: bool  # a linalg.generic with reduction iterators; else explicit loops (scatter, scan)
    extents: list  # what its loops run over: each RVar's extent, then the stage's extents
    directives: list  # the user's, plus auto-vectorization
    loops: list[Loop]  # RVars innermost first... as analysis/loop_nest.py update_loops builds them
    trips: dict  # loop name -> iterations in one computation of the stage
    compound: bool  # reads through sums of loop dims: the transform folds unit dims before vectorizing
    schedule: LoopSchedule | None = None  # what the script materializes (None: explicit loops in the payload)
    trace_lanes: int = 1  # prints or traces: its vectorized loop's lanes run one by one (tracing.py)
    producers: list = field(default_factory=list)  # StagePlans computed at its loops (placement.py update_home)
    lanes: ScanLanes | None = None  # explicit loops: the vectorized pure loop and its dense accesses (scan_lanes.py)
    sliced: tuple | None = None  # explicit loops: (dim, size) each parallel iteration updates in place (scan_lanes.py)


@dataclass(eq=False)
class StagePlan:
    stage: Stage
    index: int  # position in realization order (the payload's hl.stage)
    name: str  # unique in the pipeline: "f", or "f$1" for a second Func also called f
    compute: LoopLevel  # where it is computed (placement.py's decision)
    store: LoopLevel | None  # where it is stored (None: where it is computed)
    values: tuple  # its pure definition's values, ImageParam dims resolved
    region: Region  # everything it computes
    extents: tuple  # what its pure definition's loops run over: the region, or one tile of it
    per_computation: tuple  # what one computation of it covers (a tile when computed at a loop)
    directives: list  # effective: the user's + auto-vectorization + implicit parallel
    loops: list[Loop]  # after the directives, nested parallel loops collapsed or made serial
    trips: dict  # loop name -> iterations in one computation (inside the tile plan's loops)
    inside_parallel: bool  # computed inside a parallel loop of a consumer
    tile: TilePlan | None  # the consumer loops the payload spells out (tiling.py), or None
    pieces: list | None  # (mins, extents) of the pieces a boundary condition cuts its region into
    producers: list = field(default_factory=list)  # StagePlans computed at its loops and fused there
    updates: list[UpdatePlan] = field(default_factory=list)
    in_tiles: bool = False  # a consumer's payload loops compute its tiles: no generic of its own
    schedule: LoopSchedule | None = None  # what the script materializes around its op (inside the tile's loops)
    trace_lanes: int = 1  # prints or traces: its vectorized loop's lanes run one by one (tracing.py)
    storage: tuple | None = None  # its buffer's extents when align_storage pads them (store_in.py)

    @property
    def func(self) -> Func:
        return self.stage.func


@dataclass
class PipelinePlan:
    bounded: Bounded
    stages: list[StagePlan]  # realization order
    fusions: list = field(default_factory=list)  # compute_with's fused loops (analysis/compute_with.py)

    def of(self, func: Func) -> StagePlan:
        return next(p for p in self.stages if p.stage.func is func)

    @property
    def pipeline(self) -> Pipeline:
        return self.bounded.pipeline

    def text(self) -> str:
        """Every plan, readable (``halide-mlir plan FILE.py``)."""
        out = []
        for sp in self.stages:
            where = (
                "output"
                if sp.func is self.pipeline.output
                else str(sp.compute.kind)
                if sp.compute.func is None
                else f"at {sp.compute.func.name()}.{sp.compute.var}"
            )
            out.append(
                f"stage {sp.index} {sp.name}: {where}, region mins {list(sp.region.mins)} extents "
                f"{list(sp.region.extents)}, loops over {list(sp.extents)}"
                f"{', inside a parallel loop' if sp.inside_parallel else ''}"
                f"{', computed in its consumer' + chr(39) + 's tiles' if sp.in_tiles else ''}"
            )
            out += [f"  {_loop_text(l, sp.trips)}" for l in sp.loops]
            if sp.tile is not None:
                out.append(
                    f"  payload loops: {', '.join(lev.loop.name for lev in sp.tile.levels)}; tile "
                    f"{list(sp.tile.tile_sizes)}; computed {sorted(f.name() for f in sp.tile.computed)}; "
                    f"viewed {sorted(f.name() for f in sp.tile.viewed)}"
                )
                for f, w in sp.tile.pyramids.items():  # (analysis/pyramid.py)
                    out.append(f"  pyramid window {f.name()}: dim {w.dim}, row by row, fold {w.fold}")
            if sp.pieces:
                out.append(f"  {len(sp.pieces)} pieces (boundary condition partitioning)")
            if sp.storage:
                out.append(f"  stored in a buffer of extents {list(sp.storage)} (align_storage)")
            if sp.producers:
                out.append(f"  fuses {', '.join(f'{q.name} at {q.compute.var}' for q in sp.producers)}")
            for u in sp.updates:
                out.append(f"  {u.name}: {'reduction' if u.reduction else 'serial loops (scatter/scan)'}")
                out += [f"    {_loop_text(l, u.trips)}" for l in u.loops]
        return "\n".join(out)


def _loop_text(loop: Loop, trips: dict) -> str:
    return (
        f"{loop.kind} {loop.path}: {trips.get(loop.name, loop.extent)} iterations, dims "
        f"{', '.join(f'{d}*{s}' for d, s in loop.parts)}"
    )


def plan_stages(bounded: Bounded, auto_vector: bool = True, scalar_funcs: frozenset = frozenset()) -> PipelinePlan:
    """``auto_vector``: vectorize the Funcs the user did not (vectorize.py), except those in ``scalar_funcs``."""
    p = bounded.pipeline
    names = unique_names([s.name for s in p.stages])
    plans: dict[Func, StagePlan] = {}
    for index in reversed(range(len(p.stages))):
        stage = p.stages[index]
        plans[stage.func] = _plan_stage(
            bounded, stage, index, names[index], plans, auto_vector and stage.func not in scalar_funcs
        )
    ordered = [plans[s.func] for s in p.stages]
    check_storage_bounds(PipelinePlan(bounded, ordered))  # bound_storage (analysis/small_directives.py)
    plan_aligned_storage(PipelinePlan(bounded, ordered))  # align_storage (analysis/store_in.py)
    for plan in ordered:  # (producers are planned after their consumers)
        tile = plan.tile
        # compute_at(f, Var.outermost()) is outside all of f's loops: scheduled like compute_root (and so are the
        # stages placement.py hoist_from_loops moves out of loops); the payload computes the tiles of its tile
        # plan's computed producers in place: nothing to fuse for them
        plan.producers = [
            plans[s.func]
            for s in p.stages
            if s.compute.at_loop()
            and s.func is not p.output
            and s.compute.func is plan.func
            and (tile is None or s.func not in tile.computed)
            and update_home(p, s) is None
        ]
        for u in plan.updates:  # the producers computed in an update's loop are fused there
            u.producers = [
                plans[s.func] for s in p.stages if update_home(p, s) == u.update.index and s.compute.func is plan.func
            ]
        for f in tile.computed if tile is not None else ():
            plans[f].in_tiles = True
    from .compute_with import plan_compute_with

    return PipelinePlan(bounded, ordered, plan_compute_with(ordered))


def _plan_stage(bounded: Bounded, stage: Stage, index: int, name: str, plans: dict, auto_vector: bool) -> StagePlan:
    p = bounded.pipeline
    func = stage.func
    region = bounded.region(func)
    extents = region.extents
    level = stage.compute
    outer = plans[level.func].tile if level.kind == LevelKind.AT and level.func in plans else None
    per_computation = computed_region(bounded, func).extents
    if outer is not None and func in outer.computed | outer.viewed:
        extents = per_computation = outer.computed_tile(func)[1]  # one tile, not the whole region
    in_tile = outer is not None and func in outer.computed  # its updates run over the tile the payload computes
    directives = read_prefetches(name, vectorize.kept(stage.directives), stage.values)  # (Halide drops the others)
    prints = tracing.prints_in_stage(bounded, stage)
    if prints:  # a side effect per lane: the lanes run as a loop (analysis/tracing.py)
        directives, trace_lanes = tracing.scalar_lanes(name, stage.vars, extents, directives)
        auto_vector = False
    inside = _parallel_at(level, plans)
    at_loops = _levels_in(p.stages, stage)
    loops = serialize_nested_parallel(stage_loops(name, stage.vars, extents, directives), inside, at_loops)
    lanes = _consumer_lanes(stage, plans)
    auto = auto_vector and vectorize.plan(
        loops, directives, bounded.bodies[func], func.output_types(), stage.vars, computed_here=at_loops, lanes=lanes
    )
    if auto:
        directives = [*directives, *auto.directives()]
        loops = serialize_nested_parallel(stage_loops(name, stage.vars, extents, directives), inside, at_loops)
    implicit = _implicit_parallel(stage, loops, plans)
    if implicit is not None:
        directives = [*directives, *implicit]
        loops = stage_loops(name, stage.vars, extents, directives)
    tile = tile_plan(bounded, stage)
    at_root = func is p.output or level.kind == LevelKind.ROOT  # not fused into a consumer's loop
    pieces = (
        partition(stage, bounded.bodies[func], region)
        if at_root
        and tile is None
        and not bounded.updates[func]
        and len(func.output_types()) == 1
        and not in_compute_with(func, [s.func for s in p.stages])  # (one loop nest with its partner's)
        else None
    )
    # the loops the script materializes run over one computation, or inside the payload's loops of a tile plan
    inner = per_computation if tile is None else tile.tile_sizes
    trips = loop_trips(stage_loops(name, stage.vars, inner, directives), inner)
    check_always(stage, bounded.bodies[func], pieces)  # partition(v, Partition.Always): analysis/small_directives.py
    plan = StagePlan(
        stage,
        index,
        name,
        level,
        func.schedule().store,
        bounded.bodies[func],
        region,
        extents,
        per_computation,
        directives,
        loops,
        trips,
        inside,
        tile,
        pieces,
    )
    plan.trace_lanes = trace_lanes if prints else 1
    # the producers fused at its loops (the ones a tile plan's payload computes are in place already)
    producer_loops = {
        s.compute.var
        for s in p.stages
        if s.compute.at_loop()
        and s.func is not p.output
        and s.compute.func is func
        and (tile is None or s.func not in tile.computed)
        and update_home(p, s) is None
    }
    if tile is None:
        # a copy fused into a consumer's loop is one computation: its vectors span that, not the whole region
        fused = (
            per_computation if level.func in plans and slice_fused(bounded, stage, plans[level.func].loops) else extents
        )
        plan.schedule = loop_schedule(name, loops, fused, directives, producer_loops, 0, trips)
    else:
        levels = ([lev.loop for lev in tile.levels], [lev.loop.name for lev in tile.levels if lev.collapsed])
        plan.schedule = loop_schedule(
            name,
            loops[tile.spelled or len(tile.levels) :],
            tile.tile_sizes,
            directives,
            producer_loops,
            0,
            trips,
            outer=levels,
        )
    plan.updates = [
        _plan_update(bounded, stage, u, name, extents, per_computation, inside, auto_vector, lanes, in_tile)
        for u in bounded.updates[func]
    ]
    return plan


def _plan_update(
    bounded: Bounded,
    stage: Stage,
    u: Update,
    name: str,
    extents,
    per_computation,
    inside: bool,
    auto_vector: bool,
    lanes: int | None = None,
    in_tile: bool = False,
) -> UpdatePlan:
    uname = f"{name}.update({u.index})"
    if not as_generic(stage, u):  # explicit loops in the payload (codegen/updates.py), in the schedule's order
        uext = [bounded.rvar_range(r)[1] for r in u.rvars] + list(extents)
        kept = vectorize.kept(u.schedule.directives)
        loops = serialize_nested_parallel(update_loops(stage, u, uext, kept), inside or in_tile)
        if u.stores:  # hl.scatter/gather: every lane computed, then stored, in serial loops (codegen/updates.py)
            gpu = (DirectiveKind.GPU_BLOCKS, DirectiveKind.GPU_THREADS, DirectiveKind.GPU_SINGLE)
            kinds = [(l.kind, l.name) for l in loops if l.kind in (LoopKind.PARALLEL, LoopKind.VECTORIZED)]
            kinds += [(d.kind, d.args[0] if d.args else "") for d in u.schedule.directives if d.kind in gpu]
            if kinds:
                raise HalideError(
                    f"{u.site}: update {u.index} of Func '{stage.name}' stores several values per point "
                    f"(hl.scatter/hl.gather): halide_mlir runs it serially, so its {kinds[0][0]} loop "
                    f"'{kinds[0][1]}' is not supported"
                )
        up = UpdatePlan(u, uname, False, uext, kept, loops, {}, False)
        region = bounded.region(stage.func)
        if in_tile:  # over a tile of the payload's loops, serially (codegen/updates.py emit_loops)
            nest, span, _ = update_nest(stage, loops, Region(region.mins, tuple(extents)), bounded.rvar_range, u)
            up.lanes = scan_lanes(stage, u, nest, span)
            return up
        nest, span, over = update_nest(stage, loops, region, bounded.rvar_range, u)
        up.lanes, up.sliced = scan_lanes(stage, u, nest, span), parallel_slice(u, nest, span, over)
        return up
    rvar_extents = [bounded.rvar_range(r)[1] for r in u.rvars]
    uext = rvar_extents + list(extents)
    uext_one = rvar_extents + list(per_computation)
    directives = read_prefetches(uname, vectorize.kept(u.schedule.directives), u.exprs())
    prints = tracing.prints_in_update(bounded, stage, u)
    if prints:  # a side effect per lane: the lanes run as a loop (analysis/tracing.py)
        directives, trace_lanes = tracing.scalar_update_lanes(stage, u, uext, directives)
        auto_vector = False
    loops = serialize_nested_parallel(update_loops(stage, u, uext, directives), inside)
    # an update is vectorized along x where a pure x loop is innermost or has only RVar loops inside it
    auto = auto_vector and vectorize.plan(
        loops,
        directives,
        [*u.values, *u.predicates],
        stage.func.output_types(),
        stage.vars,
        dim=len(u.rvars),
        lanes=lanes,
        through_rvars=not compound_reads(stage, u, scaled_only=True),
    )
    if auto:
        directives = [*directives, *auto.directives()]
        loops = serialize_nested_parallel(update_loops(stage, u, uext, directives), inside)
    trips = loop_trips(update_loops(stage, u, uext_one, directives), uext_one)
    p = bounded.pipeline
    homes = {s.compute.var for s in p.stages if s.compute.func is stage.func and update_home(p, s) == u.index}
    return UpdatePlan(
        u,
        uname,
        True,
        uext,
        directives,
        loops,
        trips,
        compound_reads(stage, u) or bool(u.rvars),
        loop_schedule(uname, loops, uext, directives, homes, len(u.rvars), trips, coupled_dims(stage, u)),
        trace_lanes if prints else 1,
    )


# --- policies ------------------------------------------------------------------------------------------------


def _parallel_at(level: LoopLevel, plans: dict) -> bool:
    """Is the loop ``level`` (a consumer's loop) inside a parallel loop, its own or an enclosing one? (The
    consumer is planned already: consumers come first.)"""
    if not level.at_loop() or level.func not in plans:
        return False
    consumer = plans[level.func]
    names = [l.name for l in consumer.loops]
    if level.var in names and any(l.kind == LoopKind.PARALLEL for l in consumer.loops[: names.index(level.var) + 1]):
        return True
    return consumer.inside_parallel


def _implicit_parallel(stage: Stage, loops: list[Loop], plans: dict) -> list[Directive] | None:
    """The parallel loop of a stage that we compute at the root where Halide would run it inside a parallel
    loop: a producer placement.py hoisted out of a loop inside a parallel loop, or a BoundaryConditions
    padded copy (lang/boundary.py) that a parallel consumer reads (Halide inlines it there). Same values, on
    every core, as Halide's schedule runs it. Its outermost serial loop of at least PARALLEL_MIN_EXTENT
    iterations becomes parallel (a padded copy's: moved outside the short loops, e.g. the channels of a planar
    image, so its rows are one parallel loop, not one per channel: each fork/join costs ~60 us on a shared core);
    None if the stage has a parallel loop already or runs serially in Halide."""
    if stage.compute.kind != LevelKind.ROOT or any(l.kind == LoopKind.PARALLEL for l in loops):
        return None
    schedule = stage.func.schedule()
    if stage.hoisted_from is not None:
        wanted = _parallel_at(stage.hoisted_from, plans)
    elif schedule.padded_copy and not stage.directives:
        wanted = any(
            plans[c.func].inside_parallel or any(l.kind == LoopKind.PARALLEL for l in plans[c.func].loops)
            for c in stage.consumers
        )
    else:
        return None
    loop = next(
        (
            l
            for l in loops
            if l.kind == LoopKind.SERIAL and len(l.parts) == 1 and l.exact and l.extent >= PARALLEL_MIN_EXTENT
        ),
        None,
    )
    if not wanted or loop is None:
        return None
    out = [Directive(DirectiveKind.PARALLEL, (loop.name,))]
    outer = loops[: loops.index(loop)]
    if schedule.padded_copy and outer and all(l.kind == LoopKind.SERIAL and len(l.parts) == 1 for l in outer):
        order = [l.name for l in reversed(loops) if l is not loop] + [loop.name]  # innermost first
        out.insert(0, Directive(DirectiveKind.REORDER, tuple(order)))
    return out


def _consumer_lanes(stage: Stage, plans: dict) -> int | None:
    """The width of an inline reduction's (``hl.sum``'s Func's) consumer's vectorized loop over the reduction's
    x, or None: Halide computes the reduction inside that loop, so its update runs at that width."""
    if stage.func.schedule().compute.kind != LevelKind.INLINE or len(stage.consumers) != 1 or not stage.vars:
        return None
    consumer = plans.get(stage.consumers[0].func)
    if consumer is None:
        return None
    cvars = consumer.stage.vars
    return next(
        (
            l.extent
            for l in consumer.loops
            if l.kind == LoopKind.VECTORIZED
            and len(l.parts) == 1
            and l.stride == 1
            and l.constant
            and cvars[l.dim] == stage.vars[0]
        ),
        None,
    )


def _levels_in(stages: list[Stage], stage: Stage) -> set:
    """Names of ``stage``'s loops that some producer is computed or stored at."""
    return {
        level.var
        for s in stages
        for level in (s.compute, s.func.schedule().store)
        if level is not None and level.kind == LevelKind.AT and level.func is stage.func
    }


def compound_reads(stage: Stage, u: Update, scaled_only: bool = False) -> bool:
    """Does the update read an input at a sum of loop dims (``input[x + r.y]``) or a scaled one?
    codegen/updates.py gives such reads a compound indexing map (``d1 + d4``). ``scaled_only``: only scaled
    ones (``input[2 * x + r.x]``), which MLIR's vectorizer rejects even after the unit dims are folded."""
    names = list(stage.vars) + [r.name() for r in u.rvars]
    dim_of, base_of = {v: i for i, v in enumerate(names)}, dict.fromkeys(names, 0)
    for e in [u.value, *u.predicates]:
        for node in walk(e):
            if node.kind != "call" or node.value is stage.func:
                continue
            for form in map_forms(node, dim_of, base_of) or ():  # the others are gathers
                if (not scaled_only and sum(1 for c in form[0].values() if c) > 1) or any(
                    c not in (0, 1) for c in form[0].values()
                ):
                    return True
    return False


def coupled_dims(stage: Stage, u: Update) -> frozenset:
    """The update's pure dims (its loop numbering: RVars first) that some input read adds to another pure dim
    (``input[x + u]``, an rfactor intermediate's). Such a map stays compound after the unit dims are folded, so
    those dims can't both be lanes of one vector (loop_schedule.py)."""
    n = len(u.rvars)
    names = [r.name() for r in u.rvars] + list(stage.vars)
    dim_of, base_of = {v: i for i, v in enumerate(names)}, dict.fromkeys(names, 0)
    coupled = set()
    for e in [u.value, *u.predicates]:
        for node in walk(e):
            if node.kind != "call" or node.value is stage.func:
                continue
            for form in map_forms(node, dim_of, base_of) or ():  # the others are gathers
                pure = {d for d, c in form[0].items() if c and d >= n}
                if len(pure) > 1:
                    coupled |= pure
    return frozenset(coupled)


def loop_trips(loops: list[Loop], extents: Sequence[int]) -> dict[str, int]:
    """Loop name -> its iterations over ``extents``. The inner loop of a split runs the factor's iterations
    only where the region is that large: split(y, yo, yi, 16).unroll(yo, 5) over 23 rows runs 2 (Halide
    guards the other 3 copies away)."""
    trips, covered = {}, list(extents)
    for l in loops:
        if len(l.parts) == 1:
            trips[l.name] = min(l.extent, -(-covered[l.dim] // l.stride))
            covered[l.dim] = min(covered[l.dim], l.stride)
        else:
            trips[l.name] = l.extent
    return trips


def unique_names(names: list[str]) -> list[str]:
    """Names in the generated IR: a second Func called ``f`` is ``f$1``."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(n if k == 0 else f"{n}${k}")
    return out


def partition(stage: Stage, values: list[Expr], region: Region) -> list | None:
    """Pieces of a stage's region, as (mins, extents), cut per Var where the clamps ``clamp(v + c, lo, hi)`` of
    its body stop being the identity (Halide's loop partitioning of boundary conditions): inside them every
    such clamp is ``v + c`` and the read a plain slice, outside a constant (a broadcast). None when the body
    has no such clamp or the stage is not one generic (pipeline.py partitionable)."""
    if any(d.kind == DirectiveKind.UNROLL for d in stage.directives):
        return None
    inside: dict = {}  # var -> (lo, hi) where all its clamps are the identity
    for n in (m for v in values for m in walk(v)):
        if n.kind == "select":  # a mirror's select(e < lo, r, select(e < hi + 1, e, r)) (lang/boundary.py)
            e, lo, hi = _mirror_identity(n)
        elif n.kind != "max" or n.args[0].kind != "min" or n.type.is_float():
            continue
        else:
            e, hi, lo = n.args[0].args[0], _constant(n.args[0].args[1]), _constant(n.args[1])
        form = None if e is None else linear_form(e)
        if hi is None or lo is None or form is None or form[0] not in stage.vars or form[1] != 1:
            continue
        a, z = lo - form[2], hi - form[2]
        old = inside.get(form[0], (a, z))
        inside[form[0]] = (max(a, old[0]), min(z, old[1]))
    if not inside:
        return None
    never = {
        d for d, p in partition_policies(stage.name, stage.vars, None, stage.directives).items() if p == Partition.Never
    }  # partition(v, Partition.Never): one piece along v, its clamps kept
    if all(stage.vars.index(v) in never for v in inside):
        return None
    cuts = []
    for d, (v, lo, ext) in enumerate(zip(stage.vars, region.mins, region.extents)):
        hi = lo + ext - 1
        parts = [(lo, ext)]
        if v in inside and inside[v][0] <= inside[v][1] and d not in never:
            a, z = inside[v]
            pieces = [(lo, min(hi, a - 1)), (max(lo, a), min(hi, z)), (max(lo, z + 1), hi)]
            parts = [(p, q - p + 1) for p, q in pieces if q >= p]
        cuts.append(parts)
    return [tuple(zip(*combo)) for combo in itertools.product(*cuts)]


def _mirror_identity(n) -> tuple:
    """(e, lo, hi) if the select ``n`` is ``e`` itself for ``lo <= e <= hi`` as a mirror's is (lang/boundary.py
    ``_inside``), else (None, None, None)."""
    c, _, no = n.args
    if c.kind != "lt" or no.kind != "select" or no.args[0].kind != "lt" or c.args[0].type.is_float():
        return None, None, None
    form = linear_form(c.args[0])
    if form is None or linear_form(no.args[0].args[0]) != form or linear_form(no.args[1]) != form:
        return None, None, None
    lo, end = _constant(c.args[1]), _constant(no.args[0].args[1])
    return (None, None, None) if lo is None or end is None else (c.args[0], lo, end - 1)


def _constant(e) -> int | None:
    """The value of an integer Expr made of constants (``lo + ext - 1`` of a boundary condition), else None."""
    e = resolve_buffer_dims(e)
    if any(n.kind in ("var", "rvar", "call", "param") for n in walk(e)):  # a Param may change after compiling
        return None
    iv = bounds(e, {})
    return int(iv.lo) if iv.lo == iv.hi else None
