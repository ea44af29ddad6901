"""A stage's loop nest after its split/fuse/reorder/vectorize/parallel/unroll directives, as Halide builds it.

The same list drives ``print_loop_nest`` and codegen/transform.py, so what a user reads is what runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import math
from dataclasses import dataclass, replace

from ..error import HalideError
from ..lang.schedule import GPU_DIRECTIVES, LOOP_KIND_OF, DirectiveKind, LoopKind

if TYPE_CHECKING:  # annotations only
    from collections.abc import Sequence

    from ..lang.schedule import Directive
    from .pipeline import Stage, Update


@dataclass(frozen=True)
class Loop:
    name: str  # the Var name schedules refer to
    path: str  # Halide's printed name: "x.xi" for the inner half of a split of x
    parts: tuple  # ((Halide dim, stride), ...): one part, or several for a fuse()d loop, outer first
    extent: int  # iterations (the last one may be partial)
    kind: LoopKind = LoopKind.SERIAL
    constant: bool = False  # extent known before realize (the inner half of a split)
    exact: bool = True  # extent is the real one (stage_loops given the extents, or constant)
    part_extents: tuple = ()  # a fuse()d loop: each part's iterations, outer first (None: not known yet)

    @property
    def dim(self) -> int:
        return self.parts[-1][0]

    @property
    def stride(self) -> int:
        return self.parts[-1][1]


def _find(loops: list[Loop], name: str, stage_name: str, d) -> int:
    for i, l in enumerate(loops):
        if l.name == name:
            return i
    raise HalideError(
        f"{d.site}: In schedule for {stage_name}: there is no loop variable '{name}' to "
        f"{d.kind} (the loops of {stage_name} are {', '.join(l.name for l in loops)})"
    )


UNKNOWN = 1 << 30  # the extent of a loop before realize: large, so split arithmetic stays valid


def _part_extents(l: Loop) -> tuple:
    return l.part_extents or (l.extent if l.exact else None,)


def _split_fused(l: Loop, factor: int):
    """Split a fuse()d loop: (outer parts, their extents, inner parts, their extents).

    The inner loop runs ``factor`` consecutive iterations of the fused loop: whole innermost parts while the
    factor is a multiple of their extents, then a tile of ``factor`` iterations of the next part. Where the factor
    does not divide that part, Halide's inner loop would wrap around the part's edge into the next one; ours stops
    there (a partial, masked last tile) -- the same points, each once, in another order, which gives a pure
    Func's values (and the vector stays a vector)."""
    parts, exts = list(l.parts), list(_part_extents(l))
    inner_parts, inner_exts = [], []
    while factor > 1:
        (dim, stride), e = parts[-1], exts[-1]
        if e is not None and factor % e == 0 and len(parts) > 1:
            inner_parts.insert(0, parts.pop())
            inner_exts.insert(0, exts.pop())
            factor //= e
            continue
        inner_parts.insert(0, (dim, stride))
        inner_exts.insert(0, factor)
        parts[-1], exts[-1] = (dim, stride * factor), (None if e is None else -(-e // factor))
        factor = 1
    if len(parts) > 1 and 1 in exts:  # a part left with one iteration is no loop
        kept = [(p, e) for p, e in zip(parts, exts) if e != 1] or [(parts[-1], 1)]
        parts, exts = [p for p, _ in kept], [e for _, e in kept]
    return parts, exts, inner_parts, inner_exts


def stage_loops(
    stage_name: str, vars_: list[str], extents: Sequence[int] | None, directives: Sequence[Directive]
) -> list[Loop]:
    """Outermost loop first. ``extents=None``: before realize (UNKNOWN extents)."""
    exact = extents is not None
    extents = extents if exact else [UNKNOWN] * len(vars_)
    loops = [Loop(v, v, ((d, 1),), extents[d], exact=exact) for d, v in reversed(list(enumerate(vars_)))]
    for d in directives:
        k, a = d.kind, d.args
        if k == DirectiveKind.SPLIT:
            old, outer, inner, factor = a[0], a[1], a[2], a[3]
            if factor <= 0:
                raise HalideError(
                    f"{d.site}: In schedule for {stage_name}: split factor must be positive, got {factor}"
                )
            i = _find(loops, old, stage_name, d)
            l = loops[i]
            if outer == inner:
                raise HalideError(
                    f"{d.site}: In schedule for {stage_name}: can't split {old} into {outer} and "
                    f"{inner} because the new Vars have the same name"
                )
            for new in (outer, inner):
                if new != old and any(m.name == new for m in loops):
                    raise HalideError(
                        f"{d.site}: In schedule for {stage_name}: split of '{old}' names '{new}', "
                        f"which is already a loop of {stage_name}"
                    )
            base = l.path.rsplit(".", 1)[0] + "." if "." in l.path else l.path + "."
            outer_path = l.path if outer == old else base + outer if "." in l.path else f"{l.path}.{outer}"
            inner_path = f"{l.path}.{inner}" if inner != old else l.path
            if len(l.parts) > 1:
                op, oe, ip, ie = _split_fused(l, factor)
                extent = math.prod(oe) if None not in oe else -(-l.extent // factor)
                loops[i : i + 1] = [
                    Loop(
                        outer,
                        outer_path,
                        tuple(op),
                        extent,
                        l.kind,
                        l.constant,
                        l.exact,
                        tuple(oe) if len(op) > 1 else (),
                    ),
                    Loop(
                        inner,
                        inner_path,
                        tuple(ip),
                        factor,
                        constant=True,
                        part_extents=tuple(ie) if len(ip) > 1 else (),
                    ),
                ]
                continue
            ((dim, stride),) = l.parts
            loops[i : i + 1] = [
                Loop(outer, outer_path, ((dim, stride * factor),), -(-l.extent // factor), l.kind, l.constant, l.exact),
                Loop(inner, inner_path, ((dim, stride),), factor, constant=True),
            ]
        elif k == DirectiveKind.FUSE:
            inner, outer, fused = a
            i, o = _find(loops, inner, stage_name, d), _find(loops, outer, stage_name, d)
            if o != i - 1:
                raise HalideError(
                    f"{d.site}: In schedule for {stage_name}: can't fuse '{inner}' and '{outer}': "
                    f"'{outer}' must be the loop immediately outside '{inner}'"
                )
            li, lo = loops[i], loops[o]
            loops[o : i + 1] = [
                Loop(
                    fused,
                    f"{li.path.rsplit('.', 1)[0]}.{fused}" if "." in li.path else f"{li.path}.{fused}",
                    lo.parts + li.parts,
                    lo.extent * li.extent,
                    constant=lo.constant and li.constant,
                    exact=lo.exact and li.exact,
                    part_extents=_part_extents(lo) + _part_extents(li),
                )
            ]
        elif k == DirectiveKind.REORDER:
            idx = [_find(loops, v, stage_name, d) for v in a]
            if len(set(idx)) != len(idx):
                raise HalideError(f"{d.site}: In schedule for {stage_name}: reorder names a loop twice")
            chosen = [loops[i] for i in idx]  # innermost first
            for pos, l in zip(sorted(idx), reversed(chosen)):
                loops[pos] = l
        elif k in LOOP_KIND_OF:
            i = _find(loops, a[0], stage_name, d)
            kind = LOOP_KIND_OF[k]
            if kind == LoopKind.UNROLLED and len(loops[i].parts) > 1:
                raise HalideError(
                    f"{d.site}: In schedule for {stage_name}: {k} of the fused loop '{a[0]}' is "
                    f"not supported yet; split it first"
                )
            loops[i] = replace(loops[i], kind=kind)
        elif k == DirectiveKind.BOUND:  # the region is set in analysis/bounds.py; the loop's extent becomes a constant
            i = next((i for i, l in enumerate(loops) if l.name == a[0]), None)
            if i is not None and len(loops[i].parts) == 1 and loops[i].stride == 1:
                loops[i] = replace(loops[i], constant=True, exact=True, extent=a[2])
        elif k == DirectiveKind.PARTITION:  # the loop's policy: analysis/small_directives.py
            _find(loops, a[0], stage_name, d)
        elif k in (DirectiveKind.BOUND_EXTENT, DirectiveKind.ALIGN):  # the region (analysis/bounds.py)
            pass
        elif k == DirectiveKind.PREFETCH:  # no loop changes: analysis/prefetch.py checks its loops
            pass
        elif k == DirectiveKind.RENAME:  # a name only (lang/rename.py): the loop must exist
            _find(loops, a[0], stage_name, d)
        elif k in GPU_DIRECTIVES:  # the loop stays; analysis/gpu.py maps it to GPU blocks or threads
            for v in a:
                _find(loops, v, stage_name, d)
        else:
            raise HalideError(f"{d.site}: Func '{stage_name}': the '{k}' schedule directive is not supported yet")
    return loops


def serialize_nested_parallel(loops: list[Loop], inside_parallel: bool, at_loops=frozenset()) -> list[Loop]:
    """Nested parallel loops of one stage, as Halide runs them (each in parallel): the outermost parallel loop
    and the parallel loops directly inside it become ONE parallel loop over their collapsed iteration space
    (a multi-dimensional ``scf.forall``, OpenMP's collapsed ``omp.wsloop``): conv_layer's ``parallel(co)``
    of 2 iterations with ``parallel(n)``, ``parallel(y)`` inside is one loop of 2 * n * y. Such a group is
    the run of adjacent parallel loops from the outermost one, over distinct dims, ending at a loop some
    producer is computed or stored at (``at_loops``: the producer runs once per iteration of that loop, so
    the loops inside it can't join the outer ones). Every other nested parallel loop (after a serial loop,
    or in a producer computed inside a parallel loop) runs serially: a nested ``omp.parallel`` runs on one
    thread anyway (and forks per outer iteration), and MLIR's async runtime blocks a worker on each nested
    parallel loop (with as many workers as cores, nested loops deadlock). Adjacent parallel loops of the
    result are one group (loop_schedule.py and tiling.py collapse them)."""
    out: list[Loop] = []
    group_open, group_dims = False, set()
    for i, l in enumerate(loops):
        if l.kind == LoopKind.PARALLEL:
            dims = {d for d, _ in l.parts}
            if inside_parallel and not (group_open and _collapsible(loops, i, group_dims)):
                l = replace(l, kind=LoopKind.SERIAL)
                group_open = False
            else:
                group_dims |= dims
                group_open = l.name not in at_loops
            inside_parallel = True
        else:
            group_open = False
        out.append(l)
    return out


def _collapsible(loops: list[Loop], i: int, group_dims: set) -> bool:
    """Can ``loops[i]`` join the parallel loops just outside it in one forall? Its dims must be new to the
    group, no loop outside it may be finer along them (it would not be materialized: its tile is one
    iteration, loop_schedule.py), and it must not be a lane of a vectorized loop (finer than it)."""
    l = loops[i]
    for d, s in l.parts:
        if d in group_dims or any(dd == d and ss < s for m in loops[:i] for dd, ss in m.parts):
            return False
        if any(m.kind == LoopKind.VECTORIZED and any(dd == d and ss > s for dd, ss in m.parts) for m in loops):
            return False
    return True


def parallel_groups(loops: list[Loop]) -> list[tuple[int, int]]:
    """(first, last) indices of each run of adjacent parallel loops in ``loops`` (after
    serialize_nested_parallel: the loops that run as one collapsed parallel loop)."""
    groups: list[tuple[int, int]] = []
    for i, l in enumerate(loops):
        if l.kind != LoopKind.PARALLEL:
            continue
        if groups and groups[-1][1] == i - 1:
            groups[-1] = (groups[-1][0], i)
        else:
            groups.append((i, i))
    return groups


def update_loops(
    stage: Stage, u: Update, extents: Sequence[int] | None = None, directives: Sequence[Directive] | None = None
) -> list[Loop]:
    """An update's loop nest: its RVars are the innermost dims (r.x first), then the pure Vars.
    ``directives``: the update's schedule (default: the user's)."""
    names = [r.name() for r in u.rvars] + list(stage.vars)
    return stage_loops(
        f"{stage.name}.update({u.index})", names, extents, u.schedule.directives if directives is None else directives
    )


def definition_loop_names(stage: Stage) -> list[list[str]]:
    """The loops of each definition of ``stage`` as the user scheduled them, outermost first: the pure
    definition's, then each update's."""
    pure = [l.name for l in stage_loops(stage.name, stage.vars, None, stage.directives)]
    return [pure] + [[l.name for l in update_loops(stage, u)] for u in stage.updates]


def loop_position(stage: Stage, var: str) -> tuple[int, int] | None:
    """(definition, loop index) of loop ``var`` of ``stage`` in the first definition that has it, or None.
    A producer computed at an update's loop (an RVar's, say) is legal in Halide; ours computes it before
    all of a consumer's loop nests when the consumer has updates (placement.py hoist_from_loops), same values."""
    for k, names in enumerate(definition_loop_names(stage)):
        if var in names:
            return k, names.index(var)
    return None


def covered_extents(loops: list[Loop], extents: Sequence[int]) -> list[int]:
    """Per Halide dim, a static upper bound of what one iteration of the innermost of ``loops`` covers."""
    covered = list(extents)
    for l in loops:
        for dim, stride in l.parts:
            covered[dim] = min(covered[dim], stride)
    return covered


def lanes_moved_in(loops: list[Loop]) -> list[Loop]:
    """``loops`` (outermost first) as they run: the finer loops of a vectorized loop's dimension that are outside
    it become its lanes (vector_block), so they run inside it and inside every loop between; an iteration of
    such a loop between covers their elements too (bounds.py computed_region)."""
    vec = [i for i, l in enumerate(loops) if l.kind == LoopKind.VECTORIZED]
    if not vec:
        return loops
    v = vec[0]
    _, lanes, blockers = vector_block(loops, v)
    finer = [l for l in lanes if l in loops[:v]]
    if blockers or not finer:
        return loops
    rest = [l for l in loops if l not in finer]
    at = rest.index(loops[v]) + 1
    return rest[:at] + finer + rest[at:]


MAX_VECTOR_LANES = 1024  # elements of one vector block made of several loops (1 KiB of u8, 64 zmm of f32)


def vector_block(loops: list[Loop], v: int, n_rvars: int = 0) -> tuple[list[Loop], list[Loop], list[Loop]]:
    """How the vectorized loop ``loops[v]`` runs as one vector: returns (loops to materialize around it,
    outermost first; loops whose iterations become lanes too; loops that can't be lanes, fused ones: the
    vector can't be made when there are any). A parallel loop among the lanes runs as lanes (the caller warns).

    Halide runs the loops inside a vectorized loop once per vector, and a vectorized loop whose iterations
    step s elements apart reads lanes s apart, the finer loops of its dimension running around it. The
    vectorizer here makes contiguous vectors, so those loops become lanes of one vector block (pure Funcs give
    the same values in any order; the size is checked against MAX_VECTOR_LANES by the caller). RVar loops
    inside the vectorized loop are moved outside it instead: each point still sees its reduction in order,
    and Halide's update rule (the same pure Vars in every self-reference) makes the points independent."""
    vl = loops[v]  # (a fuse()d vectorized loop: lanes over each of its parts)

    def finer_than_vl(dim, stride) -> bool:
        return any(dim == d and stride < s for d, s in vl.parts)

    finer = [l for l in loops[:v] if len(l.parts) == 1 and finer_than_vl(l.dim, l.stride)]
    inner = loops[v + 1 :]
    rvar_loops = [l for l in inner if len(l.parts) == 1 and l.dim < n_rvars]
    lanes = finer + [l for l in inner if l not in rvar_loops]
    blockers = [l for l in lanes if len(l.parts) > 1]
    # a fused loop finer than the vectorized one would cut the block
    blockers += [l for l in loops[:v] if len(l.parts) > 1 and any(finer_than_vl(d, st) for d, st in l.parts)]
    return [l for l in loops[:v] if l not in finer] + rvar_loops, lanes, blockers
