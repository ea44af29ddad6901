"""A GPU kernel whose producers are computed inside it (compute_at a block loop: shared memory; at a thread loop:
registers): the payload spells out its block loops as ONE multi-dimensional ``scf.forall`` with ``#gpu.block``
mappings (``gpu.map_forall_to_blocks`` wants a single forall, not one per loop), and, when a producer is computed
at the thread loops, those as one ``#gpu.thread`` forall inside it. At each, the producers' tiles are computed
into ``bufferization.alloc_tensor``s in the level's memory space (``#gpu.address_space<workgroup>`` /
``<private>``), which bufferize into allocations that runtime/gpu_jit.py makes the launch's workgroup / private
attributions. Tiles use ShiftInwards, as codegen/tiled.py's (and Halide's gpu_tile on a pure Func) do; overlapping
edge tiles write the same values.

The transform script (codegen/gpu.py) then tiles the generics left inside the block forall onto the threads.
"""

from __future__ import annotations

from ..analysis.plan import StagePlan
from .mlir_text import loop_attr, mlir_string, tensor_type
from .tiled import Tile, View, _dims, _tile_region


def emit_gpu_tiled_stage(pb, stage_plan: StagePlan) -> str:
    stage, index, plan, name = stage_plan.stage, stage_plan.index, stage_plan.tile, stage_plan.name
    gpu = plan.gpu
    func = stage.func
    region = plan.region
    n = len(stage.vars)
    out_t = func.output_type()
    loc = pb.def_loc(func)
    lines = pb.lines

    def ttype(sizes) -> str:
        return tensor_type(tuple(reversed(sizes)), out_t)

    carried = pb.fresh("init")
    lines.append(f"{carried} = tensor.empty() : {ttype(region.extents)} {loc}")
    offs: dict[int, list] = {d: [] for d in range(n)}
    dyn = [None] * n
    sizes = list(region.extents)
    views: dict = {}
    closers = []
    groups = [("block", 0, gpu.block_levels, gpu.block_axes)]
    if gpu.thread_levels:
        groups.append(("thread", gpu.block_levels, gpu.thread_levels, gpu.thread_axes))
    for kind, first, count, axes in groups:
        levels = plan.levels[first : first + count]
        ivs = [pb.fresh("iv") for _ in levels]
        res, inner = pb.fresh("t"), pb.fresh("so")
        lines.append(
            f"{res} = scf.forall ({', '.join(ivs)}) in ({', '.join(str(lev.trip) for lev in levels)}) "
            f"shared_outs({inner} = {carried}) -> ({ttype(sizes)}) {{"
        )
        rel = [0] * n
        parent_sizes = list(sizes)
        sizes = list(sizes)
        for lev, iv in zip(levels, ivs):
            d = lev.loop.dim
            if lev.trip > 1:  # ShiftInwards: the last tile starts at parent_size - size
                scaled, off = pb.fresh("o"), pb.fresh("o")
                lines.append(f"{scaled} = arith.muli {iv}, {pb.index_const(lev.loop.stride, loc)} : index {loc}")
                lines.append(
                    f"{off} = arith.minsi {scaled}, {pb.index_const(lev.parent_size - lev.size, loc)} : index {loc}"
                )
                offs[d] = offs[d] + [off]
                dyn[d] = pb.index_sum([(1, o) for o in offs[d]], 0, loc)
                rel[d] = off
            sizes[d] = lev.size
        tile = pb.fresh("tile")
        lines.append(
            f"{tile} = tensor.extract_slice {inner}{_dims(rel)} {_dims(sizes)} {_dims([1] * n)} : "
            f"{ttype(parent_sizes)} to {ttype(sizes)} {loc}"
        )
        for prod in plan.producers.get(first + count - 1, []):
            views[prod.func] = _producer_tile(pb, prod, plan, dyn, views, gpu.memory[prod.func])
        mapping = ", ".join(f"#gpu.{kind}<{a}>" for a in axes)
        attrs = f"mapping = [{mapping}], {loop_attr(name, levels[-1].loop.name)}"
        if kind == "block":
            attrs += f", hl.kernel = {mlir_string(gpu.kernel)}"
        closers.append((res, inner, rel, list(sizes), parent_sizes, attrs))
        carried = tile

    result = pb.emit_generic(index, stage, Tile(region.mins, tuple(sizes), tuple(dyn)), [carried], views)[0]
    for res, inner, rel, tile_sizes, parent_sizes, attrs in reversed(closers):
        lines.append("scf.forall.in_parallel {")
        lines.append(
            f"  tensor.parallel_insert_slice {result} into {inner}{_dims(rel)} {_dims(tile_sizes)} "
            f"{_dims([1] * n)} : {ttype(tile_sizes)} into {ttype(parent_sizes)} {loc}"
        )
        lines.append("}")
        lines.append(f"}} {{{attrs}}} {loc}")
        result = res
    return result


def _producer_tile(pb, prod, plan, dyn, views, space: str) -> View:
    """The producer's generic over its tile (Halide's bounds for this block or thread) into a new tensor in
    ``space`` (workgroup: shared memory; private: registers)."""
    mins, extents, dynamic = _tile_region(plan, prod.func, dyn, pb)
    index = pb.plan.of(prod.func).index
    shape = tuple(reversed(extents))
    init = pb.fresh("init")
    pb.lines.append(
        f"{init} = bufferization.alloc_tensor() {{memory_space = #gpu.address_space<{space}>}} : "
        f"{tensor_type(shape, prod.func.output_type())} {pb.def_loc(prod.func)}"
    )
    tensor = pb.emit_generic(index, prod, Tile(mins, extents, dynamic), [init], views)[0]
    return View(tensor, shape, mins, dynamic)
