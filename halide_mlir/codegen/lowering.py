"""Bufferize the scheduled payload and lower it to the LLVM dialect (docs/mlir-pitfalls.md#lowering-pass-order).

Parallel loops (``scf.forall`` from ``parallel()``) run on LLVM's OpenMP runtime (libomp, from the cmeel-libomp
wheel; runtime/openmp.py loads it): scf-forall-to-parallel + convert-scf-to-openmp make one ``omp.parallel``
with ``num_threads(HL_NUM_THREADS)`` around an ``omp.wsloop`` (static schedule: one contiguous block of
iterations per thread), and the translation to LLVM IR outlines the region into a function each thread runs.
A fork/join costs under 1 us with libomp's spinning workers, against ~30 us per parallel loop for MLIR's async
runtime (coroutines, a task per block, a blocking wait on a group), which made 2 threads slower than 1 on small
outputs. The async runtime stays available with ``HALIDE_MLIR_PARALLEL_RUNTIME=async`` (e.g. if another OpenMP
runtime in the process refuses a second one); ``async-parallel-for`` must then be told to split even short loops
(min-task-size=1) or a 768-iteration forall becomes one serial block.
"""

from __future__ import annotations


from ..settings import parallel_runtime

# eliminate-empty-tensors lets the output stage write straight into the caller's buffer (no temp + copy);
# the schedule's unrolls (codegen/transform.py UNROLL_SEQUENCE) run between BUFFERIZE and AFTER_BUFFERIZE;
# cse first: the unrolled copies repeat the same subviews, merged they are fewer ops to canonicalize
# (conv_layer: 34 -> 20 ms)
BUFFERIZE = "eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries=false}"
AFTER_BUFFERIZE = "cse,canonicalize,cse"

SERIAL = "scf-forall-to-for"
PARALLEL = {
    "openmp": "scf-forall-to-parallel,convert-scf-to-openmp{num-threads=%(threads)d}",
    "async": ",".join(
        [
            "scf-forall-to-parallel",
            "async-parallel-for{async-dispatch=true num-workers=%(workers)d min-task-size=1}",
            "async-to-async-runtime",
            "async-runtime-ref-counting",
            "async-runtime-ref-counting-opt",
            "convert-async-to-llvm",
        ]
    ),
}


# Temporaries (a compute_at producer's tile) must not cost a malloc/free per tile (issue 6), must not be shared
# between parallel tasks (a race), and must not grow the stack per loop iteration. Three steps:
#  1. buffer-loop-hoisting moves allocations out of serial loops only: it stops at scf.forall (checked), so a
#     tile buffer ends at the top of its parallel iteration (or of the function when nothing is parallel).
#  2. promote-buffers-to-stack turns the small ones (static shape, <= STACK_LIMIT bytes) into memref.alloca;
#     bigger ones stay on the heap.
#  3. once the parallel loops are lowered, hoist_static_allocas() moves every static alloca to the entry block
#     of its frame: with OpenMP the ``omp.parallel`` region (outlined into a function each thread runs once), so
#     one stack slot per thread; with the async runtime the outlined body async-parallel-for calls per task.
#     The slot is reused across that thread's (task's) iterations (an alloca left inside a loop would grow the
#     stack every iteration); heap buffers (alloc + dealloc in one block) leave the serial loops and the
#     ``omp.wsloop``: one malloc per thread (per task). Stack use is then bounded by the schedule (STACK_LIMIT
#     per buffer), not by the image size.
# Checked by test/python/test_no_heap_in_loops.py (CFG analysis of the lowered IR) and lit lowered_tile_on_stack.
STACK_LIMIT = 64 * 1024

HOIST = ",".join(
    [
        "func.func(buffer-loop-hoisting)",
        "func.func(promote-buffers-to-stack{max-alloc-size-in-bytes=%d max-rank-of-allocated-memref=16})" % STACK_LIMIT,
    ]
)


# full-unroll: an n-D transfer (vector<1x1x1x16xf32> from a 4-D tile) becomes 1-D transfers in straight-line
# code; the default lowers it through a stack buffer and an scf.for per leading dim (trip count 1 here), which
# LLVM then has to promote and delete. Same machine code (checked per benchmark), conv_layer's lowered module
# is half the size: -70 ms of MLIR lowering, -90 ms of LLVM.
VECTOR_TO_SCF = "convert-vector-to-scf{full-unroll=true}"


# Frees the heap allocations that are left (not moved to the stack). Without any, it changes nothing (same machine
# code, checked per benchmark) but costs a walk of every op: conv_layer 13 ms.
DEALLOCATE = "buffer-deallocation-pipeline"


def lowering_passes(threads: int) -> tuple[str, str, str]:
    """The pipeline in three parts: allocations hoisted, the rest down to loops (DEALLOCATE first when
    ``heap_allocations``), to the LLVM dialect; ``hoist_static_allocas`` runs between the last two."""
    runtime = parallel_runtime(threads)
    # serially, the foralls become plain loops first, so allocations are hoisted out of them too
    loops_first, loops_later = (
        ([SERIAL], [])
        if runtime == "serial"
        else ([], [PARALLEL[runtime] % {"threads": threads, "workers": 4 * threads}])
    )
    hoist = ",".join(loops_first + [HOIST])
    loops = ",".join(
        [
            "convert-linalg-to-loops",
        ]
        + loops_later
        + [
            # a vectorized RVar under atomic() leaves vector.multi_reduction, which convert-vector-to-llvm does not
            # lower (a no-op for every other kernel)
            "func.func(lower-vector-multi-reduction)",
            VECTOR_TO_SCF,
            "loop-invariant-code-motion",
        ]
    )
    after = ",".join(
        [
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
        ]
        + (["convert-openmp-to-llvm"] if runtime == "openmp" else [])
        + [
            "reconcile-unrealized-casts",
        ]
    )
    return hoist, loops, after


def to_llvm(threads: int) -> str:
    """The whole pipeline as one string (for display and cache keys); see lowering_passes, keep_masked_store_values,
    compile_body_once and codegen/math_approx.py (the steps that are ours, not MLIR passes)."""
    hoist, loops, after = lowering_passes(threads)
    return (
        f"approximate-math,{hoist},store-in-placement,{DEALLOCATE}-if-heap-allocations,{loops},hoist-static-allocas,{after},"
        "keep-masked-store-values,compile-body-once"
    )


# what buffer-deallocation-pipeline would free (or expand: memref.realloc)
_HEAP = frozenset(("memref.alloc", "memref.realloc", "bufferization.clone", "bufferization.alloc_tensor"))


def heap_allocations(module) -> bool:
    """Whether any op of the module allocates on the heap."""
    from mlir import ir

    found = []

    def visit(op):
        if op.name in _HEAP:
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return bool(found)


def hoist_static_allocas(module) -> int:
    """Per function: move every ``memref.alloca`` without operands (static shape) to the start of the entry
    block of its frame (the function, or the ``omp.parallel`` region OpenMP outlines into a function per thread),
    and move every heap ``memref.alloc`` without operands that is freed by one ``memref.dealloc`` in its
    own block out of the enclosing serial loops and OpenMP worksharing loops (alloc before the loop, dealloc after
    it). The ``memref.alloca_scope`` convert-scf-to-openmp wraps each iteration in is inlined once it holds no
    alloca (it would only save and restore the stack pointer per iteration).

    Legal: such an op has no operands to dominate, and a fresh buffer's contents are undefined anyway, so
    reusing one buffer for all iterations of the enclosing serial loops changes nothing. Race-free: this runs
    after the parallel loops are lowered, when the only loops left inside a frame are serial (``scf.for``; the
    ``scf.while`` of the async dispatcher is never crossed) or the iterations one thread runs of an
    ``omp.wsloop``; each task of the async runtime is its own call of the outlined body, and each OpenMP thread
    runs the ``omp.parallel`` region once, hence its own frame and its own heap buffer. Returns how many ops
    moved."""
    from mlir import ir

    allocas, allocs, scopes, deallocs = [], [], [], []

    def visit(op):
        if op.name == "memref.alloca" and len(op.operands) == 0:
            allocas.append(op)
        elif op.name == "memref.alloc" and len(op.operands) == 0:
            allocs.append(op)
        elif op.name == "memref.alloca_scope":
            scopes.append(op)
        elif op.name == "memref.dealloc":
            deallocs.append(op)
        return ir.WalkResult.ADVANCE

    def frame(op):
        parent = op.parent
        while parent.name not in ("func.func", "omp.parallel"):
            parent = parent.parent
        return parent

    def holds_alloca(op):
        found = []

        def look(o):
            if o.name == "memref.alloca":
                found.append(o)
                return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        op.walk(look, ir.WalkOrder.PRE_ORDER)
        return bool(found)

    count = 0
    for func in top_level_ops(module, "func.func"):
        if not func.regions[0].blocks:
            continue
        allocas.clear()
        allocs.clear()
        scopes.clear()
        deallocs.clear()
        func.walk(visit, ir.WalkOrder.PRE_ORDER)
        for alloca in allocas:
            f = frame(alloca)
            if alloca.block != f.regions[0].blocks[0]:
                alloca.move_before(first_nested_op(f))
                count += 1
        for scope in reversed(scopes):  # innermost first
            if len(scope.results) or holds_alloca(scope):
                continue
            for op in child_ops(scope)[:-1]:  # all but memref.alloca_scope.return
                op.move_before(scope)
            scope.erase()
        for alloc in allocs:
            frees = [d for d in deallocs if d.operands[0] == alloc.result]
            while True:
                loop = alloc.parent
                if loop.name == "omp.loop_nest" and loop.parent.name == "omp.wsloop":
                    loop = loop.parent
                elif loop.name != "scf.for":
                    break
                if len(frees) != 1 or frees[0].block != alloc.block:
                    break
                alloc.move_before(loop)
                frees[0].move_after(loop)
                count += 1
    return count


def merge_parallel_regions(module) -> int:
    """Adjacent ``omp.parallel`` regions with the same thread count (the pieces of a boundary condition's padded
    copy, each its own parallel loop: nine for max_filter's) become one region running their worksharing loops in
    order, each still ending at its implicit barrier: one fork/join instead of one per loop. Between them only
    side-effect-free ops (the subviews of the next piece), moved before the first region (the regions have no
    results, so what they use is defined before it). Halide runs such a copy inlined in one parallel loop; each
    fork/join needs every thread of the team scheduled, which on a loaded machine costs a time slice whenever a
    worker is not. Returns how many regions were merged away."""
    from mlir import ir

    blocks = []

    def visit(op):
        if op.name == "omp.parallel":
            if not any(b == op.block for b in blocks):
                blocks.append(op.block)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    merged = 0
    for block in blocks:
        into, between = None, []
        for o in list(block.operations):
            op = o.operation
            if op.name == "omp.parallel":
                if (
                    into is not None
                    and len(op.regions[0].blocks) == 1
                    and list(op.operands) == list(into.operands)
                    and str(op.attributes) == str(into.attributes)
                ):
                    for b in between:
                        b.move_before(into)
                    end = list(into.regions[0].blocks[0].operations)[-1].operation  # omp.terminator
                    for inner in list(op.regions[0].blocks[0].operations)[:-1]:
                        inner.operation.move_before(end)
                    op.erase()
                    merged += 1
                elif len(op.regions[0].blocks) == 1:
                    into = op
                else:
                    into = None
                between = []
            elif into is not None and _pure(op.name):
                between.append(op)
            else:
                into, between = None, []
    return merged


def _pure(name: str) -> bool:
    """Ops that only compute a value (a view, an index, a constant): movable across a parallel region."""
    return name.startswith("arith.") or name in (
        "memref.subview",
        "memref.reinterpret_cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.cast",
        "memref.extract_strided_metadata",
        "llvm.mlir.constant",
        "ub.poison",
    )


# The IR is walked as plain ``Operation``s: ``block.operations``, ``module.body.operations`` and ``use.owner`` make
# an OpView of each op, which imports that dialect's Python module the first time (llvm ~19 ms, memref + arith +
# scf ~14 ms), paid by a process's first compile.
def top_level_ops(module, name: str | None = None) -> list:
    """The ops of the module's body (named ``name``), in order."""
    return child_ops(module.operation, name)


def child_ops(op, name: str | None = None) -> list:
    """The ops directly inside ``op``'s regions (named ``name``), in order."""
    from mlir import ir

    out = []

    def visit(o):
        if o == op:
            return ir.WalkResult.ADVANCE
        if name is None or o.name == name:
            out.append(o)
        return ir.WalkResult.SKIP

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


def first_nested_op(op):
    """The first op of ``op``'s first block."""
    from mlir import ir

    found = []

    def visit(o):
        if o == op:
            return ir.WalkResult.ADVANCE
        found.append(o)
        return ir.WalkResult.INTERRUPT

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found[0]


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
# guarded store is also marked noinline: its callers are the C-interface wrapper (one call) and, with the async
# runtime, its dispatcher (one call per block of rows), so that costs nothing measurable. (OpenMP's outlined
# region is only called through __kmpc_fork_call, never inlined.)
# Checked by test/python/test_masked_tail_stores.py. Remove once we build on an LLVM with the fix.
def keep_masked_store_values(module) -> int:
    """Insert ``llvm.call_intrinsic "llvm.fake.use"(%value)`` before every ``llvm.intr.masked.store`` of the
    LLVM dialect module and mark the functions holding one ``noinline`` (see the comment above). Returns how
    many stores were guarded."""
    from mlir import ir

    stores = []

    def visit(op):
        if op.name == "llvm.intr.masked.store":
            stores.append(op)
        return ir.WalkResult.ADVANCE

    count = 0
    for func in top_level_ops(module, "llvm.func"):
        stores.clear()
        func.walk(visit, ir.WalkOrder.PRE_ORDER)
        if not stores:
            continue
        for store in stores:
            # the op built generically: importing mlir.dialects.llvm for it costs ~15 ms per process
            with ir.InsertionPoint(store), store.location:
                ir.Operation.create(
                    "llvm.call_intrinsic",
                    results=[],
                    operands=[store.operands[0]],
                    attributes={
                        "intrin": ir.StringAttr.get("llvm.fake.use"),
                        "op_bundle_sizes": ir.DenseI32ArrayAttr.get([]),
                        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0]),
                    },
                )
        func.attributes["no_inline"] = ir.UnitAttr.get()
        count += len(stores)
    return count


# convert-func-to-llvm adds a C-interface wrapper (_mlir_ciface_pipeline, what we call) that calls the pipeline's
# function, and the ExecutionEngine adds a packed wrapper (_mlir_<name>) to every external function. The inliner
# copied the pipeline's body into the wrappers: LLVM optimized and generated it up to four times (hist_eq at
# 1 thread: 100 ms of LLVM instead of 36). Marked noinline, the body is compiled once and the wrappers call it
# (one call per realize).
def compile_body_once(module) -> int:
    """Mark ``noinline`` every function that has a C-interface wrapper. Returns how many."""
    from mlir import ir

    funcs = top_level_ops(module, "llvm.func")
    names = {ir.StringAttr(f.attributes["sym_name"]).value: f for f in funcs}
    count = 0
    for name, f in names.items():
        if "_mlir_ciface_" + name in names and f.regions[0].blocks:
            f.attributes["no_inline"] = ir.UnitAttr.get()
            count += 1
    return count
