"""Halide's GPU scheduling methods on Func and Stage: ``gpu_tile``, ``gpu_blocks``, ``gpu_threads``, ``gpu``,
``gpu_single_thread``, and ``store_in`` with Halide's MemoryType. They are recorded as directives (splits, a
reorder, and GPU_BLOCKS / GPU_THREADS / GPU_SINGLE); analysis/gpu.py turns them into kernels. Which block or thread
index a loop gets follows its nesting, as in Halide: the innermost block loop is block x."""

from __future__ import annotations

import enum

from ..error import HalideError
from .schedule import DirectiveKind, TailStrategy, touch
from .source import user_site

_DEVICE_APIS = ("Default_GPU", "CUDA")


class MemoryType(enum.Enum):
    """Halide's MemoryType: where a Func's storage lives (``store_in``). The GPU backend honors GPUShared (a
    producer computed at a block loop), Register and Stack (at a thread loop) and Heap (a compute_root kernel's
    buffer); the CPU path honors only Auto (analysis/gpu.py says what is refused where)."""

    Auto = 0
    Heap = 1
    Stack = 2
    Register = 3
    GPUShared = 4
    GPUTexture = 5
    LockedCache = 6
    VTCM = 7
    AMXTile = 8


def memory_type(func) -> MemoryType:
    return getattr(func, "_memory_type", MemoryType.Auto)


def _check_api(func, device_api) -> None:
    if device_api is None:
        return
    name = getattr(device_api, "name", str(device_api))
    if name not in _DEVICE_APIS:
        raise HalideError(
            f"{user_site()}: Func '{func.name()}': halide_mlir's GPU backend is CUDA; DeviceAPI.{name} is not supported"
        )


def _split_tail(rest: list):
    """The optional trailing (tail, device_api) of gpu_tile."""
    tail = api = None
    for a in rest:
        if isinstance(a, TailStrategy):
            tail = a
        elif a is not None:
            api = a
    return tail, api


class GpuScheduleMixin:
    def gpu_blocks(self, *vars_, device_api=None):
        vars_, api = _strip_api(vars_, device_api)
        _check_api(self, api)
        if not 1 <= len(vars_) <= 3:
            raise HalideError(f"{user_site()}: gpu_blocks takes one to three Vars")
        return self._directive(DirectiveKind.GPU_BLOCKS, *[_name(v) for v in vars_])

    def gpu_threads(self, *vars_, device_api=None):
        vars_, api = _strip_api(vars_, device_api)
        _check_api(self, api)
        if not 1 <= len(vars_) <= 3:
            raise HalideError(f"{user_site()}: gpu_threads takes one to three Vars")
        return self._directive(DirectiveKind.GPU_THREADS, *[_name(v) for v in vars_])

    def gpu(self, *args, device_api=None):
        """``gpu(bx, tx)``, ``gpu(bx, by, tx, ty)``, ``gpu(bx, by, bz, tx, ty, tz)``: blocks, then threads."""
        args, api = _strip_api(args, device_api)
        if len(args) not in (2, 4, 6):
            raise HalideError(f"{user_site()}: gpu takes the block Vars then the thread Vars (2, 4 or 6 Vars)")
        n = len(args) // 2
        return self.gpu_blocks(*args[:n], device_api=api).gpu_threads(*args[n:], device_api=api)

    def gpu_single_thread(self, device_api=None):
        _check_api(self, device_api)
        return self._directive(DirectiveKind.GPU_SINGLE)

    def store_in(self, memory_type):
        if not isinstance(memory_type, MemoryType):
            raise HalideError(
                f"{user_site()}: store_in of Func '{self.name()}' takes a hl.MemoryType, got {memory_type!r}"
            )
        self._memory_type = memory_type
        touch()
        return self

    def gpu_lanes(self, var, device_api=None):
        raise HalideError(
            f"{user_site()}: Func '{self.name()}': gpu_lanes is not supported yet by halide_mlir's GPU backend"
        )

    def gpu_tile(self, *args, tail=None, device_api=None):
        """Halide's six forms: ``gpu_tile(x, [bx,] tx, xs)``, ``gpu_tile(x, y, [bx, by,] tx, ty, xs, ys)``,
        ``gpu_tile(x, y, z, [bx, by, bz,] tx, ty, tz, xs, ys, zs)``, each with an optional TailStrategy and
        DeviceAPI."""
        args = list(args)
        more_tail, more_api = _split_tail([a for a in args if isinstance(a, TailStrategy) or _is_api(a)])
        args = [a for a in args if not (isinstance(a, TailStrategy) or _is_api(a))]
        tail, api = tail or more_tail, device_api or more_api
        _check_api(self, api)
        first = next((i for i, a in enumerate(args) if _is_int(a)), len(args))
        names, sizes = args[:first], args[first:]
        n = len(sizes)
        if n not in (1, 2, 3) or len(names) not in (2 * n, 3 * n) or not all(_is_int(a) for a in sizes):
            raise HalideError(
                f"{user_site()}: gpu_tile takes (x, [bx,] tx, x_size), (x, y, [bx, by,] tx, ty, "
                f"x_size, y_size) or the same in three dimensions, then an optional TailStrategy"
            )
        dims = names[:n]
        if len(names) == 3 * n:
            blocks, threads = names[n : 2 * n], names[2 * n :]
        else:  # gpu_tile(x, tx, xs): the block loop keeps x's name, as Halide does
            blocks, threads = dims, names[n:]
        for d, b, t, s in zip(dims, blocks, threads, sizes):
            self.split(d, b, t, int(s), tail)
        # threads innermost, then blocks (Halide's gpu_tile reorders the same way)
        self.reorder(*threads, *blocks)
        return self.gpu_blocks(*blocks).gpu_threads(*threads)


def _is_int(a) -> bool:
    import numpy as np

    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, enum.Enum))  # (DeviceAPI is an IntEnum)


def _is_api(a) -> bool:
    return type(a).__name__ == "DeviceAPI"


def _strip_api(args, device_api):
    args = list(args)
    if args and _is_api(args[-1]):
        device_api = device_api or args.pop()
    return args, device_api


def _name(v) -> str:
    from .func import _var_name

    return _var_name(v)
