"""Calling an extern stage's C function with Halide's C ABI (lang/extern.py): each buffer argument a
``halide_buffer_t *`` (HalideRuntime.h's layout), scalars as their C types, the outputs last, an ``int`` result.

The symbol is looked up in the process (what ``ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)`` loaded, as Halide's
JIT resolves externs).
"""

from __future__ import annotations

import ctypes

from ..error import HalideError


class HalideDimension(ctypes.Structure):
    _fields_ = [
        ("min", ctypes.c_int32),
        ("extent", ctypes.c_int32),
        ("stride", ctypes.c_int32),
        ("flags", ctypes.c_uint32),
    ]


class HalideType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class HalideBuffer(ctypes.Structure):
    _fields_ = [
        ("device", ctypes.c_uint64),
        ("device_interface", ctypes.c_void_p),
        ("host", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("type", HalideType),
        ("dimensions", ctypes.c_int32),
        ("dim", ctypes.POINTER(HalideDimension)),
        ("padding", ctypes.c_void_p),
    ]


def _type_of(t) -> HalideType:
    return HalideType(int(t.code()), t.bits(), 1)  # (bool: uint, 1 bit, as Halide's)


def make_buffer(t, mins, extents, strides=None, host=None) -> HalideBuffer:
    """A halide_buffer_t of type ``t`` (a bounds query's when ``host`` is None: null host, zero strides unless
    given). Its dims array is kept alive by the returned struct."""
    n = len(mins)
    dims = (HalideDimension * max(n, 1))()
    for d in range(n):
        dims[d].min, dims[d].extent = int(mins[d]), int(extents[d])
        dims[d].stride = int(strides[d]) if strides is not None else 0
    b = HalideBuffer(0, None, host, 0, _type_of(t), n, ctypes.cast(dims, ctypes.POINTER(HalideDimension)), None)
    b._dims_keepalive = dims
    return b


def buffer_of(buf) -> HalideBuffer:
    """A halide_buffer_t viewing hl.Buffer ``buf`` in place (host: the element at its mins)."""
    dims = [buf.dim(i) for i in range(buf.dimensions())]
    arr = buf.array
    return make_buffer(
        buf.type(),
        [d.min() for d in dims],
        [d.extent() for d in dims],
        [d.stride() for d in dims],
        host=arr.ctypes.data if arr.size else _EMPTY_HOST,
    )


_EMPTY = ctypes.create_string_buffer(16)  # the host of an empty buffer: not null (null means a bounds query)
_EMPTY_HOST = ctypes.addressof(_EMPTY)

_C_SCALARS = {
    ("int", 8): ctypes.c_int8,
    ("int", 16): ctypes.c_int16,
    ("int", 32): ctypes.c_int32,
    ("int", 64): ctypes.c_int64,
    ("uint", 8): ctypes.c_uint8,
    ("uint", 16): ctypes.c_uint16,
    ("uint", 32): ctypes.c_uint32,
    ("uint", 64): ctypes.c_uint64,
    ("float", 32): ctypes.c_float,
    ("float", 64): ctypes.c_double,
}


def c_scalar(t, value):
    """``value`` as the C argument of Halide type ``t``."""
    if t.is_bool():
        return ctypes.c_bool(bool(value))
    kind = "float" if t.is_float() else "uint" if t.is_uint() else "int"
    ctype = _C_SCALARS.get((kind, t.bits()))
    if ctype is None:
        raise HalideError(f"an extern stage's scalar argument of type {t} has no C type halide_mlir passes")
    return ctype(float(value) if t.is_float() else int(value))


def symbol(name: str, func_name: str, site):
    """The C function ``name`` loaded in this process."""
    try:
        fn = getattr(ctypes.CDLL(None), name)
    except AttributeError:
        raise HalideError(
            f"{site}: the extern stage of Func '{func_name}' calls '{name}', which is not loaded in this process "
            f"(load its library first: ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL))"
        ) from None
    fn.restype = ctypes.c_int32
    return fn


def call(fn, name: str, args: list) -> None:
    """Call ``fn`` with ``args`` (HalideBuffer structs by reference, ctypes scalars); Halide's error if it fails."""
    c_args = [ctypes.byref(a) if isinstance(a, HalideBuffer) else a for a in args]
    rc = fn(*c_args)
    if rc != 0:
        raise HalideError(f"Error: Call to external stage {name} returned non-zero value: {rc}")
