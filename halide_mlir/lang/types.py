"""Halide's scalar types (``hl.UInt(8)``, ``hl.f32`` ...) and their numpy / MLIR spellings."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..error import HalideError


@dataclass(frozen=True)
class Type:
    code: str  # "int", "uint" or "float"; bool is uint with 1 bit, as in Halide
    _bits: int

    def __call__(self) -> "Type":
        """``e.type()`` is a method in Halide; ``Expr.type`` returns a Type that returns itself when called,
        so both ``e.type()`` (users) and ``e.type.bits()`` (this package, throughout) read the type."""
        return self

    # Halide's Python Type API: t.bits(), t.bytes(), t.lanes() are methods
    def bits(self) -> int:
        return self._bits

    def bytes(self) -> int:
        return (self._bits + 7) // 8

    def lanes(self) -> int:
        return 1

    def is_scalar(self) -> bool:
        return True

    def is_float(self) -> bool:
        return self.code == "float"

    def is_int(self) -> bool:
        return self.code == "int"

    def is_uint(self) -> bool:
        return self.code == "uint"

    def is_bool(self) -> bool:
        return self.code == "uint" and self.bits() == 1

    def is_signed(self) -> bool:
        return self.code != "uint"

    def with_bits(self, bits: int) -> "Type":
        return Type(self.code, bits)

    @property
    def mlir(self) -> str:
        """MLIR is signless: signedness lives in the ops, not in the type."""
        return f"f{self.bits()}" if self.is_float() else f"i{self.bits()}"

    @property
    def numpy(self) -> np.dtype:
        if self.is_bool():
            return np.dtype(np.bool_)
        return np.dtype({"int": "i", "uint": "u", "float": "f"}[self.code] + str(self.bits() // 8))

    def min_value(self):
        if self.is_float():
            return -np.inf
        return 0 if self.code == "uint" else -(1 << (self.bits() - 1))

    def max_value(self):
        if self.is_float():
            return np.inf
        return (1 << self.bits()) - 1 if self.code == "uint" else (1 << (self.bits() - 1)) - 1

    def max(self):
        """Halide's Type.max(): the largest finite value (FLT_MAX for floats, not inf)."""
        return float(np.finfo(self.numpy).max) if self.is_float() else self.max_value()

    def min(self):
        return float(np.finfo(self.numpy).min) if self.is_float() else self.min_value()

    def can_represent(self, value) -> bool:
        if self.is_float():
            return True
        return float(value).is_integer() and self.min_value() <= value <= self.max_value()

    def __repr__(self) -> str:
        return "bool" if self.is_bool() else f"{self.code}{self.bits()}"

    # Halide's Python Type API
    def is_vector(self) -> bool:
        return False

    def with_code(self, code) -> "Type":
        return Type(code, self.bits())


def UInt(bits: int) -> Type:
    return Type("uint", bits)


def Int(bits: int) -> Type:
    return Type("int", bits)


def Float(bits: int) -> Type:
    return Type("float", bits)


def Bool(bits: int = 1) -> Type:
    return Type("uint", 1)


def type_of_dtype(dtype) -> Type:
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise HalideError(f"{dtype!r} is not a Halide type (use hl.Int(32), hl.UInt(8), hl.Float(32), ...)") from None
    if dtype == np.bool_:
        return Bool()
    code = {"i": "int", "u": "uint", "f": "float"}.get(dtype.kind)
    if code is None or (code == "float" and dtype.itemsize == 2):
        raise HalideError(f"numpy dtype {dtype} has no Halide type")
    return Type(code, dtype.itemsize * 8)


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
    if a.code == b.code:
        return a if a.bits() >= b.bits() else b
    if a.is_bool():
        return b
    if b.is_bool():
        return a
    return Int(max(a.bits(), b.bits()))
