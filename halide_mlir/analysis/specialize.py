"""Choosing specializations (``f.specialize(cond)``): one compiled variant per specialization path.

Code here is already specialized to the shapes of the bound buffers (and to the Params that shape loops), so a
condition of Params and image sizes is known when a pipeline is compiled: each stage's conditions are evaluated
on the bound values, in the order the user added them, and the first that holds gives the stage's schedule
(nested ones in turn), as Halide's ``if (c1) ... else if (c2) ... else`` picks at run time. The choice (the
*path*) is part of the compiled-code keys (driver.py), so realizing with other values compiles or reuses the
variant for them; the untaken versions are never compiled. Reaching a ``specialize_fail`` is Halide's error.
"""

from __future__ import annotations

import contextlib
import math

from ..error import HalideError
from ..lang.schedule import FuncSchedule
from .interval import halide_div


def evaluate(e):
    """The value of a scalar Expr of constants, Params and image sizes (Halide's semantics for integers)."""
    k, t = e.kind, e.type
    if k == "const":
        return e.value
    if k == "param":
        return e.value.get()
    if k == "buffer_dim":
        holder, dim, what = e.value
        buf = holder.bound_buffer() if hasattr(holder, "bound_buffer") else holder
        if dim >= buf.dimensions():
            raise HalideError(f"ImageParam '{holder.name()}' has no dimension {dim}")
        d = buf.dim(dim)
        return d.min() if what == "min" else d.extent() if what == "extent" else d.stride()
    a = [evaluate(x) for x in e.args]
    if k == "cast":
        v = a[0]
        if t.is_bool():
            return bool(v)
        if t.is_float():
            return float(v)
        return _wrap(math.trunc(v), t)
    if k == "land":
        return bool(a[0]) and bool(a[1])
    if k == "lor":
        return bool(a[0]) or bool(a[1])
    if k == "not":
        return (not a[0]) if t.is_bool() else _wrap(~a[0], t)
    if k == "select":
        return a[1] if a[0] else a[2]
    cmp = {
        "lt": lambda x, y: x < y,
        "le": lambda x, y: x <= y,
        "gt": lambda x, y: x > y,
        "ge": lambda x, y: x >= y,
        "eq": lambda x, y: x == y,
        "ne": lambda x, y: x != y,
    }
    if k in cmp:
        return cmp[k](a[0], a[1])
    x, y = a[0], a[1] if len(a) > 1 else None
    if t.is_float():
        ops = {"add": x + y, "sub": x - y, "mul": x * y, "min": min(x, y), "max": max(x, y)} if y is not None else {}
        if k == "div":
            return x / y if y else math.copysign(math.inf, x) if x else math.nan
        if k == "mod":
            return x - y * math.floor(x / y) if y else math.nan
    else:
        if k in ("div", "mod") and y == 0:
            return 0  # Halide: division by zero is zero
        ops = (
            {
                "add": x + y,
                "sub": x - y,
                "mul": x * y,
                "min": min(x, y),
                "max": max(x, y),
                "and": x & y,
                "or": x | y,
                "xor": x ^ y,
            }
            if y is not None
            else {}
        )
        if k == "div":
            return _wrap(halide_div(x, y), t)
        if k == "mod":
            return x - halide_div(x, y) * y
        if k == "shl":
            return _wrap(x << y if y >= 0 else x >> -y, t)
        if k == "shr":
            return _wrap(x >> y if y >= 0 else x << -y, t)
    if k in ops:
        return ops[k] if t.is_float() or t.is_bool() else _wrap(ops[k], t)
    raise HalideError(
        f"a specialization condition must be made of constants, Params and image sizes; {e} is not supported yet"
    )


def _wrap(v: int, t) -> int:
    bits = t.bits()
    v &= (1 << bits) - 1
    return v - (1 << bits) if not t.is_uint() and v >= 1 << (bits - 1) else v


# {id(schedule): path} while an any-size AOT function compiles one variant per path (aot/specialized.py): the
# conditions are then decided at run time by its wrapper, not evaluated here (no buffers are bound)
_forced: dict | None = None


@contextlib.contextmanager
def forcing(paths: dict):
    global _forced
    old, _forced = _forced, paths
    try:
        yield
    finally:
        _forced = old


def forced() -> bool:
    return _forced is not None


def all_paths(schedule: FuncSchedule) -> list:
    """Every path through ``schedule``'s specializations: () for none taken, (i, ...) for the i-th and its own."""
    out = [()]
    for i, sp in enumerate(schedule.specializations):
        out += [(i, *p) for p in all_paths(sp.schedule)]
    return out


def choose(schedule: FuncSchedule, where: str) -> tuple[FuncSchedule, tuple]:
    """The schedule the bound values select, and the path to it (indices into each level's specializations)."""
    if _forced is not None:
        s, path = schedule, _forced.get(id(schedule), ())
        for i in path:
            s = s.specializations[i].schedule
        return s, tuple(path)
    path = []
    s = schedule
    while s.specializations:
        for i, sp in enumerate(s.specializations):
            if sp.failure is not None:
                raise HalideError(
                    f"A schedule specialized with specialize_fail() was chosen: {sp.failure} ({where}, at {sp.site})"
                )
            if evaluate(sp.condition):
                path.append(i)
                s = sp.schedule
                break
        else:
            break
    return s, tuple(path)


def specialized(stages) -> list:
    """(where, user's schedule) of every stage definition with specializations."""
    out = []
    for st in stages:
        if st.func.schedule().specializations:
            out.append((f"Func '{st.name}'", st.func.schedule()))
        for u in st.updates:
            if u.schedule.specializations:
                out.append((f"Func '{st.name}' update {u.index}", u.schedule))
    return out


def path_of(schedules: list) -> tuple:
    return tuple(choose(s, where)[1] for where, s in schedules)


def resolve(pipeline) -> None:
    """Give each stage and update the directives of its chosen specialization (before any check reads them)."""
    for st in pipeline.stages:
        st.directives = list(choose(st.func.schedule(), f"Func '{st.name}'")[0].directives)
        for u in st.updates:
            if u.schedule.specializations:
                u.schedule = choose(u.schedule, f"Func '{st.name}' update {u.index}")[0]
