"""GPU kernels from the stage plans: which stages run on the GPU and how their loops map to blocks and threads.

Each stage with a GPU schedule is one kernel (compute_root stages each get their own, launched in realization
order; inline Funcs are computed in their consumers' kernels). Per dimension of the stage, its loops outermost
first must be: at most one block loop, then at most one thread loop, then serial loops; the block loop's stride is
the block tile (each block computes that many), the thread loop's stride the thread tile. Which block/thread index a
loop gets follows its nesting, as in Halide: the innermost block loop is block x. codegen/gpu.py prints the result as
``tile_using_forall`` ops with ``#gpu.block``/``#gpu.thread`` mappings.

A producer computed at the kernel's innermost block loop lives in shared memory (computed cooperatively by the
block's threads, by its own gpu_threads loops, then a barrier); at the innermost thread loop, in registers (each
thread its own). The payload spells out those loops (codegen/gpu_tiled.py, from the stage's tile plan) and the
script maps the rest.

What is not supported yet is refused with a HalideError that says so (never accepted and ignored): compute_at other
loops of a kernel, update definitions on the GPU, vectorize/unroll/parallel/fuse on a GPU stage, and stages without
a GPU schedule in a pipeline that has some (Halide runs those on the host).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..error import HalideError
from ..lang.gpu_schedule import MemoryType, memory_type
from ..lang.schedule import GPU_DIRECTIVES, DirectiveKind, LevelKind
from .plan import PipelinePlan, StagePlan

MAX_THREADS_PER_BLOCK = 1024  # CUDA's limit on every device Halide and MLIR target
AXES = "xyz"


@dataclass(frozen=True)
class KernelPlan:
    stage: StagePlan
    name: str  # the kernel's .entry name in the PTX
    block_tiles: tuple  # per linalg dim (outermost Halide dim first): elements per block, 0 = all
    block_mapping: tuple  # per non-zero block tile: "x" | "y" | "z"
    thread_tiles: tuple  # per linalg dim: elements per thread, 0 = all
    thread_mapping: tuple  # per non-zero thread tile
    block_dims: tuple  # threads per block (x, y, z)
    single_thread: bool = False
    # a kernel with producers inside (tile.gpu set): the payload makes its block (and thread) foralls; the script
    # tiles these generics onto the threads: (Func name, thread counts per linalg dim (0: not tiled), axes)
    thread_tilings: tuple = ()
    barriers: bool = False  # a barrier after each thread forall (shared memory between them)

    @property
    def thread_mapping_full(self) -> tuple:
        """Per linalg dim: its thread axis, or "" where no thread loop runs over it."""
        it = iter(self.thread_mapping)
        return tuple(next(it) if t else "" for t in self.thread_tiles)


def uses_gpu(pipeline) -> bool:
    """Does any stage of the pipeline have a GPU schedule?"""
    return any(
        d.kind in GPU_DIRECTIVES
        for s in pipeline.stages
        for d in [*s.func.schedule().directives, *(d for u in s.func.updates() for d in u.schedule.directives)]
    )


def gpu_funcs(pipeline) -> list[str]:
    return [s.name for s in pipeline.stages if any(d.kind in GPU_DIRECTIVES for d in s.func.schedule().directives)]


@dataclass(frozen=True)
class GpuTiling:
    """How codegen/gpu_tiled.py spells out a kernel's loops (TilePlan.gpu): its first ``block_levels`` tile
    levels as one forall mapped to ``block_axes``, the next ``thread_levels`` as one mapped to ``thread_axes``;
    ``memory``: each producer's address space ("workgroup" or "private")."""

    kernel: str
    block_levels: int
    block_axes: tuple
    thread_levels: int
    thread_axes: tuple
    memory: dict


def check_cpu_storage(pipeline) -> None:
    """The CPU path places Auto, Heap, Stack and Register buffers (analysis/store_in.py): refuse the rest rather
    than ignore them."""
    for s in pipeline.stages:
        mt = memory_type(s.func)
        if mt not in (MemoryType.Auto, MemoryType.Heap, MemoryType.Stack, MemoryType.Register):
            raise HalideError(
                f"Func '{s.name}': store_in(MemoryType.{mt.name}) is honored only on GPU stages by "
                f"halide_mlir (shared memory and registers inside a kernel, Heap for a kernel's "
                f"buffer); a CPU stage takes MemoryType.Auto, Heap, Stack or Register"
            )


def kernel_name(stage_name: str) -> str:
    """A PTX identifier: Halide's kernels are named after their Func too."""
    return "kernel_" + "".join(c if c.isalnum() or c == "_" else "_" for c in stage_name)


def _refuse(sp: StagePlan, what: str) -> HalideError:
    return HalideError(f"Func '{sp.name}': {what} is not supported yet by halide_mlir's GPU backend (docs/gpu.md)")


def plan_kernels(plan: PipelinePlan) -> list[KernelPlan]:
    """One KernelPlan per stage, in realization order, or a HalideError for what the backend can't run."""
    kernels = []
    inside = {q.func for sp in plan.stages if sp.tile is not None for qs in sp.tile.producers.values() for q in qs}
    for sp in plan.stages:
        own = [d for d in sp.directives if d.kind in GPU_DIRECTIVES]
        if sp.updates:
            raise _refuse(sp, "a Func with update definitions in a GPU pipeline")
        if sp.func in inside:
            continue  # computed inside its consumer's kernel (_tiled_kernel checks it)
        if not own:
            raise HalideError(
                f"Func '{sp.name}' has no GPU schedule but is computed in a pipeline whose other "
                f"stages run on the GPU; running some stages on the host is not supported yet by "
                f"halide_mlir's GPU backend: give it a GPU schedule (gpu_tile, gpu_blocks/"
                f"gpu_threads or gpu_single_thread) or compute it inline"
            )
        if sp.compute.kind == LevelKind.AT and sp.func is not plan.pipeline.output:
            raise _refuse(
                sp,
                f"compute_at the loop {sp.compute.func.name()}.{sp.compute.var} of a stage that is "
                f"not computed in a kernel's loops",
            )
        if (sp.producers and sp.tile is None) or sp.in_tiles:
            raise _refuse(
                sp,
                "compute_at inside a GPU kernel where the consumer's reads of it are not slices (Vars plus constants)",
            )
        _check_directives(sp)
        if memory_type(sp.func) not in (MemoryType.Auto, MemoryType.Heap):
            raise HalideError(
                f"Func '{sp.name}' is a GPU kernel's own buffer (compute_root): store_in(MemoryType."
                f"{memory_type(sp.func).name}) applies to a Func computed inside a kernel "
                f"(GPUShared at a block loop, Register at a thread loop)"
            )
        sp.pieces = None  # one generic per kernel: no loop partitioning of boundary conditions
        kernels.append(_tiled_kernel(plan, sp, own) if sp.tile is not None else _kernel(sp, own))
    return kernels


def _check_directives(sp: StagePlan) -> None:
    for d in sp.directives:
        if d.kind not in (
            *GPU_DIRECTIVES,
            DirectiveKind.SPLIT,
            DirectiveKind.REORDER,
            DirectiveKind.BOUND,
            DirectiveKind.BOUND_EXTENT,
            DirectiveKind.ALIGN,
            DirectiveKind.PARTITION,
        ):
            raise _refuse(sp, f"{d.kind} on a GPU stage")


def _tiled_kernel(plan: PipelinePlan, sp: StagePlan, own: list) -> KernelPlan:
    """A kernel whose producers are computed at its innermost block loop (shared memory) or innermost thread
    loop (registers)."""
    tp = sp.tile
    k = _kernel(sp, own)
    if k.single_thread:
        raise _refuse(sp, "compute_at a gpu_single_thread stage")
    blocks = {v for d in own if d.kind == DirectiveKind.GPU_BLOCKS for v in d.args}
    threads = {v for d in own if d.kind == DirectiveKind.GPU_THREADS for v in d.args}
    roles = [
        "block" if lev.loop.name in blocks else "thread" if lev.loop.name in threads else "serial" for lev in tp.levels
    ]
    nb, nt = roles.count("block"), roles.count("thread")
    n_blocks = sum(1 for l in sp.loops if l.name in blocks)
    n_threads = sum(1 for l in sp.loops if l.name in threads)
    if "serial" in roles or nb != n_blocks or nt not in (0, n_threads) or not nb:
        names = sorted({q.name + " at " + q.compute.var for qs in tp.producers.values() for q in qs})
        raise _refuse(
            sp,
            f"compute_at a loop of a GPU kernel other than its innermost block loop (shared memory) "
            f"or innermost thread loop (registers) ({', '.join(names)})",
        )
    if tp.slides:
        raise _refuse(sp, "a sliding window (store_at outside compute_at) inside a GPU kernel")
    stages = {s.func: s for s in plan.stages}
    # every producer inside the kernel is computed by the payload at its level (a viewed one has no kernel of
    # its own to live in): possible when all its readers are in these loops
    for level in sorted(tp.producers, reverse=True):
        for q in reversed(tp.producers[level]):
            if q.func in tp.viewed:
                if not all(c.func is sp.func or c.func in tp.computed for c in q.consumers):
                    raise _refuse(
                        stages[q.func], f"a Func computed inside the kernel of {sp.name} and also read outside it"
                    )
                tp.viewed.discard(q.func)
                tp.computed.add(q.func)
                stages[q.func].in_tiles = True
    sp.producers = []
    memory, tilings, dims = {}, [], list(k.block_dims)
    for level, qs in tp.producers.items():
        shared = level == nb - 1
        for q in qs:
            qp = stages[q.func]
            _check_directives(qp)
            mt = memory_type(q.func)
            if shared and mt not in (MemoryType.Auto, MemoryType.GPUShared):
                raise HalideError(
                    f"Func '{qp.name}' is computed at a GPU block loop: it lives in shared memory "
                    f"(MemoryType.GPUShared), not MemoryType.{mt.name}"
                )
            if not shared and mt not in (MemoryType.Auto, MemoryType.Register, MemoryType.Stack):
                raise HalideError(
                    f"Func '{qp.name}' is computed at a GPU thread loop: it lives in registers "
                    f"(MemoryType.Register), not MemoryType.{mt.name}"
                )
            memory[q.func] = "workgroup" if shared else "private"
            qown = [d for d in qp.directives if d.kind in GPU_DIRECTIVES]
            if any(d.kind != DirectiveKind.GPU_THREADS for d in qown):
                raise HalideError(
                    f"Func '{qp.name}' is computed inside a GPU kernel: it takes gpu_threads only "
                    f"(its blocks are its consumer's)"
                )
            if not shared and qown:
                raise HalideError(
                    f"Func '{qp.name}' is computed at a GPU thread loop of {sp.name}: each thread "
                    f"computes its own, so it can't have GPU thread loops"
                )
            if not shared:
                continue
            qk = _kernel(qp, qown)
            if qk.thread_mapping:
                counts = tuple(qk.block_dims[AXES.index(a)] if a else 0 for a in qk.thread_mapping_full)
                tilings.append((qp.name, counts, qk.thread_mapping))
                dims = [max(a, b) for a, b in zip(dims, qk.block_dims)]
            else:  # no thread loops: one thread computes it (the others wait at the barrier)
                qn = len(qp.stage.vars)
                tilings.append((qp.name, (0,) * (qn - 1) + (1,), ("x",)))
    if not nt and k.thread_mapping:
        tilings.append(
            (sp.name, tuple(k.block_dims[AXES.index(a)] if a else 0 for a in k.thread_mapping_full), k.thread_mapping)
        )
    if dims[0] * dims[1] * dims[2] > MAX_THREADS_PER_BLOCK:
        raise HalideError(
            f"Func '{sp.name}': {dims[0] * dims[1] * dims[2]} GPU threads per block "
            f"({' x '.join(map(str, dims))}) with its producers' threads; CUDA allows at most "
            f"{MAX_THREADS_PER_BLOCK}"
        )
    block_loops = [lev.loop for lev in tp.levels[:nb]]
    thread_loops = [lev.loop for lev in tp.levels[nb:]]
    axis = {l.name: AXES[i] for ls in (block_loops, thread_loops) for i, l in enumerate(reversed(ls))}
    tp.gpu = GpuTiling(
        k.name, nb, tuple(axis[l.name] for l in block_loops), nt, tuple(axis[l.name] for l in thread_loops), memory
    )
    return KernelPlan(
        sp,
        k.name,
        k.block_tiles,
        k.block_mapping,
        k.thread_tiles,
        k.thread_mapping,
        tuple(dims),
        thread_tilings=tuple(tilings),
        barriers="workgroup" in memory.values(),
    )


def _kernel(sp: StagePlan, own: list) -> KernelPlan:
    n = len(sp.stage.vars)
    name = kernel_name(sp.name)
    if any(d.kind == DirectiveKind.GPU_SINGLE for d in own):
        if len(own) > 1:
            raise HalideError(f"Func '{sp.name}': gpu_single_thread can't be combined with gpu_blocks/gpu_threads")
        return KernelPlan(sp, name, (), (), (), (), (1, 1, 1), single_thread=True)
    blocks = {v for d in own if d.kind == DirectiveKind.GPU_BLOCKS for v in d.args}
    threads = {v for d in own if d.kind == DirectiveKind.GPU_THREADS for v in d.args}
    if blocks & threads:
        raise HalideError(
            f"Func '{sp.name}': loop {sorted(blocks & threads)[0]} is both a GPU block and a GPU thread loop"
        )
    loops = sp.loops
    role = ["block" if l.name in blocks else "thread" if l.name in threads else "serial" for l in loops]
    # Halide's rule: block loops outermost, then thread loops; a serial loop outside the thread loops runs in
    # each thread (lesson 12's padded: c outside its gpu_threads x, y), one outside the blocks would be a host loop
    order = {"block": 0, "thread": 1, "serial": 1}
    for (l, r), (m, q) in zip(zip(loops, role), zip(loops[1:], role[1:])):
        if order[q] < order[r] and not (r == "serial" and sp.trips.get(l.name, l.extent) == 1):
            raise HalideError(
                f"Func '{sp.name}': the {q} loop {m.name} is inside the {r} loop {l.name}; GPU "
                f"block loops must be outermost, then thread loops (reorder them)"
            )
    block_tiles, thread_tiles = [0] * n, [0] * n
    for kind, tiles in (("block", block_tiles), ("thread", thread_tiles)):
        for l, r in zip(loops, role):
            if r != kind:
                continue
            if len(l.parts) != 1:
                raise _refuse(sp, f"a GPU {kind} loop over the fused loop {l.name}")
            if tiles[l.dim]:
                raise _refuse(sp, f"two GPU {kind} loops over dimension {sp.stage.vars[l.dim]}")
            tiles[l.dim] = l.stride
        # a block loop of stride s with no thread loop inside: each block's s elements run in one thread
    for d in range(n):
        if thread_tiles[d] and block_tiles[d] and block_tiles[d] % thread_tiles[d]:
            raise _refuse(sp, f"a thread tile that does not divide the block tile in dimension {sp.stage.vars[d]}")
    block_loops = [l for l, r in zip(loops, role) if r == "block"]
    thread_loops = [l for l, r in zip(loops, role) if r == "thread"]
    for kind, ls in (("block", block_loops), ("thread", thread_loops)):
        if len(ls) > 3:
            raise HalideError(f"Func '{sp.name}': more than three GPU {kind} loops")
    # the innermost block (thread) loop is x
    axis_of = {l.name: AXES[i] for ls in (block_loops, thread_loops) for i, l in enumerate(reversed(ls))}
    # linalg dims are the Halide dims reversed (payload.py: the outermost dim first)
    lin = list(reversed(range(n)))

    def mapping(ls, tiles):
        by_dim = {l.dim: axis_of[l.name] for l in ls}
        return tuple(by_dim[d] for d in lin if tiles[d])

    dims = [1, 1, 1]
    for l in thread_loops:
        per_block = block_tiles[l.dim] or sp.extents[l.dim]
        dims[AXES.index(axis_of[l.name])] = -(-min(per_block, sp.extents[l.dim]) // l.stride)
    if dims[0] * dims[1] * dims[2] > MAX_THREADS_PER_BLOCK:
        raise HalideError(
            f"Func '{sp.name}': {dims[0] * dims[1] * dims[2]} GPU threads per block "
            f"({' x '.join(map(str, dims))}); CUDA allows at most {MAX_THREADS_PER_BLOCK}"
        )
    return KernelPlan(
        sp,
        name,
        tuple(block_tiles[d] for d in lin),
        mapping(block_loops, block_tiles),
        tuple(thread_tiles[d] for d in lin),
        mapping(thread_loops, thread_tiles),
        tuple(dims),
    )


def check_target(pipeline, target) -> None:
    """Halide's error for GPU schedules on a target without a GPU feature."""
    if target.has_gpu_feature():
        return
    funcs = gpu_funcs(pipeline) or [
        s.name
        for s in pipeline.stages
        if any(d.kind in GPU_DIRECTIVES for u in s.func.updates() for d in u.schedule.directives)
    ]
    if funcs:
        raise HalideError(
            f"Schedule for Func {funcs[0]} requires <Default_GPU> but no compatible target feature "
            f"is enabled in target {target}"
        )
