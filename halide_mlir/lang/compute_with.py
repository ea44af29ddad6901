"""``compute_with(stage, var, align)``: two sibling stages computed in one loop nest, fused from their outermost
loop down to ``var`` (Halide's LoopAlignStrategy says how loops of different extents line up). Recorded here on
the child's schedule; analysis/compute_with.py checks it with Halide's rules and plans the fused loops, and the
transform script fuses the loops with ``transform.loop.fuse_sibling``."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..error import HalideError
from .schedule import touch
from .source import Site, capture_site, user_site


class LoopAlignStrategy(enum.Enum):
    AlignStart = 0
    AlignEnd = 1
    NoAlign = 2
    Auto = 3


@dataclass(frozen=True, eq=False)
class ComputeWith:
    parent: object  # the Func whose pure stage this one is computed with
    var: str  # the innermost fused loop (a loop of the parent)
    align: dict  # loop name -> LoopAlignStrategy (missing: Auto)
    site: Site | None

    def key(self) -> tuple:
        return (self.parent.name(), self.var, tuple(sorted((k, v.name) for k, v in self.align.items())))


def compute_with(child, stage, var, align=None):
    """``child.compute_with(stage, var[, align])``; ``align`` is a LoopAlignStrategy for every fused loop or a
    list of (var, LoopAlignStrategy) pairs, as in Halide."""
    from .func import Func, Stage, _var_name

    if isinstance(child, Stage):
        raise HalideError(
            f"{user_site()}: Func '{child.name()}': compute_with of an update definition is not "
            f"supported by halide_mlir yet (docs/directives.md#not-supported-yet)"
        )
    if isinstance(stage, Stage):
        raise HalideError(
            f"{user_site()}: Func '{child.name()}': compute_with an update definition of Func "
            f"'{stage.name()}' is not supported by halide_mlir yet"
        )
    if not isinstance(stage, Func):
        raise HalideError(
            f"{user_site()}: compute_with of Func '{child.name()}' takes a Func or Stage, a Var and "
            f"a LoopAlignStrategy, got {stage!r}"
        )
    name = _var_name(var)
    if stage is child:
        raise HalideError(f"{user_site()}: Cannot schedule {child.name()} to be computed with {child.name()}.s0.{name}")
    strategies: dict = {}
    if isinstance(align, (list, tuple)):
        for pair in align:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[1], LoopAlignStrategy)):
                raise HalideError(
                    f"{user_site()}: compute_with's align takes (Var, LoopAlignStrategy) pairs, got {pair!r}"
                )
            strategies[_var_name(pair[0])] = pair[1]
        align = None
    elif align is not None and not isinstance(align, LoopAlignStrategy):
        raise HalideError(f"{user_site()}: compute_with's align must be a LoopAlignStrategy, got {align!r}")
    child._schedule.compute_with = ComputeWith(
        stage, name, strategies or ({None: align} if align else {}), capture_site()
    )
    touch()
    return child
