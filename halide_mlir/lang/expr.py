"""Halide expressions: an immutable tree of ``Expr`` nodes with Halide's typing rules.

Every node is an ``Expr(kind, type, args, value)``; the analysis and codegen passes dispatch on ``kind``.
Python operators on Exprs, Vars, Params and Func references all come through ``ExprOps``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..error import HalideError, HalideTypeError, HalideValueError
from .source import user_site
from .types import Bool, Float, Int, Type, match_types

# kinds with two operands of the same type and a result of that type
ARITH = ("add", "sub", "mul", "div", "mod", "min", "max", "and", "or", "xor")
COMPARE = ("lt", "le", "gt", "ge", "eq", "ne")
LOGICAL = ("land", "lor")
SHIFT = ("shl", "shr")
FLOAT_MATH = (
    "sqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "log",
    "floor",
    "ceil",
    "round",
    "trunc",
)


def _pow(a, b):
    """``a ** b`` is ``hl.pow(a, b)``, as in Halide's bindings."""
    from .operators import pow as pow_

    return pow_(a, b)


class ExprOps:
    """Arithmetic operator overloads shared by everything that can stand in an Expr."""

    def _e(self) -> "Expr":
        return to_expr(self)

    def __add__(self, o):
        return binary("add", self, o)

    def __radd__(self, o):
        return binary("add", o, self)

    def __sub__(self, o):
        return binary("sub", self, o)

    def __rsub__(self, o):
        return binary("sub", o, self)

    def __mul__(self, o):
        return binary("mul", self, o)

    def __rmul__(self, o):
        return binary("mul", o, self)

    def __truediv__(self, o):
        return binary("div", self, o)

    def __rtruediv__(self, o):
        return binary("div", o, self)

    def __floordiv__(self, o):
        return floordiv(self, o)

    def __rfloordiv__(self, o):
        return floordiv(o, self)

    def __mod__(self, o):
        return binary("mod", self, o)

    def __rmod__(self, o):
        return binary("mod", o, self)

    def __pow__(self, o):
        return _pow(self, o)

    def __rpow__(self, o):
        return _pow(o, self)

    def __lshift__(self, o):
        return shift("shl", self, o)

    def __rlshift__(self, o):
        return shift("shl", o, self)

    def __rshift__(self, o):
        return shift("shr", self, o)

    def __rrshift__(self, o):
        return shift("shr", o, self)

    def __and__(self, o):
        return bitwise_or_logical("and", self, o)

    def __rand__(self, o):
        return bitwise_or_logical("and", o, self)

    def __or__(self, o):
        return bitwise_or_logical("or", self, o)

    def __ror__(self, o):
        return bitwise_or_logical("or", o, self)

    def __xor__(self, o):
        return binary("xor", self, o)

    def __rxor__(self, o):
        return binary("xor", o, self)

    def __lt__(self, o):
        return binary("lt", self, o)

    def __le__(self, o):
        return binary("le", self, o)

    def __gt__(self, o):
        return binary("gt", self, o)

    def __ge__(self, o):
        return binary("ge", self, o)

    def __eq__(self, o):
        return binary("eq", self, o)  # type: ignore[override]

    def __ne__(self, o):
        return binary("ne", self, o)  # type: ignore[override]

    __hash__ = object.__hash__

    def __neg__(self):
        e = to_expr(self)
        return binary("sub", const(0, e.type), e)

    def __pos__(self):
        return to_expr(self)

    def __invert__(self):
        e = to_expr(self)
        if e.type.is_float():
            raise HalideError(f"{user_site()}: bitwise not of a floating-point value")
        return Expr("not", e.type, (e,))

    def __bool__(self):
        raise HalideValueError(
            f"{user_site()}: The halide.Expr ({to_expr(self)}) cannot be converted to a bool. If "
            f"this error occurs using the 'and'/'or' keywords, consider using the '&'/'|' "
            f"operators instead (and hl.select instead of if)."
        )

    def type(self) -> Type:
        return to_expr(self).type

    def logical_not(self) -> "Expr":
        from .functions import logical_not

        return logical_not(self)


UNDEFINED = "undefined"  # the kind of hl.Expr()
REQUIRE = "require"  # hl.require(condition, value, ...): args (value,), value the Requirement (aot/requirements.py)


class Expr(ExprOps):
    __slots__ = ("kind", "_type", "args", "value", "site", "index")

    def __init__(self, kind=UNDEFINED, type_: Type | None = None, args: tuple = (), value: Any = None):
        if kind is UNDEFINED:  # hl.Expr(): Halide's undefined Expr (e.g. "no bound" in BoundaryConditions' bounds)
            type_ = None
        elif type_ is None:  # hl.Expr(v): the user's conversion of a number, Var, Param or Func call
            e = to_expr(kind)
            kind, type_, args, value = e.kind, e.type, e.args, e.value
        self.kind = kind
        self._type = type_
        self.args = tuple(args)
        self.value = value
        self.site = None
        self.index = 0  # for calls to a Tuple-valued Func: which element

    @property
    def type(self) -> Type:  # type: ignore[override]
        return self._type  # callable: e.type() as in Halide (see Type.__call__)

    def defined(self) -> bool:
        return self.kind is not UNDEFINED

    def copy_with(self, args) -> "Expr":
        """The same node over new operands (keeps the source site and Tuple element)."""
        r = Expr(self.kind, self._type, args, self.value)
        r.site, r.index = self.site, self.index
        return r

    def __repr__(self) -> str:
        from .printer import expr_str

        return f"<halide_mlir.Expr of type {self._type}: {expr_str(self)}>"

    def __str__(self) -> str:
        from .printer import expr_str

        return expr_str(self)


def const(value, type_: Type) -> Expr:
    if type_.is_float():
        with np.errstate(over="ignore"):  # a float too large for float32 is inf, as in Halide
            value = float(np.float32(value)) if type_.bits() == 32 else float(value)
    elif type_.is_bool():
        value = bool(value)
    else:
        value = int(value)
    return Expr("const", type_, (), value)


def python_scalar(value) -> Expr:
    """A bare Python number, typed as Halide's Python bindings type it: bool, int32 (int64 if it does not fit;
    numpy integers too, whatever their dtype), float32 (with a warning where that rounds)."""
    if isinstance(value, (bool, np.bool_)):
        return const(bool(value), Bool())
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if not -(2**63) <= value < 2**63:
            raise HalideError(f"{user_site()}: the integer {value} does not fit in a 64-bit Halide Expr")
        return const(value, Int(32) if -(2**31) <= value < 2**31 else Int(64))
    if isinstance(value, (float, np.floating)):
        _warn_float32(value)
        return const(float(value), Float(32))
    raise HalideTypeError(f"{user_site()}: can't convert {value!r} ({type(value).__name__}) to a Halide Expr")


def _warn_float32(value) -> None:
    with np.errstate(over="ignore"):
        lossy = float(np.float32(value)) != float(value)
    if not isinstance(value, np.float32) and lossy and np.isfinite(value):
        warnings.warn(
            f"The floating-point value {float(value):.17g} will be interpreted as a float32 by Halide and "
            f"lose precision; add an explicit `f32()` or `f64()` cast to avoid this warning.",
            RuntimeWarning,
            stacklevel=_user_stacklevel(),
        )


def _user_stacklevel() -> int:
    """The stack level of the first frame outside this package (warnings point at the user's line)."""
    import os
    import sys
    from .source import _PACKAGE_DIR

    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def to_expr(v) -> Expr:
    if isinstance(v, Expr):
        return v
    conv = getattr(v, "_as_expr", None)
    if conv is not None:
        return conv()
    return python_scalar(v)


def is_python_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def cast(t: Type, e) -> Expr:
    e = to_expr(e)
    if e.type == t:
        return e
    if e.kind == "const":
        return const(_wrap_const(e.value, e.type, t), t)
    return Expr("cast", t, (e,))


def _wrap_const(value, src: Type, dst: Type):
    """Constant folding of a cast, with the wrap-around/truncation of the real conversion."""
    if dst.is_float():
        return float(value)
    v = int(np.trunc(value)) if src.is_float() else int(value)
    if dst.is_bool():  # Halide 21 keeps the low bit: cast<bool>(2) is false
        return bool(v & 1)
    v &= (1 << dst.bits()) - 1
    if dst.is_int() and v >= 1 << (dst.bits() - 1):
        v -= 1 << dst.bits()
    return v


def _literal_to(value, other: Type) -> Expr:
    """A Python number beside a typed Expr (Halide's operator overloads for int/float scalars)."""
    if other.is_float() and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return const(value, other)
    if isinstance(value, (float, np.floating)) and not other.is_float():
        return python_scalar(value)  # int op float: the int side becomes f32 in match_types
    if other.is_float():
        if isinstance(value, (float, np.floating)):
            _warn_float32(value)  # Halide goes through float32 even beside a float64 Expr, and says so
            return const(const(value, Float(32)).value, other)
        return const(value, other)
    if not isinstance(value, bool) and not -(2**31) <= value < 2**31:
        return python_scalar(value)  # Halide makes it an int64 Expr; the usual type matching follows
    if not other.can_represent(value):
        wrapped = _wrap_const(value, Int(64), other)
        raise HalideError(
            f"{user_site()}: Integer constant {value} will be implicitly coerced to type {other}, "
            f"which changes its value to ({other}){wrapped}."
        )
    return const(value, other)


def operands(a, b) -> tuple[Expr, Expr]:
    if is_python_number(a) and not is_python_number(b):
        b = to_expr(b)
        a = _literal_to(a, b.type)
    elif is_python_number(b) and not is_python_number(a):
        a = to_expr(a)
        b = _literal_to(b, a.type)
    else:
        a, b = to_expr(a), to_expr(b)
    t = match_types(a.type, b.type)
    return cast(t, a), cast(t, b)


def binary(kind: str, a, b) -> Expr:
    if kind == "xor":
        return bitwise_or_logical("xor", a, b)
    a, b = operands(a, b)
    t = Bool() if kind in COMPARE or kind in LOGICAL else a.type
    return Expr(kind, t, (a, b))


def floordiv(a, b) -> Expr:
    """Python's ``//``: Halide divides, then floors a float quotient."""
    q = binary("div", a, b)
    return Expr("floor", q.type, (q,)) if q.type.is_float() else q


def bitwise_or_logical(kind: str, a, b) -> Expr:
    ea, eb = (to_expr(v) if not is_python_number(v) else None for v in (a, b))
    if (
        ea is not None
        and eb is not None
        and not ea.type.is_bool()
        and not eb.type.is_bool()
        and not ea.type.is_float()
        and not eb.type.is_float()
        and ea.type._code != eb.type._code
    ):
        raise HalideError(
            f"{user_site()}: Arguments to bitwise {kind} must be both be signed or both be "
            f"unsigned. LHS type: {ea.type} RHS type: {eb.type}"
        )
    a, b = operands(a, b)
    if a.type.is_bool():
        return Expr("l" + kind if kind != "xor" else "ne", Bool(), (a, b))
    if a.type.is_float():
        raise HalideError(f"{user_site()}: bitwise {kind} of floating-point values")
    return Expr(kind, a.type, (a, b))


def shift(kind: str, a, b) -> Expr:
    if is_python_number(b) and isinstance(b, (int, np.integer)) and to_expr(a).type.is_float():
        a, b = to_expr(a), const(b, Int(32))
    elif is_python_number(b):
        a = to_expr(a)
        b = _literal_to(b, a.type)
    elif is_python_number(a):
        b = to_expr(b)
        a = _literal_to(a, b.type)
    a, b = to_expr(a), to_expr(b)
    if a.type.is_float() and b.kind == "const" and not b.type.is_float():
        # Halide: a float shifted by a constant k is multiplied (<<) or divided (>>) by 2**k
        k = b.value if kind == "shl" else -b.value
        return binary("mul", a, const(2.0**k, a.type))
    if a.type.is_float() or b.type.is_float():
        raise HalideError(f"{user_site()}: shift of a floating-point value by a non-constant amount")
    bits = max(a.type.bits(), b.type.bits())
    a, b = cast(a.type.with_bits(bits), a), cast(b.type.with_bits(bits), b)
    return Expr(kind, a.type, (a, b))
