"""GPU kernels from the stage plans: which stages run on the GPU and how their loops map to blocks and threads.

Each stage with a GPU schedule is one kernel (compute_root stages each get their own, launched in realization
order; inline Funcs are computed in their consumers' kernels). Per dimension of the stage, its loops outermost
first must be: at most one block loop, then at most one thread loop, then serial loops; the block loop's stride is
the block tile (each block computes that many), the thread loop's stride the thread tile. Which block/thread index a
loop gets follows its nesting, as in Halide: the innermost block loop is block x. codegen/gpu.py prints the result as
``tile_using_forall`` ops with ``#gpu.block``/``#gpu.thread`` mappings.

What is not supported yet is refused with a HalideError that says so (never accepted and ignored): compute_at inside a
kernel (shared memory / registers), update definitions on the GPU, vectorize/unroll/parallel/fuse on a GPU stage,
and stages without a GPU schedule in a pipeline that has some (Halide runs those on the host).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..error import HalideError
from ..lang.schedule import GPU_DIRECTIVES, DirectiveKind, LevelKind
from .plan import PipelinePlan, StagePlan

MAX_THREADS_PER_BLOCK = 1024   # CUDA's limit on every device Halide and MLIR target
AXES = "xyz"


@dataclass(frozen=True)
class KernelPlan:
    stage: StagePlan
    name: str                       # the kernel's .entry name in the PTX
    block_tiles: tuple              # per linalg dim (outermost Halide dim first): elements per block, 0 = all
    block_mapping: tuple            # per non-zero block tile: "x" | "y" | "z"
    thread_tiles: tuple             # per linalg dim: elements per thread, 0 = all
    thread_mapping: tuple           # per non-zero thread tile
    block_dims: tuple               # threads per block (x, y, z)
    single_thread: bool = False

    @property
    def thread_mapping_full(self) -> tuple:
        """Per linalg dim: its thread axis, or "" where no thread loop runs over it."""
        it = iter(self.thread_mapping)
        return tuple(next(it) if t else "" for t in self.thread_tiles)


def uses_gpu(pipeline) -> bool:
    """Does any stage of the pipeline have a GPU schedule?"""
    return any(d.kind in GPU_DIRECTIVES for s in pipeline.stages
               for d in [*s.func.schedule().directives, *(d for u in s.func.updates() for d in u.schedule.directives)])


def gpu_funcs(pipeline) -> list[str]:
    return [s.name for s in pipeline.stages if any(d.kind in GPU_DIRECTIVES for d in s.func.schedule().directives)]


def kernel_name(stage_name: str) -> str:
    """A PTX identifier: Halide's kernels are named after their Func too."""
    return "kernel_" + "".join(c if c.isalnum() or c == "_" else "_" for c in stage_name)


def _refuse(sp: StagePlan, what: str) -> HalideError:
    return HalideError(f"Func '{sp.name}': {what} is not supported yet by halide_mlir's GPU backend (docs/gpu.md)")


def plan_kernels(plan: PipelinePlan) -> list[KernelPlan]:
    """One KernelPlan per stage, in realization order, or a HalideError for what the backend can't run."""
    kernels = []
    for sp in plan.stages:
        own = [d for d in sp.directives if d.kind in GPU_DIRECTIVES]
        if sp.updates:
            raise _refuse(sp, "a Func with update definitions in a GPU pipeline")
        if not own:
            raise HalideError(f"Func '{sp.name}' has no GPU schedule but is computed in a pipeline whose other "
                              f"stages run on the GPU; running some stages on the host is not supported yet by "
                              f"halide_mlir's GPU backend: give it a GPU schedule (gpu_tile, gpu_blocks/"
                              f"gpu_threads or gpu_single_thread) or compute it inline")
        if sp.compute.kind == LevelKind.AT and sp.func is not plan.pipeline.output:
            raise _refuse(sp, f"compute_at a GPU kernel's loop ({sp.compute.func.name()}.{sp.compute.var})")
        if sp.tile is not None or sp.producers or sp.in_tiles:
            raise _refuse(sp, "compute_at inside a GPU kernel")
        for d in sp.directives:
            if d.kind not in (*GPU_DIRECTIVES, DirectiveKind.SPLIT, DirectiveKind.REORDER, DirectiveKind.BOUND):
                raise _refuse(sp, f"{d.kind} on a GPU stage")
        sp.pieces = None   # one generic per kernel: no loop partitioning of boundary conditions
        kernels.append(_kernel(sp, own))
    return kernels


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
        raise HalideError(f"Func '{sp.name}': loop {sorted(blocks & threads)[0]} is both a GPU block and a GPU "
                          f"thread loop")
    loops = sp.loops
    role = ["block" if l.name in blocks else "thread" if l.name in threads else "serial" for l in loops]
    # Halide's rule: block loops outermost, then thread loops, serial loops inside the threads
    order = {"block": 0, "thread": 1, "serial": 2}
    for (l, r), (m, q) in zip(zip(loops, role), zip(loops[1:], role[1:])):
        if order[q] < order[r] and not (r == "serial" and sp.trips.get(l.name, l.extent) == 1):
            raise HalideError(f"Func '{sp.name}': the {q} loop {m.name} is inside the {r} loop {l.name}; GPU "
                              f"block loops must be outermost, then thread loops (reorder them)")
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
        raise HalideError(f"Func '{sp.name}': {dims[0] * dims[1] * dims[2]} GPU threads per block "
                          f"({' x '.join(map(str, dims))}); CUDA allows at most {MAX_THREADS_PER_BLOCK}")
    return KernelPlan(sp, name, tuple(block_tiles[d] for d in lin), mapping(block_loops, block_tiles),
                      tuple(thread_tiles[d] for d in lin), mapping(thread_loops, thread_tiles), tuple(dims))


def check_target(pipeline, target) -> None:
    """Halide's error for GPU schedules on a target without a GPU feature."""
    if target.has_gpu_feature():
        return
    funcs = gpu_funcs(pipeline) or [s.name for s in pipeline.stages
                                    if any(d.kind in GPU_DIRECTIVES for u in s.func.updates()
                                           for d in u.schedule.directives)]
    if funcs:
        raise HalideError(f"Schedule for Func {funcs[0]} requires <Default_GPU> but no compatible target feature "
                          f"is enabled in target {target}")
