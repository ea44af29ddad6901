"""``hl.Buffer``: a numpy array seen with Halide's axis order (dimension 0 is numpy's last axis)."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..error import HalideError
from ..machine import too_large
from .expr import Expr
from .source import capture_site, user_site
from .types import Type, type_of_dtype

_fresh = itertools.count()


def _allocate(t: Type, sizes: list[int], storage_order) -> np.ndarray:
    """Zeroed storage for ``sizes`` (dimension 0 first), laid out by ``storage_order`` (innermost dimension
    first; Halide's default is dimension 0 innermost)."""
    n = len(sizes)
    if any(s < 0 for s in sizes):
        raise HalideError(f"{user_site()}: Buffer sizes must not be negative, got {sizes}")
    order = list(range(n)) if storage_order is None else [int(d) for d in storage_order]
    if sorted(order) != list(range(n)):
        raise HalideError(f"{user_site()}: Buffer storage_order {order} is not a permutation of the "
                          f"{n} dimensions")
    memory = list(reversed(order))  # outermost first, as numpy's axes
    nbytes = math.prod(sizes) * np.dtype(t.numpy).itemsize
    limit = too_large(nbytes)
    if limit is not None:   # np.zeros of more than the machine has succeeds where the kernel overcommits
        raise HalideError(f"{user_site()}: can't allocate a Buffer of {t} with sizes {sizes}: it needs {nbytes} "
                          f"bytes, more than this machine can hold ({limit} bytes)")
    try:
        array = np.zeros([sizes[d] for d in memory], dtype=t.numpy)
    except (MemoryError, ValueError) as e:
        raise HalideError(f"{user_site()}: can't allocate a Buffer of {t} with sizes {sizes}: {e}") from None
    # numpy axis j is Halide dimension n - 1 - j
    return array.transpose([memory.index(n - 1 - j) for j in range(n)])


class BufferDim:
    def __init__(self, min_: int, extent: int, stride: int):
        self._min, self._extent, self._stride = min_, extent, stride

    def min(self) -> int:
        return self._min

    def extent(self) -> int:
        return self._extent

    def max(self) -> int:
        return self._min + self._extent - 1

    def stride(self) -> int:
        return self._stride


class Buffer:
    """``hl.Buffer(buffer[, name][, reverse_axes])``, ``hl.Buffer(type, sizes[, storage_order][, name])``,
    ``hl.Buffer(other)`` (the same storage) or ``hl.Buffer()`` (undefined), positionally or by keyword as in
    Halide.

    The numpy array is kept as given (no copy); Halide coordinate (x, y, ...) is ``array[..., y, x]``
    (``reverse_axes=False``: ``array[x, y, ...]``).
    """

    def __init__(self, *args, **kwargs):
        from . import overloads as o
        form, a = o.match("Buffer", args, kwargs,
                          [o.Arg("buffer", o.is_buffer_like), o.Arg("name", o.is_str, ""),
                           o.Arg("reverse_axes", o.is_bool, True)],
                          [],
                          [o.Arg("type", o.is_type), o.Arg("sizes", o.is_int_list), o.Arg("name", o.is_str, "")],
                          [o.Arg("type", o.is_type), o.Arg("sizes", o.is_int_list),
                           o.Arg("storage_order", o.is_int_list), o.Arg("name", o.is_str, "")])
        name = a.get("name") or None
        if form == 1:  # undefined, as Halide's Buffer(); defined() is False
            array, mins = None, []
        elif form == 0 and isinstance(a["buffer"], Buffer):
            if a["buffer"]._array is None:
                array, mins = None, []
            else:
                array, mins = a["buffer"]._array, list(a["buffer"]._mins)
            if not a["reverse_axes"] and array is not None:
                array, mins = array.transpose(), list(reversed(mins))
            name = name or (a["buffer"]._name if not args[1:] and "name" not in kwargs else None)
        elif form == 0:
            array = np.asarray(a["buffer"])
            if not a["reverse_axes"]:
                array = array.transpose(tuple(reversed(range(array.ndim))))
            mins = [0] * array.ndim
        else:
            array = _allocate(a["type"], [int(s) for s in a["sizes"]], a.get("storage_order"))
            mins = [0] * array.ndim
        self._type = type_of_dtype(array.dtype) if array is not None else None
        self._array = array
        self._mins = mins
        self._name = name if name is not None else f"b{next(_fresh)}"

    @classmethod
    def _wrap(cls, array: np.ndarray, type_: Type, name: str, mins: list) -> "Buffer":
        """A Buffer of ``array`` without the constructor's overload matching (a realize's output, built on
        every call: the matching cost ~5 us)."""
        b = cls.__new__(cls)
        b._type, b._array, b._mins, b._name = type_, array, mins, name
        return b

    def defined(self) -> bool:
        return self._array is not None

    # --- numpy interop -------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        return self._array if dtype is None else self._array.astype(dtype)

    @property
    def array(self) -> np.ndarray:
        """The storage in numpy's axis order."""
        return self._array

    # --- Halide's Buffer API -------------------------------------------------------------------
    def name(self) -> str:
        return self._name

    def type(self) -> Type:
        return self._type

    def dimensions(self) -> int:
        return self._array.ndim

    def dim(self, i: int) -> BufferDim:
        n = self._array.ndim
        if not 0 <= i < n:
            raise HalideError(f"{user_site()}: Buffer '{self._name}' has {n} dimensions; there is no dimension {i}")
        axis = n - 1 - i
        return BufferDim(self._mins[i], self._array.shape[axis], self._array.strides[axis] // self._array.itemsize)

    def width(self) -> int:
        return self.dim(0).extent() if self.dimensions() > 0 else 1

    def height(self) -> int:
        return self.dim(1).extent() if self.dimensions() > 1 else 1

    def channels(self) -> int:
        return self.dim(2).extent() if self.dimensions() > 2 else 1

    def left(self) -> int:
        return self.dim(0).min()

    def right(self) -> int:
        return self.dim(0).max()

    def top(self) -> int:
        return self.dim(1).min()

    def bottom(self) -> int:
        return self.dim(1).max()

    def min(self, i: int) -> int:
        return self.dim(i).min()

    def extent(self, i: int) -> int:
        return self.dim(i).extent()

    def mins(self) -> list[int]:
        return list(self._mins)

    def extents(self) -> list[int]:
        return [self.dim(i).extent() for i in range(self.dimensions())]

    def set_min(self, *mins) -> None:
        if len(mins) == 1 and isinstance(mins[0], (list, tuple)):
            mins = tuple(mins[0])
        if len(mins) > self.dimensions():
            raise HalideError(f"{user_site()}: set_min got {len(mins)} mins for a {self.dimensions()}-D buffer")
        self._mins[:len(mins)] = [int(m) for m in mins]

    def copy(self) -> "Buffer":
        b = Buffer(self._array.copy())
        b._mins = list(self._mins)
        return b

    def fill(self, value) -> None:
        self._array[...] = value

    def _numpy_index(self, coords) -> tuple:
        if len(coords) != self.dimensions():
            raise HalideError(f"{user_site()}: Buffer '{self._name}' is {self.dimensions()}-D but was indexed "
                              f"with {len(coords)} coordinates")
        idx = []
        for i, c in enumerate(coords):
            d = self.dim(i)
            if not d.min() <= c <= d.max():
                raise HalideError(f"{user_site()}: coordinate {c} is outside [{d.min()}, {d.max()}] in dimension "
                                  f"{i} of Buffer '{self._name}'")
            idx.append(c - d.min())
        return tuple(reversed(idx))

    def __getitem__(self, args):
        from .func import call_args
        coords = args if isinstance(args, (tuple, list)) else (args,)
        if all(isinstance(c, (int, np.integer)) for c in coords):
            return self._array[self._numpy_index(coords)].item()
        e = Expr("call", self._type, call_args(args, self, self.dimensions()), self)
        e.site = capture_site()
        return e

    def __setitem__(self, args, value) -> None:
        coords = args if isinstance(args, (tuple, list)) else (args,)
        if not all(isinstance(c, (int, np.integer)) for c in coords):
            raise HalideError(f"{user_site()}: Buffer elements are set with integer coordinates")
        self._array[self._numpy_index(coords)] = value

    def __repr__(self) -> str:
        return f"<halide_mlir.Buffer '{self._name}' {self._type} {self.extents()}>"
