"""Small inline reductions unrolled into their consumer, where that consumer is computed at a loop.

Halide computes an inline reduction (``hl.sum(d[x, y + r.x])``) inside the innermost loop of its consumer, one
point at a time. Here a Func with an update is a stage of its own: a zeroing pass, an update pass and (fused or
not) a copy, computed at the root or at the consumer's loop (analysis/placement.py). For a consumer computed at a
loop of another Func (nl_means's ``d``, ``blur_d_y``, ``blur_d``: box sums over 3 and 7 taps, computed per tile)
that stage breaks the consumer's locality: a stage with updates can't be computed by a tile plan's payload loops
(analysis/tiling.py), so it and everything it reads end up at the root. An inline reduction over a small
constant RDom is, point for point, ``op(...op(op(init, e(r0)), e(r1))..., e(rn))`` in the RDom's order (r.x
innermost): substituted unrolled into the consumer it is an ordinary stencil, the same values bit for bit (same
operations, same order), computed wherever the consumer is.

Only the anonymous Funcs of ``hl.sum``/``product``/``maximum``/``minimum`` (lang/inline_reductions.py; not
argmax/argmin, Tuples; not float products, whose last multiply would be contracted with an add of the consumer
into an fma, one rounding fewer than Halide's), unscheduled, with constant bounds and at most ``UNROLL_LIMIT``
points; and only where locality depends on it: into a consumer computed at a loop, or where the reduction reads
a Func computed at a loop of its consumer (max_filter's 53-tap ``hl.maximum`` of ``vert``, computed at the
output's y: unrolled, the output reads ``vert`` directly, and its tile plan computes it per row). Elsewhere the
reduction stays a stage, whose update is vectorized at the consumer's width (analysis/vectorize.py).
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from ..lang.schedule import LevelKind
from ..lang.traversal import rebuild, walk

if TYPE_CHECKING:  # annotations only
    from ..lang.func import Func

UNROLL_LIMIT = 64  # RDom points (max_filter's 53 taps); larger reductions stay loops


def unrolled_into(consumer: Func, output: Func) -> bool:
    """May small inline reductions read by ``consumer`` (directly or through inline Funcs) be unrolled there
    (unrolled_values says which)? Where it is computed at a loop, or a Func is computed at one of its loops."""
    if consumer is not output and consumer.schedule().compute.at_loop():
        return True
    return bool(_computed_at(consumer, consumer))


def _computed_at(start: Func, consumer: Func) -> list:
    """The Funcs scheduled at a loop of ``consumer`` that ``start`` reads, directly or through inline Funcs and
    inline reductions."""
    from ..lang.func import Func

    seen, out, todo = set(), [], [start]
    while todo:
        f = todo.pop()
        d = f._definition()
        for e in [*d.values, *(v for u in f.updates() for v in u.values)]:
            for n in walk(e):
                g = n.value if n.kind == "call" and isinstance(n.value, Func) else None
                if g is None or g is f or id(g) in seen:
                    continue
                seen.add(id(g))
                level = g.schedule().compute
                if level.at_loop() and level.func is consumer:
                    out.append(g)
                elif level.kind == LevelKind.INLINE:
                    todo.append(g)
    return out


def unrolled_values(f: Func, consumer: Func, output: Func) -> tuple | None:
    """The values of inline reduction ``f``, read by ``consumer``, as one expression over its pure Vars, or None
    where it stays a stage (module docstring)."""

    s = f.schedule()
    kind = getattr(f, "_inline_reduction", None)
    if kind is None or s.compute.kind != LevelKind.INLINE or s.directives:
        return None
    if kind == "product" and f.output_types()[0].is_float():
        return None  # its last multiply would meet the consumer's add: contracted to an fma, unlike Halide's
    at_loop = consumer is not output and consumer.schedule().compute.at_loop()
    if not at_loop and not _computed_at(f, consumer):
        return None  # a consumer at the root reading nothing computed at its loops through it: a stage
    ups = f.updates()
    if len(ups) != 1 or ups[0].schedule.directives or ups[0].predicates():
        return None
    u, d = ups[0], f._definition()
    if len(d.values) != 1 or len(u.values) != 1:
        return None
    pure = [v.name() for v in d.args]
    if len(u.args) != len(pure) or not all(a.kind == "var" and a.value.name() == v for a, v in zip(u.args, pure)):
        return None
    rvars = u.rvars()
    ranges = []
    for r in rvars:
        lo, ext = r.min(), r.extent()
        if lo.kind != "const" or ext.kind != "const":
            return None
        ranges.append(range(int(lo.value), int(lo.value) + int(ext.value)))
    if math.prod(len(rg) for rg in ranges) > UNROLL_LIMIT:
        return None
    key = {(id(r.domain()), r.index()): j for j, r in enumerate(rvars)}
    acc = d.values[0]
    for point in itertools.product(*reversed(ranges)):  # the RDom's order: r.x innermost
        at = tuple(reversed(point))

        def leaf(n, args, at=at, acc=acc):
            if n.kind == "rvar":
                return _const_like(n, at[key[(id(n.value.domain()), n.value.index())]])
            if n.kind == "call" and n.value is f:
                return acc
            return None

        acc = rebuild(u.values[0], leaf)
    return (acc,)


def _const_like(n, value: int):
    from ..lang.expr import const

    return const(value, n.type)
