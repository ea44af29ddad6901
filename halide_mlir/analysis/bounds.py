"""Bounds inference: the region each stage must compute, and the check that inputs cover their reads.

Consumers are visited before producers; each call site's coordinates are bounded by interval
arithmetic over the consumer's region, and a producer's region is the union over its call sites.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import math
from dataclasses import dataclass, field, replace

from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.func import Func
from ..lang.param import ImageParam
from ..lang.traversal import walk
from .interval import Interval, bounds
from ..lang.schedule import DirectiveKind, LevelKind, LoopKind
from .loop_nest import covered_extents, lanes_moved_in, loop_position, stage_loops, vector_block
from .pipeline import Pipeline, resolve_buffer_dims
from .placement import computed_inside
from .small_directives import scheduled_extent
from ..lang.constraints import resolve_bound_exprs

if TYPE_CHECKING:  # annotations only
    from ..lang.expr import Expr
    from ..lang.rdom import RVar


@dataclass(frozen=True)
class Region:
    mins: tuple[int, ...]  # Halide order: dimension 0 first
    extents: tuple[int, ...]

    def interval(self, d: int) -> Interval:
        return Interval(self.mins[d], self.mins[d] + self.extents[d] - 1)


@dataclass
class Bounded:
    """A pipeline specialized to an output region and to the buffers bound to its inputs."""

    pipeline: Pipeline
    bodies: dict  # Func -> its Tuple of values (usually one), ImageParam dims resolved
    regions: dict  # Func -> Region
    input_buffers: list  # Buffer bound to each of pipeline.inputs
    updates: dict  # Func -> [Update] with ImageParam dims resolved
    rdom_ranges: dict  # id(RVar) -> (min, extent) (RVars are Exprs: == builds an Expr, so not a key)
    input_regions: dict = field(default_factory=dict)  # input (Buffer or ImageParam) -> the Region it is read over

    def region(self, func: Func) -> Region:
        return self.regions[func]

    def rvar_range(self, rvar: RVar) -> tuple[int, int]:
        return self.rdom_ranges[id(rvar)]


def constant_value(e: Expr, what: str) -> int:
    """An integer Expr that must be known when compiling (RDom bounds: constants, Params, image sizes)."""
    iv = bounds(resolve_buffer_dims(e), {})
    if iv.lo != iv.hi or not isinstance(iv.lo, int):
        raise HalideError(f"{what} must be a constant, a Param or an image size; {e} is not")
    return iv.lo


def input_buffer(holder: Buffer | ImageParam) -> Buffer:
    return holder.bound_buffer() if isinstance(holder, ImageParam) else holder


def infer_bounds(pipeline: Pipeline, out_region: Region, check_inputs: bool = True) -> Bounded:
    resolve_bound_exprs(pipeline)  # bound(x, 0, input.width()): for the buffers bound now
    input_buffers = [input_buffer(i) for i in pipeline.inputs]
    bodies = {s.func: tuple(resolve_buffer_dims(v) for v in s.values) for s in pipeline.stages}
    updates = {
        s.func: [
            replace(
                u,
                args=tuple(resolve_buffer_dims(a) for a in u.args),
                values=tuple(resolve_buffer_dims(v) for v in u.values),
                predicates=[resolve_buffer_dims(p) for p in u.predicates],
                stores=tuple(
                    (tuple(map(resolve_buffer_dims, sa)), tuple(map(resolve_buffer_dims, sv))) for sa, sv in u.stores
                ),
            )
            for u in s.updates
        ]
        for s in pipeline.stages
    }
    rdom_ranges = {}
    for s in pipeline.stages:
        for u in s.updates:
            for r in u.rvars:
                lo, ext = r.domain().bounds()[r.index()]
                what = f"The bounds of RDom '{r.domain().name()}' (used by Func '{s.name}')"
                rng = (constant_value(lo, what), constant_value(ext, what))
                if rng[1] < 0:
                    raise HalideError(f"{what} have a negative extent {rng[1]}")
                rdom_ranges[id(r)] = rng
    # an update over an empty RDom runs zero times, as in Halide: drop it
    updates = {k: [u for u in us if all(rdom_ranges[id(r)][1] > 0 for r in u.rvars)] for k, us in updates.items()}
    regions = {pipeline.output: out_region}
    required: dict = {}  # callee (Func, Buffer or ImageParam) -> per-dimension Interval
    readers: dict = {}  # (input, dim, side, bound) -> (consumer stage, site), for messages

    for stage in reversed(pipeline.stages):
        if stage.func is not pipeline.output:
            # every consumer comes later in realization order, so all of them have been visited
            regions[stage.func] = _scheduled_region(stage, _region_of(required[stage.func], stage.func))
        else:
            _scheduled_region(stage, regions[stage.func], output=True)
            _check_output_splits(stage, regions[stage.func])
        region = regions[stage.func]
        env = {v: region.interval(d) for d, v in enumerate(stage.vars)}
        for r in (r for u in updates[stage.func] for r in u.rvars):
            lo, ext = rdom_ranges[id(r)]
            env[r.name()] = Interval(lo, lo + ext - 1)
        region = _update_region(stage, updates[stage.func], env, region, stage.func is pipeline.output)
        regions[stage.func] = region
        env.update({v: region.interval(d) for d, v in enumerate(stage.vars)})
        calls = [
            n for e in [*bodies[stage.func]] + [x for u in updates[stage.func] for x in u.exprs()] for n in walk(e)
        ]
        for n in calls:
            if n.kind != "call" or n.value is stage.func:
                continue
            ivs = [bounds(a, env) for a in n.args]
            prev = required.get(n.value)
            required[n.value] = ivs if prev is None else [p.union(i) for p, i in zip(prev, ivs)]
            if isinstance(n.value, Func):
                continue
            for d, iv in enumerate(ivs):
                readers.setdefault((n.value, d, "lo", iv.lo), (stage, n.site))
                readers.setdefault((n.value, d, "hi", iv.hi), (stage, n.site))

    for holder, buf in zip(pipeline.inputs, input_buffers):
        if holder in required and check_inputs:  # (only read by updates over empty RDoms: not read at all)
            _check_input(holder, buf, required[holder], readers)
    _check_allocations(pipeline, regions)
    input_regions = {
        h: Region(
            tuple(int(iv.lo) for iv in required[h]),  # (finite: _check_input passed)
            tuple(int(iv.hi - iv.lo + 1) for iv in required[h]),
        )
        for h in pipeline.inputs
        if h in required
    }
    return Bounded(pipeline, bodies, regions, input_buffers, updates, rdom_ranges, input_regions)


# Halide refuses buffers of 2^31 bytes or more unless the target has large_buffers; so do we, before any
# code runs (a failed malloc inside JIT code is a segfault, not an error).
MAX_BUFFER_BYTES = (1 << 31) - 1


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _check_allocations(pipeline: Pipeline, regions: dict) -> None:
    """Intermediates computed at the root are allocated whole: each must fit Halide's limit, and all of
    them together must fit in the memory the machine has."""
    total, biggest = 0, None
    for stage in pipeline.stages:
        if stage.func is pipeline.output or stage.compute.kind != LevelKind.ROOT:
            continue
        region = regions[stage.func]
        nbytes = math.prod(region.extents) * sum(max(1, t.bits() // 8) for t in stage.func.output_types())
        site = stage.func._definition().site
        if nbytes > MAX_BUFFER_BYTES:
            raise HalideError(
                f"Total allocation for buffer {stage.name} is {nbytes}, which exceeds the maximum "
                f"size of {MAX_BUFFER_BYTES}: Func '{stage.name}'{_at(site)} is computed at the root "
                f"over extents {list(region.extents)}"
            )
        total += nbytes
        if biggest is None or nbytes > biggest[1]:
            biggest = (stage, nbytes, site)
    available = _available_memory() if total > (256 << 20) else None
    if available is not None and total > available:
        stage, nbytes, site = biggest
        raise HalideError(
            f"The intermediates computed at the root need {total} bytes in total (Func "
            f"'{stage.name}'{_at(site)} alone {nbytes}), but only {available} bytes of memory "
            f"are available"
        )


def _update_region(stage, updates, env, region: Region, output: bool) -> Region:
    """Update definitions may write (and read back) outside the region consumers need: an intermediate
    Func grows to cover them, as in Halide; the output buffer must already contain them."""
    if not updates:
        return region
    mins = list(region.mins)
    maxs = [m + e - 1 for m, e in zip(region.mins, region.extents)]
    for u in updates:
        points = [u.args, *(sa for sa, _ in u.stores)]
        points += [n.args for e in u.exprs() for n in walk(e) if n.kind == "call" and n.value is stage.func]
        for args in points:
            for d, a in enumerate(args):
                iv = bounds(a, env)
                if not (math.isfinite(iv.lo) and math.isfinite(iv.hi)):
                    raise HalideError(
                        f"Update definition {u.index} of Func '{stage.name}' (at {u.site}) accesses "
                        f"an unbounded region in dimension {d}"
                    )
                lo, hi = int(iv.lo), int(iv.hi)
                if output and (lo < mins[d] or hi > maxs[d]):
                    side = (
                        f"at {lo}, which is before the min ({mins[d]})"
                        if lo < mins[d]
                        else f"at {hi}, which is beyond the max ({maxs[d]})"
                    )
                    raise HalideError(
                        f"Output buffer {stage.name} is accessed {side} in dimension {d}: update "
                        f"definition {u.index} of Func '{stage.name}' (at {u.site}) touches "
                        f"[{lo}, {hi}], but the buffer covers [{mins[d]}, {maxs[d]}]"
                    )
                mins[d], maxs[d] = min(mins[d], lo), max(maxs[d], hi)
    return Region(tuple(mins), tuple(x - m + 1 for m, x in zip(mins, maxs)))


def _check_output_splits(stage, region: Region) -> None:
    """Halide's error for an output whose loops write outside its buffer: a split of a variable nested in a tile
    (the inner variable of any split, and whatever is split from it) by more than that variable's extent (the
    enclosing factor, whatever the buffer's size) shifts it outside the tile, which an output buffer cannot
    absorb (an intermediate grows instead). GuardWithIf splits are guarded; a root dimension's own split is what
    Halide 21 accepts."""
    extent_of = {v: region.extents[d] for d, v in enumerate(stage.vars)}
    dim_of = {v: d for d, v in enumerate(stage.vars)}
    nested: dict = {}  # variable nested in a tile -> whether it is the outer variable of its split
    # Halide's Func::split: a variable split off the outer variable of a ShiftInwards split (-> that factor).
    # Splitting it by at most that factor, Auto is RoundUp, and a RoundUp split there stays in the tile (the
    # ShiftInwards min clamps every position it makes): neither is the error below
    shifted: dict = {}
    for d in stage.directives:
        if d.kind != DirectiveKind.SPLIT or d.args[0] not in extent_of:
            continue
        old, outer, inner, f, tail = d.args
        if f <= 0:
            return  # (a non-positive factor gets its own error from the schedule's checks)
        e, dim = extent_of[old], dim_of[old]
        strategy = tail.name if tail is not None else "Auto"
        covered = old in shifted and (strategy == "RoundUp" or (strategy == "Auto" and shifted[old] >= f))
        if strategy == "ShiftInwards" or (strategy == "Auto" and old not in shifted):
            shifted[outer] = f
        elif old in shifted:
            shifted[inner] = shifted[outer] = shifted[old]
        if old in nested and f > e and strategy in ("Auto", "ShiftInwards", "RoundUp") and not covered:
            lo, hi = region.mins[dim], region.mins[dim] + region.extents[dim] - 1
            side = (
                f"at {hi + f - e}, which is beyond the max ({hi})"
                if strategy == "RoundUp" or nested[old]
                else f"at {lo + e - f}, which is before the min ({lo})"
            )
            raise HalideError(
                f"Error: Output buffer {stage.name} is accessed {side} in dimension {dim}: the split of {old} "
                f"(extent {e}) by {f} at {d.site} covers more than its enclosing tile"
            )
        extent_of[outer], extent_of[inner] = -(-e // f), f
        dim_of[outer] = dim_of[inner] = dim
        if old in nested:
            nested[outer] = True
        nested[inner] = False


def _scheduled_region(stage, region: Region, output: bool = False) -> Region:
    """``bound(v, min, extent)`` fixes a dimension's region (it must cover what is required); a RoundUp
    split of a pure Var computes a multiple of the factor (Halide's semantics, which can read more input)."""
    mins, extents = list(region.mins), list(region.extents)
    for d in stage.directives:
        if d.kind == DirectiveKind.BOUND and d.args[0] in stage.vars:
            dim = stage.vars.index(d.args[0])
            lo, ext = d.args[1], d.args[2]
            if mins[dim] < lo or mins[dim] + extents[dim] > lo + ext:
                raise HalideError(
                    f"Error: Bounds given for {stage.name} in {d.args[0]} (from {lo} to "
                    f"{lo + ext - 1}) do not cover required region (from {mins[dim]} to "
                    f"{mins[dim] + extents[dim] - 1})"
                    f" (bound set at {d.site})"
                )
            if not output:
                mins[dim], extents[dim] = lo, ext
        elif d.kind in (DirectiveKind.BOUND_EXTENT, DirectiveKind.ALIGN) and d.args[0] in stage.vars:
            dim = stage.vars.index(d.args[0])
            lo, ext = scheduled_extent(stage, d, mins[dim], extents[dim])  # (checks an output's bound_extent)
            if not output:  # an output's region is its buffer's
                mins[dim], extents[dim] = lo, ext
        elif (
            d.kind == DirectiveKind.SPLIT
            and d.args[4] is not None
            and d.args[4].name == "RoundUp"
            and not output
            and d.args[0] in stage.vars
        ):
            dim = stage.vars.index(d.args[0])
            f = d.args[3]
            extents[dim] = -(-extents[dim] // f) * f
    return Region(tuple(mins), tuple(extents))


def _region_of(ivs, func) -> Region:
    for d, iv in enumerate(ivs):
        if not (math.isfinite(iv.lo) and math.isfinite(iv.hi)) or iv.hi - iv.lo > 2**31:
            raise HalideError(
                f"Func '{func.name()}' is accessed over an unbounded region in dimension {d}; "
                f"clamp the coordinates or use a boundary condition"
            )
    return Region(tuple(int(iv.lo) for iv in ivs), tuple(int(iv.hi - iv.lo + 1) for iv in ivs))


def _check_input(holder, buf: Buffer, ivs, readers) -> None:
    kind = "ImageParam" if isinstance(holder, ImageParam) else "Input buffer"
    for d, iv in enumerate(ivs):
        dim = buf.dim(d)
        if iv.lo < dim.min():
            stage, site = readers[(holder, d, "lo", iv.lo)]
            raise HalideError(
                f"{kind} {holder.name()} is accessed at {_num(iv.lo)}, which is before the min ({dim.min()}) in "
                f"dimension {d}: Func '{stage.name}'{_at(site)} reads {holder.name()} over "
                f"[{_num(iv.lo)}, {_num(iv.hi)}] in dimension {d}, but the buffer covers [{dim.min()}, {dim.max()}]"
            )
        if iv.hi > dim.max():
            stage, site = readers[(holder, d, "hi", iv.hi)]
            raise HalideError(
                f"{kind} {holder.name()} is accessed at {_num(iv.hi)}, which is beyond the max ({dim.max()}) in "
                f"dimension {d}: Func '{stage.name}'{_at(site)} reads {holder.name()} over "
                f"[{_num(iv.lo)}, {_num(iv.hi)}] in dimension {d}, but the buffer covers [{dim.min()}, {dim.max()}]"
            )


def _num(v) -> str:
    return str(int(v)) if isinstance(v, (int, float)) and math.isfinite(v) else str(v)


def _at(site) -> str:
    return f" (at {site})" if site is not None else ""


def computed_region(bounded: Bounded, func: Func) -> Region:
    """The region one computation of ``func`` covers: its whole region, unless it is computed at a loop of a
    consumer; then what bounds inference gives for one (interior, first) iteration of that loop, as Halide
    computes it there. Its loops iterate over this, e.g. an unroll of them unrolls this many iterations."""
    p = bounded.pipeline
    stage = p.stage(func)
    level = stage.compute
    if func is p.output or not level.at_loop():
        return bounded.region(func)
    consumer = p.stage(level.func)
    outer = computed_region(bounded, level.func)
    loops = stage_loops(consumer.name, consumer.vars, outer.extents, consumer.directives)
    names = [l.name for l in loops]
    if level.var not in names:
        return bounded.region(func)  # an update's loop: computed before the consumer (placement.py hoist_from_loops)
    moved = lanes_moved_in(loops)
    at = loops[names.index(level.var)]
    if at.kind != LoopKind.VECTORIZED and names.index(level.var) > moved.index(at):
        # a finer loop outside level.var runs inside it as lanes of the vector: one iteration covers its elements
        loops, names = moved, [l.name for l in moved]
    pos = loop_position(consumer, level.var)
    around = loops[: names.index(level.var) + 1]
    vec = [i for i, l in enumerate(loops) if l.kind == LoopKind.VECTORIZED]
    if vec:
        materialized, lanes, _ = vector_block(loops, vec[0])
        if at is loops[vec[0]] or at in lanes:
            # the vector and its lanes are not loops in the code: a producer computed at one of them is computed
            # once per vector, at the loop around it (loop_schedule.py in_vector), over every lane's elements
            around = materialized
    tile = Region(outer.mins, tuple(covered_extents(around, outer.extents)))
    # bounds inference over the stages inside that loop, consumers first, from the consumer's tile
    regions, required = {consumer.func: tile}, {}
    for s in reversed(p.stages):
        if s.func in regions:
            region = regions[s.func]
        elif s.func in required and computed_inside(p, s, consumer, pos):
            region = _scheduled_region(s, _region_of(required[s.func], s.func))
        else:
            continue
        env = {v: region.interval(d) for d, v in enumerate(s.vars)}
        ups = bounded.updates[s.func] if s.func is not consumer.func else []
        for r in (r for u in ups for r in u.rvars):
            lo, ext = bounded.rvar_range(r)
            env[r.name()] = Interval(lo, lo + ext - 1)
        region = _update_region(s, ups, env, region, False)
        regions[s.func] = region
        if s is stage:
            return region
        env.update({v: region.interval(d) for d, v in enumerate(s.vars)})
        for e in [*bounded.bodies[s.func], *(x for u in ups for x in u.exprs())]:
            for n in walk(e):
                if n.kind == "call" and isinstance(n.value, Func) and n.value is not s.func:
                    ivs = [bounds(a, env) for a in n.args]
                    prev = required.get(n.value)
                    required[n.value] = ivs if prev is None else [a.union(b) for a, b in zip(prev, ivs)]
    return bounded.region(func)
