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


def rebuild(e, leaf, memo: dict | None = None):
    """``e`` rebuilt bottom-up: ``leaf(node, new_args)`` returns a replacement, or None to keep the node (a copy
    when an argument changed). Shared subtrees are rebuilt once; the memo keeps each visited node alive, so its id
    is not reused meanwhile (pass one memo to share it across calls)."""
    memo = {} if memo is None else memo

    def go(n):
        hit = memo.get(id(n))
        if hit is not None and hit[0] is n:
            return hit[1]
        args = tuple(go(a) for a in n.args)
        r = leaf(n, args)
        if r is None:
            r = n if all(a is b for a, b in zip(args, n.args)) else n.copy_with(args)
        memo[id(n)] = (n, r)
        return r

    return go(e)


def replace_nodes(e, fn):
    """``e`` with each node ``n`` for which ``fn(n)`` is not None replaced by it, top-down (the replacement is not
    visited); the rest rebuilt where an argument changed, shared subtrees once."""
    memo: dict = {}

    def go(n):
        hit = memo.get(id(n))
        if hit is not None and hit[0] is n:
            return hit[1]
        r = fn(n)
        if r is None:
            args = tuple(go(a) for a in n.args)
            r = n if all(a is b for a, b in zip(args, n.args)) else n.copy_with(args)
        memo[id(n)] = (n, r)
        return r

    return go(e)


class Structures:
    """Numbers that equal subtrees share (hash-consing): ``of(e)``. Nodes for which ``distinct(node)`` holds (a
    side effect, an event per node) keep numbers of their own, and ``impure(e)`` says whether a subtree holds one."""

    def __init__(self, distinct=lambda e: False) -> None:
        self.distinct = distinct
        self.shapes: dict = {}  # structure -> its number
        self.keys: dict = {}  # id(e) -> (e, its number): e is kept alive so its id stays unique
        self.impures: set = set()  # numbers of subtrees holding a distinct node

    def of(self, e) -> int:
        hit = self.keys.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        k, v = e.kind, e.value
        args = tuple(self.of(a) for a in e.args)
        if self.distinct(e):
            shape: tuple = ("id", id(e))
        else:
            if k in ("var", "rvar"):
                v = v.name()
            elif not (v is None or isinstance(v, (bool, int, float, str))):
                v = ("id", id(v))  # a Func, Buffer, Param: alive as long as e is
            elif isinstance(v, float):
                v = (repr(v),)  # -0.0 and nan are distinct values here
            shape = (k, e.type, type(v).__name__, v, e.index, args)
        n = self.shapes.setdefault(shape, len(self.shapes))
        if shape[0] == "id" or any(a in self.impures for a in args):
            self.impures.add(n)
        self.keys[id(e)] = (e, n)
        return n

    def impure(self, e) -> bool:
        return self.of(e) in self.impures
