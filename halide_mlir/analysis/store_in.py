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
    Func computed at the root (its own generic or boundary-condition pieces) and read through slices is padded;
    the others (``_unpaddable``) keep unpadded buffers, with a StorageWarning (same values); the output's buffer
    is the caller's, as in Halide."""
    for sp in plan.stages:
        storage = sp.func.schedule().storage
        aligns = {v: a for v, (a, _) in storage.items() if a is not None}
        if not aligns or sp.func is plan.pipeline.output:
            continue
        why = _unpaddable(sp, plan)
        if why is not None:
            site = next((sp.func.schedule().sites.get(("align_storage", v)) for v in aligns), None)
            warnings.warn(
                StorageWarning(
                    f"{site}: " * (site is not None) + f"Func '{sp.func.name()}': align_storage is not applied: "
                    f"{why}; its rows stay unpadded (same values)"
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


def _unpaddable(sp, plan) -> str | None:
    """Why the buffer of ``sp`` can't be padded, or None. Vector gathers and the vector lanes of a scan address a
    buffer as dense rows (one offset along its innermost dim, MLIR's ``vector.gather``), so a Func read at
    computed coordinates, or with update definitions, keeps dense rows."""
    from ..lang.traversal import walk
    from .affine import slice_forms

    if sp.compute.kind != LevelKind.ROOT or sp.tile is not None or sp.in_tiles:
        return "it is computed at a loop or in payload tile loops (its buffer is one computation's)"
    b = plan.bounded
    if b.updates[sp.func]:
        return "it has update definitions (their vector lanes address its rows as dense)"
    for q in plan.stages:
        exprs = [*b.bodies[q.func], *(e for u in b.updates[q.func] for e in u.exprs())]
        if any(n.kind == "call" and n.value is sp.func and slice_forms(n) is None for e in exprs for n in walk(e)):
            return f"Func '{q.func.name()}' reads it at computed coordinates (a vector gather addresses dense rows)"
    return None
