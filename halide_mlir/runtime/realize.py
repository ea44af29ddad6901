"""``Func.realize``: bounds → payload + transform → compiled code (cached) → call on numpy memory."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..analysis import vectorize
from ..analysis.bounds import Region, infer_bounds, input_buffer
from ..analysis.pipeline import build_pipeline
from ..codegen.lowering import num_threads, parallel_runtime
from ..codegen.payload import build_payload
from ..codegen.transform import build_transform
from ..error import AutoVectorizeWarning, HalideError, InternalError
from ..lang.buffer import Buffer
from ..lang.schedule import generation
from ..lang.source import user_site
from .memory import aligned_empty
from .memref import argument_cell


@dataclass
class Stages:
    """Every stage of compilation of one pipeline at one size, as text."""
    payload: str
    transform: str

    def scheduled(self) -> str:
        from .jit import apply_schedule, new_context
        return str(apply_schedule(new_context(), self.payload, self.transform))

    def bufferized(self) -> str:
        """After bufferization and the schedule's unrolls (which run on the bufferized IR)."""
        from .jit import bufferized, new_context
        return str(bufferized(new_context(), self.payload, self.transform))

    def lowered(self) -> str:
        from ..codegen.lowering import num_threads
        from .jit import lower, new_context
        return str(lower(new_context(), self.payload, self.transform, num_threads()))

    def llvm_ir(self) -> str:
        from .tools import mlir_tool, run_tool
        return run_tool([mlir_tool("mlir-translate"), "--mlir-to-llvmir"], self.lowered())

    def assembly(self) -> str:
        """As the JIT builds it: opt -O3 first (it also lowers the async runtime's coroutines, if any), then llc.
        The triple matters: without it memcpy becomes byte loops (docs/mlir-pitfalls.md#target-triple)."""
        from .tools import llvm_tool, run_tool
        target = ["-mtriple=x86_64-unknown-linux-gnu", "-mcpu=native"]
        optimized = run_tool([llvm_tool("opt"), "-O3", "-S", *target], self.llvm_ir())
        return run_tool([llvm_tool("llc"), "-O3", *target], optimized)


def _integers(values, what: str, func) -> list[int]:
    """Sizes and mins must be Python/numpy integers (Halide's bindings refuse 4.5 or "abc" too)."""
    try:
        items = list(values)
    except TypeError:
        raise HalideError(f"{user_site()}: realize of Func '{func.name()}' takes a list of integer {what} or a "
                          f"Buffer, not {values!r}") from None
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        raise HalideError(f"{user_site()}: realize of Func '{func.name()}': {what} must be integers, got {items!r}")
    return [int(v) for v in items]


def _output_region(func, sizes, mins, allow_empty: bool = False) -> Region:
    dims = func.dimensions()
    sizes = _integers(sizes, "sizes", func)
    if len(sizes) != dims:
        raise HalideError(f"{user_site()}: Func '{func.name()}' has {dims} dimensions but realize was given "
                          f"{len(sizes)} sizes {sizes}")
    for d, s in enumerate(sizes):
        if s < 0:
            raise HalideError(f"{user_site()}: The extents for buffer Output buffer {func.name()} dimension {d} is "
                              f"negative ({s}): realize sizes {sizes} for Func '{func.name()}'")
    if not allow_empty and any(s == 0 for s in sizes):
        raise HalideError(f"{user_site()}: realize sizes must be positive, got {sizes} for Func '{func.name()}'")
    mins = [0] * dims if mins is None else _integers(mins, "mins", func)
    return Region(tuple(mins), tuple(sizes))


def stages(func, sizes, mins=None) -> Stages:
    p = build_pipeline(func)
    bounded = infer_bounds(p, _output_region(func, sizes, mins))
    return Stages(build_payload(bounded), build_transform(bounded))


_compiled: dict = {}


def _input_signature(p) -> tuple:
    sig = []
    for holder in p.inputs:
        b = input_buffer(holder)
        sig.append((b.array.shape, b.array.dtype.str, tuple(b.mins())))
    sig.extend(prm.get() for prm in p.index_params)
    return tuple(sig)


class Realization(list):
    """What realizing a Tuple-valued Func returns: one Buffer per element (``r[0]``, ``r[1]`` ...)."""


def _output_buffers(func, sizes):
    """The Buffers to realize into (given, or allocated) and the region they cover."""
    types = func.output_types() if func.defined() else None
    given = list(sizes) if isinstance(sizes, (list, tuple)) and sizes and isinstance(sizes[0], Buffer) else \
        [sizes] if isinstance(sizes, Buffer) else None
    if given is not None:
        if types is not None and len(given) != len(types):
            raise HalideError(f"{user_site()}: Func '{func.name()}' has {len(types)} Tuple elements but realize was "
                              f"given {len(given)} Buffers")
        for out, t in zip(given, types or []):
            if out.type() != t:
                raise HalideError(f"{user_site()}: Func '{func.name()}' has type {t}, but the output buffer "
                                  f"'{out.name()}' has type {out.type()}")
        first = given[0]
        for out in given[1:]:
            if out.extents() != first.extents() or out.mins() != first.mins():
                raise HalideError(f"{user_site()}: the Buffers realizing the Tuple of Func '{func.name()}' must "
                                  f"have the same shape and mins")
        return given, _output_region(func, first.extents(), first.mins(), allow_empty=True)
    if isinstance(sizes, (int, np.integer)):
        sizes = [sizes]
    region = _output_region(func, sizes, None, allow_empty=True)
    if types is None:
        raise HalideError(f"Func '{func.name()}' can't be realized: it has no definition")
    outs = []
    for k, t in enumerate(types):
        try:
            array = aligned_empty(tuple(reversed(region.extents)), t.numpy)
        except (MemoryError, ValueError) as e:
            raise HalideError(f"{user_site()}: can't allocate the output of Func '{func.name()}' with sizes "
                              f"{list(region.extents)}: {e}") from None
        out = Buffer(array, name=func.name() if len(types) == 1 else f"{func.name()}.{k}")
        out.set_min(*region.mins)
        outs.append(out)
    return outs, region


def _compile(func, bounded, arg_types):
    """Compiled code for ``bounded``. Auto-vectorization (analysis/vectorize.py) is an optimisation the user
    did not ask for: if MLIR fails on it, the Funcs the diagnostic points at (by their definition's line) are
    compiled without it, and if it names none, the whole pipeline is -- with a warning, never an error Halide
    would not raise. (Tests turn the warning into an error, so such failures are still found.)"""
    from .jit import compile_cached
    payload = build_payload(bounded)
    scalar: set = set()
    script, error = build_transform(bounded), None
    while True:
        try:
            compiled = compile_cached(payload, script, arg_types)
            break
        except InternalError as e:
            error = error or e
            culprits = {id(s.func) for s in bounded.pipeline.stages
                        for site in [s.func._definition().site, *(u.site for u in s.updates)]
                        if site is not None and (site.file, site.line) in e.locations} - scalar
            scalar |= culprits
            retry = build_transform(bounded, scalar_funcs=frozenset(scalar)) if culprits else \
                build_transform(bounded, auto_vector=False)
            if retry == script:
                raise
            script = retry
    if error is not None:
        names = [s.name for s in bounded.pipeline.stages if id(s.func) in scalar] or ["every Func"]
        warnings.warn(AutoVectorizeWarning(
            f"{user_site()}: auto-vectorization failed in the pipeline of Func '{func.name()}'; "
            f"{', '.join(names)} run{'s' if len(names) == 1 else ''} without it (schedule a vectorize() to see the "
            f"error, or set HALIDE_MLIR_AUTO_VECTORIZE=0):\n{error}"), stacklevel=3)
    return compiled


# The same realize again (same Func, definitions and schedules, sizes, input shapes, threads): what it needs,
# so a repeated call skips validation, pipeline lookup and cache-key hashing (the Python side of a small
# realize was ~25 us against Halide's ~3 us; this is most of what a call costs besides the kernel).
_repeats: dict = {}


@dataclass
class _Repeat:
    pipeline: object
    compiled: object
    settings: tuple
    signature: tuple
    shapes: list       # per output: (numpy shape, numpy dtype, Buffer name)


def _settings() -> tuple:
    threads = num_threads()
    return threads, parallel_runtime(threads), vectorize.mode()


def realize(func, sizes, *rest):
    """``f.realize([w, h])`` or ``f.realize(buffer)``; returns the output Buffer (a Realization of Buffers for a
    Tuple-valued Func)."""
    if rest:
        raise HalideError(f"{user_site()}: realize takes a list of sizes or a Buffer, e.g. f.realize([w, h])")
    repeat_key = None
    if type(sizes) in (list, tuple) and all(type(s) is int for s in sizes):
        repeat_key = (id(func), generation[0], tuple(sizes))
        r = _repeats.get(repeat_key)
        if r is not None and r.settings == _settings() and r.signature == _input_signature(r.pipeline):
            outs = [Buffer(aligned_empty(shape, dtype), name=name) for shape, dtype, name in r.shapes]
            _run(r.compiled, r.pipeline, outs)
            return outs[0] if len(outs) == 1 else Realization(outs)
    outs, region = _output_buffers(func, sizes)
    result = outs[0] if len(outs) == 1 else Realization(outs)
    p = build_pipeline(func)
    if 0 in region.extents:  # Halide realizes an empty region as an empty buffer, without running anything
        return result
    settings = _settings()
    key = (id(func), generation[0], region, _input_signature(p), *settings)
    compiled = _compiled.get(key)
    if compiled is None:
        inputs = [input_buffer(h) for h in p.inputs]
        arg_types = ["memref"] * len(inputs) + [prm.type().mlir if not prm.type().is_bool() else "i8"
                                                  for prm in p.params] + ["memref"] * len(outs)
        compiled = _compile(func, infer_bounds(p, region), arg_types)
        _compiled[key] = compiled
    _run(compiled, p, outs)
    if repeat_key is not None:
        if len(_repeats) >= 256:   # stale entries (older generations) are never looked up again
            _repeats.clear()
        _repeats[repeat_key] = _Repeat(p, compiled, settings, key[3],
                                       [(o.array.shape, o.array.dtype, o.name()) for o in outs])
    return result


def _run(compiled, p, outs) -> None:
    """Call the compiled pipeline on the inputs' and ``outs``' memory."""
    cells = []
    for h in p.inputs:
        b = input_buffer(h)
        if b.array.flags.c_contiguous:
            cells.append(argument_cell(b, b.array))
        else:
            arr = np.ascontiguousarray(b.array)
            cells.append(argument_cell(Buffer(arr), arr))
    cells += [ct(prm.get()) for ct, prm in zip(compiled.arg_ctypes[len(p.inputs):], p.params)]
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
