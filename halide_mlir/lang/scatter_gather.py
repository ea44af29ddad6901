"""``hl.scatter`` / ``hl.gather``: several stores in one update definition (Halide's multiple scatter).

``f[hl.scatter([a, b])] = hl.gather([f[b], f[a]])`` swaps two values: at each point of the update's domain every
lane's value is computed, then each lane stored, in order (the last one wins where two write the same point). A
``scatter`` in several coordinates is zipped; a ``gather`` without a scatter stores its lanes at one point (the last
wins), one without stores a broadcast. Lane k of the definition is its Exprs with every scatter and gather replaced
by their k-th element: lane 0 is the Definition's ``args``/``values`` and the others its ``stores``, which the
analysis carries (analysis/pipeline.py ``Update.stores``: bounds, reads) and codegen stores after computing all
of them (codegen/updates.py ``_insert``); such an update runs as serial loops (parallel and vectorize refused)."""

from __future__ import annotations

from ..error import HalideError, HalideTypeError
from .expr import Expr, to_expr
from .source import user_site
from .traversal import walk

SCATTER, GATHER = "scatter", "gather"


def _lanes(kind: str, exprs) -> Expr:
    if not isinstance(exprs, (list, tuple)):
        raise HalideTypeError(f"{user_site()}: {kind}() takes a list of Exprs, e.g. hl.{kind}([a, b])")
    es = [to_expr(e) for e in exprs]
    if not es:
        raise HalideError(f"{user_site()}: {kind}() of an empty list")
    t = es[0].type
    if any(e.type != t for e in es):
        raise HalideError(f"{user_site()}: the Exprs of {kind}() must all have the same type ({t})")
    return Expr(kind, t, tuple(es))


def scatter(exprs) -> Expr:
    """Coordinates of several stores (in an update definition's left-hand side)."""
    return _lanes(SCATTER, exprs)


def gather(exprs) -> Expr:
    """Values (or coordinates of reads) of several stores, one per lane of the scatter."""
    return _lanes(GATHER, exprs)


def has_lanes(exprs) -> bool:
    return any(n.kind in (SCATTER, GATHER) for e in exprs for n in walk(e))


def lane_count(func_name: str, exprs) -> int:
    counts = {len(n.args) for e in exprs for n in walk(e) if n.kind in (SCATTER, GATHER)}
    if len(counts) > 1:
        a, b = sorted(counts, reverse=True)[:2]
        raise HalideError(
            f"{user_site()}: Error: Expression tuples of mismatched sizes used in definition of {func_name}: {a} vs {b}"
        )
    return counts.pop() if counts else 1


def lane(e: Expr, k: int) -> Expr:
    """``e`` with every scatter and gather replaced by its ``k``-th element."""
    from .traversal import replace_nodes

    return replace_nodes(e, lambda n: lane(n.args[k], k) if n.kind in (SCATTER, GATHER) else None)
