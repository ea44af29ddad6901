"""A Func's schedule, recorded as data. Nothing is compiled here: codegen/transform.py reads it.

``compute``/``store`` say where the Func is realized (inline, root, or at a consumer's loop);
``directives`` are the loop transformations in the order the user gave them (Halide applies them in order).
"""
from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field

# Bumped on every change to any definition or schedule, so compiled-code caches know when to look again.
_generation = itertools.count(1)
generation = [0]


def touch() -> None:
    generation[0] = next(_generation)


class TailStrategy(enum.Enum):
    """What a split does when the factor does not divide the extent (Halide's names).

    Pure Funcs give the same values under every strategy; RoundUp also grows the region an intermediate Func
    computes to a multiple of the factor, which can make it read more of its inputs (analysis/bounds.py).
    Edge tiles otherwise run as partial tiles with masked vectors (GuardWithIf's computed values)."""
    RoundUp = "RoundUp"
    GuardWithIf = "GuardWithIf"
    Predicate = "Predicate"
    PredicateLoads = "PredicateLoads"
    PredicateStores = "PredicateStores"
    ShiftInwards = "ShiftInwards"
    ShiftInwardsAndBlend = "ShiftInwardsAndBlend"
    RoundUpAndBlend = "RoundUpAndBlend"
    Auto = "Auto"


@dataclass(frozen=True)
class LoopLevel:
    kind: str  # "inline", "root" or "at"
    func: object = None
    var: str | None = None
    site: object = field(default=None, compare=False)

    @staticmethod
    def inlined() -> "LoopLevel":
        return LoopLevel("inline")

    @staticmethod
    def root() -> "LoopLevel":
        return LoopLevel("root")


@dataclass(frozen=True)
class Directive:
    kind: str  # split, fuse, reorder, vectorize, unroll, parallel, serial, bound
    args: tuple
    site: object = None


@dataclass
class FuncSchedule:
    compute: LoopLevel = field(default_factory=LoopLevel.inlined)
    store: LoopLevel | None = None  # None: same as compute
    directives: list = field(default_factory=list)
    # halide_mlir's default for a BoundaryConditions Func (lang/boundary.py): a padded copy at the root where
    # Halide would inline it; any compute/store level the user sets replaces it. Per dim, the source's
    # (min, extent) as Exprs, or None where the condition leaves the dim alone; () when not a padded copy
    padded_copy: tuple = ()

    def key(self) -> tuple:
        def level(l):
            return None if l is None else (l.kind, l.func.name() if l.func is not None else None, l.var)
        return (level(self.compute), level(self.store),
                tuple((d.kind, tuple(str(a) for a in d.args)) for d in self.directives), bool(self.padded_copy))
