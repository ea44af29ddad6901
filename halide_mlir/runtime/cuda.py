"""Running the CUDA backend's PTX: the CUDA driver API through ctypes (libcuda.so.1, which the NVIDIA driver installs).

The driver JIT-compiles the PTX text (no CUDA toolkit, no ptxas). A ``GpuProgram`` (codegen/gpu.py builds it) is
the PTX, the kernels in launch order with their grid and block sizes, and what each kernel parameter is: a buffer
(an input, an output, or a compute_root intermediate the pipeline allocates on the device), or a constant. One
realize copies the host-dirty inputs to the device, launches the kernels in order on one stream and leaves the
outputs there (runtime/device_buffer.py: Halide's dirty-bit rules).

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
    kernel: str  # the .entry name in the PTX
    grid: tuple  # blocks (x, y, z)
    block: tuple  # threads per block (x, y, z)
    params: tuple  # of Param


class CudaDevice:
    """The device calls the runtime makes (runtime/device_buffer.py, GpuProgram.run), on libcuda. Tests replace
    ``get_device`` with a fake of the same methods to run the dirty-bit rules without a GPU."""

    def __init__(self):
        self.lib = _context()

    def capability(self) -> int:
        return device_capability()

    def malloc(self, nbytes: int) -> int:
        ptr = ctypes.c_uint64()
        _check(self.lib, self.lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1))), "cuMemAlloc")
        return ptr.value

    def free(self, ptr: int) -> None:
        _check(self.lib, self.lib.cuMemFree_v2(ctypes.c_uint64(ptr)), "cuMemFree")

    def copy_to_device(self, ptr: int, host: np.ndarray) -> None:
        _check(
            self.lib,
            self.lib.cuMemcpyHtoD_v2(
                ctypes.c_uint64(ptr), host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(host.nbytes)
            ),
            "cuMemcpyHtoD",
        )

    def copy_to_host(self, host: np.ndarray, ptr: int) -> None:
        _check(
            self.lib,
            self.lib.cuMemcpyDtoH_v2(
                host.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(ptr), ctypes.c_size_t(host.nbytes)
            ),
            "cuMemcpyDtoH",
        )

    def synchronize(self) -> None:
        _check(self.lib, self.lib.cuCtxSynchronize(), "cuCtxSynchronize")

    def load(self, ptx: list, kernels: list) -> dict:
        """Each PTX module loaded (the driver JIT-compiles it); kernel name -> CUfunction."""
        modules, functions = [], {}
        for text in ptx:
            module = ctypes.c_void_p()
            _check(
                self.lib,
                self.lib.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(text.encode() + b"\0")),
                "cuModuleLoadData",
            )
            modules.append((text, module))
        for name in kernels:
            module = next(m for text, m in modules if f".entry {name}(" in text)
            fn = ctypes.c_void_p()
            _check(
                self.lib, self.lib.cuModuleGetFunction(ctypes.byref(fn), module, name.encode()), "cuModuleGetFunction"
            )
            functions[name] = fn
        return functions

    def launch(self, function, name: str, grid: tuple, block: tuple, params: list) -> None:
        """``params``: (ctype name, value) per kernel parameter; buffers are ("ptr", device pointer). Launched on
        the default stream: the kernels of one pipeline run in order, without host synchronization between them."""
        cells = [ctypes.c_uint64(v) if t == "ptr" else _scalar(t, v) for t, v in params]
        argv = (ctypes.c_void_p * max(len(cells), 1))(*[ctypes.addressof(c) for c in cells])
        _check(
            self.lib, self.lib.cuLaunchKernel(function, *grid, *block, 0, None, argv, None), f"cuLaunchKernel ({name})"
        )


def get_device():
    """The CUDA device (device 0's primary context), or Halide's error without one."""
    with _lock:
        dev = _state.get("cuda_device")
    if dev is None:
        dev = CudaDevice()
        with _lock:
            dev = _state.setdefault("cuda_device", dev)
    return dev


@dataclass
class GpuProgram:
    ptx: list  # PTX text, one module per kernel
    launches: list  # of Launch, in order
    temps: list = field(default_factory=list)  # bytes of each intermediate device buffer
    outputs: tuple = ()  # the args the pipeline writes
    _loaded: dict = field(default_factory=dict)  # device -> (kernel name -> function), per process
    _temps: dict = field(default_factory=dict)  # device -> the intermediates' allocations, kept across runs

    def run(self, args: list, copy_back: bool) -> None:
        """``args``: the pipeline's arguments in the payload's order: Buffers for inputs and outputs, Python
        scalars for Params. Halide's dirty-bit rules (runtime/device_buffer.py): each input is copied only when
        host-dirty, the outputs are left on the device, device-dirty; ``copy_back`` (a realize that allocated
        its outputs) copies them to the host, as Halide's Pipeline::realize does."""
        from . import device_buffer as db

        dev = get_device()
        with _lock:
            functions = self._loaded.get(id(dev))
            if functions is None:
                functions = self._loaded[id(dev)] = dev.load(self.ptx, [launch.kernel for launch in self.launches])
            temps = self._temps.get(id(dev))
            if temps is None:
                temps = self._temps[id(dev)] = [dev.malloc(n) for n in self.temps]
        ptrs = {}
        for i, a in enumerate(args):
            if isinstance(a, (int, float, bool, np.generic)):
                continue
            if i in self.outputs:
                db.device_malloc(a)  # written whole by the pipeline: nothing to copy in
                db.state(a).host_dirty = False
            else:
                db.copy_to_device(a)
            ptrs[i] = db.state(a).ptr
        for launch in self.launches:
            params = []
            for p in launch.params:
                if p.kind == "arg":
                    params.append(("ptr", ptrs[p.index]) if p.index in ptrs else (p.ctype, args[p.index]))
                elif p.kind == "temp":
                    params.append(("ptr", temps[p.index]))
                else:
                    params.append((p.ctype, p.value))
            dev.launch(functions[launch.kernel], launch.kernel, launch.grid, launch.block, params)
        for i in self.outputs:
            db.state(args[i]).device_dirty = True
            if copy_back:
                db.copy_to_host(args[i])


_CTYPES = {
    "i1": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "index": ctypes.c_int64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}


def _scalar(ctype: str, value):
    return _CTYPES[ctype](value)
