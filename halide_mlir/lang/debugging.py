"""Halide's debugging aids: ``hl.print``, ``hl.print_when`` and ``Func.trace_stores/trace_loads/
trace_realizations``. Each is recorded here as data; codegen/trace.py turns it into calls that print each time
the compiled code evaluates or stores a value (runtime/trace.py), in Halide's text format."""

from __future__ import annotations

from ..error import HalideError
from .expr import Expr, to_expr
from .source import user_site

TRACE_KINDS = ("stores", "loads", "realizations")


def _print_expr(cond, args) -> Expr:
    """An Expr of the first argument's value that prints all of them (strings as they are, values in Halide's
    format, separated by spaces) where ``cond`` holds. ``value`` says which part is which: a str, or the index
    of a value among the Expr's operands after the condition."""
    if not args:
        raise HalideError(f"{user_site()}: print() needs at least one argument")
    if isinstance(args[0], str):
        raise HalideError(
            f"{user_site()}: the first argument of print() is the Expr it returns: got the string "
            f"{args[0]!r} (put an Expr first)"
        )
    parts, values = [], []
    for a in args:
        if isinstance(a, str):
            parts.append(a)
        else:
            parts.append(len(values))
            values.append(to_expr(a))
    cond = to_expr(cond)
    if not cond.type.is_bool():
        raise HalideError(f"{user_site()}: print_when()'s condition must be a boolean Expr, got {cond.type}")
    return Expr("print", values[0].type, (cond, *values), tuple(parts))


def print_(*args) -> Expr:
    """``hl.print(a, "text", b, ...)``: ``a``, printing all the arguments each time it is evaluated."""
    return _print_expr(to_expr(True), args)


def print_when(condition, *args) -> Expr:
    """``hl.print_when(cond, a, ...)``: ``a``, printing the arguments where ``cond`` is true."""
    if isinstance(condition, bool):
        condition = to_expr(condition)
    return _print_expr(condition, args)


# --- tracing ---------------------------------------------------------------------------------------


def tracing(holder) -> frozenset:
    """What is traced of a Func or ImageParam: a subset of TRACE_KINDS."""
    return frozenset(getattr(holder, "_tracing", ()))


def _trace(kind: str):
    def method(self):
        traced = set(getattr(self, "_tracing", ()))
        traced.add(kind)
        self._tracing = frozenset(traced)
        return self

    method.__name__ = f"trace_{kind}"
    method.__doc__ = f"Halide's ``trace_{kind}``: print a line per {kind[:-1]} event (Halide's format)."
    return method


def install(cls: type, kinds=TRACE_KINDS) -> None:
    for kind in kinds:
        setattr(cls, f"trace_{kind}", _trace(kind))


def per_occurrence(e) -> bool:
    """Is ``e`` computed once per occurrence, never shared with an equal node (traversal.Structures)? A print (a
    side effect) and a load of a Func or ImageParam that traces loads (an event per call, as Halide's)."""
    return e.kind == "print" or (e.kind == "call" and "loads" in tracing(e.value))
