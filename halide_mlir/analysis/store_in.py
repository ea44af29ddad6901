"""``store_in(MemoryType)`` on CPU stages: where a Func's buffer lives, as Halide's CodeGen_CPU places it.

Halide 21 on a CPU target: ``Heap`` is a ``halide_malloc``/``halide_free`` pair whatever the size; ``Stack`` an
alloca when the size has a constant bound of at most 16 KiB, else its pseudostack (a heap buffer reused
across iterations); ``Register`` an alloca of any constant size (a size with no constant bound is an error);
``Auto`` the stack for small constant sizes, else the heap. Here every allocation has a static shape (a pipeline
is compiled per region), and ``Auto`` keeps codegen/lowering.py's rule (the stack up to STACK_LIMIT). The
choice travels in the payload's locations: each op of a tagged Func carries the name location
``"hl.store_in.<Type>"`` around its source line, which bufferization passes on to the ``memref.alloc`` of its
buffer; codegen/store_in.py places those allocations after the stack promotion.
"""

from __future__ import annotations

from ..lang.gpu_schedule import MemoryType, memory_type

# the memory types the CPU path places (the others are refused by analysis/gpu.py check_cpu_storage)
CPU_TYPES = (MemoryType.Heap, MemoryType.Stack, MemoryType.Register)
TAG = "hl.store_in."


def cpu_memory_types(pipeline) -> dict:
    """{Func: MemoryType} of the stages whose buffer placement the CPU lowering must honor (none on GPU
    pipelines: their kernels place memory themselves, docs/gpu.md)."""
    from .gpu import uses_gpu

    if uses_gpu(pipeline):
        return {}
    return {s.func: memory_type(s.func) for s in pipeline.stages if memory_type(s.func) in CPU_TYPES}


def tagged_loc(loc: str, mt: MemoryType | None) -> str:
    """``loc("f.py":3:0)`` → ``loc("hl.store_in.Heap"("f.py":3:0))``."""
    if mt is None:
        return loc
    inner = loc[len("loc(") : -1]
    return f'loc("{TAG}{mt.name}")' if inner == "unknown" else f'loc("{TAG}{mt.name}"({inner}))'
