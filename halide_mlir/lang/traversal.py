"""Walking Expr trees: every node, and which Vars and RVars they mention."""

from __future__ import annotations


def free_vars(e) -> list[str]:
    """The Vars an Expr mentions, in first-use order (as Halide's inline reductions order their Func's args:
    ``hl.sum(b[x + r.x, y])`` is a Func over (x, y), stored x-major like its consumer)."""
    return list(dict.fromkeys(n.value.name() for n in walk(e) if n.kind == "var"))


def walk(e):
    """Every node of an Expr tree, parents before children."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.args))


def free_rvars(e) -> list:
    """The RVars an Expr mentions, in first-use order."""
    seen: dict = {}
    for n in walk(e):
        if n.kind == "rvar":
            seen.setdefault(id(n.value), n.value)
    return list(seen.values())
