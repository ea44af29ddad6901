"""Running the CUDA backend's PTX: the CUDA driver API through ctypes (libcuda.so.1, which the NVIDIA driver installs).

The driver JIT-compiles the PTX text (no CUDA toolkit, no ptxas). A ``GpuProgram`` (codegen/gpu.py builds it) is
the PTX, the kernels in launch order with their grid and block sizes, and what each kernel parameter is: a buffer
(an input, an output, or a compute_root intermediate the pipeline allocates on the device), or a constant. One
realize copies the inputs to the device, launches the kernels in order on one stream, and copies the outputs back.

No device here means Halide's errors: ``CUDA API not found: cuInit`` when libcuda does not load, a CUDA error
naming the failing call otherwise. This module was written against the driver API's documented signatures; it has not
run on a GPU in this repository's CI (docs/gpu.md says what was and was not checked).
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass, field

import numpy as np

from ..error import HalideError

_lock = threading.Lock()
_state: dict = {}


def _load():
    """libcuda, or None when the driver is not installed."""
    if "lib" not in _state:
        lib = None
        for name in ("libcuda.so.1", "libcuda.so"):
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        _state["lib"] = lib
    return _state["lib"]


def _error_name(lib, code: int) -> str:
    name = ctypes.c_char_p()
    if lib.cuGetErrorName(code, ctypes.byref(name)) == 0 and name.value:
        return name.value.decode()
    return f"CUDA error {code}"


def _check(lib, code: int, call: str) -> None:
    if code != 0:
        raise HalideError(f"CUDA error: {_error_name(lib, code)} {call} failed")


def driver():
    """libcuda, initialized, or Halide's error."""
    lib = _load()
    if lib is None:
        raise HalideError("CUDA API not found: cuInit")
    with _lock:
        if not _state.get("initialized"):
            _check(lib, lib.cuInit(0), "cuInit")
            _state["initialized"] = True
    return lib


def device_count() -> int:
    """CUDA devices this process can use (0 without a driver or a device): host_supports_target_device."""
    lib = _load()
    if lib is None or lib.cuInit(0) != 0:
        return 0
    n = ctypes.c_int(0)
    return n.value if lib.cuDeviceGetCount(ctypes.byref(n)) == 0 else 0


def _context():
    """The primary context of device 0, current on this thread."""
    lib = driver()
    with _lock:
        ctx = _state.get("context")
        if ctx is None:
            dev = ctypes.c_int()
            _check(lib, lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
            ctx = ctypes.c_void_p()
            _check(lib, lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
            _state["context"], _state["device"] = ctx, dev
    _check(lib, lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    return lib


def device_capability() -> int:
    """The device's compute capability as NN (90 on an H100)."""
    lib = _context()
    major, minor = ctypes.c_int(), ctypes.c_int()
    dev = _state["device"]
    _check(lib, lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev), "cuDeviceGetAttribute")  # ..._MAJOR
    _check(lib, lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev), "cuDeviceGetAttribute")  # ..._MINOR
    return major.value * 10 + minor.value


# --- what codegen/gpu.py hands over --------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    """One kernel parameter: ``kind`` "arg" (the pipeline's argument ``index``: inputs, Params, outputs, in the
    payload's order), "temp" (intermediate buffer ``index``), or "const" (``value`` of ctype ``ctype``)."""
    kind: str
    index: int = 0
    value: object = None
    ctype: str = "i64"


@dataclass(frozen=True)
class Launch:
    kernel: str              # the .entry name in the PTX
    grid: tuple              # blocks (x, y, z)
    block: tuple             # threads per block (x, y, z)
    params: tuple            # of Param


@dataclass
class GpuProgram:
    ptx: list                                      # PTX text, one module per kernel
    launches: list                                 # of Launch, in order
    temps: list = field(default_factory=list)      # bytes of each intermediate device buffer
    outputs: tuple = ()                            # the args copied back to the host
    _module: object = None                         # the loaded CUmodule (per process)
    _functions: dict = field(default_factory=dict)

    def load(self):
        lib = _context()
        with _lock:
            if self._module is None:
                modules = []
                for text in self.ptx:
                    module = ctypes.c_void_p()
                    data = ctypes.c_char_p(text.encode() + b"\0")
                    _check(lib, lib.cuModuleLoadData(ctypes.byref(module), data), "cuModuleLoadData")
                    modules.append((text, module))
                for launch in self.launches:
                    module = next(m for text, m in modules if f".entry {launch.kernel}(" in text)
                    fn = ctypes.c_void_p()
                    _check(lib, lib.cuModuleGetFunction(ctypes.byref(fn), module, launch.kernel.encode()),
                           "cuModuleGetFunction")
                    self._functions[launch.kernel] = fn
                self._module = modules
        return lib

    def run(self, args: list) -> None:
        """``args``: the pipeline's arguments in the payload's order, numpy arrays for buffers (outputs are
        written) and Python scalars for Params."""
        lib = self.load()
        device: dict = {}
        allocated = []

        def alloc(nbytes: int) -> ctypes.c_uint64:
            ptr = ctypes.c_uint64()
            _check(lib, lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1))), "cuMemAlloc")
            allocated.append(ptr)
            return ptr

        try:
            for i, a in enumerate(args):
                if isinstance(a, np.ndarray):
                    host = np.ascontiguousarray(a)
                    ptr = alloc(host.nbytes)
                    _check(lib, lib.cuMemcpyHtoD_v2(ptr, host.ctypes.data_as(ctypes.c_void_p),
                                                    ctypes.c_size_t(host.nbytes)), "cuMemcpyHtoD")
                    device[i] = ptr
            temps = [alloc(n) for n in self.temps]
            for launch in self.launches:
                cells = []
                for p in launch.params:
                    if p.kind == "arg":
                        a = args[p.index]
                        cells.append(device[p.index] if isinstance(a, np.ndarray) else _scalar(p.ctype, a))
                    elif p.kind == "temp":
                        cells.append(temps[p.index])
                    else:
                        cells.append(_scalar(p.ctype, p.value))
                argv = (ctypes.c_void_p * max(len(cells), 1))(*[ctypes.addressof(c) for c in cells])
                gx, gy, gz = launch.grid
                tx, ty, tz = launch.block
                _check(lib, lib.cuLaunchKernel(self._functions[launch.kernel], gx, gy, gz, tx, ty, tz, 0, None,
                                               argv, None), f"cuLaunchKernel ({launch.kernel})")
            for i, a in enumerate(args):
                if i in self.outputs:
                    out = a if a.flags.c_contiguous else np.empty_like(a, order="C")
                    _check(lib, lib.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p), device[i],
                                                    ctypes.c_size_t(out.nbytes)), "cuMemcpyDtoH")
                    if out is not a:
                        a[...] = out
        finally:
            for ptr in allocated:
                lib.cuMemFree_v2(ptr)


_CTYPES = {"i1": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
           "i64": ctypes.c_int64, "index": ctypes.c_int64, "f32": ctypes.c_float, "f64": ctypes.c_double}


def _scalar(ctype: str, value):
    return _CTYPES[ctype](value)
