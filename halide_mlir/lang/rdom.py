"""Reduction domains (``hl.RDom``) and their variables (``hl.RVar``).

An RDom is a box of integer points, iterated in order with ``r.x`` innermost, optionally filtered by
``where`` predicates. Bounds may be Exprs of Params: they are evaluated when the pipeline is compiled
(the code is specialized to their values, as to buffer shapes).
"""
from __future__ import annotations

import itertools

from ..error import HalideError
from .expr import Expr, ExprOps, to_expr
from .source import user_site
from .types import Int

_fresh = itertools.count()
_LETTERS = "xyzw"


class RVar(ExprOps):
    def __init__(self, rdom: "RDom", index: int):
        self._rdom, self._index = rdom, index

    def name(self) -> str:
        return f"{self._rdom.name()}${_LETTERS[self._index] if self._index < 4 else self._index}"

    def _as_expr(self) -> Expr:
        return Expr("rvar", Int(32), (), self)

    def min(self) -> Expr:
        return self._rdom._bounds[self._index][0]

    def extent(self) -> Expr:
        return self._rdom._bounds[self._index][1]

    def domain(self) -> "RDom":
        return self._rdom

    def index(self) -> int:
        return self._index

    def __repr__(self) -> str:
        return f"<halide_mlir.RVar '{self.name()}'>"

    def __str__(self) -> str:
        return self.name()


class Range:
    """``hl.Range(min, extent)``."""

    def __init__(self, min_, extent):
        self.min, self.extent = min_, extent


class RDom(ExprOps):
    """``hl.RDom([(min, extent), ...][, name])`` or ``hl.RDom(buffer)`` (its whole domain)."""

    def __init__(self, *args, name: str | None = None):
        from .buffer import Buffer
        if args and isinstance(args[-1], str):
            name, args = args[-1], args[:-1]
        if len(args) == 1 and isinstance(args[0], Buffer):
            b = args[0]
            region = [(b.dim(i).min(), b.dim(i).extent()) for i in range(b.dimensions())]
        elif len(args) == 1 and isinstance(args[0], (list, tuple)) and args[0] and \
                isinstance(args[0][0], (list, tuple, Range)):
            region = list(args[0])
        elif len(args) == 1 and isinstance(args[0], (list, tuple)) and len(args[0]) == 2:
            region = [tuple(args[0])]
        elif all(isinstance(a, Range) for a in args) and args:
            region = list(args)
        elif len(args) % 2 == 0 and args:
            region = [(args[i], args[i + 1]) for i in range(0, len(args), 2)]
        else:
            raise HalideError(f"{user_site()}: RDom takes a list of (min, extent) pairs, e.g. "
                              f"hl.RDom([(0, 10), (0, 5)])")
        bounds = []
        for r in region:
            lo, ext = (r.min, r.extent) if isinstance(r, Range) else r
            lo, ext = to_expr(lo), to_expr(ext)
            if lo.type.is_float() or ext.type.is_float():
                raise HalideError(f"{user_site()}: RDom bounds must be integers, got ({lo}, {ext})")
            bounds.append((lo, ext))
        self._bounds = bounds
        self._name = name if name is not None else f"r{next(_fresh)}"
        self._vars = [RVar(self, i) for i in range(len(bounds))]
        self._predicates: list[Expr] = []

    def name(self) -> str:
        return self._name

    def dimensions(self) -> int:
        return len(self._vars)

    def __len__(self) -> int:
        return len(self._vars)

    def __getitem__(self, i: int) -> RVar:
        return self._vars[i]

    @property
    def x(self) -> RVar:
        return self._var(0)

    @property
    def y(self) -> RVar:
        return self._var(1)

    @property
    def z(self) -> RVar:
        return self._var(2)

    @property
    def w(self) -> RVar:
        return self._var(3)

    def _var(self, i: int) -> RVar:
        if i >= len(self._vars):
            raise HalideError(f"{user_site()}: RDom '{self._name}' has {len(self._vars)} dimensions; "
                              f"it has no .{_LETTERS[i]}")
        return self._vars[i]

    def where(self, predicate) -> "RDom":
        p = to_expr(predicate)
        if not p.type.is_bool():
            raise HalideError(f"{user_site()}: RDom.where takes a boolean condition, not {p.type}")
        self._predicates.append(p)
        from .schedule import touch
        touch()
        return self

    def predicates(self) -> list[Expr]:
        return list(self._predicates)

    def bounds(self) -> list[tuple[Expr, Expr]]:
        return list(self._bounds)

    def defined(self) -> bool:
        return True

    def _as_expr(self) -> Expr:
        if len(self._vars) != 1:
            raise HalideError(f"{user_site()}: a {len(self._vars)}-D RDom can't be used as an Expr; "
                              f"use r.x, r.y, ...")
        return self._vars[0]._as_expr()

    def __repr__(self) -> str:
        return f"<halide_mlir.RDom '{self._name}' {len(self._vars)}-D>"
