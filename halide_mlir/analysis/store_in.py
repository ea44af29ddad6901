"""Where a Func's buffer lives and how big it is: ``store_in(MemoryType)`` on CPU stages and ``align_storage``.

``store_in(MemoryType)`` on CPU stages: where a Func's buffer lives, as Halide's CodeGen_CPU places it.

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

import warnings

from ..error import StorageWarning
from ..lang.gpu_schedule import MemoryType, memory_type
from ..lang.schedule import LevelKind

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


# --- align_storage ---------------------------------------------------------------------------------------------


def plan_aligned_storage(plan) -> None:
    """``align_storage(v, n)``: as Halide's StorageFlattening, the buffer's extent along v is the stored extent
    rounded up to a multiple of n (the min stays; the strides of the outer dims follow), so ``StagePlan.storage``
    gets the padded extents; the payload allocates them and computes into the leading part. The buffer of a
    Func computed at the root (its own generic or boundary-condition pieces) is padded; a Func computed at a
    consumer's loop (whose buffer the transform script's fusion or the payload's tile loops make per
    computation) or whose own payload loops compute producers (a tile plan's carried tensor) keeps an unpadded
    buffer, with a StorageWarning (same values); the output's buffer is the caller's, as in Halide."""
    for sp in plan.stages:
        storage = sp.func.schedule().storage
        aligns = {v: a for v, (a, _) in storage.items() if a is not None}
        if not aligns or sp.func is plan.pipeline.output:
            continue
        if sp.compute.kind != LevelKind.ROOT or sp.tile is not None or sp.in_tiles:
            site = next((sp.func.schedule().sites.get(("align_storage", v)) for v in aligns), None)
            warnings.warn(
                StorageWarning(
                    f"{site}: " * (site is not None) + f"Func '{sp.func.name()}': align_storage is not applied "
                    f"to a Func computed at a loop or in payload tile loops (its buffer is one computation's, made by "
                    f"the fusion); its rows stay unpadded (same values). It is applied to a Func computed at the root "
                    f"as one whole"
                ),
                stacklevel=2,
            )
            continue
        extents = list(sp.region.extents)
        for d, v in enumerate(sp.stage.vars):
            a = aligns.get(v)
            if a is not None:
                extents[d] = -(-extents[d] // a) * a
        if tuple(extents) != tuple(sp.region.extents):
            sp.storage = tuple(extents)
