"""Halide's Buffer device API: a Buffer's device allocation and its host/device dirty bits.

Halide's rules (src/runtime/device_interface.cpp), kept here:

- ``copy_to_device``: allocates on the device if the Buffer has no allocation, then copies the host memory only
  when the host is dirty (and clears it); both dirty is an error.
- ``copy_to_host``: copies back only when the device is dirty (and clears it); both dirty is an error.
- ``set_host_dirty(True)`` with the device dirty, or ``set_device_dirty(True)`` with the host dirty, is an error:
  one side would be lost.
- A Buffer made from a numpy array starts host-dirty (Halide's Python Buffer does the same); writes through the
  Buffer (``b[x, y] = v``, ``fill``, ``copy_from``) set it. Writes through a numpy view of it can't be seen:
  call ``set_host_dirty()`` after them, as in Halide.
- A pipeline realized on the GPU copies each input with ``copy_to_device`` (so an input realized again moves no
  data unless the host changed it), leaves its outputs on the device marked device-dirty, and a realize that
  allocates its outputs copies them back, as Halide's ``Pipeline::realize`` does. Unlike Halide, a host read
  through the Buffer (``b[x, y]``, ``np.asarray(b)``) of a device-dirty Buffer copies it back first, so the host
  never reads stale values.

The device calls go through ``cuda.get_device()`` (a ``CudaDevice`` on libcuda): tests replace it with a fake
device to run these rules without a GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..error import HalideError


@dataclass
class DeviceState:
    ptr: int = 0  # the device allocation (0: none)
    nbytes: int = 0
    host_dirty: bool = False
    device_dirty: bool = False
    device: object = None  # the device that owns ``ptr``


def state(buf) -> DeviceState:
    s = buf.__dict__.get("_dev")
    if s is None:
        s = buf._dev = DeviceState(host_dirty=buf.__dict__.get("_host_written", False))
    return s


def _device():
    from . import cuda

    return cuda.get_device()


def _name(buf) -> str:
    return f"Buffer '{buf.name()}'"


def device_malloc(buf) -> int:
    s = state(buf)
    if not s.ptr:
        dev = _device()
        nbytes = int(buf.array.size) * buf.array.itemsize
        s.ptr, s.nbytes, s.device = dev.malloc(nbytes), nbytes, dev
    return 0


def copy_to_device(buf) -> int:
    s = state(buf)
    device_malloc(buf)
    if s.host_dirty:
        if s.device_dirty:
            raise HalideError(
                f"copy_to_device: {_name(buf)} is dirty on both the host and the device "
                f"(halide_error_code_copy_to_device_failed)"
            )
        s.device.copy_to_device(s.ptr, np.ascontiguousarray(buf.array))
        s.host_dirty = False
    return 0


def copy_to_host(buf) -> int:
    s = state(buf)
    if s.device_dirty:
        if s.host_dirty:
            raise HalideError(
                f"copy_to_host: {_name(buf)} is dirty on both the host and the device "
                f"(halide_error_code_copy_to_host_failed)"
            )
        a = buf.array
        out = a if a.flags.c_contiguous else np.empty(a.shape, a.dtype)
        s.device.copy_to_host(out, s.ptr)
        if out is not a:
            a[...] = out
        s.device_dirty = False
    return 0


def device_sync(buf) -> int:
    s = state(buf)
    if s.device is not None:
        s.device.synchronize()
    return 0


def device_free(buf) -> int:
    """Frees the allocation; a device-dirty Buffer's device values are lost (as in Halide)."""
    s = state(buf)
    if s.ptr:
        s.device.free(s.ptr)
    s.ptr, s.nbytes, s.device, s.device_dirty = 0, 0, None, False
    return 0


def set_host_dirty(buf, dirty: bool = True) -> None:
    s = state(buf)
    if dirty and s.device_dirty:
        raise HalideError(
            f"set_host_dirty: {_name(buf)} is dirty on the device; call copy_to_host() before writing on the host"
        )
    s.host_dirty = bool(dirty)


def set_device_dirty(buf, dirty: bool = True) -> None:
    s = state(buf)
    if dirty and s.host_dirty:
        raise HalideError(f"set_device_dirty: {_name(buf)} is dirty on the host; call copy_to_device() first")
    s.device_dirty = bool(dirty)


def host_read(buf) -> None:
    """Before the host reads the Buffer's memory: bring the device's values back if they are newer."""
    s = buf.__dict__.get("_dev")
    if s is not None and s.device_dirty:
        copy_to_host(buf)


def host_write(buf) -> None:
    """Before the host writes the Buffer's memory through the Buffer: it becomes host-dirty."""
    host_read(buf)
    state(buf).host_dirty = True
