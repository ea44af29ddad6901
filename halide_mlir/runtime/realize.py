"""The run side of ``Func.realize``: the output region and Buffers, the input signature compiled code is
specialized to, and the call into compiled code on numpy memory (driver.py compiles)."""

from __future__ import annotations

import math

import numpy as np

from ..analysis.bounds import Region, input_buffer
from ..analysis.specialize import path_of as specialization_path
from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.source import user_site
from ..lang.traversal import walk
from ..machine import too_large
from .memory import aligned_empty
from .memref import argument_cell


def _integers(values, what: str, func) -> list[int]:
    """Sizes and mins must be Python/numpy integers (Halide's bindings refuse 4.5 or "abc" too)."""
    try:
        items = list(values)
    except TypeError:
        raise HalideError(
            f"{user_site()}: realize of Func '{func.name()}' takes a list of integer {what} or a Buffer, not {values!r}"
        ) from None
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        raise HalideError(f"{user_site()}: realize of Func '{func.name()}': {what} must be integers, got {items!r}")
    return [int(v) for v in items]


def output_region(func, sizes, mins, allow_empty: bool = False) -> Region:
    dims = func.dimensions()
    sizes = _integers(sizes, "sizes", func)
    if len(sizes) != dims:
        raise HalideError(
            f"{user_site()}: Func '{func.name()}' has {dims} dimensions but realize was given "
            f"{len(sizes)} sizes {sizes}"
        )
    for d, s in enumerate(sizes):
        if s < 0:
            raise HalideError(
                f"{user_site()}: The extents for buffer Output buffer {func.name()} dimension {d} is "
                f"negative ({s}): realize sizes {sizes} for Func '{func.name()}'"
            )
    if not allow_empty and any(s == 0 for s in sizes):
        raise HalideError(f"{user_site()}: realize sizes must be positive, got {sizes} for Func '{func.name()}'")
    mins = [0] * dims if mins is None else _integers(mins, "mins", func)
    return Region(tuple(mins), tuple(sizes))


def _dims_read(p) -> tuple[bool, list]:
    """Does the pipeline read a buffer's ``dim(i).stride()`` (then the strides, compiled in, are in the key), and
    the ImageParams whose sizes it reads without reading them (``f[x] = im.width()``: not in ``p.inputs``)."""
    hit = p.__dict__.get("_dims_read")
    if hit is None:
        from ..lang.param import ImageParam

        nodes = [n for s in p.stages for e in s.exprs() for n in walk(e) if n.kind == "buffer_dim"]
        others = []
        for n in nodes:
            h = n.value[0]
            if isinstance(h, ImageParam) and not any(h is i for i in (*p.inputs, *others)):
                others.append(h)
        hit = p._dims_read = (any(n.value[2] == "stride" for n in nodes), others)
    return hit


def reads_strides(p) -> bool:
    return _dims_read(p)[0]


def dims_read_elsewhere(p) -> bool:
    """Strides, or sizes of ImageParams not among the inputs: what a CallPlan (runtime/call.py) doesn't check."""
    strides, others = _dims_read(p)
    return strides or bool(others)


def input_signature(p) -> tuple:
    sig = []
    strides, others = _dims_read(p)
    for holder in (*p.inputs, *others):
        b = input_buffer(holder)
        sig.append((b.array.shape, b.array.dtype.str, tuple(b.mins()), b.array.strides if strides else None))
    sig.extend(prm.get() for prm in p.index_params)
    sig.append(specialization_path(p.specializations))  # the specialize() versions the values choose
    return tuple(sig)


class Realization(list):
    """What realizing a Tuple-valued Func returns: one Buffer per element (``r[0]``, ``r[1]`` ...)."""


def output_buffers(func, sizes):
    """The Buffers to realize into (given, or allocated) and the region they cover."""
    types = func.output_types() if func.defined() else None
    given = (
        list(sizes)
        if isinstance(sizes, (list, tuple)) and sizes and isinstance(sizes[0], Buffer)
        else [sizes]
        if isinstance(sizes, Buffer)
        else None
    )
    if given is not None:
        if types is not None and len(given) != len(types):
            raise HalideError(
                f"{user_site()}: Func '{func.name()}' has {len(types)} Tuple elements but realize was "
                f"given {len(given)} Buffers"
            )
        for out, t in zip(given, types or []):
            if out.type() != t:
                raise HalideError(
                    f"{user_site()}: Error: Output buffer {func.name()} has type {t} but type of the "
                    f"buffer passed in is {out.type()}"
                )
        first = given[0]
        for out in given[1:]:
            if out.extents() != first.extents() or out.mins() != first.mins():
                raise HalideError(
                    f"{user_site()}: the Buffers realizing the Tuple of Func '{func.name()}' must "
                    f"have the same shape and mins"
                )
        return given, output_region(func, first.extents(), first.mins(), allow_empty=True)
    if isinstance(sizes, (int, np.integer)):
        sizes = [sizes]
    region = output_region(func, sizes, None, allow_empty=True)
    if types is None:
        raise HalideError(f"Func '{func.name()}' can't be realized: it has no definition")
    nbytes = math.prod(region.extents) * sum(np.dtype(t.numpy).itemsize for t in types)
    limit = too_large(nbytes)
    if limit is not None:  # before any allocation: where the kernel overcommits, numpy's would succeed
        raise HalideError(
            f"{user_site()}: the output of Func '{func.name()}' with sizes {list(region.extents)} "
            f"needs {nbytes} bytes, more than this machine can hold ({limit} bytes)"
        )
    outs = []
    for k, t in enumerate(types):
        try:
            array = aligned_empty(tuple(reversed(region.extents)), t.numpy)
        except (MemoryError, ValueError) as e:
            raise HalideError(
                f"{user_site()}: can't allocate the output of Func '{func.name()}' with sizes "
                f"{list(region.extents)}: {e}"
            ) from None
        out = Buffer(array, name=func.name() if len(types) == 1 else f"{func.name()}.{k}")
        out.set_min(*region.mins)
        outs.append(out)
    return outs, region


def run(compiled, p, outs) -> None:
    """Call the compiled pipeline on the inputs' and ``outs``' memory."""
    cells = []
    for h in p.inputs:
        b = input_buffer(h)
        if b.array.flags.c_contiguous:
            cells.append(argument_cell(b, b.array))
        else:
            arr = np.ascontiguousarray(b.array)
            cells.append(argument_cell(Buffer(arr), arr))
    cells += [ct(prm.get()) for ct, prm in zip(compiled.arg_ctypes[len(p.inputs) :], p.params)]
    copies = []
    for out in outs:
        if out.array.flags.c_contiguous:
            cells.append(argument_cell(out, out.array))
        else:
            target = Buffer(np.empty(out.array.shape, out.array.dtype))
            copies.append((out, target))
            cells.append(argument_cell(target, target.array))
    compiled.call(cells)
    for out, target in copies:
        out.array[...] = target.array
