"""Sliding windows over pyramid levels: a producer whose rows are a floor-affine function of its reader's row
(``f[x, 2 * y + 1]`` downsampling, ``f[x // 2, (y + 1) // 2]`` upsampling: apps/interpolate's levels), stored
outside the serial loop of its consumer it is computed at.

Halide slides such a window as any other (SlidingWindow.cpp): each iteration computes the rows no earlier one
did, and folds the storage to the rows in flight (StorageFolding.cpp). A uniform translation per iteration
(analysis/tiling.py ``Slide``) does not describe it: a level read at ``y // 2`` needs a new row every other
iteration, one read at ``2 * y`` two rows per iteration, and a chain of levels compounds this. So here each
window has

* ``readers``: per reader (the consumer, or another window of the same loop) the floor-affine forms of its
  reads along the window's dimension, ``(a * row + b) // d`` of the reader's row;
* in iteration ``i`` of the loop (its tile starting at row ``y``), the last row needed ``hi(y)``: the maximum of
  the forms at the consumer's last row, or at the last row of a reading window. The payload (codegen/tiled.py
  ``_pyramid_rows``) computes rows ``hi(y_prev) + 1 .. hi(y)`` (in the first iteration from the first row
  needed), one row per ``linalg.generic`` in an ``scf.for`` whose trip count varies (0 or 1 for an upsampled
  level, 2 for a downsampled one), each row at its index modulo the fold;
* ``fold``: the rows any iteration reads at once, rounded up to a power of two as Halide does, found by
  running the loop's iterations here (static: the region and the loops are known); the reads index it modulo
  the fold with ``tensor.extract`` (the reads of such levels are gathers along x anyway).

Every reader reads it along one dimension only, through its own row variable; the other dimensions of a row
span the producer's whole region (the consumer's loops down to that level must all be along the window's
dimension). A pyramid window reads only the root and other windows of the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

from ..error import HalideError
from ..lang.schedule import LoopKind
from ..lang.traversal import walk
from .affine import linear_form
from .loop_nest import stage_loops

if TYPE_CHECKING:  # annotations only
    from .pipeline import Pipeline, Stage

MAX_FOLD = 1024


@dataclass(frozen=True)
class Floor:
    """``(a * row + b) // d`` (floor division), a > 0, d > 0."""

    a: int
    b: int
    d: int

    def __call__(self, row: int) -> int:
        return (self.a * row + self.b) // self.d


@dataclass(frozen=True)
class Pyramid:
    level: int  # the payload level (analysis/tiling.py) it is computed at
    dim: int  # the producer's Halide dim along the loop
    readers: tuple  # ((reader Func, or None for the consumer, (Floor, ...)), ...)
    fold: int  # rows of its circular buffer
    mins: tuple  # the producer's region (a row spans it in every other dim)
    extents: tuple

    def row(self) -> tuple[tuple, tuple]:
        """(mins, extents) of one row: the row itself is an SSA value (min 0 here)."""
        mins, extents = list(self.mins), list(self.extents)
        mins[self.dim], extents[self.dim] = 0, 1
        return tuple(mins), tuple(extents)

    def buffer_extents(self) -> tuple:
        extents = list(self.extents)
        extents[self.dim] = self.fold
        return tuple(extents)


def floor_form(e) -> tuple[str, Floor] | None:
    """``e`` as (var name, Floor) if it is ``(a * var + b) // d`` (nested divisions and casts allowed)."""
    if e.kind == "div" and not e.type.is_float():
        den = linear_form(e.args[1])
        inner = floor_form(e.args[0])
        if den is None or den[0] is not None or den[2] <= 0 or inner is None:
            return None
        v, f = inner
        return v, Floor(f.a, f.b, f.d * den[2])  # floor(floor(p / d) / c) = floor(p / (d c))
    if e.kind == "cast" and e.type.bits() >= 32 and e.args[0].type.is_int() and e.args[0].type.bits() <= 32:
        return floor_form(e.args[0])
    lin = linear_form(e)
    if lin is None or lin[0] is None or lin[1] <= 0:
        return None
    return lin[0], Floor(lin[1], lin[2], 1)


def reads_along(values, func, row_var: str) -> tuple[int, tuple] | None:
    """(the dim of ``func`` read at ``row_var``, the Floors of those reads) if every read of ``func`` in
    ``values`` has exactly one coordinate using ``row_var``, always the same dim, a floor-affine form of it
    (and no call in a coordinate along it); None otherwise (and for no read at all)."""
    dim, forms = None, []
    for n in (m for v in values for m in walk(v)):
        if n.kind != "call" or n.value is not func:
            continue
        uses = [j for j, a in enumerate(n.args) if any(m.kind == "var" and m.value.name() == row_var for m in walk(a))]
        if len(uses) != 1 or (dim is not None and uses[0] != dim):
            return None
        dim = uses[0]
        f = floor_form(n.args[dim])
        if f is None or f[0] != row_var:
            return None
        forms.append(f[1])
    return None if dim is None else (dim, tuple(dict.fromkeys(forms)))


def loop_dim(consumer: Stage, var: str) -> int | None:
    """The dim of the consumer's loop ``var`` if it and every loop outside it are plain loops along that dim
    (not vectorized, not fused) and ``var`` is serial; None otherwise."""
    loops = stage_loops(consumer.name, consumer.vars, [1] * len(consumer.vars), consumer.directives)
    names = [l.name for l in loops]
    if var not in names:
        return None
    outer = loops[: names.index(var) + 1]
    dim = outer[-1].dim
    if any(len(l.parts) != 1 or l.dim != dim or l.kind == LoopKind.VECTORIZED for l in outer):
        return None
    return dim if outer[-1].kind == LoopKind.SERIAL else None


def windows(pipeline: Pipeline, values_of=None) -> dict:
    """The stages computed at a consumer's loop that are pyramid windows: {Func: (consumer Stage, dim, readers,
    var)} with ``readers`` as in ``Pyramid``, ``var`` the producer's Var along ``dim``. ``values_of``: Stage ->
    the values to read (default: the stage's)."""
    values_of = values_of or (lambda s: s.values)
    by_consumer: dict = {}
    for s in pipeline.stages:
        if s.func is pipeline.output or not s.compute.at_loop() or s.updates or len(s.values) > 1:
            continue
        store = s.func.schedule().store
        consumer = pipeline.stage(s.compute.func)
        if store is None or consumer.updates or len(consumer.values) > 1:
            continue
        if consumer.func is not pipeline.output and consumer.compute.at_loop():
            continue
        loops = [
            l.name for l in stage_loops(consumer.name, consumer.vars, [1] * len(consumer.vars), consumer.directives)
        ]
        if s.compute.var not in loops:
            continue
        if store.at_loop() and (
            store.func is not consumer.func
            or store.var not in loops
            or loops.index(store.var) >= loops.index(s.compute.var)
        ):
            continue
        by_consumer.setdefault((consumer.func, s.compute.var), []).append(s)
    out = {}
    for (cfunc, var), cands in by_consumer.items():
        consumer = pipeline.stage(cfunc)
        dim = loop_dim(consumer, var)
        if dim is None:
            continue
        # every stage computed at that loop must be a window (a mix with the tile plan's producers is not handled)
        at_loop = [
            s for s in pipeline.stages if s.compute.at_loop() and s.compute.func is cfunc and s.compute.var == var
        ]
        if len(at_loop) != len(cands):
            continue
        found = _windows_at(consumer, dim, cands, values_of)
        if found is not None:
            out.update(found)
    return out


def _windows_at(consumer, dim, cands, values_of) -> dict | None:
    row_var = {consumer.func: consumer.vars[dim]}
    found = {}
    for s in reversed(cands):  # consumers before producers
        readers, pdim = [], None
        for c in s.consumers:
            if c.func not in row_var:
                return None  # read outside the loop, or by a Func that is not a window
            r = reads_along(values_of(c), s.func, row_var[c.func])
            if r is None or (pdim is not None and r[0] != pdim):
                return None
            pdim = r[0]
            readers.append((None if c.func is consumer.func else c.func, r[1]))
        if pdim is None:
            return None
        row_var[s.func] = s.vars[pdim]
        found[s.func] = (consumer, pdim, tuple(readers), s.vars[pdim])
    # a window is useful only if some read is not a plain slice: else analysis/tiling.py slides it
    if all(f.a == 1 and f.d == 1 for _, _, rs, _ in found.values() for _, fs in rs for f in fs):
        return None
    return found


def plan_pyramids(found: dict, levels: list, li: int, region, regions: dict, stage_name: str) -> dict:
    """The fold of each window of payload level ``li`` (``found``: its entries of ``windows``), by running the
    loop's iterations; {} if a row would fall outside a window's region (then the caller gives up)."""
    lev = levels[li]
    d = lev.loop.dim
    order = list(found)  # consumers first
    span = dict.fromkeys(order, 1)
    for ys in _row_sequences(levels, li, region.mins[d]):
        prev: dict = {}
        for i, y in enumerate(ys):
            hi = {None: y + lev.size - 1}
            lo = {None: y}
            for f in order:
                readers = found[f][2]
                hi[f] = max(t(hi[r]) for r, ts in readers for t in ts)
                lo[f] = min(t(lo[r]) for r, ts in readers for t in ts)
            new = {None: (y, y + lev.size - 1)}
            for f in order:
                start = lo[f] if i == 0 else prev[f] + 1
                if i and hi[f] < prev[f]:
                    return {}
                new[f] = (start, hi[f])
                pmin, pext = regions[f].mins[found[f][1]], regions[f].extents[found[f][1]]
                if start <= hi[f] and (start < pmin or hi[f] >= pmin + pext):
                    return {}
            for f in order:
                readers = found[f][2]
                reads = [(t(new[r][0]), t(new[r][1])) for r, ts in readers for t in ts if new[r][0] <= new[r][1]]
                if reads:
                    low = min(a for a, _ in reads)
                    span[f] = max(span[f], hi[f] - low + 1)
            prev = {f: max(hi[f], prev.get(f, hi[f])) for f in order}
    out = {}
    for f in order:
        _, pdim, readers, var = found[f]
        extent = regions[f].extents[pdim]
        explicit = f.schedule().folds.get(var)
        fold = min(1 << (span[f] - 1).bit_length(), extent)
        if explicit is not None:
            if explicit.factor < span[f]:
                raise HalideError(
                    f"{explicit.site}: The fold factor ({explicit.factor}) of dimension {var} of "
                    f"{f.name()} is too small to store the required region accessed by loop "
                    f"{stage_name}.s0.{lev.loop.path} ({span[f]})."
                )
            fold = min(explicit.factor, extent)
        elif span[f] > MAX_FOLD:
            fold = extent
        out[f] = Pyramid(li, pdim, readers, fold, tuple(regions[f].mins), tuple(regions[f].extents))
    return out


def _row_sequences(levels, li, rmin):
    """The tile start rows of level ``li``'s iterations, one list per iteration of the levels outside it."""
    seqs = [[rmin]]
    for k, lev in enumerate(levels[: li + 1]):
        offs = [min(i * lev.loop.stride, lev.parent_size - lev.size) for i in range(lev.trip)]
        if k < li:
            seqs = [[s[0] + o] for s in seqs for o in offs]
        else:
            seqs = [[s[0] + o for o in offs] for s in seqs]
    return seqs
