"""``hl.Buffer``: a numpy array seen with Halide's axis order (dimension 0 is numpy's last axis)."""
from __future__ import annotations

import itertools

import numpy as np

from ..error import HalideError
from .expr import Expr
from .source import capture_site, user_site
from .types import Type, as_type, type_of_dtype

_fresh = itertools.count()


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
    """``hl.Buffer(ndarray[, name])``, ``hl.Buffer(type, sizes[, name])``.

    The numpy array is kept as given (no copy); Halide coordinate (x, y, ...) is ``array[..., y, x]``.
    """

    def __init__(self, data=None, sizes=None, name: str | None = None, reverse_axes: bool = True):
        if isinstance(sizes, str) and name is None:
            sizes, name = None, sizes
        if isinstance(data, Buffer):
            array, mins = data._array, list(data._mins)
        elif isinstance(data, Type) or (sizes is not None and not isinstance(data, np.ndarray)):
            t = as_type(data)
            shape = tuple(reversed([int(s) for s in (sizes or [])]))
            if any(s < 0 for s in shape):
                raise HalideError(f"{user_site()}: Buffer sizes must not be negative, got {list(reversed(shape))}")
            try:
                array = np.zeros(shape, dtype=t.numpy)
            except (MemoryError, ValueError) as e:
                raise HalideError(f"{user_site()}: can't allocate a Buffer of {t} with sizes "
                                  f"{list(reversed(shape))}: {e}") from None
            mins = [0] * len(shape)
        elif data is None:
            array, mins = np.zeros((), np.int32), []
        else:
            array = np.asarray(data)
            if not reverse_axes:
                array = array.transpose(tuple(reversed(range(array.ndim))))
            mins = [0] * array.ndim
        self._type = type_of_dtype(array.dtype)
        self._array = array
        self._mins = mins
        self._name = name if name is not None else f"b{next(_fresh)}"

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
