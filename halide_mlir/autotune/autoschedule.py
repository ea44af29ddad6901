"""A one-shot automatic schedule from a simple cost model (``Pipeline.apply_autoscheduler``), as opposed to the
measured search of search.py. It makes the choices of the Halide paper's hand schedules -- what to inline, what to
store, what to compute per tile of what, what runs in parallel and in vectors -- with rules instead of search:

* Inline or store: a Func with update definitions is stored (it can't be inlined). Otherwise inlining recomputes
  its expression (with the Funcs inlined into it) once per distinct coordinate its consumers read it at (a 3-tap
  stencil computes it 3 times); storing costs a store and a load per element. Inline when
  ``cost * (taps - 1) <= ROOT_COST``: pointwise chains and cheap Funcs fold into their consumers, stencil
  producers of any weight are stored.
* Fusion: stored Funcs are grouped with the consumer all their uses lead to (Mullapudi et al.'s groups, one rule
  deep): a stored stencil producer whose consumers all belong to the group of a 2-D or 3-D consumer without
  updates is computed per tile of that consumer -- 256x32 tiles of a 2-D consumer (the blur app's schedule), strips
  of 32 rows of a 3-D one (the unsharp app's) -- so its values are used while they are in cache.
* Every group's consumer and every other stored Func: the tiles, strips or outermost pure dimension run
  ``parallel`` (OpenMP splits them into one block per thread); dimension 0 is ``vectorize``d at the
  kernel's natural width (analysis/vectorize.py: registers filled at the narrowest varying type).
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
STRIP = 32  # rows per strip of a 3-D consumer


def _definition_exprs(f) -> list:
    exprs = list(f._definition().values)
    for u in f.updates():
        exprs += [*u.args, *u.values, *u.predicates()]
    return exprs


def expression_cost(f, inlined_cost: dict) -> int:
    """Nodes of the pure definition (operations and loads), a call to an inlined Func counting as its cost."""
    return sum(
        inlined_cost.get(id(n.value), 1) if n.kind == "call" else 1 for v in f._definition().values for n in walk(v)
    )


def call_sites(producer, consumers) -> int:
    """Distinct coordinates ``producer`` is read at by ``consumers`` (``f[x, y]`` read by two pointwise consumers
    that are themselves inlined into one is one site); a read that does not use all of its consumer's Vars
    (``ratio[x, y]`` in ``out[x, y, c]``) is repeated along the others, so it counts twice."""
    sites = set()
    for c in consumers:
        for e in _definition_exprs(c):
            for n in walk(e):
                if n.kind == "call" and n.value is producer:
                    used = {m.value.name() for a in n.args for m in walk(a) if m.kind == "var"}
                    key = tuple(str(a) for a in n.args)
                    sites.add(key)
                    if any(v.name() not in used for v in c.args()):
                        sites.add(key + ("repeated",))
    return len(sites)


def _reduction_update(info: FuncInfo, k: int) -> bool:
    """Update ``k`` writes at the pure Vars themselves, in order (no scatter, no scan)."""
    u = info.func.updates()[k]
    return all(a.kind == "var" and a.value.name() == v for a, v in zip(u.args, info.vars))


def _fresh(infos: list[FuncInfo], var: str) -> tuple[str, str]:
    """Names for the outer and inner loops of a split ``var`` that no Func uses."""
    names = {v for i in infos for v in i.vars} | {r for i in infos for _, rs in i.updates for r in rs}
    o, i = f"{var}o", f"{var}i"
    while o in names or i in names:
        o, i = o + "_", i + "_"
    return o, i


def _groups(infos: list[FuncInfo], stored: set) -> dict:
    """Func index -> the index of the consumer it is computed per tile of, for every fused stored Func. Consumers
    are visited before their producers, so a chain (gray -> blur_y -> blur_x -> output) joins one group."""
    group: dict = {}  # stored Func -> its group's consumer (itself for a group's consumer)
    fused: dict = {}
    for info in reversed(infos):
        if info.index not in stored:
            continue
        owners = {group.get(c) for c in _stored_consumers(infos, info, stored)}
        if not info.is_output and not info.updates and len(owners) == 1 and None not in owners and len(info.vars) == 2:
            group[info.index] = fused[info.index] = owners.pop()
        elif not info.updates and len(info.vars) in (2, 3):
            group[info.index] = info.index
    return fused


def _stored_consumers(infos: list[FuncInfo], info: FuncInfo, stored: set) -> set:
    """The stored Funcs that read ``info``, looking through inlined consumers."""
    out, todo = set(), list(info.consumers)
    while todo:
        c = todo.pop()
        if c in stored:
            out.add(c)
        else:
            todo.extend(infos[c].consumers)
    return out


def auto_schedule(output, parallelism: int | None = None) -> tuple[list[FuncInfo], list]:
    """``(infos, plan)`` for ``output``'s pipeline; apply with space.apply_plan, print with space.plan_code."""
    infos = pipeline_funcs(output)
    stored: set = set()
    inlined_cost: dict = {}
    for info in infos:  # producers first: the cost of what is inlined into a Func is known when it is reached
        f = info.func
        cost = expression_cost(f, inlined_cost)
        if (
            info.is_output
            or info.updates
            or cost * (call_sites(f, [infos[c].func for c in info.consumers]) - 1) > ROOT_COST
        ):
            stored.add(info.index)
        else:
            inlined_cost[id(f)] = cost
    fused = _groups(infos, stored)
    consumers = set(fused.values())
    parallel = parallelism is None or parallelism > 1
    plan: list = []
    at_loop = {}  # group consumer -> the loop its producers are computed at
    for info in reversed(infos):  # consumers first, so at_loop is known for their producers
        if info.index not in stored:
            continue
        f = info.func
        lanes = natural_lanes(list(f._definition().values), f.output_types(), info.vars[0]) if info.vars else 0
        calls = []
        if info.index in fused:
            calls.append(("compute_at", (("func", fused[info.index]), at_loop[fused[info.index]])))
        elif not info.is_output:
            calls.append(("compute_root", ()))
        if info.index in consumers and len(info.vars) == 2:
            x, y = info.vars
            (xo, xi), (yo, yi) = _fresh(infos, x), _fresh(infos, y)
            calls.append(("tile", (x, y, xo, yo, xi, yi, TILE_X, TILE_Y)))
            calls += [("parallel", (yo,))] if parallel else []
            calls.append(("vectorize", (xi, lanes)))
            at_loop[info.index] = xo
        elif info.index in consumers:
            x, y, *rest = info.vars
            yo, yi = _fresh(infos, y)
            calls += [("split", (y, yo, yi, STRIP)), ("reorder", (x, *rest, yi, yo))]
            calls += [("parallel", (yo,))] if parallel else []
            calls.append(("vectorize", (x, lanes)))
            at_loop[info.index] = yo
        else:
            if len(info.vars) > 1 and parallel and info.index not in fused:
                calls.append(("parallel", (info.vars[-1],)))
            if info.vars:
                calls.append(("vectorize", (info.vars[0], lanes)))
        plan += [(info.index, None, m, a) for m, a in calls]
        for k, (pure, rvars) in enumerate(info.updates):
            if not _reduction_update(info, k) or info.vars[0] not in pure:
                continue
            outer = [v for v in reversed(info.vars) if v in pure and v != info.vars[0]]
            if rvars:
                order = [info.vars[0], *[("rvar", j) for j in range(len(rvars))], *reversed(outer)]
                plan.append((info.index, k, "reorder", tuple(order)))
            if outer and parallel:
                plan.append((info.index, k, "parallel", (outer[0],)))
            plan.append((info.index, k, "vectorize", (info.vars[0], lanes)))
    # producers first, as a user writes it (each Func's calls stay together and in order)
    order = {i: n for n, i in enumerate(sorted({fi for fi, *_ in plan}))}
    plan.sort(key=lambda c: order[c[0]])
    return infos, plan
