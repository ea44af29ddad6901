"""A one-shot automatic schedule from a simple cost model (``Pipeline.apply_autoscheduler``), as opposed to the
measured search of search.py. It is what the Halide paper's baseline "breadth-first, parallel, vectorized"
schedules do, with the inlining decision made per Func:

* Inline or root: a Func with update definitions is computed at root (it can't be inlined). Otherwise inlining
  costs its expression once more per extra distinct call site in its consumers (a 3-tap stencil computes it 3
  times); computing it at root costs a store and a load per element. Inline when
  ``cost * (taps - 1) <= ROOT_COST`` -- pointwise chains and cheap Funcs fold into their consumers, stencil
  producers of any weight are stored.
* Tiled fusion: a stored stencil producer read by one 2-D consumer only (no updates on either) is computed per
  TILE_X x TILE_Y tile of that consumer (``compute_at(consumer, xo)``, the blur app's schedule): its values are
  used while they are in cache, and the consumer's tiles run in parallel.
* Every other root Func: the outermost pure dimension runs ``parallel`` (MLIR's async runtime splits it into one
  block per worker), dimension 0 is ``vectorize``d at the kernel's natural width (analysis/vectorize.py:
  registers filled at the narrowest varying type).
* A reduction update whose left-hand side keeps the pure x: its pure x loop moves inside the reduction loops
  (always legal: pure coordinates are independent) and is vectorized; its outermost pure dimension is parallel.
  Scatters and scans keep their serial loops.

The result is a plan in search.py's format (space.py), so it applies through the public schedule calls and prints
as code the user can paste.
"""
from __future__ import annotations

from ..analysis.vectorize import natural_lanes
from ..lang.traversal import walk
from .space import FuncInfo, pipeline_funcs

ROOT_COST = 8  # a store plus a load per element, in expression nodes
TILE_X, TILE_Y = 256, 32  # a fused producer's tile (plus halo) stays in L2


def _definition_exprs(f) -> list:
    exprs = list(f._definition().values)
    for u in f.updates():
        exprs += [*u.args, *u.values, *u.predicates()]
    return exprs


def expression_cost(f) -> int:
    """Nodes of the pure definition: operations and loads."""
    return sum(1 for v in f._definition().values for _ in walk(v))


def call_sites(producer, consumers) -> int:
    """Distinct argument lists ``producer`` is called with, over all ``consumers``."""
    sites = set()
    for c in consumers:
        for e in _definition_exprs(c):
            for n in walk(e):
                if n.kind == "call" and n.value is producer:
                    sites.add((id(c), tuple(str(a) for a in n.args)))
    return len(sites)


def _reduction_update(info: FuncInfo, k: int) -> bool:
    """Update ``k`` writes at the pure Vars themselves, in order (no scatter, no scan)."""
    u = info.func.updates()[k]
    return all(a.kind == "var" and a.value.name() == v for a, v in zip(u.args, info.vars))


def _fresh(infos: list[FuncInfo], var: str) -> tuple[str, str]:
    """Names for the outer and inner loops of a tiled ``var`` that no Func uses."""
    names = {v for i in infos for v in i.vars} | {r for i in infos for _, rs in i.updates for r in rs}
    o, i = f"{var}o", f"{var}i"
    while o in names or i in names:
        o, i = o + "_", i + "_"
    return o, i


def _tile_groups(infos: list[FuncInfo], root: list[FuncInfo]) -> dict:
    """producer index -> consumer index, for the stored producers computed per tile of their consumer."""
    stored = {i.index for i in root}
    groups = {}
    for info in root:
        if info.is_output or info.updates or len(info.consumers) != 1 or len(info.vars) != 2:
            continue
        consumer = infos[info.consumers[0]]
        if consumer.index not in stored or consumer.updates or len(consumer.vars) != 2 or consumer.index in groups:
            continue
        groups[info.index] = consumer.index
    # a producer's own producers stay at the root: one level of fusion per consumer
    return {p: c for p, c in groups.items() if p not in groups.values()}


def auto_schedule(output, parallelism: int | None = None) -> tuple[list[FuncInfo], list]:
    """``(infos, plan)`` for ``output``'s pipeline; apply with space.apply_plan, print with space.plan_code."""
    infos = pipeline_funcs(output)
    root = []
    plan: list = []
    for info in infos:
        f = info.func
        if info.is_output or info.updates:
            root.append(info)
            continue
        taps = call_sites(f, [infos[c].func for c in info.consumers])
        if expression_cost(f) * (taps - 1) > ROOT_COST:
            root.append(info)
            plan.append((info.index, None, "compute_root", ()))
    fused = _tile_groups(infos, root)
    parallel = parallelism is None or parallelism > 1
    for info in root:
        f = info.func
        lanes = natural_lanes(list(f._definition().values), f.output_types(), info.vars[0]) if info.vars else 0
        if info.index in fused.values():
            x, y = info.vars
            (xo, xi), (yo, yi) = _fresh(infos, x), _fresh(infos, y)
            plan.append((info.index, None, "tile", (x, y, xo, yo, xi, yi, TILE_X, TILE_Y)))
            if parallel:
                plan.append((info.index, None, "parallel", (yo,)))
            plan.append((info.index, None, "vectorize", (xi, lanes)))
            continue
        if info.index in fused:
            consumer = fused[info.index]
            plan.remove((info.index, None, "compute_root", ()))
            plan.append((info.index, None, "compute_at", (("func", consumer), _fresh(infos, infos[consumer].vars[0])[0])))
            plan.append((info.index, None, "vectorize", (info.vars[0], lanes)))
            continue
        if len(info.vars) > 1 and parallel:
            plan.append((info.index, None, "parallel", (info.vars[-1],)))
        if info.vars:
            plan.append((info.index, None, "vectorize", (info.vars[0], lanes)))
        for k, (pure, rvars) in enumerate(info.updates):
            if not _reduction_update(info, k) or info.vars[0] not in pure:
                continue
            outer = [v for v in reversed(info.vars) if v in pure and v != info.vars[0]]
            if rvars:
                order = [info.vars[0], *[("rvar", j) for j in range(len(rvars))], *reversed(outer)]
                plan.append((info.index, k, "reorder", tuple(order)))
            if outer and (parallelism is None or parallelism > 1):
                plan.append((info.index, k, "parallel", (outer[0],)))
            plan.append((info.index, k, "vectorize", (info.vars[0], lanes)))
    return infos, plan
