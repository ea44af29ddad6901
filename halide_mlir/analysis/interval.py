"""Interval arithmetic over Exprs, as Halide's bounds inference does it.

Bounds are exact Python numbers; anything we cannot bound tightly falls back to the full range of the
Expr's type, which is always sound (and makes an input access fail the bounds check rather than read
out of bounds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import math
from dataclasses import dataclass

import numpy as np

if TYPE_CHECKING:  # annotations only
    from ..lang.expr import Expr
    from ..lang.types import Type


@dataclass(frozen=True)
class Interval:
    lo: float
    hi: float

    def union(self, o: "Interval") -> "Interval":
        return Interval(min(self.lo, o.lo), max(self.hi, o.hi))


def type_range(t: Type) -> Interval:
    return Interval(t.min_value(), t.max_value())


def _clip(iv: Interval, t) -> Interval:
    """Values outside the type's range wrap around in the real computation: give up to the type range."""
    r = type_range(t)
    if t.is_float() or (r.lo <= iv.lo and iv.hi <= r.hi):
        return iv
    return r


def _corners(f, a: Interval, b: Interval) -> Interval:
    vals = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    if any(isinstance(v, float) and math.isnan(v) for v in vals):
        return Interval(-math.inf, math.inf)
    return Interval(min(vals), max(vals))


def _mul(x, y):
    if x == 0 or y == 0:
        return 0
    return x * y


def _is_int(iv: Interval) -> bool:
    return all(isinstance(v, int) for v in (iv.lo, iv.hi))


# id(Expr) -> its range inside the branch of a select being bounded (the branch where the select's comparison
# holds, or fails); the Expr objects of a definition are shared, so the branch's own uses of it are narrowed
_narrowed: dict[int, Interval] = {}


def bounds(e: Expr, env: dict[str, Interval]) -> Interval:
    """The range of ``e`` when each Var ``v`` ranges over ``env[v.name()]`` (an Interval)."""
    if _narrowed:
        hit = _narrowed.get(id(e))
        if hit is not None:
            return hit
    k, t = e.kind, e.type
    if k == "const":
        if t.is_float():
            return Interval(_rounded(e.value, t), _rounded(e.value, t))
        return Interval(e.value, e.value) if not t.is_bool() else Interval(int(e.value), int(e.value))
    if k in ("var", "rvar"):
        return env[e.value.name()]
    if k == "param":
        # (a Param in coordinates or RDom bounds is an index Param: its value is compiled in, so it is the range)
        v = e.value.get()
        if not t.is_float():
            return Interval(v, v)
        return Interval(-math.inf, math.inf) if v is None else Interval(_rounded(v, t), _rounded(v, t))
    if t.is_bool():
        return Interval(0, 1)
    if t.is_float() and k in ("add", "sub", "mul", "div"):
        return _float_bounds(k, bounds(e.args[0], env), bounds(e.args[1], env), t)
    if k in ("add", "sub", "mul", "min", "max"):
        a, b = bounds(e.args[0], env), bounds(e.args[1], env)
        if k == "add":
            return _clip(Interval(a.lo + b.lo, a.hi + b.hi), t)
        if k == "sub":
            return _clip(Interval(a.lo - b.hi, a.hi - b.lo), t)
        if k == "mul":
            return _clip(_corners(_mul, a, b), t)
        if k == "min":
            return Interval(min(a.lo, b.lo), min(a.hi, b.hi))
        return Interval(max(a.lo, b.lo), max(a.hi, b.hi))
    if k == "div" and not t.is_float():
        a, b = bounds(e.args[0], env), bounds(e.args[1], env)
        if _is_int(a) and _is_int(b) and (b.lo > 0 or b.hi < 0):
            return _clip(_corners(halide_div, a, b), t)
        return _clip(Interval(min(a.lo, -a.hi, 0), max(a.hi, -a.lo, 0)), t) if _is_int(a) else type_range(t)
    if k == "mod" and not t.is_float():
        a, b = bounds(e.args[0], env), bounds(e.args[1], env)
        if _is_int(b) and b.lo == b.hi and b.lo != 0:
            m = abs(b.lo)
            if _is_int(a) and 0 <= a.lo and a.hi < m:
                return a
            if _is_int(a) and math.isfinite(a.lo) and a.hi - a.lo < m and a.lo % m <= a.hi % m:
                return Interval(a.lo % m, a.hi % m)  # (Euclidean, as Halide's %) no wrap inside the range
            return Interval(0, m - 1)
        if _is_int(b):
            return Interval(0, max(abs(b.lo), abs(b.hi), 1) - 1)
        return type_range(t)
    if k == "select":
        return _select_bounds(e, env)
    if k == "cast":
        a = bounds(e.args[0], env)
        src = e.args[0].type
        if t.is_float():
            return Interval(_rounded(a.lo, t), _rounded(a.hi, t))
        if src.is_float():
            if not (math.isfinite(a.lo) and math.isfinite(a.hi)):
                return type_range(t)
            a = Interval(math.trunc(a.lo), math.trunc(a.hi))
        return _clip(a, t)
    if k == "abs":
        a = bounds(e.args[0], env)
        if a.lo >= 0:
            return a
        if a.hi <= 0:
            return _clip(Interval(-a.hi, -a.lo), t)
        return _clip(Interval(0, max(-a.lo, a.hi)), t)
    if k in ("floor", "ceil", "round", "trunc"):
        a = bounds(e.args[0], env)
        f = {"floor": math.floor, "ceil": math.ceil, "round": round, "trunc": math.trunc}[k]
        if math.isfinite(a.lo) and math.isfinite(a.hi):
            return Interval(float(f(a.lo)), float(f(a.hi)))
        return a
    if k == "shr" and not t.is_float():
        a, b = bounds(e.args[0], env), bounds(e.args[1], env)
        if _is_int(a) and b.lo == b.hi and 0 <= b.lo < t.bits():
            return Interval(a.lo >> b.lo, a.hi >> b.lo)
        return type_range(t)
    if k == "shl" and not t.is_float():
        a, b = bounds(e.args[0], env), bounds(e.args[1], env)
        if _is_int(a) and b.lo == b.hi and 0 <= b.lo < t.bits():
            return _clip(Interval(a.lo << b.lo, a.hi << b.lo), t)
        return type_range(t)
    if k == "and" and not t.is_float():
        a, b = bounds(e.args[0], env), bounds(e.args[1], env)
        if b.lo == b.hi and b.lo >= 0:
            return Interval(0, b.lo) if a.lo < 0 else Interval(0, min(a.hi, b.lo))
        return type_range(t)
    return type_range(t)


def _rounded(v, t):
    """``v`` as the float type ``t`` holds it: value ranges of data-dependent coordinates (``i32(clamp(v, 0.0,
    1.0) / r_sigma)``) are the values the code computes at the range's ends, rounded as it rounds (rounding is
    monotonic, so the ends stay the ends)."""
    if math.isnan(v) or math.isinf(v):
        return v
    with np.errstate(over="ignore"):  # (beyond the type's range: inf, as the code computes it)
        if t.bits() == 32:
            return float(np.float32(v))
        if t.bits() == 16:
            return float(np.float16(v))
    return float(v)


def _float_bounds(k: str, a: Interval, b: Interval, t) -> Interval:
    """Float +, -, * and / over ranges, each end rounded to ``t`` (Halide bounds float arithmetic the same way;
    a division by a range holding 0 is unbounded)."""
    if k == "add":
        lo, hi = a.lo + b.lo, a.hi + b.hi
    elif k == "sub":
        lo, hi = a.lo - b.hi, a.hi - b.lo
    elif k == "mul":
        lo, hi = _corners(_mul, a, b).lo, _corners(_mul, a, b).hi
    elif b.lo > 0 or b.hi < 0:
        iv = _corners(lambda x, y: x / y, a, b)
        lo, hi = iv.lo, iv.hi
    else:
        return Interval(-math.inf, math.inf)
    if math.isnan(lo) or math.isnan(hi):
        return Interval(-math.inf, math.inf)
    return Interval(_rounded(lo, t), _rounded(hi, t))


def halide_div(a: int, b: int) -> int:
    """Halide's integer division: the remainder is never negative (Euclidean)."""
    q = a // b  # Python floors, so the remainder takes the sign of b
    if a - q * b < 0:
        q += 1
    return q


def simplify_within(e: Expr, env: dict[str, Interval]) -> Expr:
    """``e`` with the min/max, comparisons, logic and selects that ``env``'s ranges decide replaced by their
    outcome: inside a boundary condition's interior ``clamp(x, lo, hi)`` is ``x``, and outside it a constant
    (Halide's loop partitioning does the same with its ``likely`` tags). Integer operands only, and none that
    depends on a Param: a Param's value may change after the code is compiled (``bounds`` reads its current
    value, which is right for bounds inference only where the Param is part of the compile key)."""
    from ..lang.expr import const
    from ..lang.traversal import walk

    if not e.args:
        return e
    args = tuple(simplify_within(a, env) for a in e.args)
    k = e.kind
    if any(n.kind == "param" for a in args for n in walk(a)):
        return e.copy_with(args)
    if k in ("min", "max") and not e.type.is_float():
        a, b = bounds(args[0], env), bounds(args[1], env)
        if a.hi <= b.lo:  # a <= b everywhere
            return args[0] if k == "min" else args[1]
        if b.hi <= a.lo:
            return args[1] if k == "min" else args[0]
    elif k in ("lt", "le", "gt", "ge") and not args[0].type.is_float():
        a, b = bounds(args[0], env), bounds(args[1], env)
        if k in ("gt", "ge"):
            a, b, k = b, a, "lt" if k == "gt" else "le"
        if (a.hi < b.lo) if k == "lt" else (a.hi <= b.lo):
            return const(True, e.type)
        if (a.lo >= b.hi) if k == "lt" else (a.lo > b.hi):
            return const(False, e.type)
    elif k in ("or", "lor", "and", "land") and e.type.is_bool():
        absorbing = k in ("or", "lor")
        if any(a.kind == "const" and bool(a.value) == absorbing for a in args):
            return const(absorbing, e.type)
        rest = [a for a in args if a.kind != "const"]
        if len(rest) < len(args):
            return rest[0] if rest else const(not absorbing, e.type)
    elif k == "not" and args[0].kind == "const":
        return const(not args[0].value, e.type)
    elif k == "select" and args[0].kind == "const":
        return args[1] if args[0].value else args[2]
    return e.copy_with(args)


def _select_bounds(e: Expr, env: dict[str, Interval]) -> Interval:
    """A select's range: only the branches its condition lets run, each with the condition's left side narrowed
    to where it picks that branch (``select(m < ext, m, 2 * ext - 1 - m)``: a mirror's reads stay near x)."""
    c, yes, no = e.args
    if c.kind not in ("lt", "le", "gt", "ge") or c.args[0].type.is_float() or c.args[1].type.is_float():
        return bounds(yes, env).union(bounds(no, env))
    a, b = bounds(c.args[0], env), bounds(c.args[1], env)
    if not (_is_int(a) and _is_int(b)):
        return bounds(yes, env).union(bounds(no, env))
    below = Interval(a.lo, min(a.hi, b.hi - 1))  # where a < b can hold
    at_most = Interval(a.lo, min(a.hi, b.hi))  # a <= b
    above = Interval(max(a.lo, b.lo + 1), a.hi)  # a > b
    at_least = Interval(max(a.lo, b.lo), a.hi)  # a >= b
    where = {"lt": (below, at_least), "le": (at_most, above), "gt": (above, at_most), "ge": (at_least, below)}
    out = None
    for branch, iv in zip((yes, no), where[c.kind]):
        if iv.lo > iv.hi:
            continue  # the condition never picks this branch here
        key = id(c.args[0])
        old = _narrowed.get(key)
        _narrowed[key] = iv
        try:
            r = bounds(branch, env)
        finally:
            if old is None:
                del _narrowed[key]
            else:
                _narrowed[key] = old
        out = r if out is None else out.union(r)
    return out if out is not None else bounds(yes, env).union(bounds(no, env))
