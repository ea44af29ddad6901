"""``hl.Buffer``: a numpy array seen with Halide's axis order (dimension 0 is numpy's last axis)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..error import HalideError, HalideTypeError
from ..machine import too_large
from .expr import Expr
from .source import capture_site, user_site
from .types import Type, type_of_dtype

_fresh = itertools.count()
_INT_MAX = (1 << 31) - 1


def _allocate(t: Type, sizes: list[int], storage_order) -> np.ndarray:
    """Zeroed storage for ``sizes`` (dimension 0 first), laid out by ``storage_order`` (innermost dimension
    first; Halide's default is dimension 0 innermost)."""
    n = len(sizes)
    if any(s < 0 for s in sizes):
        raise HalideError(f"{user_site()}: Buffer sizes must not be negative, got {sizes}")
    order = list(range(n)) if storage_order is None else [int(d) for d in storage_order]
    if sorted(order) != list(range(n)):
        raise HalideError(f"{user_site()}: Buffer storage_order {order} is not a permutation of the {n} dimensions")
    memory = list(reversed(order))  # outermost first, as numpy's axes
    nbytes = math.prod(sizes) * np.dtype(t.numpy).itemsize
    limit = too_large(nbytes)
    if limit is not None:  # np.zeros of more than the machine has succeeds where the kernel overcommits
        raise HalideError(
            f"{user_site()}: can't allocate a Buffer of {t} with sizes {sizes}: it needs {nbytes} "
            f"bytes, more than this machine can hold ({limit} bytes)"
        )
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


_HOST_WRITES = ("fill", "write an element", "copy into")


class Buffer:
    """``hl.Buffer(buffer[, name][, reverse_axes])``, ``hl.Buffer(type, sizes[, storage_order][, name])``,
    ``hl.Buffer(other)`` (the same storage) or ``hl.Buffer()`` (undefined), positionally or by keyword as in
    Halide.

    The numpy array is kept as given (no copy); Halide coordinate (x, y, ...) is ``array[..., y, x]``
    (``reverse_axes=False``: ``array[x, y, ...]``).
    """

    def __init__(self, *args, **kwargs):
        from . import overloads as o

        form, a = o.match(
            "Buffer",
            args,
            kwargs,
            [o.Arg("buffer", o.is_buffer_like), o.Arg("name", o.is_str, ""), o.Arg("reverse_axes", o.is_bool, True)],
            [],
            [o.Arg("type", o.is_type), o.Arg("sizes", o.is_int_list), o.Arg("name", o.is_str, "")],
            [
                o.Arg("type", o.is_type),
                o.Arg("sizes", o.is_int_list),
                o.Arg("storage_order", o.is_int_list),
                o.Arg("name", o.is_str, ""),
            ],
        )
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
            self._host_written = True  # host-dirty, as Halide's Python Buffer of an array (device_buffer.py)
            if not a["reverse_axes"]:
                array = array.transpose(tuple(reversed(range(array.ndim))))
            mins = [0] * array.ndim
        else:
            array = _allocate(a["type"], [int(s) for s in a["sizes"]], a.get("storage_order"))
            mins = [0] * array.ndim
        if array is not None and any(n > _INT_MAX for n in array.shape):
            raise ValueError(
                f"Out of range dimensions in buffer conversion: extents {list(array.shape)} "
                f"(each must be at most {_INT_MAX})"
            )
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
        a = self._host("convert to a numpy array")
        if copy:
            a = a.copy()
        return a if dtype is None else a.astype(dtype)

    @property
    def array(self) -> np.ndarray:
        """The storage in numpy's axis order."""
        return self._array

    def _host(self, what: str) -> np.ndarray:
        if self._array is None:
            raise HalideError(f"{user_site()}: can't {what}: the Buffer is undefined")
        if self._no_host:
            raise HalideError(
                f"{user_site()}: can't {what}: Buffer '{self._name}' has no memory (a bounds query "
                f"Buffer, or deallocated)"
            )
        if self.__dict__.get("_dev") is not None:  # on a device too: the dirty bits (runtime/device_buffer.py)
            from ..runtime import device_buffer

            (device_buffer.host_write if what in _HOST_WRITES else device_buffer.host_read)(self)
        elif what in _HOST_WRITES:
            self._host_written = True
        return self._array

    _no_host = False  # a bounds query buffer or a deallocated one: shape only

    # --- Halide's Buffer API -------------------------------------------------------------------
    def name(self) -> str:
        return self._name

    def set_name(self, name: str) -> None:
        self._name = str(name)

    def type(self) -> Type:
        return self._type

    def dimensions(self) -> int:
        return self._array.ndim if self._array is not None else 0

    def dim(self, i: int) -> BufferDim:
        n = self.dimensions()
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

    def number_of_elements(self) -> int:
        return int(np.prod(self.extents(), dtype=np.int64)) if self._array is not None else 0

    def size_in_bytes(self) -> int:
        """The span of memory the elements cover, as Halide's ``size_in_bytes``."""
        if self._array is None or self.number_of_elements() == 0:
            return 0
        a = self._array
        lo = sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
        hi = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
        return hi - lo + a.itemsize

    def contains(self, coords) -> bool:
        coords = _int_list("contains", coords)
        if len(coords) != self.dimensions():
            raise HalideError(
                f"{user_site()}: contains: Buffer '{self._name}' has {self.dimensions()} dimensions, "
                f"got {len(coords)} coordinates"
            )
        return all(self.dim(i).min() <= c <= self.dim(i).max() for i, c in enumerate(coords))

    def same_as(self, other) -> bool:
        return other is self

    def set_min(self, *mins) -> None:
        if len(mins) == 1 and isinstance(mins[0], (list, tuple)):
            mins = tuple(mins[0])
        if len(mins) > self.dimensions():
            raise HalideError(f"{user_site()}: set_min got {len(mins)} mins for a {self.dimensions()}-D buffer")
        self._mins[: len(mins)] = [int(m) for m in mins]

    def copy(self) -> "Buffer":
        """A new Buffer with its own (dense) storage, same mins, same values."""
        b = Buffer(self._host("copy").copy())
        b._mins = list(self._mins)
        b._name = self._name
        return b

    def _view(self) -> "Buffer":
        """Another Buffer object on the same storage (what Halide's ``cropped``/``translated``... return)."""
        self._host("view")  # (a view has no device allocation of its own: the host values first)
        b = Buffer.__new__(Buffer)
        b.__dict__.update(self.__dict__)
        b._mins = list(self._mins)
        b._dev = None
        return b

    def fill(self, value) -> None:
        self._host("fill")[...] = value

    def all_equal(self, value) -> bool:
        return bool(np.all(self._host("compare") == value))

    def for_each_element(self, f) -> None:
        """Calls ``f([x, y, ...])`` for every coordinate, dimension 0 innermost."""
        ranges = [range(self.dim(i).min(), self.dim(i).max() + 1) for i in range(self.dimensions())]
        for pos in itertools.product(*reversed(ranges)):
            f(list(reversed(pos)))

    def copy_from(self, other: "Buffer") -> None:
        """Copy the values of ``other`` where the two Buffers overlap (as Halide's ``copy_from``)."""
        if not isinstance(other, Buffer):
            other = Buffer(other)
        if other.type() != self.type() or other.dimensions() != self.dimensions():
            raise HalideError(
                f"{user_site()}: copy_from: Buffer '{other.name()}' ({other.type()}, "
                f"{other.dimensions()}-D) into Buffer '{self._name}' ({self.type()}, "
                f"{self.dimensions()}-D): type and dimensions must match"
            )
        dst, src = [], []
        for i in range(self.dimensions()):
            lo = max(self.dim(i).min(), other.dim(i).min())
            hi = min(self.dim(i).max(), other.dim(i).max())
            if hi < lo:
                return
            dst.append(slice(lo - self.dim(i).min(), hi + 1 - self.dim(i).min()))
            src.append(slice(lo - other.dim(i).min(), hi + 1 - other.dim(i).min()))
        self._host("copy into")[tuple(reversed(dst))] = other._host("copy from")[tuple(reversed(src))]

    # --- views: crop, translate, transpose, slice, embed (in place; the -ed forms return a new Buffer) ------
    def crop(self, *args, **kwargs) -> None:
        """``crop(dimension, min, extent)`` or ``crop([(min, extent), ...])``."""
        from . import overloads as o

        form, a = o.match(
            "crop",
            args,
            kwargs,
            [o.Arg("dimension", o.is_int), o.Arg("min", o.is_int), o.Arg("extent", o.is_int)],
            [
                o.Arg(
                    "rect",
                    lambda v: (
                        isinstance(v, (list, tuple))
                        and all(isinstance(p, (list, tuple)) and len(p) == 2 and all(map(o.is_int, p)) for p in v)
                    ),
                )
            ],
        )
        crops = (
            [(int(a["dimension"]), int(a["min"]), int(a["extent"]))]
            if form == 0
            else [(d, int(m), int(e)) for d, (m, e) in enumerate(a["rect"])]
        )
        for d, m, e in crops:
            dim = self.dim(d)
            if m < dim.min() or m + e - 1 > dim.max() or e < 0:
                raise HalideError(
                    f"{user_site()}: can't crop dimension {d} of Buffer '{self._name}' to "
                    f"[{m}, {m + e - 1}]: it spans [{dim.min()}, {dim.max()}]"
                )
            idx = [slice(None)] * self.dimensions()
            idx[self.dimensions() - 1 - d] = slice(m - dim.min(), m - dim.min() + e)
            self._array = self._array[tuple(idx)]
            self._mins[d] = m

    def cropped(self, *args, **kwargs) -> "Buffer":
        b = self._view()
        b.crop(*args, **kwargs)
        return b

    def translate(self, *args) -> None:
        """``translate(dimension, dx)`` or ``translate([dx, dy, ...])``: shift the coordinates."""
        if len(args) == 2:
            d, dx = int(args[0]), int(args[1])
            self.dim(d)
            self._mins[d] += dx
        elif len(args) == 1:
            deltas = _int_list("translate", args[0])
            if len(deltas) > self.dimensions():
                raise HalideError(f"{user_site()}: translate: {len(deltas)} deltas for a {self.dimensions()}-D Buffer")
            for d, dx in enumerate(deltas):
                self._mins[d] += dx
        else:
            raise HalideTypeError(f"{user_site()}: translate takes (dimension, dx) or (deltas)")

    def translated(self, *args) -> "Buffer":
        b = self._view()
        b.translate(*args)
        return b

    def transpose(self, *args) -> None:
        """``transpose(d1, d2)`` swaps two dimensions; ``transpose(order)``: new dimension i is old order[i]."""
        n = self.dimensions()
        if len(args) == 2:
            order = list(range(n))
            d1, d2 = int(args[0]), int(args[1])
            self.dim(d1), self.dim(d2)
            order[d1], order[d2] = order[d2], order[d1]
        elif len(args) == 1:
            order = _int_list("transpose", args[0])
        else:
            raise HalideTypeError(f"{user_site()}: transpose takes (d1, d2) or (order)")
        if sorted(order) != list(range(n)):
            raise HalideError(f"{user_site()}: transpose: {order} is not a permutation of the {n} dimensions")
        # numpy axis j is dimension n-1-j: new axis j is old dimension order[n-1-j]
        self._array = self._array.transpose([n - 1 - order[n - 1 - j] for j in range(n)])
        self._mins = [self._mins[order[i]] for i in range(n)]

    def transposed(self, *args) -> "Buffer":
        b = self._view()
        b.transpose(*args)
        return b

    def reverse_axes(self) -> "Buffer":
        """The same storage with the dimensions in reverse order (numpy's axis order as Halide's)."""
        b = self._view()
        b.transpose(list(reversed(range(self.dimensions()))))
        return b

    def slice(self, dimension: int, pos: int | None = None) -> None:
        """Remove ``dimension``, keeping the elements at coordinate ``pos`` (its min if not given)."""
        d = int(dimension)
        dim = self.dim(d)
        pos = dim.min() if pos is None else int(pos)
        if not dim.min() <= pos <= dim.max():
            raise HalideError(
                f"{user_site()}: slice of Buffer '{self._name}' at {pos}: dimension {d} spans "
                f"[{dim.min()}, {dim.max()}]"
            )
        idx = [slice(None)] * self.dimensions()
        idx[self.dimensions() - 1 - d] = pos - dim.min()
        self._array = self._array[tuple(idx)]
        del self._mins[d]

    def sliced(self, dimension: int, pos: int | None = None) -> "Buffer":
        b = self._view()
        b.slice(dimension, pos)
        return b

    def embed(self, dimension: int, pos: int = 0) -> None:
        """Insert a new dimension of extent 1 at ``dimension``, whose one coordinate is ``pos``."""
        n, d = self.dimensions(), int(dimension)
        if not 0 <= d <= n:
            raise HalideError(f"{user_site()}: embed at dimension {d} of a {n}-D Buffer")
        a = self._array
        axis = n - d  # in the new array's axes
        stride = max([s * e for s, e in zip(a.strides, a.shape)] + [a.itemsize])  # past the last element
        shape = list(a.shape)
        strides = list(a.strides)
        shape.insert(axis, 1)
        strides.insert(axis, stride)
        self._array = np.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)
        self._mins.insert(d, int(pos))

    def embedded(self, dimension: int, pos: int = 0) -> "Buffer":
        b = self._view()
        b.embed(dimension, pos)
        return b

    def add_dimension(self) -> None:
        self.embed(self.dimensions(), 0)

    # --- memory -----------------------------------------------------------------------------------
    def allocate(self) -> None:
        if self._no_host:
            a = np.zeros(self._array.shape, self._array.dtype)
            self._array, self._no_host = a, False

    def deallocate(self) -> None:
        if self._array is not None:
            self._array = np.broadcast_to(np.zeros((), self._array.dtype), self._array.shape)
            self._no_host = True

    # Halide's device API (runtime/device_buffer.py: the dirty-bit rules; runtime/cuda.py: the CUDA driver)
    def _device_call(name):
        def call(self, *args, **kwargs):
            from ..runtime import device_buffer

            if self._array is None:
                raise HalideError(f"{user_site()}: can't {name}: the Buffer is undefined")
            return getattr(device_buffer, name)(self)

        call.__name__ = name
        return call

    copy_to_device = _device_call("copy_to_device")  # (target / device_api arguments: CUDA is the only one)
    copy_to_host = _device_call("copy_to_host")
    device_malloc = _device_call("device_malloc")
    device_sync = _device_call("device_sync")
    device_free = device_deallocate = _device_call("device_free")
    del _device_call

    def has_device_allocation(self) -> bool:
        s = self.__dict__.get("_dev")
        return bool(s and s.ptr)

    def host_dirty(self) -> bool:
        s = self.__dict__.get("_dev")
        return s.host_dirty if s is not None else self.__dict__.get("_host_written", False)

    def device_dirty(self) -> bool:
        s = self.__dict__.get("_dev")
        return bool(s and s.device_dirty)

    def set_host_dirty(self, dirty: bool = True) -> None:
        from ..runtime import device_buffer

        device_buffer.set_host_dirty(self, dirty)

    def set_device_dirty(self, dirty: bool = True) -> None:
        from ..runtime import device_buffer

        device_buffer.set_device_dirty(self, dirty)

    def device_detach_native(self, *args, **kwargs):
        raise HalideError(
            f"{user_site()}: Buffer '{self._name}': device_detach_native is not supported by "
            f"halide_mlir (its device allocations are its own)"
        )

    # --- constructors of Halide's Buffer class ---------------------------------------------------
    @staticmethod
    def make_scalar(*args, **kwargs) -> "Buffer":
        from . import overloads as o

        _, a = o.match("make_scalar", args, kwargs, [o.Arg("type", o.is_type), o.Arg("name", o.is_str, "")])
        return Buffer(a["type"], [], a["name"])

    @staticmethod
    def make_interleaved(*args, **kwargs) -> "Buffer":
        """A ``width x height x channels`` Buffer with the channels innermost in memory."""
        from . import overloads as o

        _, a = o.match(
            "make_interleaved",
            args,
            kwargs,
            [
                o.Arg("type", o.is_type),
                o.Arg("width", o.is_int),
                o.Arg("height", o.is_int),
                o.Arg("channels", o.is_int),
                o.Arg("name", o.is_str, ""),
            ],
        )
        return Buffer(a["type"], [a["width"], a["height"], a["channels"]], [2, 0, 1], a["name"])

    @staticmethod
    def make_with_shape_of(*args, **kwargs) -> "Buffer":
        """A new Buffer with the mins, extents and storage order of ``src``."""
        from . import overloads as o

        _, a = o.match(
            "make_with_shape_of",
            args,
            kwargs,
            [o.Arg("src", lambda v: isinstance(v, Buffer)), o.Arg("name", o.is_str, "")],
        )
        src = a["src"]
        n = src.dimensions()
        order = sorted(range(n), key=lambda d: (abs(src.dim(d).stride()), d))
        b = Buffer(src.type(), src.extents(), order, a["name"])
        b._mins = list(src._mins)
        return b

    @staticmethod
    def make_bounds_query(*args, **kwargs) -> "Buffer":
        """A Buffer with a shape and no memory (for ``infer_input_bounds``)."""
        from . import overloads as o

        _, a = o.match(
            "make_bounds_query",
            args,
            kwargs,
            [o.Arg("type", o.is_type), o.Arg("sizes", o.is_int_list), o.Arg("name", o.is_str, "")],
        )
        b = Buffer(a["type"], [0] * len(a["sizes"]), a["name"])
        b._array = np.broadcast_to(np.zeros((), a["type"].numpy), tuple(reversed([int(s) for s in a["sizes"]])))
        b._no_host = True
        return b

    def _set_shape(self, mins, extents) -> None:
        """A bounds query's answer: a memoryless Buffer takes the shape asked of it (infer_input_bounds)."""
        self._array = np.broadcast_to(np.zeros((), self._array.dtype), tuple(reversed([int(e) for e in extents])))
        self._mins = [int(m) for m in mins]

    # --- elements --------------------------------------------------------------------------------
    def _numpy_index(self, coords) -> tuple:
        if len(coords) != self.dimensions():
            raise HalideError(
                f"{user_site()}: Buffer '{self._name}' is {self.dimensions()}-D but was indexed "
                f"with {len(coords)} coordinates"
            )
        idx = []
        for i, c in enumerate(coords):
            d = self.dim(i)
            if not d.min() <= c <= d.max():
                raise IndexError(f"index {c} is out of bounds for axis {i} with min={d.min()}, extent={d.extent()}")
            idx.append(c - d.min())
        return tuple(reversed(idx))

    def __getitem__(self, args):
        from .func import call_args

        coords = args if isinstance(args, (tuple, list)) else (args,)
        if all(isinstance(c, (int, np.integer)) for c in coords):
            return self._host("read an element")[self._numpy_index(coords)].item()
        e = Expr("call", self._type, call_args(args, self, self.dimensions()), self)
        e.site = capture_site()
        return e

    def __setitem__(self, args, value) -> None:
        coords = args if isinstance(args, (tuple, list)) else (args,)
        if not all(isinstance(c, (int, np.integer)) for c in coords):
            raise HalideError(f"{user_site()}: Buffer elements are set with integer coordinates")
        self._host("write an element")[self._numpy_index(coords)] = value

    def __repr__(self) -> str:
        if self._array is None:
            return "<undefined halide.Buffer>"
        shape = ",".join(
            f"[{d.min()},{d.extent()},{d.stride()}]" for d in (self.dim(i) for i in range(self.dimensions()))
        )
        return f"<halide.Buffer of type {self._type} shape:[{shape}]>"

    __str__ = __repr__


def _int_list(what: str, v) -> list[int]:
    from . import overloads as o

    if not o.is_int_list(v):
        raise HalideTypeError(f"{user_site()}: {what}(): expected a list of ints, got {v!r}")
    return [int(x) for x in v]
