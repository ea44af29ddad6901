"""Reduction domains (``hl.RDom``) and their variables (``hl.RVar``).

An RDom is a box of integer points, iterated in order with ``r.x`` innermost, optionally filtered by
``where`` predicates. Bounds may be Exprs of Params: they are evaluated when the pipeline is compiled
(the code is specialized to their values, as to buffer shapes).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..error import HalideError
from .expr import Expr, ExprOps, to_expr
from .source import user_site
from .types import Int

_fresh = itertools.count()
_LETTERS = "xyzw"


class RVar(ExprOps):
    """``r.x`` of an RDom, or ``hl.RVar("name")``: a name for the loops a split of an RVar makes."""

    def __init__(self, rdom: "RDom | str | None" = None, index: int = 0):
        if rdom is None or isinstance(rdom, str):  # a free name (split/rfactor), as Halide's RVar(name)
            self._rdom, self._index, self._name = None, 0, rdom or f"r{next(_fresh)}"
            return
        self._rdom, self._index, self._name = rdom, index, None

    def name(self) -> str:
        if self._name is not None:
            return self._name
        names = self._rdom._rvar_names
        if names is not None:
            return names[self._index]
        return f"{self._rdom.name()}${_LETTERS[self._index] if self._index < 4 else self._index}"

    def _as_expr(self) -> Expr:
        if self._rdom is None:
            raise HalideError(
                f"{user_site()}: RVar '{self._name}' names a loop of a split; it has no domain to "
                f"be used in an expression"
            )
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
    """``hl.Range(min, extent)``, ``hl.Range((min, extent))`` or ``hl.Range()``; ``.min``/``.extent`` are
    Exprs."""

    def __init__(self, *args):
        from . import overloads as o

        form, a = o.match(
            "Range",
            args,
            {},
            [],
            [o.Arg("min", o.is_expr_like, keyword=False), o.Arg("extent", o.is_expr_like, keyword=False)],
            [
                o.Arg(
                    "pair",
                    lambda v: isinstance(v, tuple) and len(v) == 2 and all(_integer_like(x) for x in v),
                    keyword=False,
                )
            ],
        )
        lo, ext = (a["min"], a["extent"]) if form == 1 else a["pair"] if form == 2 else (None, None)
        if lo is None:
            self.min = self.extent = None
            return
        self.min, self.extent = to_expr(lo), to_expr(ext)
        if self.min.type.is_float() or self.extent.type.is_float():
            raise HalideError(
                f"{user_site()}: a Range's min and extent must be integers, got ({self.min}, {self.extent})"
            )


def _integer_like(v) -> bool:
    """What a (min, extent) tuple may hold (Halide refuses floats there with a TypeError)."""
    from . import overloads as o

    if isinstance(v, (float, np.floating)):
        return False
    return o.is_expr_like(v) and not to_expr(v).type.is_float()


class RDom(ExprOps):
    """``hl.RDom(region[, name])`` with region a list of ``hl.Range`` or (min, extent) tuples,
    ``hl.RDom(buffer)`` or ``hl.RDom(image_param)`` (their whole domain), or ``hl.RDom()`` (undefined)."""

    def __init__(self, *args, **kwargs):
        from . import overloads as o
        from .buffer import Buffer
        from .param import ImageParam

        form, a = o.match(
            "RDom",
            args,
            kwargs,
            [],
            [o.Arg("buffer", lambda v: isinstance(v, Buffer))],
            [o.Arg("image_param", lambda v: isinstance(v, ImageParam))],
            [
                o.Arg(
                    "region",
                    lambda v: (
                        isinstance(v, (list, tuple))
                        and all(
                            isinstance(r, Range)
                            or (isinstance(r, tuple) and len(r) == 2 and all(_integer_like(x) for x in r))
                            for r in v
                        )
                    ),
                ),
                o.Arg("name", o.is_str, ""),
            ],
        )
        region: list = []
        if form == 1:
            b = a["buffer"]
            region = [(b.dim(i).min(), b.dim(i).extent()) for i in range(b.dimensions())]
        elif form == 2:
            p = a["image_param"]
            region = [(p.dim(i).min(), p.dim(i).extent()) for i in range(p.dimensions())]
        elif form == 3:
            region = [r if isinstance(r, Range) else Range(*r) for r in a["region"]]
        name = a.get("name") or None
        bounds = []
        for r in region:
            lo, ext = (r.min, r.extent) if isinstance(r, Range) else r
            if lo is None:
                raise HalideError(f"{user_site()}: RDom got an undefined hl.Range()")
            lo, ext = to_expr(lo), to_expr(ext)
            if lo.type.is_float() or ext.type.is_float():
                raise HalideError(f"{user_site()}: RDom bounds must be integers, got ({lo}, {ext})")
            bounds.append((lo, ext))
        self._defined = form != 0
        self._bounds = bounds
        self._name = name if name is not None else f"r{next(_fresh)}"
        self._vars = [RVar(self, i) for i in range(len(bounds))]
        self._predicates: list[Expr] = []
        self._rvar_names: list | None = None  # rfactor's RDoms name their RVars after the loops they replace

    def name(self) -> str:
        return self._name

    def dimensions(self) -> int:
        return len(self._vars)

    def __len__(self) -> int:
        return len(self._vars)

    def __getitem__(self, i: int) -> RVar:
        """``r[i]``: Halide raises KeyError outside [0, dimensions) (no negative indices), TypeError for a
        non-integer."""
        from ..error import HalideTypeError

        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise HalideTypeError(f"{user_site()}: RDom '{self._name}' is indexed by an integer, not {i!r}")
        if not 0 <= i < len(self._vars):
            raise KeyError(
                f"{user_site()}: RDom '{self._name}' has {len(self._vars)} dimensions; there is no dimension {i}"
            )
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
            raise HalideError(
                f"{user_site()}: RDom '{self._name}' has {len(self._vars)} dimensions; it has no .{_LETTERS[i]}"
            )
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
        return self._defined

    def _as_expr(self) -> Expr:
        if len(self._vars) != 1:
            raise HalideError(f"{user_site()}: a {len(self._vars)}-D RDom can't be used as an Expr; use r.x, r.y, ...")
        return self._vars[0]._as_expr()

    def __repr__(self) -> str:  # Halide's text
        if not self._defined:
            return "<halide.RDom RDom()>"
        lines = "".join(f"  {v.name()}({lo}, {ext})\n" for v, (lo, ext) in zip(self._vars, self._bounds))
        return f"<halide.RDom RDom(\n{lines})>"
