"""prefetch(): Halide's checks and the plan of each prefetch of a stage (lang/prefetch.py records them).

Halide (src/Prefetch.cpp) puts, at the top of loop ``at``, a prefetch of the box of the buffer that the body of
loop ``at`` touches with ``from`` replaced by ``from + offset``, bounded by the strategy: Clamp intersects the
box with the buffer, GuardWithIf skips the prefetch when the box leaves the buffer, NonFaulting prefetches it as
it is. Here the loops of a stage that prefetches are materialized by the script (one ``scf.for``/``scf.forall``
per Halide loop), which tags ``at`` and ``from`` (codegen/transform.py); after bufferization codegen/prefetch.py
finds the slices of the input read in ``at``'s body, shifts ``from``'s induction variable by ``offset`` of its
steps and prefetches their union, one cache line at a time, as Halide's SplitPrefetch does."""

from __future__ import annotations

from dataclasses import dataclass

import warnings

from ..error import HalideError, PrefetchWarning
from ..lang.schedule import DirectiveKind
from ..lang.traversal import walk


def read_prefetches(name: str, directives: list, exprs) -> list:
    """``directives`` without the prefetches of inputs the stage itself does not read (inline Funcs substituted):
    Halide's box is of the stage's own reads (producers computed at its loops are outside the prefetch), so it
    removes those with a warning, and so does this."""
    if not any(d.kind == DirectiveKind.PREFETCH for d in directives):
        return directives
    read = {id(n.value) for e in exprs for n in walk(e) if n.kind == "call"}
    out = []
    for d in directives:
        if d.kind == DirectiveKind.PREFETCH and id(d.args[0]) not in read:
            holder, at, from_, offset = d.args[:4]
            site = f"{d.site}: " if d.site is not None else ""
            warnings.warn(
                PrefetchWarning(
                    f"{site}Removing prefetch of {holder.name()} at loop nest of {name}.s0.{at} from location "
                    f"{name}.s0.{from_} + offset {offset}) since the prefetched area will always be empty "
                    f"({name} does not read {holder.name()} itself)"
                ),
                stacklevel=4,
            )
            continue
        out.append(d)
    return out


@dataclass(frozen=True)
class PrefetchPlan:
    holder: object  # the ImageParam or Buffer prefetched (an input of the pipeline)
    at: str  # the loop the prefetch is at
    from_: str  # the loop whose iteration ``offset`` ahead is prefetched (``at`` or a loop around it)
    offset: int
    strategy: object  # PrefetchBoundStrategy


def plan_prefetches(name: str, loops, tiled, directives, outer=(), outer_collapsed=()) -> tuple:
    """The prefetches of a stage whose loops are ``outer`` (loops the payload spells out for a tile plan,
    analysis/tiling.py) then ``loops`` (outermost first), those materialized as ``tiled`` (analysis/loop_schedule.py
    TiledLoops); Halide's errors, and ours where a loop has no loop of its own here."""
    found = {}
    names = [l.name for l in [*outer, *loops]]
    own = {t.loop.name for t in tiled if t.tile_sizes is not None} | {l.name for l in outer}
    collapsed = {c.name for t in tiled for c in t.collapsed} | set(outer_collapsed)
    for d in directives:
        if d.kind != DirectiveKind.PREFETCH:
            continue
        holder, at, from_, offset, strategy = d.args
        site = f"{d.site}: " if d.site is not None else ""
        if at not in names:
            raise HalideError(f"{site}Func '{name}': prefetch at '{at}', which is not a loop of {name}")
        if from_ not in names[: names.index(at) + 1]:
            raise HalideError(
                f"{site}Prefetch 'from' variable '{from_}' could not be found in an active loop. (Are the 'at' and "
                f"'from' variables swapped?)"
            )
        for v in (at, from_):
            if v not in own or v in collapsed:
                raise HalideError(
                    f"{site}Func '{name}': prefetch at or from loop '{v}', which is not a loop of its own in "
                    f"halide_mlir (a vector lane, a loop of one iteration, or collapsed into a parallel loop) is "
                    f"not supported yet"
                )
        # as Halide: of several prefetches of the same buffer at the same loop, the last one given counts
        found[(id(holder), at)] = PrefetchPlan(holder, at, from_, offset, strategy)
    return tuple(found.values())
