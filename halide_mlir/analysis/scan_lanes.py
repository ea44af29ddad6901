"""How a scatter's or scan's explicit loops (codegen/updates.py) run a vectorized pure Var: which loop becomes the
lanes of a vector, and which reads and the store move those lanes as one contiguous vector.

Halide's update rule makes the iterations of a pure Var's loop independent (the Var is at its own position in
the LHS and in every self-reference), so a scan ``blur[x, r] = a * blur[x, r - 1] + b * in[x, r]`` carries its
dependence along ``r`` only: its ``x`` loop can be the lanes of a vector (``vectorize``) and another pure loop
can run in parallel, with the RVar loop inside or outside them, as the schedule orders them.

A coordinate whose lanes are consecutive (the lane Var, stride 1, in the first argument only, with coefficient
1; the other arguments uniform across the lanes) is one ``vector.transfer_read``/``transfer_write`` of a row;
any other is a ``vector.gather``/``vector.scatter`` (codegen/vector_updates.py). Decided once here; codegen
prints it."""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.debugging import tracing
from ..lang.schedule import LoopKind
from ..lang.traversal import walk
from .affine import affine_form
from .loop_nest import Loop

MAX_LANES = 1024
STORE = "store"  # the key of the update's own store in ScanLanes.dense


@dataclass(frozen=True)
class ScanLanes:
    """The vectorized loop of an explicit-loop update."""

    loop: str  # its name
    lanes: int
    dim: int  # the update's loop dim (RVar i, or n_rvars + d for pure Var d)
    stride: int
    # id() of each call (and STORE) read or written as one contiguous vector -> per argument ({dim: coef},
    # constant) over the dims' coordinates (loop dims relative to their min; the mins are in the constant)
    dense: dict


def split_guards(nest) -> list:
    """(the loops of one dim finer than a loop of stride s, s) wherever those finer loops reach s or past it: a
    split of a split's inner loop by a factor that does not divide it (``unroll(yi, 4)`` of a ``yi`` of 2).
    Halide guards each split by its parent's extent -- the stride of the loop it splits off -- so the points
    where tiles overlap are skipped, not updated twice (a scatter's ``+=`` would count them twice).
    ``nest``: (name, iterations, kind, dim, stride) per loop, outermost first."""
    # (a loop of one iteration is skipped on both sides: a factor above its parent's extent makes a one-iteration
    # outer loop whose stride says nothing of the tree; among the others, a finer stride is a split inside)
    loops = [(name, e, d, st) for name, e, _, d, st in nest if e > 1]
    out = []
    for _, _, d, s in loops:
        finer = [(name, e, st) for name, e, dd, st in loops if dd == d and st < s]
        if sum((e - 1) * st for _, e, st in finer) >= s:
            out.append(([(name, st) for name, _, st in finer], s))
    return out


def update_nest(stage, loops, region, rvar_range, u):
    """The update's explicit loops as the plan orders them (outermost first), each (name, iterations, kind, dim,
    stride), a dim being an RVar (its index) or a pure Var of the LHS (``n_rvars + d``); per dim its (min, extent)
    and whether the loops overshoot it (a split that does not divide: Halide's guard)."""
    n_r = len(u.rvars)
    lhs = {d for d, a in enumerate(u.args) if a.kind == "var" and a.value.name() == stage.vars[d]}
    span = {i: rvar_range(r) for i, r in enumerate(u.rvars)}
    span.update({n_r + d: (region.mins[d], region.extents[d]) for d in lhs})
    if any(len(l.parts) > 1 for l in loops):  # a fuse()d loop: Halide's default order (same values)
        loops = []
    if not loops:
        loops = [Loop(stage.vars[d], stage.vars[d], ((n_r + d, 1),), region.extents[d]) for d in sorted(lhs)[::-1]]
        loops += [Loop(r.name(), r.name(), ((i, 1),), span[i][1]) for i, r in reversed(list(enumerate(u.rvars)))]
    nest = [(l.name, l.extent, l.kind, l.dim, l.stride) for l in loops if l.dim in span]
    over = {dim for dim in span if sum((e - 1) * st for _, e, _, d, st in nest if d == dim) >= span[dim][1]}
    return nest, span, over


def _traces(update, func) -> bool:
    """Prints or traces: their events are per point, and the vector body has no per-lane calls."""
    if "stores" in tracing(func):
        return True
    for e in [*update.values, *update.predicates, *update.args]:
        for node in walk(e):
            if node.kind == "print" or (node.kind == "call" and "loads" in tracing(node.value)):
                return True
    return False


def scan_lanes(stage, u, nest, span) -> ScanLanes | None:
    """The lanes of the update's explicit loops ``nest`` ((name, iterations, kind, dim, stride), outermost
    first; ``span``: dim -> (min, extent) of the dims the loops cover), or None where its vectorized loop (if
    any) runs as a serial scalar loop: an RVar's (its iterations depend on each other), a split guarded inside
    (split_guards), lanes inside an RVar's parallel loop (atomic(): each store an atomic read-modify-write),
    prints and traces, more than MAX_LANES lanes."""
    n_r = len(u.rvars)
    lane = next((l for l in nest if l[2] == LoopKind.VECTORIZED), None)
    if lane is None:
        return None
    name, n, _, vdim, vstride = lane
    par = next((l for l in nest if l[2] == LoopKind.PARALLEL), None)
    if vdim < n_r or vdim not in span or n > MAX_LANES or split_guards(nest) or _traces(u, stage.func):
        return None
    if par is not None and par[3] < n_r:
        return None
    dim_of = {r.name(): i for i, r in enumerate(u.rvars)} | {v: n_r + d for d, v in enumerate(stage.vars)}
    base_of = {r.name(): span[i][0] for i, r in enumerate(u.rvars)}
    base_of |= {v: span[n_r + d][0] for d, v in enumerate(stage.vars) if n_r + d in span}
    dense = {}
    if vstride == 1:
        calls = [node for e in [*u.values, *u.predicates] for node in walk(e) if node.kind == "call"]
        for key, args in [*((id(c), c.args) for c in calls), (STORE, u.args)]:
            forms = _dense_forms(args, vdim, dim_of, base_of)
            if forms is not None:
                dense[key] = forms
    return ScanLanes(name, n, vdim, vstride, dense)


def _dense_forms(args, vdim, dim_of, base_of) -> list | None:
    """The arguments' affine forms if the lanes' points are consecutive in memory (first argument innermost)."""
    if not args or any(m.kind == "call" for a in args for m in walk(a)):
        return None
    if any(m.kind in ("var", "rvar") and m.value.name() not in base_of for a in args for m in walk(a)):
        return None  # (a Var no loop covers)
    forms = [affine_form(a, dim_of, base_of) for a in args]
    if any(f is None for f in forms):
        return None
    if forms[0][0].get(vdim, 0) != 1 or any(f[0].get(vdim, 0) for f in forms[1:]):
        return None
    return forms


def parallel_slice(u, nest, span, over) -> tuple | None:
    """(dim, size) of the slice of the Func one iteration of the update's parallel loop writes, where that loop
    is a pure Var's (its iterations touch disjoint points: Halide's update rule) and the slices are static and
    inside the Func (no guard on that dim): the loops then stay on tensors, the parallel one an ``scf.forall``
    whose iterations update their slice in place (``tensor.parallel_insert_slice``). None: an RVar's parallel
    loop (``atomic()``) or tiles that do not divide the dim, whose loops store into a copy of the Func's buffer."""
    par = next((i for i, l in enumerate(nest) if l[2] == LoopKind.PARALLEL), None)
    if par is None:
        return None
    _, _, _, pd, s = nest[par]
    if pd < len(u.rvars) or pd in over:
        return None
    outside = sum((e - 1) * st for i, (_, e, _, d, st) in enumerate(nest) if d == pd and i <= par)
    inside = sum((e - 1) * st for i, (_, e, _, d, st) in enumerate(nest) if d == pd and i > par)
    if inside >= s or outside + s > span[pd][1]:
        return None
    return pd, s
