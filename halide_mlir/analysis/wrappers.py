"""Wrapper substitution (Halide's ``wrap_func_calls``): each Func's calls to a wrapped Func or ImageParam become
calls to the wrapper named for that Func (``f.in_(g)``, ``f.clone_in(g)``), else to the global wrapper
(``f.in_()``), except in the wrapped Func itself and in its wrappers (which still call it). Done per Func before
inlining, as Halide does, so a wrapper for an inline Func applies to the calls it makes."""

from __future__ import annotations

from ..error import HalideError
from ..lang.expr import Expr
from ..lang.traversal import rebuild
from ..lang.wrappers import GLOBAL, wrappers_of

_MAX_CHAIN = 64  # f.in_(g).in_(g)...: each level wraps the one before


class Wrapping:
    """The substitutions made while one pipeline is built, to check afterwards that each custom wrapper was used
    (Halide refuses ``f.in_(g)`` when g, in the pipeline, does not call f)."""

    def __init__(self):
        self.consumers: dict = {}  # id -> Func whose definitions were wrapped (every Func of the pipeline)
        self.callees: dict = {}  # id -> Func or ImageParam called by one of them
        self.applied: set = set()  # (id(callee), id(consumer)) of the custom wrappers substituted

    def _target(self, callee, consumer):
        reg = wrappers_of(callee)
        if reg is None:
            return None
        w = reg.get(consumer)
        if w is not None:
            self.applied.add((id(callee), id(consumer)))
            return w
        g = reg.get(GLOBAL)
        if g is not None and callee is not consumer and not any(consumer is x for x in reg.wrappers()):
            return g
        return None

    def wrap(self, consumer, e: Expr) -> Expr:
        """``e`` (from a definition of ``consumer``) with its calls redirected to their wrappers."""
        self.consumers[id(consumer)] = consumer
        if not any(wrappers_of(n.value) is not None for n in _calls(e)):
            for n in _calls(e):
                self.callees[id(n.value)] = n.value
            return e

        def leaf(n: Expr, args) -> Expr | None:
            if n.kind != "call":
                return None
            value = n.value
            self.callees[id(value)] = value
            for _ in range(_MAX_CHAIN):
                w = self._target(value, consumer)
                if w is None:
                    break
                value = w
                self.callees[id(value)] = value
            if value is n.value:
                return None
            r = Expr(n.kind, n.type, args, value)
            r.site, r.index = n.site, n.index
            return r

        return rebuild(e, leaf)

    def check(self) -> None:
        for callee in self.callees.values():
            reg = wrappers_of(callee)
            if reg is None:
                continue
            for c, w in reg.custom():
                if id(c) in self.consumers and (id(callee), id(c)) not in self.applied:
                    name = callee.name() if hasattr(callee, "_pure") else f"{callee.name()}_im"
                    site = getattr(w, "_wrap_site_", None)
                    at = f"{site}: " if site is not None else ""
                    raise HalideError(
                        f'{at}Cannot wrap "{name}" in "{c.name()}" because "{c.name()}" does not '
                        f"call \"{name}\" (wrapper '{w.name()}')"
                    )


def _calls(e: Expr):
    stack = [e]
    while stack:
        n = stack.pop()
        if n.kind == "call":
            yield n
        stack.extend(n.args)
