"""Halide's free functions on Exprs: select, min/max/clamp, math, casts."""

from __future__ import annotations

import numpy as np

from ..error import HalideError
from .expr import FLOAT_MATH, Expr, cast, const, is_python_number, operands, to_expr
from .source import user_site
from .types import Float, Int, Type, UInt


def select(*args) -> Expr:
    """``select(c0, v0, c1, v1, ..., default)``: the value of the first true condition."""
    if len(args) < 3 or len(args) % 2 == 0:
        raise HalideError(f"{user_site()}: select takes an odd number (>= 3) of arguments, got {len(args)}")
    values = [_as_tuple(v) for v in args[1::2]] + [_as_tuple(args[-1])]
    if any(v is not None for v in values):  # select over Tuples: element by element
        from .func import Tuple

        conds = [_as_tuple(c) if isinstance(c, (tuple, list, Tuple)) else c for c in args[0:-1:2]]
        tuple_conds = [isinstance(c, list) for c in conds]
        if any(tuple_conds) and not all(tuple_conds):
            raise HalideError(
                f"{user_site()}: select() on Tuples may not mix Expr and Tuple for the condition elements."
            )
        sizes = {len(v) for v in values if v is not None} | {len(c) for c in conds if isinstance(c, list)}
        if None in values or len(sizes) != 1:
            raise HalideError(f"{user_site()}: select() on Tuples requires all Tuples to have identical sizes.")
        n = sizes.pop()

        def cond(c, k):  # a Tuple condition chooses element by element
            return c[k] if isinstance(c, list) else c

        return Tuple(
            [
                select(
                    *[x for pair in zip([cond(c, k) for c in conds], [v[k] for v in values[:-1]]) for x in pair],
                    values[-1][k],
                )
                for k in range(n)
            ]
        )
    result = args[-1]
    for i in range(len(args) - 3, -1, -2):
        result = _select2(args[i], args[i + 1], result)
    return result


def _as_tuple(v):
    """The elements of a Tuple (or of a call to a Tuple-valued Func), or None for a single value."""
    from .func import FuncRef, Tuple

    if isinstance(v, Tuple):
        return list(v)
    if isinstance(v, tuple):
        return [to_expr(x) for x in v]
    if isinstance(v, FuncRef) and v.func.defined() and v.func.num_values() > 1:
        return [v[k] for k in range(v.func.num_values())]
    return None


def _select2(c, t, f) -> Expr:
    c = to_expr(c)
    if not c.type.is_bool():
        raise HalideError(f"{user_site()}: the condition of select must be a bool, not {c.type}")
    t_lit, f_lit = is_python_number(t), is_python_number(f)
    t_raw, f_raw = t, f
    t, f = to_expr(t), to_expr(f)
    if t.type != f.type:
        # a Python number takes the other branch's type (wrapping, unchecked); Exprs must already agree
        if f_lit and not t_lit and _coercible(f_raw, t.type):
            f = cast(t.type, f)
        elif t_lit and not f_lit and _coercible(t_raw, f.type):
            t = cast(f.type, t)
        else:
            raise HalideError(
                f"{user_site()}: The second and third arguments to a select do not have a matching "
                f"type: {t} has type {t.type}, {f} has type {f.type}"
            )
    return Expr("select", t.type, (c, t, f))


def _coercible(literal, t: Type) -> bool:
    """A Python int takes any type; a Python float only a float type."""
    return t.is_float() or not isinstance(literal, float)


def _binary_of_exprs(kind: str, a, b) -> Expr:
    """min/max in Halide's Python bindings convert scalars to Exprs first (an int becomes int32)."""
    a, b = operands(to_expr(a), to_expr(b))
    return Expr(kind, a.type, (a, b))


def min(a, b, *more) -> Expr:  # noqa: A001 - Halide's name
    r = _binary_of_exprs("min", a, b)
    for m in more:
        r = _binary_of_exprs("min", r, m)
    return r


def max(a, b, *more) -> Expr:  # noqa: A001 - Halide's name
    r = _binary_of_exprs("max", a, b)
    for m in more:
        r = _binary_of_exprs("max", r, m)
    return r


def clamp(a, lo, hi) -> Expr:
    """Halide casts the bounds to the type of the clamped value."""
    a = to_expr(a)
    return Expr("max", a.type, (Expr("min", a.type, (a, cast(a.type, to_expr(hi)))), cast(a.type, to_expr(lo))))


def abs(a) -> Expr:  # noqa: A001 - Halide's name
    """abs of a signed integer is unsigned of the same width (it cannot overflow)."""
    a = to_expr(a)
    if a.type.is_uint():
        return a
    t = UInt(a.type.bits()) if a.type.is_int() else a.type
    return Expr("abs", t, (a,))


def _float_arg(a) -> Expr:
    a = to_expr(a)
    return a if a.type.is_float() else cast(Float(32), a)


def _math(name: str):
    def fn(a) -> Expr:
        a = _float_arg(a)
        return Expr(name, a.type, (a,))

    fn.__name__ = name
    fn.__doc__ = f"Halide's {name}: a non-float argument is first cast to float32."
    return fn


sqrt, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, log, floor, ceil, round, trunc = (
    _math(n) for n in FLOAT_MATH
)


def pow(x, y) -> Expr:  # noqa: A001 - Halide's name
    # (Halide's as_const_int: a Python int or a signed integer constant, not a uint one)
    if (
        isinstance(y, int)
        and not isinstance(y, bool)
        or (isinstance(y, Expr) and y.kind == "const" and y.type.is_int())
    ):
        # Halide: a constant integer exponent is repeated multiplication in x's own type
        return _integer_power(to_expr(x), int(y if isinstance(y, int) else y.value))
    x = _float_arg(x)
    y = cast(x.type, to_expr(y))
    return Expr("pow", x.type, (x, y))


def _integer_power(x: Expr, p: int) -> Expr:
    if p == 0:
        return const(1, x.type)
    if p < 0:
        return Expr("div", x.type, (const(1, x.type), _integer_power(x, -p)))
    result = None
    while p:  # binary exponentiation, as Halide's raise_to_integer_power
        if p & 1:
            result = x if result is None else Expr("mul", x.type, (result, x))
        p >>= 1
        if p:
            x = Expr("mul", x.type, (x, x))
    return result


def atan2(y, x) -> Expr:
    y = _float_arg(y)
    return Expr("atan2", y.type, (y, cast(y.type, to_expr(x))))


def _caster(t: Type):
    def fn(e) -> Expr:
        if t.is_float() and isinstance(e, (float, np.floating)):
            # hl.f64(0.1) is the double 0.1 in Halide: the float is not first made a float32 Expr
            return const(float(e), t)
        if (
            isinstance(e, (int, np.integer))
            and not isinstance(e, bool)
            and not t.is_float()
            and t.can_represent(int(e))
        ):
            return const(int(e), t)  # hl.u64(2**63): the value fits the target, though not an int64 Expr
        return cast(t, e)

    fn.__name__ = str(t)
    return fn


u8, u16, u32, u64 = (_caster(UInt(b)) for b in (8, 16, 32, 64))
i8, i16, i32, i64 = (_caster(Int(b)) for b in (8, 16, 32, 64))
f32, f64 = _caster(Float(32)), _caster(Float(64))


def cast_to(t, e) -> Expr:
    """``hl.cast(type, e)``."""
    from .types import as_type

    return cast(as_type(t), e)


def is_const_number(v) -> bool:
    return is_python_number(v) or (isinstance(v, Expr) and v.kind == "const")


__all__ = [
    "select",
    "min",
    "max",
    "clamp",
    "abs",
    *FLOAT_MATH,
    "pow",
    "atan2",
    "u8",
    "u16",
    "u32",
    "u64",
    "i8",
    "i16",
    "i32",
    "i64",
    "f32",
    "f64",
    "cast_to",
    "const",
    "Int",
]
