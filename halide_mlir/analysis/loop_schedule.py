"""How the transform script materializes one definition's loops: which loops it tiles (and by what), which
become lanes of the vector, the vector sizes. Decided here, in analysis, from the plan's loops; the script
(codegen/transform.py schedule_stage) only prints it.

Each loop of the nest is made by tiling the op by the loop's stride on its dimension (and 0 elsewhere),
outermost first: tiling creates exactly that loop around the rest, so any split/reorder order maps to nested
``tile_using_for`` (serial) or ``tile_using_forall`` (parallel) ops. A vectorized loop, with the loops that
become its lanes (loop_nest.py vector_block), is left inside the op, which is then vectorized with explicit
vector sizes: partial tiles at the edges are masked, never left scalar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import math
import warnings
from dataclasses import dataclass

from ..error import HalideError, InternalError, ParallelAsLanesWarning
from ..lang.func import MAX_UNROLL
from ..lang.schedule import DirectiveKind, LoopKind
from .loop_nest import MAX_VECTOR_LANES, Loop, covered_extents, vector_block
from .prefetch import plan_prefetches

if TYPE_CHECKING:  # annotations only
    from collections.abc import Sequence

    from ..lang.schedule import Directive


@dataclass(frozen=True)
class TiledLoop:
    """One loop the script materializes around the op."""

    loop: Loop
    tile_sizes: tuple | None  # per tensor dim (numpy order); None: one iteration over a tile a finer loop outside
    #                           made (e.g. yo inside yi): not tiled (its tile's shape would be dynamic), what is
    #                           computed at it goes to the loop around it
    interchange: tuple | None  # a fused loop's dims in the order tile_using_for must nest them
    also: tuple  # loops that are not materialized (vector lanes) whose producers are computed here
    trip: int  # iterations in one computation (what an unroll unrolls)
    unroll_what: str  # an unrolled loop, for messages: where the schedule asks for it, the Func, the loop
    collapsed: tuple = ()  # parallel loops just outside this one that run in its forall (one parallel loop
    #                           over their collapsed iteration space; loop_nest.py serialize_nested_parallel)
    peel: bool = False  # the partial last tile runs in a loop of its own (transform.loop.peel): see _peel


@dataclass(frozen=True)
class LoopSchedule:
    name: str
    scheduled: bool  # False: Halide's default (serial loops in dimension order, as linalg-to-loops makes)
    loops: tuple  # TiledLoop per materialized loop, outermost first
    computed_before: tuple  # loops (vector lanes, nothing materialized) whose producers run before the op's loops
    vector_sizes: tuple | None  # per tensor dim, or None: not vectorized
    prefetches: tuple = ()  # analysis/prefetch.py PrefetchPlans


def unroll_what(name: str, loop: Loop, directives: Sequence[Directive]) -> str:
    """The unroll of a loop, for messages: where the schedule asks for it, the Func, the loop."""
    d = next(
        (d for d in directives if d.kind == DirectiveKind.UNROLL and d.args[0] == loop.name and d.site is not None),
        None,
    )
    return f"{d.site}: " * (d is not None) + f"Func '{name}': unrolled loop '{loop.path}'"


def loop_schedule(
    name: str,
    loops: list[Loop],
    extents: Sequence[int],
    directives: Sequence[Directive],
    producer_loops: set[str],
    n_rvars: int,
    trips: dict,
    coupled: frozenset = frozenset(),
    outer: tuple = ((), ()),
) -> LoopSchedule:
    """``loops`` (outermost first) run over ``extents``; ``producer_loops``: names of the loops some producer
    is fused at; ``n_rvars``: an update's RVar loops are its first dims; ``trips``: loop name -> iterations in
    one computation (a stage computed at a consumer's loop runs its loops over one tile); ``coupled``: dims that
    an input read adds together (plan.py coupled_dims); ``outer``: (loops, names of those collapsed) a tile plan
    spells out around these (prefetches may be at them)."""
    n = len(extents)
    if not directives and not producer_loops:
        return LoopSchedule(name, False, (), (), None)

    def site(loop_name: str) -> str:
        d = next((d for d in directives if d.args and d.args[0] == loop_name), None)
        return f"{d.site}: " if d is not None and d.site is not None else ""

    vec = [i for i, l in enumerate(loops) if l.kind == LoopKind.VECTORIZED]
    if len(vec) > 1:
        raise HalideError(
            f"Func '{name}': only one loop can be vectorized (got {', '.join(loops[i].name for i in vec)})"
        )
    if vec and loops[vec[0]].constant and loops[vec[0]].extent == 1:
        vec = []  # vectorize(v, 1): one lane, a plain loop
    materialize, lanes = (
        _vector_loops(name, loops, vec[0], extents, n_rvars, producer_loops, site, coupled) if vec else (loops, [])
    )
    for l in loops:
        if l.kind == LoopKind.UNROLLED and trips.get(l.name, l.extent) > MAX_UNROLL:
            raise HalideError(
                f"{site(l.name)}Func '{name}': can't unroll loop '{l.name}' of "
                f"{trips.get(l.name, l.extent)} iterations (at most {MAX_UNROLL}); split it first"
            )
    # producers computed at the vectorized loop or at one of its lanes: at the loop around the vector block
    in_vector = tuple(l.name for l in [loops[vec[0]], *lanes]) if vec else ()
    tiled = []
    tile = list(extents)  # the op's extent per Halide dim inside the loops so far
    for k, l in enumerate(materialize):
        also = in_vector if k == len(materialize) - 1 else ()
        trip = trips.get(l.name, l.extent)
        what = unroll_what(name, l, directives) if l.kind == LoopKind.UNROLLED else ""
        if all(stride >= tile[dim] and tile[dim] < extents[dim] for dim, stride in l.parts):
            tiled.append(TiledLoop(l, None, None, also, trip, what))
            continue
        sizes = [0] * n
        peel = _peel(l, tile, loops[vec[0]] if vec else None, producer_loops)
        for dim, stride in l.parts:
            sizes[n - 1 - dim] = stride
            tile[dim] = min(tile[dim], stride)
        prev = tiled[-1] if tiled else None
        if (
            l.kind == LoopKind.PARALLEL
            and prev is not None
            and prev.loop.kind == LoopKind.PARALLEL
            and prev.tile_sizes is not None
            and not prev.also
            and not any(a and b for a, b in zip(prev.tile_sizes, sizes))
        ):
            # nested parallel loops: one tile_using_forall over both (a multi-dimensional scf.forall)
            merged = tuple(a or b for a, b in zip(prev.tile_sizes, sizes))
            tiled[-1] = TiledLoop(l, merged, None, also, prev.trip * trip, "", prev.collapsed + (prev.loop,))
            continue
        if l.kind == LoopKind.PARALLEL and any(t.loop.kind == LoopKind.PARALLEL and t.tile_sizes for t in tiled):
            raise InternalError(
                f"Func '{name}': parallel loop '{l.name}' is nested in another one it can't be "
                f"collapsed with (loop_nest.py serialize_nested_parallel should have made it serial)",
                stage="plan",
            )
        # a fused loop tiles several dims at once; tile_using_for nests them in dimension order
        wanted = [n - 1 - dim for dim, _ in l.parts]
        interchange = None
        if len(wanted) > 1 and wanted != sorted(wanted):
            interchange = tuple(sorted(range(n), key=lambda d: wanted.index(d) if d in wanted else -1))
        tiled.append(TiledLoop(l, tuple(sizes), interchange, also, trip, what, peel=peel))
    vector_sizes = None
    if vec:
        covered = covered_extents(materialize, extents)
        l = loops[vec[0]]
        if not lanes and covered[l.dim] > l.extent:
            raise HalideError(f"Func '{name}': vectorized loop '{l.name}' spans {covered[l.dim]} elements")
        vector_sizes = tuple(covered[d] for d in reversed(range(n)))
    before = in_vector if in_vector and not materialize else ()
    return LoopSchedule(
        name, True, tuple(tiled), before, vector_sizes, plan_prefetches(name, loops, tiled, directives, *outer)
    )


def _peel(l: Loop, tile: list, vec: Loop | None, producer_loops: set) -> bool:
    """Peel the partial last tile of a serial loop along the vectorized dimension into a loop of its own, where
    producers are fused at it. tile_using_for makes the tile's extent ``min(stride, extent - iv)``, dynamic in
    every iteration: each fused producer's tile then becomes a heap allocation per iteration and every vector op
    a runtime mask (camera_pipe's curved, 2562 wide in 64-lane tiles, with demosaiced and corrected fused at its
    x: 3x slower than with 2560). Peeled, the full tiles have static shapes, and only the tail is masked.
    Halide's ShiftInwards would shift the last tile back instead; tile_using_for has no such option."""
    if vec is None or l.kind != LoopKind.SERIAL or len(l.parts) != 1 or l.name not in producer_loops:
        return False
    dim, stride = l.parts[0]
    return dim == vec.dim and tile[dim] > stride and tile[dim] % stride != 0


def _vector_loops(
    name: str, loops: list[Loop], v: int, extents, n_rvars: int, producer_loops: set, site, coupled=frozenset()
):
    """The loops to materialize around the vectorized loop ``loops[v]``, outermost first, and the loops whose
    iterations become lanes of its vector too (loop_nest.py vector_block). Loops inside it are materialized
    around the vector instead when a producer is computed at one of them or when, as lanes, they would make the
    vector longer than MAX_VECTOR_LANES: Halide runs them once per vector, and moving them outside keeps every
    point's value (pure points are independent, an update's RVar loops keep their order)."""
    l = loops[v]
    outer, lanes, blockers = vector_block(loops, v, n_rvars)
    if not l.constant and (lanes or len(l.parts) > 1):  # (Halide too wants its extent known when compiling)
        raise HalideError(
            f"{site(l.name)}Func '{name}': the vectorized loop '{l.name}' must be the innermost "
            f"(loops inside it or finer: {', '.join(m.name for m in lanes)}); reorder it "
            f"innermost or vectorize an inner split of it"
        )
    if blockers:
        raise HalideError(
            f"{site(l.name)}Func '{name}': can't vectorize loop '{l.name}': the loops "
            f"{', '.join(m.name for m in blockers)} would have to run as its lanes (they are inside "
            f"it{' or finer loops of its dimension' if l.stride > 1 else ''}), but are "
            f"fused; reorder '{l.name}' innermost or vectorize an inner split of it"
        )
    inner = [m for m in lanes if m in loops[v + 1 :]]
    # a loop inside whose dim a read adds to another lane's (``input[x + u]``): the folded op's map stays a sum,
    # which MLIR's vectorizer refuses (docs/mlir-pitfalls.md#offset-indexing-maps); it runs around the vector
    apart = [m for m in inner if m.dim != l.dim and m.dim in coupled]
    if apart:
        outer, lanes, inner = outer + apart, [m for m in lanes if m not in apart], [m for m in inner if m not in apart]
    if any(m.name in producer_loops for m in inner) or math.prod(covered_extents(outer, extents)) > MAX_VECTOR_LANES:
        outer, lanes = outer + inner, [m for m in lanes if m not in inner]
    parallel = [m.name for m in lanes if m.kind == LoopKind.PARALLEL]
    if parallel:  # same values; say so rather than let a parallel request silently do nothing
        warnings.warn(
            f"{site(parallel[0])}Func '{name}': the parallel loop {', '.join(parallel)} runs as lanes of "
            f"the vectorized loop '{l.name}' (it is inside it, or a finer loop of its dimension when its "
            f"lanes are strided), not in parallel",
            ParallelAsLanesWarning,
            stacklevel=2,
        )
    n_lanes = math.prod(covered_extents(outer, extents))
    if lanes and n_lanes > MAX_VECTOR_LANES:
        raise HalideError(
            f"{site(l.name)}Func '{name}': vectorizing loop '{l.name}', whose lanes are "
            f"{l.stride} elements apart, makes a vector of {n_lanes} elements with the finer loops "
            f"of its dimension ({', '.join(m.name for m in lanes)}), more than {MAX_VECTOR_LANES}; "
            f"vectorize a loop with fewer elements between lanes"
        )
    return outer, lanes
