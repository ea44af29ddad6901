"""``compute_with``: Halide's checks (as the user wrote the schedule) and the plan of which loops are fused.

Halide computes the child's pure stage in the parent's loop nest from the outermost loop down to ``var``. Values
never change (the two stages must not depend on each other), so what is planned here is only which loops of the
two stages become one: the loops the script materializes (analysis/loop_schedule.py) for the fused levels, with
the same names, extents, splits and kinds in both. Those are fused by ``transform.loop.fuse_sibling``
(codegen/transform.py ``fuse_siblings``). Loops that would need an alignment (different extents or mins: Halide's
LoopAlignStrategy) are not fused yet: the stages keep their own loop nests, with ``hl.ComputeWithWarning``.
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
    levels: tuple  # the fused loops' names, outermost first (the last is compute_with's var)


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
                    f"definitions, computes producers at its loops or is cut into pieces by a "
                    f"boundary condition, is not supported by halide_mlir yet"
                )
        reason = _unfusable(child, parent, levels)
        if reason:
            warnings.warn(
                f"{where}Func '{child.name}' computed with Func '{parent.name}' at loop '{cw.var}': "
                f"{reason}, so the two run in their own loop nests (same values)",
                ComputeWithWarning,
                stacklevel=2,
            )
            continue
        if len(levels) > 1:
            # inside the fused outer loop, the first stage's inner loop result is inserted into its row before the
            # second stage's inner loop: fuse_sibling refuses the inner pair (its results' users must follow)
            warnings.warn(
                f"{where}Func '{child.name}' computed with Func '{parent.name}' at loop '{cw.var}': only "
                f"the outermost loop '{levels[0]}' is fused yet (same values)",
                ComputeWithWarning,
                stacklevel=2,
            )
            levels = levels[:1]
        out.append(Fusion(child, parent, levels))
    return out


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
    if child.region.extents != parent.region.extents or child.region.mins != parent.region.mins:
        return (
            f"their regions differ (mins {list(child.region.mins)} / {list(parent.region.mins)}, extents "
            f"{list(child.region.extents)} / {list(parent.region.extents)}): the loops would need an alignment, "
            f"which is not supported yet"
        )
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
