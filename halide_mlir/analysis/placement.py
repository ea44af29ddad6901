"""Where each stage is computed: the user's compute level, or where halide_mlir places it instead.

``Stage.compute`` starts as the user's level (``func.schedule().compute``, which legality.py checks as written)
and is changed here only: an unscheduled reduction is placed at its consumer's loop, and stages codegen can't
compute at a consumer's loop are hoisted to the root (``Stage.hoisted_from`` keeps the level they came from).
Everything after placement reads ``Stage.compute`` (through the StagePlan), never the user's level.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ..error import ComputeAtWarning

from ..lang.schedule import LevelKind, LoopLevel
from ..lang.traversal import walk
from .affine import lut_forms, map_forms, scaled_forms, slice_forms
from .loop_nest import loop_position, update_loops
from .pyramid import windows as pyramid_windows
from .scan_tiles import gathers_whole_dims_only
from .pipeline import Pipeline, Stage, as_generic

if TYPE_CHECKING:  # annotations only
    from ..lang.func import Func


def place_inline_reductions(pipeline: Pipeline) -> None:
    """A Func with update definitions can't be inlined: Halide computes an unscheduled one (``hl.sum(...)``)
    inside the innermost loop of its consumer. Ours is computed at the root, which gives the same values --
    unless one of its producers is computed at a loop of that consumer: then it is computed at that loop
    (the deepest such), after those producers, as in Halide; or, where such a producer is computed at a loop
    that encloses the consumer, at the consumer's own level. (Through chains of them: a reduction read by a
    reduction goes to the loop of the first consumer that is not one.)"""

    def inline_reduction(s: Stage) -> bool:
        return s.func is not pipeline.output and s.compute.kind == LevelKind.INLINE and len(s.consumers) == 1

    for s in pipeline.stages:  # producers first: their places are settled
        if not inline_reduction(s):
            continue
        consumer = s.consumers[0]
        while inline_reduction(consumer):
            consumer = consumer.consumers[0]
        at = [
            p.compute.var
            for p in pipeline.stages
            if s in p.consumers
            and p.compute.kind == LevelKind.AT
            and p.compute.func is consumer.func
            and loop_position(consumer, p.compute.var) is not None
        ]
        if at:
            s.compute = LoopLevel(LevelKind.AT, consumer.func, max(at, key=lambda v: loop_position(consumer, v)))
        elif consumer.compute.at_loop() and any(
            p.compute.at_loop()
            and computed_inside(
                pipeline,
                consumer,
                pipeline.stage(p.compute.func),
                loop_position(pipeline.stage(p.compute.func), p.compute.var),
            )
            for p in pipeline.stages
            if s in p.consumers
        ):
            # a producer is computed at a loop around the consumer (both at a tile's loop, say): at the root
            # the reduction would be outside that loop, so it goes where its consumer is, just before it
            s.compute = consumer.compute


def unplanned_scaled(plan) -> dict:
    """The stages placement kept at a loop for their scaled reads (scaled_at_loop) or their explicit-loop updates
    (explicit_in_tile) that the tile plan of the stage whose loops enclose them does not compute: a gather of
    them would be plain fusion (cloned per read, minutes in the transform interpreter), and explicit loops
    can't be fused at all, so they go to the root after all. {name: why}."""
    p = plan.bounded.pipeline
    by_func = {sp.func: sp for sp in plan.stages}
    out = {}
    for s in p.stages:  # Funcs with explicit-loop updates kept at a loop for a tile plan that does not compute them
        if s.func is p.output or not s.compute.at_loop() or all(as_generic(s, u) for u in s.updates):
            continue
        tile = by_func[s.compute.func].tile
        if tile is None or s.func not in tile.computed:
            out[s.name] = EXPLICIT_UPDATES
    for s in p.stages:
        if s.func is p.output or not s.compute.at_loop() or not any(gathers(c, s.func) for c in s.consumers):
            continue
        outer = p.stage(s.compute.func)
        while outer.func is not p.output and outer.compute.at_loop():
            outer = p.stage(outer.compute.func)
        tile = by_func[outer.func].tile
        if tile is None or s.func not in tile.computed:
            out[s.name] = f"'{outer.name}''s loops can't give it one tile per iteration for its scaled reads"
    return out


def hoist_from_loops(pipeline: Pipeline, forced: dict | None = None) -> None:
    """Stages computed at a consumer's loop that codegen can't put there are computed once at the root
    instead, with the stages computed at consumers' loops that feed them. (This runs after check_schedules:
    the schedule is checked as written.) They are

    * a Func with a scatter or scan update that its consumer's payload loops can't compute (explicit_in_tile;
      the tile plan has the last word, unplanned_scaled): those run as explicit serial loops
      (codegen/updates.py), which ``fuse_into_containing_op`` can't move. Same values: Halide computes it whole
      (every update point) at each iteration of that loop, and its updates keep each point's pure coordinates;
    * anything computed at a loop of a consumer with update definitions (but see update_home), which runs
      several loop nests (the locality is not reproduced yet; pure values are the same anywhere);
    * a Func some consumer reads at coordinates that are not a slice (``f[x // 2, y]``, ``f[clamp(x, 0, 9), y]``,
      a data-dependent index): such a read is a ``tensor.extract`` inside the consumer's ``linalg.generic``, and
      ``fuse_into_containing_op`` "fuses" the producer there by cloning the whole producer into the consumer's
      body, once per read and per point (it does not vectorize, and applying the script takes minutes)."""

    def at_a_loop(s: Stage) -> bool:
        return s.func is not pipeline.output and s.compute.at_loop()

    to_consumer_level(pipeline)
    pyramid = pyramid_windows(pipeline)  # read at (a * y + b) // d: slid by the payload (analysis/pyramid.py)

    def why(s: Stage) -> str | None:
        if not all(as_generic(s, u) for u in s.updates) and not explicit_in_tile(pipeline, s):
            return EXPLICIT_UPDATES
        if pipeline.stage(s.compute.func).updates and update_home(pipeline, s) is None:
            return f"'{s.compute.func.name()}' has update definitions (it runs several loop nests)"
        readers = [
            c.name
            for c in s.consumers
            if gathers(c, s.func)
            and not scaled_at_loop(pipeline, c, s)
            and not lut_at_loop(pipeline, c, s)
            and not (s.updates and gathers_whole_dims_only(c, s) and explicit_in_tile(pipeline, s))
        ]
        if readers and s.func not in pyramid:
            return f"'{readers[0]}' reads it at coordinates that are not a slice of its loops"
        return None

    reasons = {s.name: r for s in pipeline.stages if at_a_loop(s) and (r := why(s)) is not None}
    reasons |= {s.name: forced[s.name] for s in pipeline.stages if at_a_loop(s) and s.name in (forced or {})}
    hoisted = [s for s in pipeline.stages if s.name in reasons]
    for s in reversed(pipeline.stages):  # consumers first, so producers of hoisted producers follow them
        if at_a_loop(s) and s not in hoisted and any(c in hoisted for c in s.consumers):
            fed = next(c.name for c in s.consumers if c in hoisted)
            reasons[s.name] = f"a Func it feeds ('{fed}') is computed at the root"
            hoisted.append(s)
    for s in hoisted:
        at = s.compute
        # a slow path, not a silent one: the schedule's locality is lost (the values are the same)
        warnings.warn(
            ComputeAtWarning(
                f"{at.site}: " * (at.site is not None) + f"Func '{s.name}' is scheduled compute_at({at.func.name()}, "
                f"{at.var}) but computed once at the root: {reasons[s.name]} (same values)"
            ),
            stacklevel=5,
        )
        s.hoisted_from, s.compute = s.compute, LoopLevel.root()


def to_consumer_level(pipeline: Pipeline) -> None:
    """A pure Func computed at a loop of a consumer with update definitions that is itself computed at a loop
    (nl_means's ``blur_d.compute_at(non_local_means_sum, x)``, the sum computed at the output's x) is computed
    at the consumer's own level instead, just before it: the loop Halide names runs inside the consumer's update
    (several loop nests, which the script can't fuse into), and the root would take everything it reads there
    too. Read by that consumer alone, in reduction updates and through affine coordinates, it is the same
    points either way (each computed once per computation of the consumer, held for all its update's
    iterations instead of one): same values, same work. The tile plan of the stage whose loops these are then
    computes both there (analysis/tiling.py). Warns ``ComputeAtWarning`` (a different loop than asked)."""
    for s in reversed(pipeline.stages):  # consumers first: a chain of them moves together
        if s.func is pipeline.output or not s.compute.at_loop() or s.updates or len(s.values) != 1:
            continue
        c = pipeline.stage(s.compute.func)
        if not c.updates or c.func is pipeline.output or not c.compute.at_loop() or update_home(pipeline, s):
            continue
        if any(q is not c for q in s.consumers) or gathers(c, s.func) or not all(as_generic(c, u) for u in c.updates):
            continue
        if any(n.kind == "call" and n.value is s.func for e in c.values for n in walk(e)):
            continue
        at = s.compute
        warnings.warn(
            ComputeAtWarning(
                f"{at.site}: " * (at.site is not None) + f"Func '{s.name}' is scheduled compute_at({at.func.name()}, "
                f"{at.var}) but computed at {c.compute.func.name()}.{c.compute.var}, where '{c.name}' is computed, "
                f"for all of its update's iterations: '{c.name}' has update definitions (same values)"
            ),
            stacklevel=5,
        )
        s.hoisted_from, s.compute = s.compute, c.compute


def update_home(pipeline: Pipeline, stage: Stage) -> int | None:
    """The update of its consumer ``stage`` is computed in, or None: Halide's ``compute_at(c, x)`` names loop x of
    any of c's definitions (LoopLevel stage -1), so a producer only one update of c reads is computed in that
    update's loop x (lesson 9's ``consumer[x] += producer[x]``; nl_means's blur_d in the weighted sum). Where
    the script can fuse it there: c is computed at the root, the update is one generic (a reduction), x is one
    of its loops, and the producer is pure, read by c alone, reading nothing computed at c's loops."""
    if not stage.compute.at_loop() or stage.func is pipeline.output:
        return None
    c = pipeline.stage(stage.compute.func)
    if not c.updates or (c.func is not pipeline.output and c.compute.at_loop()):
        return None
    if stage.updates or any(q is not c for q in stage.consumers):
        return None

    def reads(exprs) -> bool:
        return any(n.kind == "call" and n.value is stage.func for e in exprs for n in walk(e))

    if reads(c.values):
        return None
    readers = [u for u in c.updates if reads(u.exprs())]
    if len(readers) != 1 or not as_generic(c, readers[0]):
        return None
    u = readers[0]
    if stage.compute.var not in [l.name for l in update_loops(c, u)]:
        return None
    at_c = {s.func for s in pipeline.stages if s.compute.at_loop() and s.compute.func is c.func}
    if any(n.kind == "call" and n.value in at_c for e in stage.values for n in walk(e)):
        return None
    return u.index


EXPLICIT_UPDATES = "it has a scatter or scan update (explicit loops, which can't be moved into a consumer's loop)"


def explicit_in_tile(pipeline: Pipeline, stage: Stage) -> bool:
    """Can a Func with a scatter or scan update (explicit loops) be computed by its consumer's payload loops
    (analysis/tiling.py computes its tile there: the pure definition, then each update's loops over the tile's
    pure coordinates, as Halide computes it per iteration)? Only the stage whose loop it is computed at reads it,
    through slices, or stages computed inside that loop, also at any coordinates along the dims its updates write
    at other than their pure Vars (where its tile is its whole region: analysis/scan_tiles.py); that stage is
    computed at the root and has no updates; one value; its updates read no Func computed at that stage's loops
    but itself. The tile plan decides the rest (unplanned_scaled sends it to the root where it does not)."""
    outer = pipeline.stage(stage.compute.func)
    if outer.func is not pipeline.output and outer.compute.at_loop():
        return False
    if outer.updates or len(stage.values) != 1:
        return False
    # or stages computed inside that loop, gathering along its whole dims only (analysis/scan_tiles.py)
    pos = loop_position(outer, stage.compute.var)
    if any(
        gathers(c, stage.func)
        if c is outer
        else not (computed_inside(pipeline, c, outer, pos) and gathers_whole_dims_only(c, stage))
        for c in stage.consumers
    ):
        return False
    at_outer = {s.func for s in pipeline.stages if s.compute.at_loop() and s.compute.func is outer.func}
    return not any(
        n.kind == "call" and n.value in at_outer and n.value is not stage.func
        for u in stage.updates
        for e in u.exprs()
        for n in walk(e)
    )


def scaled_at_loop(pipeline: Pipeline, consumer: Stage, stage: Stage) -> bool:
    """Does the consumer whose loop ``stage`` is computed at read it only at ``(a * x + c) / d`` coordinates, one
    scale per dimension? analysis/tiling.py then gives it one tile per iteration (bounds inference's interval)
    that the consumer reads through strided slices or gathers of the tile, as Halide computes it there."""
    outer = pipeline.stage(stage.compute.func)
    if consumer.updates or stage.updates:
        return False
    if consumer is not outer and not computed_inside(
        pipeline, consumer, outer, loop_position(outer, stage.compute.var)
    ):
        return False  # read outside the loop (tiling.py computes it in the loop's iterations only)
    if len(consumer.values) != 1 or len(stage.values) != 1:
        return False
    if outer.func is not pipeline.output and outer.compute.at_loop():
        return False  # a consumer fused somewhere itself has no payload loops (tiling.py tile_plan)
    scales: dict = {}
    for n in (m for e in consumer.values for m in walk(e)):
        if n.kind != "call" or n.value is not stage.func:
            continue
        forms = scaled_forms(n)
        if forms is None:
            return False
        for j, (v, a, _, d) in enumerate(forms):
            if v is not None and scales.setdefault(j, (a, d)) != (a, d):
                return False  # two scales along one dim: a tile growing with the loop
    return True


def lut_at_loop(pipeline: Pipeline, consumer: Stage, stage: Stage) -> bool:
    """Does the stage whose loop ``stage`` is computed at (computed at the root, no updates) read it directly,
    at data-dependent coordinates (affine.py lut_forms: max_filter's ``vert``, read at a slice chosen by a LUT),
    or through slices? analysis/tiling.py then gives it one tile per iteration, its whole region along the
    data-dependent dims, which the consumer gathers from (unplanned_scaled sends it to the root where not)."""
    outer = pipeline.stage(stage.compute.func)
    if consumer is not outer or consumer.updates or stage.updates:
        return False
    if outer.func is not pipeline.output and outer.compute.at_loop():
        return False
    if len(consumer.values) != 1 or len(stage.values) != 1:
        return False
    calls = [n for e in consumer.values for n in walk(e) if n.kind == "call" and n.value is stage.func]
    lut = [lut_forms(n) is not None for n in calls]
    return any(lut) and all(k or slice_forms(n) is not None for k, n in zip(lut, calls))


def gathers(stage: Stage, func: Func) -> bool:
    """Does ``stage`` read ``func`` somewhere at coordinates that are not distinct Vars plus constants in its pure
    definition (the reads codegen/payload.py can't give a slice, so they are ``tensor.extract``s), or not affine
    in its Vars and RVars in a reduction (``b[x + r.x]`` is an indexing map of its generic, codegen/updates.py;
    max_filter's ``vert[x + dx, y, c, lut[dx]]`` is a ``tensor.extract``)?"""
    for n in (m for e in stage.values for m in walk(e)):
        if n.kind == "call" and n.value is func and slice_forms(n) is None:
            return True
    for u in stage.updates:
        dims = {v: v for v in stage.vars} | {r.name(): r.name() for r in u.rvars}
        base = dict.fromkeys(dims, 0)
        for n in (m for e in [*u.values, *u.predicates] for m in walk(e)):
            if n.kind == "call" and n.value is func and map_forms(n, dims, base) is None:
                return True
    return False


def enclosing(pipeline: Pipeline, stage: Stage) -> tuple[Stage, tuple[int, int]] | None:
    """The (consumer stage, loop position) that ``stage`` is computed inside, or None at the root."""
    level = stage.compute
    if not level.at_loop() or stage.func is pipeline.output:
        return None
    consumer = pipeline.stage(level.func)
    return consumer, loop_position(consumer, level.var)


def computed_inside(pipeline: Pipeline, stage: Stage, consumer: Stage, pos: tuple[int, int]) -> bool:
    """Is ``stage`` computed inside the loop at ``pos`` (definition, index) of ``consumer`` (or is it
    ``consumer``)?"""
    while True:
        if stage is consumer:
            return True
        where = enclosing(pipeline, stage)
        if where is None:
            return False
        outer, d = where
        if outer is consumer:
            return d[0] == pos[0] and d[1] >= pos[1]
        stage = outer
