"""Pure variables (``hl.Var``). Two Vars with the same name are the same variable, as in Halide."""

from __future__ import annotations

import itertools

from .expr import Expr, ExprOps
from .schedule import OUTERMOST
from .types import Int

_fresh = itertools.count()


class Var(ExprOps):
    def __init__(self, *args, **kwargs):
        """``hl.Var()`` or ``hl.Var(name)`` (positional only, as in Halide)."""
        from . import overloads as o

        _, a = o.match("Var", args, kwargs, [], [o.Arg("name", o.is_str, keyword=False)])
        name = a.get("name")
        self._name = name if name is not None else f"v{next(_fresh)}"

    def name(self) -> str:
        return self._name

    def _as_expr(self) -> Expr:
        return Expr("var", Int(32), (), self)

    def is_implicit(self) -> bool:
        """Halide's implicit Vars are ``_0``, ``_1``, ... (what ``hl.Var.implicit(i)`` makes)."""
        return self.implicit_index() >= 0

    def implicit_index(self) -> int:
        n = self._name
        return int(n[1:]) if len(n) > 1 and n[0] == "_" and n[1:].isdigit() else -1

    def is_placeholder(self) -> bool:
        """``hl._``, the placeholder for "all the remaining dimensions"."""
        return self._name == "_"

    @staticmethod
    def implicit(i: int) -> "Var":
        return Var(f"_{int(i)}")

    def same_as(self, other) -> bool:
        return isinstance(other, Var) and other._name == self._name

    @staticmethod
    def outermost() -> "Var":
        """The loop level outside all of a Func's loops (``compute_at(f, Var.outermost())``)."""
        return Var(OUTERMOST)

    def __repr__(self) -> str:
        return f"<halide.Var '{self._name}'>"  # Halide's text: programs written for Halide print and check it

    def __str__(self) -> str:
        return self._name
