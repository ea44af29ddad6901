"""What the smaller directives of lang/small_directives.py do, where they need the pipeline: the region that
``bound_extent``/``align_bounds``/``align_extent`` give (used by bounds.py), the loop partition policy of each
dimension (used by plan.py ``partition``), and Halide's checks of ``hoist_storage`` and ``bound_storage``."""

from __future__ import annotations

import warnings

from ..error import HalideError, SlowPathWarning
from ..lang.schedule import OUTERMOST, DirectiveKind, LevelKind, LoopKind, Partition
from ..lang.traversal import walk
from .loop_nest import stage_loops


class PartitionWarning(SlowPathWarning):
    """``Partition.Always`` on a loop halide_mlir computes in one piece: same values, the clamps stay."""


# --- the region ------------------------------------------------------------------------------------------------


def scheduled_extent(stage, d, lo: int, ext: int) -> tuple[int, int]:
    """(min, extent) of one dimension after ``bound_extent`` or ``align_*`` (Halide's BoundsInference.cpp)."""
    sched = stage.func.schedule()
    if d.kind == DirectiveKind.BOUND_EXTENT:
        # computed at an inner loop and stored elsewhere, the min moves: Halide does not apply the bound then
        if sched.compute.at_loop() and sched.store is not None and sched.store != sched.compute:
            return lo, ext
        if ext > d.args[1]:
            raise HalideError(
                f"Bounds given for {stage.name} in {d.args[0]} (from {lo} to {lo + d.args[1] - 1}) do "
                f"not cover required region (from {lo} to {lo + ext - 1}) (bound_extent set at "
                f"{d.site})"
            )
        return lo, d.args[1]
    m, r = d.args[1], d.args[2]
    if r is None:  # align_extent: the min stays
        return lo, -(-ext // m) * m
    new_lo = (lo - r) // m * m + r
    end = -(-(lo + ext - r) // m) * m + r
    return new_lo, end - new_lo


# --- loop partitioning -----------------------------------------------------------------------------------------


def partition_policies(stage_name: str, vars_: list, extents, directives) -> dict:
    """Per dim, the policy of its loops: Never if any loop of the dim is Never, else Always if one is Always
    (a dim is cut in one place here, so its loops' policies meet there); dims left alone are absent."""
    loops = {
        l.name: l
        for l in stage_loops(stage_name, vars_, extents, [d for d in directives if d.kind != DirectiveKind.PARTITION])
    }
    policies: dict = {}
    for d in directives:
        if d.kind == DirectiveKind.PARTITION and d.args[0] in loops:
            for dim, _ in loops[d.args[0]].parts:
                if policies.get(dim) != Partition.Never:
                    policies[dim] = d.args[1] if d.args[1] != Partition.Auto or dim not in policies else policies[dim]
    return policies


def check_always(stage, values, pieces) -> None:
    """Halide's error for ``Partition.Always`` on a loop with nothing to partition: no boundary clamp along its
    dimension, and not the outer loop of a split whose tail is guarded (GuardWithIf, or a vectorize's split,
    whose tail Halide partitions off). Where the loop has clamps of its own but is computed in one piece here, a
    PartitionWarning (clamps read through a padded copy are partitioned in the copy)."""
    always = {
        d.args[0]: d.site
        for d in reversed(stage.directives)
        if d.kind == DirectiveKind.PARTITION and d.args[1] == Partition.Always
    }  # the first Always of each loop: its line is the one the error names
    if not always:
        return
    loops = {l.name: l for l in stage_loops(stage.name, stage.vars, None, stage.directives)}
    vectorized = {d.args[0] for d in stage.directives if d.kind == DirectiveKind.VECTORIZE}
    guarded = {
        d.args[1]
        for d in stage.directives
        if d.kind == DirectiveKind.SPLIT
        and ((d.args[4] is None and d.args[2] in vectorized) or getattr(d.args[4], "name", "") == "GuardWithIf")
    }
    clamped, direct = clamped_vars(stage, values), clamped_vars(stage, values, copies=False)
    cut = {d for d in range(len(stage.vars)) if pieces and len({p[0][d] for p in pieces}) > 1}
    for name, site in reversed(always.items()):
        # vector lanes and unrolled loops are no loops by the time Halide partitions (nor checks the policy)
        if name not in loops or loops[name].kind in (LoopKind.VECTORIZED, LoopKind.UNROLLED):
            continue
        var = stage.vars[loops[name].dim]
        if var not in clamped and name not in guarded:
            raise HalideError(
                f"Loop Partition Policy is set to Always for {stage.name}.s0.{loops[name].path}, but "
                f"no loop partitioning was performed.{f' (at {site})' if site is not None else ''}"
            )
        if var in direct and loops[name].dim not in cut and pieces is None:
            warnings.warn(
                f"Func '{stage.name}': Partition.Always on {name}: halide_mlir computes this stage in one "
                f"piece (its boundary conditions stay clamps; same values)",
                PartitionWarning,
                stacklevel=2,
            )


def clamped_vars(stage, values, copies: bool = True) -> set:
    """The Vars along which the stage reads through a boundary condition (a clamp of the Var, or a call of a
    padded copy, lang/boundary.py): the loops Halide would partition."""
    from .affine import linear_form

    out = set()
    for n in (m for v in values for m in walk(v)):
        if n.kind == "max" and n.args[0].kind == "min":
            form = linear_form(n.args[0].args[0])
            if form is not None and form[0] in stage.vars:
                out.add(form[0])
        elif copies and n.kind == "call" and hasattr(n.value, "schedule") and n.value.schedule().padded_copy:
            for a, b in zip(n.args, n.value.schedule().padded_copy):
                form = linear_form(a)
                if b is not None and form is not None and form[0] in stage.vars:
                    out.add(form[0])
    return out


def check_update_partitions(stage) -> None:
    """Updates are never cut into pieces here: Always on an update loop is Halide's error when the update has no
    boundary clamp along it, else a PartitionWarning."""
    for u in stage.updates:
        names = [r.name() for r in u.rvars] + list(stage.vars)
        clamped = clamped_vars(stage, u.exprs())
        for d in u.schedule.directives:
            if d.kind == DirectiveKind.PARTITION and d.args[1] == Partition.Always:
                if d.args[0] in names and d.args[0] not in clamped:
                    raise HalideError(
                        f"Loop Partition Policy is set to Always for {stage.name}.s{u.index + 1}."
                        f"{d.args[0]}, but no loop partitioning was performed."
                        + (f" (at {d.site})" if d.site is not None else "")
                    )
                warnings.warn(
                    f"Func '{stage.name}'.update({u.index}): Partition.Always on {d.args[0]}: update "
                    f"definitions are computed in one piece here (same values)",
                    PartitionWarning,
                    stacklevel=2,
                )


# --- hoist_storage ---------------------------------------------------------------------------------------------


def check_hoist_storage(pipeline, funcs) -> None:
    """Halide's rules (ScheduleFunctions.cpp): a hoisted Func is computed somewhere (not inline), an output's
    storage is at the root, the storage level is at or outside store_at, and no parallel or vectorized loop lies
    between it and compute_at. Within them the allocation is already where hoist_storage puts it or further out
    (docs/directives.md#hoist-storage): nothing else to do."""
    for f in funcs:
        sched = f.schedule()
        h = sched.hoist
        if h is None:
            continue
        root = h.kind == LevelKind.ROOT or (h.kind == LevelKind.AT and h.var == OUTERMOST and h.func is pipeline.output)
        if f is pipeline.output:
            if h.kind != LevelKind.ROOT:
                raise HalideError(
                    f"Func {f.name()} is an output, so must be scheduled compute_root, store_root, and "
                    f"hoist_storage_root (which is the default). The requested hoist_storage level is "
                    f"{h.func.name()}.{h.var}{_at(h)}"
                )
            continue
        if sched.compute.kind == LevelKind.INLINE and not f.updates():
            which = (
                "hoist_storage_root(), but is inlined. Funcs that use hoist_storage_root must also call "
                "compute_root or compute_at"
                if h.kind == LevelKind.ROOT
                else "hoist_storage(), but is inlined. Funcs that use hoist_storage_root must also call compute_at"
            )
            raise HalideError(f'Func "{f.name()}" is scheduled {which}.{_at(h)}')
        if root:
            inner = None
        elif h.kind == LevelKind.AT:
            inner = h
        else:
            continue
        store = sched.store or sched.compute
        compute = sched.compute
        if inner is not None and (compute.kind != LevelKind.AT or inner.func is not compute.func):
            if compute.kind != LevelKind.AT:
                raise _invalid(f, inner, "it is computed at the root")
            raise HalideError(
                f"Func \"{f.name()}\": hoist_storage at a loop of '{inner.func.name()}', which is not "
                f"the Func it is computed at ('{compute.func.name()}'), is not supported yet{_at(h)}"
            )
        if compute.kind != LevelKind.AT:
            continue
        consumer = pipeline.stage(compute.func)
        names = [l.name for l in stage_loops(consumer.name, consumer.vars, None, consumer.directives)]
        kinds = {l.name: l.kind for l in stage_loops(consumer.name, consumer.vars, None, consumer.directives)}

        def pos(level):
            if level.var == OUTERMOST:
                return -1
            return names.index(level.var) if level.var in names else None

        hp = -1 if inner is None else pos(inner)
        sp = pos(store) if store.kind == LevelKind.AT and store.func is compute.func else -1
        cp = pos(compute)
        if hp is None or cp is None:
            missing = inner if hp is None else compute  # (hoist_storage_root: inner is None, the compute level's)
            raise _invalid(f, inner, f"{consumer.name} has no loop '{missing.var}'")
        if sp is not None and hp > sp:
            raise _invalid(f, inner, "the storage level is inside the loop it is stored at")
        for l in names[hp + 1 : cp + 1]:
            if kinds[l] in (LoopKind.PARALLEL, LoopKind.VECTORIZED):
                raise HalideError(
                    f'Func "{f.name()}" storage is hoisted outside the parallel/vectorized/gpu_block '
                    f"loop over {consumer.name}.{l} but computed within it. This is a potential race "
                    f"condition.{_at(h)}"
                )


def _invalid(f, level, why: str) -> HalideError:
    where = "hoist_storage_root()" if level is None else f"hoist_storage({level.func.name()}, {level.var})"
    return HalideError(
        f'Func "{f.name()}" is computed at the following invalid location: {where} with '
        f"{f.name()}'s compute and store levels: {why}.{_at(level)}"
    )


def _at(level) -> str:
    return f" (at {level.site})" if level is not None and level.site is not None else ""


# --- bound_storage ---------------------------------------------------------------------------------------------


def _at_site(func, v) -> str:
    site = func.schedule().sites.get(("bound_storage", v))
    return f" (at {site})" if site is not None else ""


def check_storage_bounds(plan) -> None:
    """``bound_storage(v, n)``: Halide's error when the allocation must hold more than n along v. The allocation
    here is the region one computation covers (static, as bound_storage asks; a sliding window's spans the loop
    unless folded), so a bound that is large enough changes nothing."""
    for sp in plan.stages:
        storage = sp.func.schedule().storage
        if not storage or sp.func is plan.pipeline.output:
            continue
        stored_apart = sp.store is not None and sp.store != sp.compute
        extents = sp.region.extents if stored_apart else sp.per_computation
        for d, v in enumerate(sp.stage.vars):
            bound = storage.get(v, (None, None))[1]
            if bound is None or v in sp.func.schedule().folds:
                continue
            if extents[d] > bound:
                raise HalideError(
                    f"The explicit allocation bound ({bound}) of dimension {v} of {sp.name} is too "
                    f"small to store the required region ({extents[d]}).{_at_site(sp.func, v)}"
                )
