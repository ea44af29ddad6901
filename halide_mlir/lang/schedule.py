"""A Func's schedule, recorded as data. Nothing is compiled here: codegen/transform.py reads it.

``compute``/``store`` say where the Func is realized (inline, root, or at a consumer's loop);
``directives`` are the loop transformations in the order the user gave them (Halide applies them in order).
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field


class _Kind(str, enum.Enum):
    """A kind that is also its name as a string (cache keys, messages and printed loop nests stay the same)."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class LevelKind(_Kind):
    """Where a Func is computed or stored (Halide's LoopLevel): inlined, at the root, or at a consumer's loop."""

    INLINE = "inline"
    ROOT = "root"
    AT = "at"


class DirectiveKind(_Kind):
    """A loop-scheduling directive, in the order the user gave them (Halide applies them in order)."""

    SPLIT = "split"
    FUSE = "fuse"
    REORDER = "reorder"
    VECTORIZE = "vectorize"
    UNROLL = "unroll"
    PARALLEL = "parallel"
    SERIAL = "serial"
    BOUND = "bound"
    GPU_BLOCKS = "gpu_blocks"  # (var, ...): the loops run as GPU blocks (analysis/gpu.py)
    GPU_THREADS = "gpu_threads"  # (var, ...): the loops run as GPU threads
    GPU_SINGLE = "gpu_single_thread"  # (): the stage runs on one GPU thread
    # lang/small_directives.py
    PARTITION = "partition"  # (var, Partition): loop partitioning of boundary conditions (analysis/plan.py)
    BOUND_EXTENT = "bound_extent"  # (var, extent): the region's extent (analysis/bounds.py)
    ALIGN = "align"  # (var, modulus, remainder or None): align_bounds / align_extent
    PREFETCH = "prefetch"  # (ImageParam or Buffer, at, from, offset, strategy): lang/prefetch.py
    RENAME = "rename"  # (loop's first name, new name): lang/rename.py (later directives use the first name)


class LoopKind(_Kind):
    """How a loop of a stage's loop nest runs (Halide's ForType)."""

    SERIAL = "serial"
    PARALLEL = "parallel"
    VECTORIZED = "vectorized"
    UNROLLED = "unrolled"


# The kind of loop each loop-kind directive makes.
GPU_DIRECTIVES = (DirectiveKind.GPU_BLOCKS, DirectiveKind.GPU_THREADS, DirectiveKind.GPU_SINGLE)

LOOP_KIND_OF = {
    DirectiveKind.VECTORIZE: LoopKind.VECTORIZED,
    DirectiveKind.PARALLEL: LoopKind.PARALLEL,
    DirectiveKind.UNROLL: LoopKind.UNROLLED,
    DirectiveKind.SERIAL: LoopKind.SERIAL,
}

# ``compute_at(f, Var.outermost())``: outside all of f's loops
OUTERMOST = "__outermost"


# Bumped on every change to any definition or schedule, so compiled-code caches know when to look again.
_generation = itertools.count(1)
generation = [0]


def touch() -> None:
    generation[0] = next(_generation)


class Partition(enum.Enum):
    """Halide's loop partition policy of a loop (``partition(var, policy)``)."""

    Auto = "Auto"
    Never = "Never"
    Always = "Always"


class PrefetchBoundStrategy(enum.Enum):
    """What Halide's ``prefetch`` does where the prefetched region leaves the buffer: intersect it with the
    buffer (Clamp), skip the whole prefetch (GuardWithIf), or prefetch it as it is (NonFaulting)."""

    Clamp = "Clamp"
    GuardWithIf = "GuardWithIf"
    NonFaulting = "NonFaulting"


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
    kind: LevelKind
    func: object = None
    var: str | None = None
    site: object = field(default=None, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "kind", LevelKind(self.kind))

    @staticmethod
    def inlined() -> "LoopLevel":
        return LoopLevel(LevelKind.INLINE)

    @staticmethod
    def root() -> "LoopLevel":
        return LoopLevel(LevelKind.ROOT)

    def at_loop(self) -> bool:
        """At a consumer's loop (not at its outermost level, which is like the root)."""
        return self.kind == LevelKind.AT and self.var != OUTERMOST


@dataclass(frozen=True)
class Directive:
    kind: DirectiveKind
    args: tuple  # split: (old, outer, inner, factor, tail); fuse: (inner, outer, fused); reorder: vars innermost
    #               first; vectorize/parallel/unroll/serial: (var, ...); bound: (var, min, extent)
    site: object = None

    def __post_init__(self):
        object.__setattr__(self, "kind", DirectiveKind(self.kind))


@dataclass(frozen=True)
class StorageFold:
    """``fold_storage(var, factor, fold_forward)``: the Func's storage along ``var`` is a circular buffer of
    ``factor`` elements."""

    factor: int
    fold_forward: bool = True
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
    # specialize(cond) / specialize_fail(msg), in the order given (lang/specialize.py); chosen per realize
    specializations: list = field(default_factory=list)
    # atomic(override_associativity_test): an update's RVar loops may run in parallel, with atomic stores
    atomic: bool = False
    atomic_override: bool = False
    # fold_storage(var, factor): var name -> StorageFold (analysis/folding.py applies it to sliding windows)
    folds: dict = field(default_factory=dict)
    # memoize(eviction_key), async_(), ring_buffer(extent): lang/memoize.py, analysis/memoize.py
    memoize: object = None  # None, or a Memoize (its eviction key Expr or None)
    async_: bool = False
    ring_buffer: object = None  # the extent Expr, or None
    # compute_with(stage, var, align): lang/compute_with.py ComputeWith, or None
    compute_with: object = None
    # align_storage / bound_storage: var name -> (alignment or None, bound or None) (lang/small_directives.py)
    storage: dict = field(default_factory=dict)
    hoist: LoopLevel | None = None  # hoist_storage / hoist_storage_root
    race: bool = False  # allow_race_conditions(): parallel RVar loops without atomic()
    # the user's line of directives recorded as plain values above, for the errors that name them:
    # ("bound_storage", var), "ring_buffer" -> Site. Not part of the key.
    sites: dict = field(default_factory=dict)

    def key(self) -> tuple:
        def level(l):
            return None if l is None else (l.kind, l.func.name() if l.func is not None else None, l.var)

        return (
            level(self.compute),
            level(self.store),
            tuple((d.kind, tuple(str(a) for a in d.args)) for d in self.directives),
            bool(self.padded_copy),
            tuple((str(sp.condition), sp.failure, sp.schedule.key()) for sp in self.specializations),
            self.atomic,
            self.atomic_override,
            tuple(sorted((v, f.factor) for v, f in self.folds.items())),
            None if self.memoize is None else str(self.memoize.eviction_key),
            self.async_,
            str(self.ring_buffer),
            self.compute_with.key() if self.compute_with is not None else None,
            tuple(sorted(self.storage.items())),
            level(self.hoist),
            self.race,
        )
