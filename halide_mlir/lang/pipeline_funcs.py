"""The Funcs a Pipeline reaches from its outputs, in Halide's topological order (``Pipeline.get_func``)."""

from __future__ import annotations

from .traversal import walk


def _callees(f) -> list:
    from .func import Func

    if not f.defined():
        return []
    exprs = [*f._definition().values, *(x for u in f.updates() for x in (*u.args, *u.values))]
    out: list = []
    for e in exprs:
        for n in walk(e):
            if n.kind == "call" and isinstance(n.value, Func) and n.value is not f and n.value not in out:
                out.append(n.value)
    return sorted(out, key=lambda g: g.name())  # (Halide's graph holds callees in sets of names)


def topological_funcs(outputs) -> list:
    """Depth-first post order from the outputs, callees by name: every producer before its consumers."""
    order: list = []
    seen: set = set()

    def visit(f):
        if id(f) in seen:
            return
        seen.add(id(f))
        for g in _callees(f):
            visit(g)
        order.append(f)

    for f in outputs:
        visit(f)
    return order
