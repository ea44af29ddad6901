"""Inline reductions: ``hl.sum(e)``, ``hl.product``, ``hl.maximum``, ``hl.minimum`` over the RDom in ``e``.

As in Halide, each becomes an anonymous Func over the free Vars of ``e`` with an initial value and one
update iterating the RDom; the call to it replaces the reduction in the caller.
"""

from __future__ import annotations

from ..error import HalideError
from .expr import Expr, const, to_expr
from .func import Func
from .operators import max as hl_max
from .operators import min as hl_min
from .source import user_site
from .traversal import free_rvars, free_vars
from .var import Var


def _reduce(kind: str, e, init, combine, name: str | None) -> Expr:
    e = to_expr(e)
    if not free_rvars(e):
        raise HalideError(f"{user_site()}: {kind}() needs an expression over an RDom (it has no RVar)")
    vars_ = [Var(v) for v in free_vars(e)]
    f = Func(name or kind)
    f[tuple(vars_)] = const(init(e.type), e.type)
    f[tuple(vars_)] = combine(f[tuple(vars_)], e)
    f._inline_reduction = kind  # analysis/unrolled_reductions.py may substitute it unrolled into its consumer
    return f[tuple(vars_)]._as_expr()


def sum(e, name: str | None = None) -> Expr:  # noqa: A001 - Halide's name
    return _reduce("sum", e, lambda t: 0, lambda acc, v: acc + v, name)


def product(e, name: str | None = None) -> Expr:
    return _reduce("product", e, lambda t: 1, lambda acc, v: acc * v, name)


def maximum(e, name: str | None = None) -> Expr:
    return _reduce("maximum", e, lambda t: t.min_finite(), lambda acc, v: hl_max(acc, v), name)


def minimum(e, name: str | None = None) -> Expr:
    return _reduce("minimum", e, lambda t: t.max_finite(), lambda acc, v: hl_min(acc, v), name)


def _arg_extreme(kind: str, e, better, init, name: str | None):
    """(r.x, r.y, ..., value) of the first point of the RDom where ``e`` is extreme, as Halide's argmax/argmin."""
    from .func import Tuple
    from .operators import select

    e = to_expr(e)
    rvars = free_rvars(e)
    if not rvars:
        raise HalideError(f"{user_site()}: {kind}() needs an expression over an RDom (it has no RVar)")
    dom = rvars[0].domain()
    rs = [dom[i] for i in range(dom.dimensions())]
    vars_ = tuple(Var(v) for v in free_vars(e))
    f = Func(name or kind)
    f[vars_] = Tuple([*(to_expr(r.min()) for r in rs), const(init(e.type), e.type)])
    ref = f[vars_]
    f[vars_] = select(better(e, ref[len(rs)]), Tuple([*rs, e]), ref)
    # a Python tuple of plain Exprs, as Halide's bindings return
    return tuple(ref.copy_with(ref.args) for ref in (f[vars_][k] for k in range(len(rs) + 1)))


def argmax(e, name: str | None = None):
    return _arg_extreme("argmax", e, lambda v, best: v > best, lambda t: t.min_finite(), name)


def argmin(e, name: str | None = None):
    return _arg_extreme("argmin", e, lambda v, best: v < best, lambda t: t.max_finite(), name)
