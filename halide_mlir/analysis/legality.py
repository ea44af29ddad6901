"""Checks that a pipeline's schedule is one Halide would accept, with Halide-style messages.

The schedule is checked as the user wrote it (``func.schedule()``), before placement.py moves anything.
"""

from __future__ import annotations

from ..error import HalideError
from ..lang.schedule import OUTERMOST, LevelKind, LoopKind
from ..lang.traversal import walk
from .loop_nest import definition_loop_names, loop_position, update_loops
from .placement import computed_inside
from .pipeline import Pipeline
from .small_directives import check_hoist_storage, check_update_partitions
from .warnings import _funcs


def _all_loops(stage) -> str:
    return ", ".join(dict.fromkeys(n for names in definition_loop_names(stage) for n in names))


def _where(level) -> str:
    return f" (at {level.site})" if level.site is not None else ""


def _check_update_loops(stage, u) -> None:
    """Halide refuses to run iterations of a reduction domain in parallel or as vector lanes: they may
    depend on each other through the Func's value. (RVar loops are the first dims: r.x, r.y, ...)"""
    for l in update_loops(stage, u):
        if l.kind in (LoopKind.PARALLEL, LoopKind.VECTORIZED) and any(dim < len(u.rvars) for dim, _ in l.parts):
            if u.schedule.race and not u.schedule.atomic:  # allow_race_conditions(): plain stores, as Halide's
                continue
            if u.schedule.atomic:  # atomic(): checked when scheduled (lang/rfactor.py check_atomic)
                if len(u.values) > 1:
                    raise HalideError(
                        f"In schedule for {stage.name}.update({u.index}): atomic() on a Tuple-valued "
                        f"update is not supported by halide_mlir yet (Halide locks a mutex there)"
                    )
                continue
            verb = "parallelize" if l.kind == LoopKind.PARALLEL else "vectorize"
            site = next((d.site for d in u.schedule.directives if d.args and d.args[0] == l.name), None)
            raise HalideError(
                f"In schedule for {stage.name}.update({u.index}){f' (at {site})' if site else ''}: "
                f"can't {verb} loop '{l.name}' over the reduction domain: its iterations may "
                f"depend on each other through the Func's value (Halide refuses this too; atomic() "
                f"allows it for an associative update)"
            )


def check_schedules(pipeline: Pipeline) -> None:
    stages = {s.func: s for s in pipeline.stages}
    funcs = _funcs(pipeline.output)
    check_hoist_storage(pipeline, funcs)  # hoist_storage, partition: analysis/small_directives.py
    for s in pipeline.stages:
        check_update_partitions(s)
        for u in s.updates:
            _check_update_loops(s, u)
        sched = s.func.schedule()
        level = sched.compute
        if level.kind == LevelKind.AT and s.func is not pipeline.output:
            consumer = stages.get(level.func)
            if consumer is None:
                why = (
                    "is scheduled inline"
                    if level.func.defined() and level.func.schedule().compute.kind == LevelKind.INLINE
                    else "is not used by this pipeline"
                )
                raise HalideError(
                    f"Func '{s.name}' is computed at Func '{level.func.name()}'{_where(level)}, "
                    f"but '{level.func.name()}' {why}"
                )
            if level.var != OUTERMOST:
                pos = loop_position(consumer, level.var)
                if pos is None:
                    raise HalideError(
                        f"Func '{s.name}' is computed at {consumer.name}.{level.var}{_where(level)}, "
                        f"but {consumer.name} has no loop '{level.var}' (its loops are "
                        f"{_all_loops(consumer)})"
                    )
                # Halide computes the producer inside each definition of the consumer that uses it, so each
                # of those must have the loop
                loops = definition_loop_names(consumer)
                for k, exprs in enumerate([list(consumer.values)] + [u.exprs() for u in consumer.updates]):
                    if level.var in loops[k] or not any(
                        n.kind == "call" and n.value is s.func for e in exprs for n in walk(e)
                    ):
                        continue
                    which = "the pure definition" if k == 0 else f"update {k - 1}"
                    raise HalideError(
                        f'Func "{s.name}" is computed at the following invalid location: '
                        f"{s.name}.compute_at({consumer.name}, {level.var}){_where(level)}: "
                        f"{which} of {consumer.name} uses it but has no loop "
                        f"'{level.var}'. Legal locations include compute_root() and "
                        f"compute_at({consumer.name}, Var.outermost())"
                    )
                for c in s.consumers:
                    if not computed_inside(pipeline, c, consumer, pos):
                        raise HalideError(
                            f"Func '{s.name}' is computed at {consumer.name}.{level.var}{_where(level)}, but it is "
                            f"used by Func '{c.name}', which is not computed inside that loop"
                        )
        store = sched.store
        if store is not None and store.kind == LevelKind.AT:
            if level.kind != LevelKind.AT or store.func is not level.func:
                if not (level.kind == LevelKind.AT and _store_encloses(pipeline, stages, store, level)):
                    raise HalideError(
                        f"Func '{s.name}' is stored at {store.func.name()}.{store.var}{_where(store)} "
                        f"but computed at a level that is not inside it"
                    )
            else:
                at = stages[store.func]
                if store.var != OUTERMOST and loop_position(at, store.var) is None:
                    raise HalideError(
                        f"Func '{s.name}' is stored at {store.func.name()}.{store.var}"
                        f"{_where(store)}, but {store.func.name()} has no such loop"
                    )
                if (
                    store.var != OUTERMOST
                    and level.var != OUTERMOST
                    and _store_inside_compute(at, s.func, store.var, level.var)
                ):
                    raise HalideError(
                        f"Func '{s.name}' is stored at {store.func.name()}.{store.var} inside the "
                        f"loop it is computed at ({level.func.name()}.{level.var}){_where(store)}; "
                        f"store_at must be at or outside compute_at"
                    )


def _store_inside_compute(consumer, func, store_var: str, compute_var: str) -> bool:
    """Is the store loop inside the compute loop in a definition of ``consumer`` that uses ``func``? (Halide
    checks the definitions that use it: a pure definition reordered differently from the update that reads
    the producer does not count.)"""
    names = definition_loop_names(consumer)
    for k, exprs in enumerate([list(consumer.values)] + [u.exprs() for u in consumer.updates]):
        if (
            store_var in names[k]
            and compute_var in names[k]
            and names[k].index(store_var) > names[k].index(compute_var)
            and any(n.kind == "call" and n.value is func for e in exprs for n in walk(e))
        ):
            return True
    return False


def _store_encloses(pipeline, stages, store, level) -> bool:
    consumer = stages.get(store.func)
    if consumer is None:
        return False
    pos = loop_position(consumer, store.var) or (0, 0)
    computed_in = stages.get(level.func)
    return computed_in is not None and computed_inside(pipeline, computed_in, consumer, pos)
