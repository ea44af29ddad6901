"""numpy arrays as MLIR memref descriptors (no copies), and the ctypes signature of the entry point."""

from __future__ import annotations

import ctypes
import weakref

import numpy as np

_descriptor_types: dict[int, type] = {}


def descriptor_type(rank: int) -> type:
    t = _descriptor_types.get(rank)
    if t is None:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64)]
        if rank:
            fields += [("shape", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
        t = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})
        _descriptor_types[rank] = t
    return t


def descriptor(array: np.ndarray):
    """A descriptor for a C-contiguous array; it borrows the array's memory."""
    d = descriptor_type(array.ndim)()
    ptr = array.ctypes.data
    d.allocated = ptr
    d.aligned = ptr
    d.offset = 0
    if array.ndim:
        d.shape[:] = array.shape
        d.strides[:] = [s // array.itemsize for s in array.strides]
    return d


_SCALARS = {
    "i1": ctypes.c_int8,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}


def scalar_ctype(mlir_type: str):
    return _SCALARS[mlir_type]


# What a Buffer passes to compiled code: a cell holding the address of its array's descriptor. A Buffer keeps
# its array for life, so both are made once per Buffer (building them cost ~5 us of each realize); weak
# keys, so a cell goes with its Buffer. Read-only once made: concurrent calls may share it.
_cells: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def argument_cell(buffer, array: np.ndarray):
    """The ``void*`` cell for ``buffer`` whose storage is the C-contiguous ``array``."""
    hit = _cells.get(buffer)
    if hit is not None and hit[0] is array:
        return hit[2]
    d = descriptor(array)
    cell = ctypes.c_void_p(ctypes.addressof(d))
    cell.descriptor, cell.array = d, array  # the cell keeps what it points to, whatever becomes of the entry
    _cells[buffer] = (array, d, cell)
    return cell
