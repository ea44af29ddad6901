"""Halide's scalar types (``hl.UInt(8)``, ``hl.f32`` ...) and their numpy / MLIR spellings."""

from __future__ import annotations

import enum

import numpy as np

from ..error import HalideError, HalideTypeError


class TypeCode(enum.IntEnum):
    """Halide's ``hl.TypeCode`` (halide_type_code_t)."""

    Int = 0
    UInt = 1
    Float = 2
    Handle = 3


# internal spelling of each code (the rest of the package compares these strings)
_CODE_NAME = {TypeCode.Int: "int", TypeCode.UInt: "uint", TypeCode.Float: "float", TypeCode.Handle: "handle"}
_NAME_CODE = {v: k for k, v in _CODE_NAME.items()}


class Type:
    """``hl.Type(code, bits, lanes)`` or ``hl.Type()`` (Halide's default: handle, 0 bits, 0 lanes).

    Only scalars (lanes == 1) can be the type of an Expr here; vector types exist as values (``hl.Int(32, 8)``)
    for code that asks about them, as in Halide. ``bfloat`` is bfloat16."""

    __slots__ = ("_code", "_bits", "_lanes")

    def __init__(self, *args, **kwargs):
        if not args and not kwargs:
            code, bits, lanes = "handle", 0, 0
        else:
            from . import overloads as o

            _, a = o.match(
                "Type",
                args,
                kwargs,
                [
                    o.Arg(
                        "code",
                        lambda v: (
                            isinstance(v, (TypeCode, str)) and (v in _CODE_NAME or v in _NAME_CODE or v == "bfloat")
                        ),
                    ),
                    o.Arg("bits", o.is_int),
                    o.Arg("lanes", o.is_int, 1),
                ],
            )
            code = a["code"] if isinstance(a["code"], str) else _CODE_NAME[a["code"]]
            bits, lanes = int(a["bits"]), int(a["lanes"])
            if bits < 0 or lanes < 0:
                raise HalideError(f"Type({code}, {bits}, {lanes}): bits and lanes must not be negative")
        object.__setattr__(self, "_code", code)
        object.__setattr__(self, "_bits", bits)
        object.__setattr__(self, "_lanes", lanes)

    def __setattr__(self, name, value):
        raise AttributeError("hl.Type is immutable")

    def __eq__(self, other) -> bool:
        if not isinstance(other, Type):
            return NotImplemented
        return (self._code, self._bits, self._lanes) == (other._code, other._bits, other._lanes)

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash((self._code, self._bits, self._lanes))

    def __reduce__(self):
        return (_make_type, (self._code, self._bits, self._lanes))

    def __call__(self) -> "Type":
        """``e.type()`` is a method in Halide; ``Expr.type`` returns a Type that returns itself when called,
        so both ``e.type()`` (users) and ``e.type.bits()`` (this package, throughout) read the type."""
        return self

    # Halide's Python Type API: t.bits(), t.bytes(), t.lanes() are methods
    def code(self) -> TypeCode:
        if self._code == "bfloat":
            raise HalideError("bfloat16 has no hl.TypeCode in Halide's Python bindings")
        return _NAME_CODE[self._code]

    def bits(self) -> int:
        return self._bits

    def bytes(self) -> int:
        return (self._bits + 7) // 8

    def lanes(self) -> int:
        return self._lanes

    def is_scalar(self) -> bool:
        return self._lanes == 1

    def is_vector(self) -> bool:
        return self._lanes != 1

    def is_float(self) -> bool:
        return self._code in ("float", "bfloat")

    def is_bfloat(self) -> bool:
        return self._code == "bfloat"

    def is_int(self) -> bool:
        return self._code == "int"

    def is_uint(self) -> bool:
        return self._code == "uint"

    def is_handle(self) -> bool:
        return self._code == "handle"

    def is_bool(self) -> bool:
        return self._code == "uint" and self._bits == 1

    def is_signed(self) -> bool:
        return self._code in ("int", "float", "bfloat")

    def with_bits(self, bits: int) -> "Type":
        return _make_type(self._code, int(bits), self._lanes)

    def with_lanes(self, lanes: int) -> "Type":
        return _make_type(self._code, self._bits, int(lanes))

    def with_code(self, code) -> "Type":
        return _make_type(code if isinstance(code, str) else _CODE_NAME[TypeCode(code)], self._bits, self._lanes)

    def element_of(self) -> "Type":
        return self.with_lanes(1)

    def same_handle_type(self, other: "Type") -> bool:
        """Halide compares the handles' C++ types; Python handles carry none, so two handles are the same."""
        return self.is_handle() and isinstance(other, Type) and other.is_handle() and self._bits == other._bits

    @property
    def mlir(self) -> str:
        """MLIR is signless: signedness lives in the ops, not in the type."""
        self._check_scalar_value_type()
        if self._code == "bfloat":
            return "bf16"
        return f"f{self.bits()}" if self.is_float() else f"i{self.bits()}"

    @property
    def numpy(self) -> np.dtype:
        self._check_scalar_value_type()
        if self.is_bool():
            return np.dtype(np.bool_)
        if self._code == "bfloat":
            raise HalideError("bfloat16 has no numpy dtype")
        return np.dtype({"int": "i", "uint": "u", "float": "f"}[self._code] + str(self.bits() // 8))

    def _check_scalar_value_type(self) -> None:
        if self.is_handle():
            raise HalideError(f"{self}: halide_mlir has no values of handle type (pointers to host objects)")
        if self._lanes != 1:
            raise HalideError(
                f"{self}: vector types are chosen by the schedule here (vectorize); an Expr's type is a scalar"
            )

    def min_value(self):
        if self.is_float():
            return -np.inf
        return 0 if self._code == "uint" else -(1 << (self.bits() - 1))

    def max_value(self):
        if self.is_float():
            return np.inf
        return (1 << self.bits()) - 1 if self._code == "uint" else (1 << (self.bits() - 1)) - 1

    def max(self):
        """Halide's Type.max(): an Expr, the largest value (+inf for floats)."""
        from .expr import const

        return const(self.max_value(), self.element_of())

    def min(self):
        """Halide's Type.min(): an Expr, the smallest value (-inf for floats)."""
        from .expr import const

        return const(self.min_value(), self.element_of())

    def max_finite(self):
        """The largest finite value (FLT_MAX for floats): the identity Halide's reductions start from."""
        return float(np.finfo(self.numpy).max) if self.is_float() else self.max_value()

    def min_finite(self):
        return float(np.finfo(self.numpy).min) if self.is_float() else self.min_value()

    def is_max(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise HalideTypeError(f"is_max(): incompatible function arguments: {value!r} is not an integer")
        return not self.is_float() and int(value) == self.max_value()

    def is_min(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise HalideTypeError(f"is_min(): incompatible function arguments: {value!r} is not an integer")
        return not self.is_float() and int(value) == self.min_value()

    def can_represent(self, value) -> bool:
        """Halide's ``can_represent(Type)`` (every value of the other type fits); a number is also accepted
        (internally: does this constant fit)."""
        if isinstance(value, Type):
            return self._can_represent_type(value)
        if self.is_float():
            return True
        return float(value).is_integer() and self.min_value() <= value <= self.max_value()

    def _can_represent_type(self, o: "Type") -> bool:
        if self._lanes != o._lanes:
            return False
        if self._code == o._code and self._bits >= o._bits:
            return True
        if self.is_float() and not self.is_bfloat():
            if o.is_float():
                return self._bits >= o._bits and not o.is_bfloat() or (o.is_bfloat() and self._bits > 16)
            if o.is_int() or o.is_uint():
                mantissa = {16: 11, 32: 24, 64: 53}.get(self._bits, 0)
                return o._bits <= mantissa
            return False
        if self.is_int() and o.is_uint():
            return self._bits > o._bits
        if self.is_uint() and o.is_bool():
            return True
        if self.is_int() and o.is_bool():
            return True
        return False

    def __repr__(self) -> str:
        return f"<halide.Type {self}>"

    def __str__(self) -> str:
        if self.is_bool():
            base = "bool"
        else:
            base = f"{self._code}{self._bits}"
        return base if self._lanes == 1 else f"{base}x{self._lanes}"


def _make_type(code: str, bits: int, lanes: int) -> Type:
    t = Type.__new__(Type)
    object.__setattr__(t, "_code", code)
    object.__setattr__(t, "_bits", bits)
    object.__setattr__(t, "_lanes", lanes)
    return t


def UInt(bits: int, lanes: int = 1) -> Type:
    return _make_type("uint", int(bits), int(lanes))


def Int(bits: int, lanes: int = 1) -> Type:
    return _make_type("int", int(bits), int(lanes))


def Float(bits: int, lanes: int = 1) -> Type:
    return _make_type("float", int(bits), int(lanes))


def BFloat(bits: int = 16, lanes: int = 1) -> Type:
    return _make_type("bfloat", int(bits), int(lanes))


def Bool(lanes: int = 1) -> Type:
    return _make_type("uint", 1, int(lanes))


def Handle(bits: int = 64, lanes: int = 1) -> Type:
    return _make_type("handle", int(bits), int(lanes))


def type_of_dtype(dtype) -> Type:
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise HalideError(f"{dtype!r} is not a Halide type (use hl.Int(32), hl.UInt(8), hl.Float(32), ...)") from None
    if dtype == np.bool_:
        return Bool()
    code = {"i": "int", "u": "uint", "f": "float"}.get(dtype.kind)
    if code is None:
        raise HalideError(f"numpy dtype {dtype} has no Halide type")
    return _make_type(code, dtype.itemsize * 8, 1)


def as_type(t) -> Type:
    """Accepts a Type, or the numpy dtype / dtype name a user might pass."""
    if isinstance(t, Type):
        return t
    return type_of_dtype(t)


def match_types(a: Type, b: Type) -> Type:
    """The common type of a binary op's operands, by Halide's ``match_types`` rules."""
    if a == b:
        return a
    if a.is_float() or b.is_float():
        if a.is_float() and b.is_float():
            return a if a.bits() >= b.bits() else b
        return a if a.is_float() else b
    if a._code == b._code:
        return a if a.bits() >= b.bits() else b
    if a.is_bool():
        return b
    if b.is_bool():
        return a
    return Int(max(a.bits(), b.bits()))
