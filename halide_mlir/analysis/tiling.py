"""Which of a consumer's loops the payload spells out itself, for compute_at with exact producer bounds.

``fuse_into_containing_op`` fuses one producer tile per *use* inside the loop; a consumer reading three
taps of its producer would get three overlapping tiles (DESIGN.md note 2). So for a consumer with producers
computed at its loops, the payload emits the loops down to the deepest compute_at level itself, and inside
each level takes ONE slice of each producer covering all the taps of that level's iterations (bounds
inference over the tile). The producer then has a single use in the loop and is fused once, with exactly
Halide's bounds. Inner loops are still made by the transform script.

Tiles use Halide's ShiftInwards: the last tile of a dimension is shifted back inside the region rather
than made smaller, so every tile has a static shape (pure Funcs give the same values either way).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..lang.traversal import walk
from .affine import linear_form
from .legality import OUTERMOST
from .loop_nest import Loop, serialize_nested_parallel, stage_loops


@dataclass(frozen=True)
class Level:
    loop: Loop
    trip: int          # iterations of this loop
    parent_size: int   # elements of the loop's dimension covered by one iteration of the enclosing level
    size: int          # elements covered by one iteration of this loop (static, ShiftInwards)


@dataclass
class TilePlan:
    levels: list           # Level per payload loop, outermost first
    producers: dict        # level index -> [producer Stage] fused there
    direct: set            # id(Func) of the producers the consumer reads itself: they get one slice per level
    tile_sizes: tuple      # per Halide dim: the tile the generic inside the innermost level computes
    loops: list            # all the consumer's loops (nested parallel loops made serial)


def tile_plan(bounded, stage) -> TilePlan | None:
    p = bounded.pipeline
    if stage.updates:
        return None
    level = stage.func.schedule().compute
    if stage.func is not p.output and level.kind == "at" and level.var != OUTERMOST:
        return None  # a consumer that is itself fused somewhere stays one generic
    producers = [s for s in p.stages if s.func.schedule().compute.kind == "at" and s.func is not p.output
                 and s.func.schedule().compute.func is stage.func and s.func.schedule().compute.var != OUTERMOST]
    if not producers:
        return None
    if len(bounded.bodies[id(stage.func)]) > 1 or any(len(bounded.bodies[id(prod.func)]) > 1 for prod in producers):
        return None  # Tuple-valued Funcs keep the plain compute_at path
    body = bounded.bodies[id(stage.func)][0]
    direct = [prod for prod in producers if any(n.kind == "call" and n.value is prod.func for n in walk(body))]
    if not direct:
        return None
    dim_var: dict = {}
    for prod in direct:  # every read of the producer must be a slice (Vars plus constants)
        for n in walk(body):
            if n.kind == "call" and n.value is prod.func:
                forms = [linear_form(a) for a in n.args]
                if any(f is None for f in forms) or any(m.kind == "call" for a in n.args for m in walk(a)):
                    return None
                used = [v for v, _ in forms if v is not None]
                if len(set(used)) != len(used):
                    return None
                for j, (v, _) in enumerate(forms):  # one union slice per dim needs one Var per dim
                    if dim_var.setdefault((id(prod), j), v) != v:
                        return None
    region = bounded.region(stage.func)
    loops = serialize_nested_parallel(
        stage_loops(stage.name, stage.vars, region.extents, stage.func.schedule().directives), False)
    names = [l.name for l in loops]
    depth = max(names.index(prod.func.schedule().compute.var) for prod in producers)
    if any(len(l.parts) > 1 or l.kind == "vectorized" for l in loops[:depth + 1]):
        return None
    sizes = list(region.extents)
    levels = []
    for l in loops[:depth + 1]:
        parent = sizes[l.dim]
        size = min(l.stride, parent)
        levels.append(Level(l, -(-parent // l.stride), parent, size))
        sizes[l.dim] = size
    at = {}
    for prod in producers:
        at.setdefault(names.index(prod.func.schedule().compute.var), []).append(prod)
    return TilePlan(levels, at, {id(prod.func) for prod in direct}, tuple(sizes), loops)
