"""``compute_with``: Halide's checks (as the user wrote the schedule) and the plan of which loops are fused.

Halide computes the child's pure stage in the parent's loop nest from the outermost loop down to ``var``. Values
never change (the two stages must not depend on each other), so what is planned here is only which loops of the
two stages become one: the loops the script materializes (analysis/loop_schedule.py) for the fused levels, with
the same names, splits and kinds in both. The outermost one, where both stages cover the same range of its
dimension, is fused on tensors by ``transform.loop.fuse_sibling`` (codegen/transform.py ``fuse_siblings``); the
levels inside it, and a level whose ranges differ, after bufferization (codegen/compute_with.py: on tensors the
first stage's row insert sits between the inner pair, and fuse_sibling needs equal bounds). Where the two ranges of
the innermost fused loop's dimension differ, Halide's LoopAlignStrategy lines them up: AlignStart puts the two
starts at one iteration, AlignEnd the two ends, NoAlign and Auto (Halide: "set to NoAlign") the same coordinate;
the fused loop runs over both ranges so aligned and each stage's body is guarded by its own range. What can't be
fused that way (the loops inside an aligned level, a shift that is not a multiple of the split, a stage aligned
in two fusions) leaves the loops from there in their own nests (``hl.ComputeWithWarning``, same values).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from ..error import ComputeWithWarning, HalideError
from ..lang.schedule import LevelKind, LoopKind


@dataclass(frozen=True, eq=False)
class Fusion:
    child: object  # StagePlan computed with...
    parent: object  # ...this one
    levels: tuple  # the fused loops' names, outermost first (the last is compute_with's var, unless cut short)
    late: tuple = ()  # the levels fused after bufferization (all but an outermost one over equal ranges)
    shift: int = 0  # the child's iteration = the parent's + shift, at the last level (in its loop's iv units)
    guarded: bool = False  # the last level's ranges differ: each body runs under a guard of its own range


def _level_text(stage, pipeline) -> str:
    c = stage.func._schedule.compute
    if stage.func is pipeline.output or c.kind == LevelKind.ROOT:
        return ".__root"
    if c.kind == LevelKind.AT:
        return f"{c.func.name()}.{c.var}"
    return "inlined"


def check_compute_with(pipeline) -> None:
    """Halide's errors: both stages in the pipeline, computed at the same level, independent of each other."""
    stages = {s.func: s for s in pipeline.stages}
    for s in pipeline.stages:
        cw = s.func._schedule.compute_with
        if cw is None:
            continue
        where = f"{cw.site}: " if cw.site else ""
        parent = stages.get(cw.parent)
        if parent is None:
            raise HalideError(
                f"{where}Invalid compute_with: Func '{cw.parent.name()}', which Func '{s.name}' is "
                f"computed with, is not computed in this pipeline"
            )
        a, b = _level_text(parent, pipeline), _level_text(s, pipeline)
        if a != b or a == "inlined":
            raise HalideError(
                f"{where}Invalid compute_with: the compute levels of {parent.name}.s0 (computed at "
                f"{a}) and {s.name}.s0 ({b}) do not match."
            )
        if _depends(s, parent) or _depends(parent, s):
            raise HalideError(f"{where}Invalid compute_with: there is dependency between {parent.name} and {s.name}")


def _depends(consumer, producer) -> bool:
    """Does ``consumer`` read ``producer``, directly or through other stages?"""
    seen, todo = set(), [producer]
    while todo:
        st = todo.pop()
        for c in st.consumers:
            if c is consumer:
                return True
            if id(c) not in seen:
                seen.add(id(c))
                todo.append(c)
    return False


def plan_compute_with(stages: list) -> list:
    """The fusions the script makes (see the module docstring); warns where the loops are left unfused."""
    out = []
    for child in stages:
        cw = child.stage.func._schedule.compute_with
        if cw is None:
            continue
        parent = next(p for p in stages if p.stage.func is cw.parent)
        where = f"{cw.site}: " if cw.site else ""
        names = [l.name for l in parent.loops]
        if cw.var not in names:
            raise HalideError(f"{where}Invalid compute_with: cannot find {cw.var} in {parent.name}.s0")
        levels = tuple(names[: names.index(cw.var) + 1])
        for p in (parent, child):
            if p.stage.updates or p.tile is not None or p.in_tiles or p.pieces or p.producers:
                raise HalideError(
                    f"{where}Func '{child.name}': compute_with of Func '{p.name}', which has update "
                    f"definitions or computes producers at its loops, is not supported by halide_mlir yet"
                )
        reason = _unfusable(child, parent, levels)
        if reason:
            _warn(where, child, parent, cw.var, f"{reason}, so the two run in their own loop nests (same values)")
            continue
        fused, shift, guarded, reason = _aligned_levels(child, parent, levels, cw)
        shared = [o for o in out if any(a is b for a in (child, parent) for b in (o.child, o.parent))]
        if shared and (guarded or any(o.guarded for o in shared)):
            # (a guarded body is not a loop of its own any more: a second fusion could not find it)
            fused = fused[:-1] if guarded else ()
            reason, shift, guarded = (
                "a stage aligned in one compute_with and fused in another is not supported yet",
                0,
                False,
            )
        if reason:
            what = f"fused down to loop '{fused[-1]}' only" if fused else "not fused"
            _warn(where, child, parent, cw.var, f"{what}: {reason} (same values)")
        if not fused:
            continue
        late = fused if guarded and len(fused) == 1 else fused[1:]
        out.append(Fusion(child, parent, fused, late, shift, guarded))
    return out


def _warn(where, child, parent, var, text) -> None:
    warnings.warn(
        f"{where}Func '{child.name}' computed with Func '{parent.name}' at loop '{var}': {text}",
        ComputeWithWarning,
        stacklevel=3,
    )


def _aligned_levels(child, parent, levels, cw) -> tuple:
    """(the levels fused, the child's shift at the last, guarded, why the rest are not fused or None): each
    level fuses where the two cover the same range of its dimension; a range that differs is lined up by the
    level's LoopAlignStrategy, and the fusion stops there (its bodies are guarded: the loops inside are no longer
    siblings)."""
    from ..lang.compute_with import LoopAlignStrategy

    tiled = {t.loop.name: t for t in parent.schedule.loops}
    seen_dims: set = set()
    for i, name in enumerate(levels):
        t = tiled[name]
        dims = [d for d, _ in t.loop.parts]
        differ = [
            d
            for d in dims
            if (child.region.mins[d], child.region.extents[d]) != (parent.region.mins[d], parent.region.extents[d])
        ]
        if not differ:
            seen_dims.update(dims)
            continue
        d = differ[0]
        ranges = (
            f"{child.name} over [{child.region.mins[d]}, {child.region.mins[d] + child.region.extents[d]}), "
            f"{parent.name} over [{parent.region.mins[d]}, {parent.region.mins[d] + parent.region.extents[d]})"
        )
        if len(dims) > 1 or d in seen_dims:
            return levels[:i], 0, False, f"loop '{name}' would need an alignment ({ranges}) of a fused or split dim"
        strategy = cw.align.get(name, cw.align.get(None, LoopAlignStrategy.Auto))
        if strategy == LoopAlignStrategy.AlignStart:
            shift = 0
        elif strategy == LoopAlignStrategy.AlignEnd:
            shift = child.region.extents[d] - parent.region.extents[d]
        else:  # NoAlign, Auto: the same coordinate in both
            shift = parent.region.mins[d] - child.region.mins[d]
        stride = t.tile_sizes[len(child.region.extents) - 1 - d]
        if shift % stride:
            return (
                levels[:i],
                0,
                False,
                f"{strategy.name} at loop '{name}' ({ranges}) shifts {child.name} by {shift}, not a multiple of the "
                f"loop's step {stride}",
            )
        if t.loop.kind == LoopKind.PARALLEL:
            shift //= stride  # (a parallel loop's iv counts iterations: a normalized scf.forall)
        # each body under its own guard: the loops inside are no longer siblings, so the fusion stops here
        inner = f"the loops inside loop '{name}' are not fused: it needs an alignment ({ranges})"
        return levels[: i + 1], shift, True, (inner if i < len(levels) - 1 else None)
    return levels, 0, False, None


def _unfusable(child, parent, levels) -> str | None:
    def tiled(plan):
        s = plan.schedule
        if s is None or not s.scheduled:
            return None
        return {t.loop.name: t for t in s.loops}

    tp, tc = tiled(parent), tiled(child)
    if tp is None or tc is None:
        return "a stage's loops are left to the default lowering"
    cnames = [l.name for l in child.loops][: len(levels)]
    if tuple(cnames) != levels:
        return f"the loops of Func '{child.name}' are not the same ({', '.join(cnames)})"
    for name in levels:
        a, b = tp.get(name), tc.get(name)
        if a is None or b is None or a.tile_sizes is None or b.tile_sizes is None:
            return f"loop '{name}' is not a loop of its own in both (a vector lane, or one iteration)"
        if (a.tile_sizes, a.interchange, a.loop.kind, a.collapsed) != (
            b.tile_sizes,
            b.interchange,
            b.loop.kind,
            b.collapsed,
        ):
            return f"loop '{name}' is split or run differently in the two"
        if a.loop.kind == LoopKind.UNROLLED:
            return f"loop '{name}' is unrolled"
    return None


def adjacent_partners(stages: list) -> list:
    """The realization order with each compute_with group's stages next to each other, as Halide orders a fused
    group as one node: the fused loop runs where the later of the two was, so a stage between them that reads
    the earlier one (the parent's in_() wrapper) would read it before it is computed. Producers stay before
    consumers; an order where the groups are already together comes back unchanged."""
    group = {s.func: s.func for s in stages}

    def root(f):
        while group[f] is not f:
            f = group[f]
        return f

    for s in stages:
        cw = s.func._schedule.compute_with
        if cw is not None and cw.parent in group:
            group[root(s.func)] = root(cw.parent)
    if all(root(f) is f for f in group):
        return stages
    index = {s.func: i for i, s in enumerate(stages)}
    members: dict = {}
    for s in stages:
        members.setdefault(root(s.func), []).append(s)
    needs = {g: {root(p.func) for s in ms for p in stages if s in p.consumers} - {g} for g, ms in members.items()}
    done, out = set(), []
    while len(done) < len(members):
        ready = [g for g in members if g not in done and needs[g] <= done]
        if not ready:  # the partners depend on each other: check_compute_with says so
            return stages
        g = min(ready, key=lambda g: index[members[g][0].func])
        done.add(g)
        out += members[g]
    return out
