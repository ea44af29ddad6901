"""Checks that a pipeline's schedule is one Halide would accept, with Halide-style messages."""
from __future__ import annotations

from ..error import HalideError
from ..lang.schedule import LoopLevel
from ..lang.traversal import walk
from .affine import slice_forms
from .loop_nest import stage_loops

OUTERMOST = "__outermost"


def _loop_names(stage) -> list[list[str]]:
    """The loops of each definition of ``stage``, outermost first: the pure one, then each update's."""
    pure = [l.name for l in stage_loops(stage.name, stage.vars, None, stage.func.schedule().directives)]
    return [pure] + [[l.name for l in update_loops(stage, u)] for u in stage.updates]


def _position(stage, var: str):
    """(definition, loop index) of loop ``var`` of ``stage`` in the first definition that has it, or None.
    A producer computed at an update's loop (an RVar's, say) is legal in Halide; ours computes it before
    all of a consumer's loop nests when the consumer has updates (hoist_from_loops), same values."""
    for k, names in enumerate(_loop_names(stage)):
        if var in names:
            return k, names.index(var)
    return None


def _all_loops(stage) -> str:
    return ", ".join(dict.fromkeys(n for names in _loop_names(stage) for n in names))


def _where(level) -> str:
    return f" (at {level.site})" if level.site is not None else ""


def place_inline_reductions(pipeline) -> None:
    """A Func with update definitions can't be inlined: Halide computes an unscheduled one (``hl.sum(...)``)
    inside the innermost loop of its consumer. Ours is computed at the root, which gives the same values --
    unless one of its producers is computed at a loop of that consumer: then it is computed at that loop
    (the deepest such), after those producers, as in Halide. (Through chains of them: a reduction read by a
    reduction goes to the loop of the first consumer that is not one.)"""
    def inline_reduction(s) -> bool:
        return s.func is not pipeline.output and s.compute.kind == "inline" and len(s.consumers) == 1

    for s in pipeline.stages:  # producers first: their places are settled
        if not inline_reduction(s):
            continue
        consumer = s.consumers[0]
        while inline_reduction(consumer):
            consumer = consumer.consumers[0]
        at = [p.compute.var for p in pipeline.stages if s in p.consumers and p.compute.kind == "at"
              and p.compute.func is consumer.func and _position(consumer, p.compute.var) is not None]
        if at:
            s.compute = LoopLevel("at", consumer.func, max(at, key=lambda v: _position(consumer, v)))


def hoist_from_loops(pipeline) -> None:
    """Stages computed at a consumer's loop that codegen can't put there are computed once at the root
    instead, with the stages computed at consumers' loops that feed them. (This runs after check_schedules:
    the schedule is checked as written.) They are

    * a Func with a scatter or scan update: those run as explicit serial loops (codegen/updates.py), which
      ``fuse_into_containing_op`` can't move. Same values: Halide computes it whole (every update point) at
      each iteration of that loop, and its updates keep each point's pure coordinates;
    * anything computed at a loop of a consumer with update definitions, which runs several loop nests
      (the locality is not reproduced yet; pure values are the same anywhere);
    * a Func some consumer reads at coordinates that are not a slice (``f[x // 2, y]``, ``f[clamp(x, 0, 9), y]``,
      a data-dependent index): such a read is a ``tensor.extract`` inside the consumer's ``linalg.generic``, and
      ``fuse_into_containing_op`` "fuses" the producer there by cloning the whole producer into the consumer's
      body, once per read and per point (it does not vectorize, and applying the script takes minutes)."""
    from .pipeline import is_reduction

    def at_a_loop(s) -> bool:
        return s.func is not pipeline.output and s.compute.kind == "at" and s.compute.var != OUTERMOST

    hoisted = [s for s in pipeline.stages if at_a_loop(s) and (not all(is_reduction(s, u) for u in s.updates)
                                                              or pipeline.stage(s.compute.func).updates
                                                              or any(gathers(c, s.func) for c in s.consumers))]
    for s in reversed(pipeline.stages):  # consumers first, so producers of hoisted producers follow them
        if at_a_loop(s) and s not in hoisted and any(c in hoisted for c in s.consumers):
            hoisted.append(s)
    for s in hoisted:
        s.hoisted_from, s.compute = s.compute, LoopLevel.root()


def gathers(stage, func) -> bool:
    """Does ``stage``'s pure definition read ``func`` somewhere at coordinates that are not distinct Vars plus
    constants (the reads codegen/payload.py can't give a slice, so they are ``tensor.extract``s)? (A
    reduction's ``b[x + r.x]`` is an indexing map of its generic: codegen/updates.py.)"""
    for n in (m for e in stage.values for m in walk(e)):
        if n.kind == "call" and n.value is func and slice_forms(n) is None:
            return True
    return False


def _enclosing(pipeline, stage):
    """The (consumer stage, loop position) that ``stage`` is computed inside, or None at the root."""
    level = stage.compute
    if level.kind != "at" or level.var == OUTERMOST or stage.func is pipeline.output:
        return None
    consumer = next(s for s in pipeline.stages if s.func is level.func)
    return consumer, _position(consumer, level.var)


def _inside(pipeline, stage, consumer, pos) -> bool:
    """Is ``stage`` computed inside the loop at ``pos`` (definition, index) of ``consumer`` (or is it
    ``consumer``)?"""
    while True:
        if stage is consumer:
            return True
        where = _enclosing(pipeline, stage)
        if where is None:
            return False
        outer, d = where
        if outer is consumer:
            return d[0] == pos[0] and d[1] >= pos[1]
        stage = outer


def update_loops(stage, u, extents=None, directives=None) -> list:
    """An update's loop nest: its RVars are the innermost dims (r.x first), then the pure Vars.
    ``directives``: the update's schedule (default: the user's)."""
    names = [r.name() for r in u.rvars] + list(stage.vars)
    return stage_loops(f"{stage.name}.update({u.index})", names, extents,
                       u.schedule.directives if directives is None else directives)


def _check_update_loops(stage, u) -> None:
    """Halide refuses to run iterations of a reduction domain in parallel or as vector lanes: they may
    depend on each other through the Func's value. (RVar loops are the first dims: r.x, r.y, ...)"""
    for l in update_loops(stage, u):
        if l.kind in ("parallel", "vectorized") and any(dim < len(u.rvars) for dim, _ in l.parts):
            verb = "parallelize" if l.kind == "parallel" else "vectorize"
            site = next((d.site for d in u.schedule.directives if d.args and d.args[0] == l.name), None)
            raise HalideError(f"In schedule for {stage.name}.update({u.index}){f' (at {site})' if site else ''}: "
                              f"can't {verb} loop '{l.name}' over the reduction domain: its iterations may "
                              f"depend on each other through the Func's value (Halide refuses this too)")


def check_schedules(pipeline) -> None:
    stages = {id(s.func): s for s in pipeline.stages}
    for s in pipeline.stages:
        for u in s.updates:
            _check_update_loops(s, u)
        sched = s.func.schedule()
        level = sched.compute
        if level.kind == "at" and s.func is not pipeline.output:
            consumer = stages.get(id(level.func))
            if consumer is None:
                why = ("is scheduled inline" if level.func.defined() and level.func.schedule().compute.kind ==
                       "inline" else "is not used by this pipeline")
                raise HalideError(f"Func '{s.name}' is computed at Func '{level.func.name()}'{_where(level)}, "
                                  f"but '{level.func.name()}' {why}")
            if level.var != OUTERMOST:
                pos = _position(consumer, level.var)
                if pos is None:
                    raise HalideError(f"Func '{s.name}' is computed at {consumer.name}.{level.var}{_where(level)}, "
                                      f"but {consumer.name} has no loop '{level.var}' (its loops are "
                                      f"{_all_loops(consumer)})")
                # Halide computes the producer inside each definition of the consumer that uses it, so each
                # of those must have the loop
                loops = _loop_names(consumer)
                for k, exprs in enumerate([list(consumer.values)] + [u.exprs() for u in consumer.updates]):
                    if level.var in loops[k] or \
                            not any(n.kind == "call" and n.value is s.func for e in exprs for n in walk(e)):
                        continue
                    which = "the pure definition" if k == 0 else f"update {k - 1}"
                    raise HalideError(f"Func \"{s.name}\" is computed at the following invalid location: "
                                      f"{s.name}.compute_at({consumer.name}, {level.var}){_where(level)}: "
                                      f"{which} of {consumer.name} uses it but has no loop "
                                      f"'{level.var}'. Legal locations include compute_root() and "
                                      f"compute_at({consumer.name}, Var.outermost())")
                for c in s.consumers:
                    if not _inside(pipeline, c, consumer, pos):
                        raise HalideError(
                            f"Func '{s.name}' is computed at {consumer.name}.{level.var}{_where(level)}, but it is "
                            f"used by Func '{c.name}', which is not computed inside that loop")
        store = sched.store
        if store is not None and store.kind == "at":
            if level.kind != "at" or store.func is not level.func:
                if not (level.kind == "at" and _store_encloses(pipeline, stages, store, level)):
                    raise HalideError(f"Func '{s.name}' is stored at {store.func.name()}.{store.var}{_where(store)} "
                                      f"but computed at a level that is not inside it")
            else:
                at = stages[id(store.func)]
                if store.var != OUTERMOST and _position(at, store.var) is None:
                    raise HalideError(f"Func '{s.name}' is stored at {store.func.name()}.{store.var}"
                                      f"{_where(store)}, but {store.func.name()} has no such loop")
                if store.var != OUTERMOST and level.var != OUTERMOST and \
                        _store_inside_compute(at, s.func, store.var, level.var):
                    raise HalideError(f"Func '{s.name}' is stored at {store.func.name()}.{store.var} inside the "
                                      f"loop it is computed at ({level.func.name()}.{level.var}){_where(store)}; "
                                      f"store_at must be at or outside compute_at")


def _store_inside_compute(consumer, func, store_var: str, compute_var: str) -> bool:
    """Is the store loop inside the compute loop in a definition of ``consumer`` that uses ``func``? (Halide
    checks the definitions that use it: a pure definition reordered differently from the update that reads
    the producer does not count.)"""
    names = _loop_names(consumer)
    for k, exprs in enumerate([list(consumer.values)] + [u.exprs() for u in consumer.updates]):
        if store_var in names[k] and compute_var in names[k] and \
                names[k].index(store_var) > names[k].index(compute_var) and \
                any(n.kind == "call" and n.value is func for e in exprs for n in walk(e)):
            return True
    return False


def _store_encloses(pipeline, stages, store, level) -> bool:
    consumer = stages.get(id(store.func))
    if consumer is None:
        return False
    pos = _position(consumer, store.var) or (0, 0)
    computed_in = stages.get(id(level.func))
    return computed_in is not None and _inside(pipeline, computed_in, consumer, pos)
