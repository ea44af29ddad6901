"""``f.update(i).rfactor([(rv, v), ...])`` and the associativity proof that it and ``atomic()`` rely on.

As in Halide, rfactor is a rewrite of the algorithm in the front end: it returns a new, ordinary Func
``f_intm`` over f's pure Vars plus the new Vars ``v`` (the factored RVars turned pure), whose update runs the
rest of the reduction domain, and replaces f's update by the merge ``f(x) = f(x) op f_intm(x, rv')`` over the
factored RVars. Everything after that (bounds, plans, parallel and vector loops) sees two ordinary Funcs, so
``f_intm`` is scheduled like any Func (``parallel(v)``, ``vectorize(v)``, compute_root/at).

The loops a split of an RVar made (``split(r.x, rxo, rxi, 4)``) become the dimensions of the new RDoms, named
after them, with Halide's guard where the split does not divide the extent; each schedule directive of the
update carries over to the side that keeps its loops, in Halide's loop order.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..error import HalideError, HalideTypeError
from .expr import Expr, binary, const, to_expr
from .schedule import Directive, DirectiveKind, touch
from .source import capture_site, user_site
from .traversal import rebuild, walk
from .var import Var

# Halide's associative operators (its AssociativeOpsTable, the single-element patterns): op -> identity
_IDENTITY = {
    "add": lambda t: const(0, t),
    "mul": lambda t: const(1, t),
    "min": lambda t: t.max(),
    "max": lambda t: t.min(),
    "and": lambda t: const(True, t),
    "or": lambda t: const(False, t),
}


@dataclass
class Pattern:
    """One Tuple element of an update proved associative: ``f(args) op other`` (``self_left``) or the other way."""

    op: str
    other: Expr
    self_left: bool

    def identity(self, t) -> Expr:
        return _IDENTITY[self.op](t)


def same_expr(a: Expr, b: Expr) -> bool:
    """Structural equality of two Exprs (Vars and RVars by name, calls by callee and element)."""
    if a.kind != b.kind or a.type != b.type or len(a.args) != len(b.args):
        return False
    if a.kind in ("var", "rvar"):
        return a.value.name() == b.value.name()
    if a.kind == "call":
        if a.value is not b.value or a.index != b.index:
            return False
    elif a.value is not b.value and a.value != b.value:
        return False
    return all(same_expr(x, y) for x, y in zip(a.args, b.args))


def _calls(e: Expr, func) -> bool:
    return any(n.kind == "call" and n.value is func for n in walk(e))


def prove_associativity(func, d) -> list[Pattern] | None:
    """Per Tuple element, ``f(args) op other`` with ``op`` associative and commutative and ``other`` free of f;
    None where that can't be shown (Halide's prove_associativity, for the patterns it proves on one element)."""
    out = []
    for k, v in enumerate(d.values):
        if v.kind not in _IDENTITY or len(v.args) != 2 or (v.kind in ("and", "or") and not v.type.is_bool()):
            return None
        a, b = v.args

        def is_self(e):
            return (
                e.kind == "call"
                and e.value is func
                and e.index == k
                and all(same_expr(x, y) for x, y in zip(e.args, d.args))
            )

        if is_self(a) and not _calls(b, func):
            out.append(Pattern(v.kind, b, True))
        elif is_self(b) and not _calls(a, func):
            out.append(Pattern(v.kind, a, False))
        else:
            return None
    return out


def _vars_line(names_inner_first) -> str:
    return "Vars: " + " ".join([*names_inner_first, "__outermost"])


def _ceil_div(e: Expr, s: int) -> Expr:
    if e.kind == "const":
        return const(-(-e.value // s), e.type)
    return binary("div", binary("add", e, s - 1), s)


def rfactor(stage, preserved) -> "object":
    """Halide's Stage::rfactor (see the module docstring). ``stage`` is ``f.update(i)``."""
    from ..analysis.loop_nest import stage_loops  # (a pure helper: a schedule's loop list from its directives)
    from .func import Func
    from .rdom import RDom, RVar

    func, index = stage._func, stage._index
    d = func._updates[index]
    sched = d.schedule
    where = f"{user_site()}: In schedule for {func.name()}.update({index})"
    if d.stores:
        raise HalideError(f"{where}: rfactor of an update with several stores per point (hl.scatter) is not supported")
    pairs = []
    for rv, v in preserved:
        if not isinstance(rv, RVar) or not isinstance(v, Var):
            raise HalideTypeError(f"{where}: rfactor takes pairs (RVar, Var), got ({rv!r}, {v!r})")
        pairs.append((rv.name(), v))
    rvars = d.rvars()
    n_r = len(rvars)
    pure = [a.name() for a in func._pure.args]
    loops = stage_loops(f"{func.name()}.update({index})", [r.name() for r in rvars] + pure, None, sched.directives)
    inner_first = list(reversed(loops))
    names = [l.name for l in inner_first]
    patterns = prove_associativity(func, d)
    if patterns is None:
        raise HalideError(
            f"{where}: can't perform rfactor() because we can't prove associativity of the "
            f"operator\n{_vars_line(names)}"
        )
    by_name = {l.name: l for l in loops}
    for rv, v in pairs:
        l = by_name.get(rv)
        if l is None or any(dim >= n_r for dim, _ in l.parts):
            raise HalideError(
                f"{where}: can't perform rfactor() on {rv} since either it is not in the reduction "
                f"domain, or has already been consumed by another scheduling directive\n"
                f"{_vars_line(names)}"
            )
        if v.name() in by_name or v.name() in pure:
            raise HalideError(
                f"{where}: can't perform rfactor() on {rv} because the name {v.name()}is already "
                f"used elsewhere in the Func's schedule.\n{_vars_line(names)}"
            )
    for l in loops:
        if len(l.parts) > 1 and any(dim < n_r for dim, _ in l.parts):
            if not all(dim < n_r for dim, _ in l.parts):
                raise HalideError(
                    f"{where}: can't rfactor an Func that has fused a Var into an RVar: {l.name}\n{_vars_line(names)}"
                )
            raise HalideError(
                f"{where}: rfactor of a Func whose RVars were fused ({l.name}) is not supported by halide_mlir yet"
            )

    # --- the RDom projections: each original RVar as its min plus sum(loop * stride) of the loops of its dim
    rv_loops = [l for l in inner_first if l.dim < n_r]
    pres_names = {rv: v for rv, v in pairs}
    new_value: dict = {}  # loop name -> (min, extent) of its new RDom dim
    guards = []
    for j, r in enumerate(rvars):
        lo, ext = to_expr(r.min()), to_expr(r.extent())
        mine = sorted([l for l in rv_loops if l.dim == j], key=lambda l: -l.stride)
        if len(mine) == 1 and mine[0].stride == 1:
            new_value[mine[0].name] = (lo, ext)
            continue
        for k, l in enumerate(mine):
            e = _ceil_div(ext, l.stride) if k == 0 else const(mine[k - 1].stride // l.stride, ext.type)
            new_value[l.name] = (const(0, ext.type), e)
        if not (ext.kind == "const" and ext.value % mine[0].stride == 0):
            guards.append(j)

    def make_rdom(loop_names):
        if not loop_names:
            return None
        dom = RDom([(new_value[n][0], new_value[n][1]) for n in loop_names])
        dom._rvar_names = list(loop_names)
        return dom

    intm_names = [l.name for l in rv_loops if l.name not in pres_names]
    pres_loop_names = [l.name for l in rv_loops if l.name in pres_names]
    intm_dom = make_rdom(intm_names)
    pres_dom = make_rdom(pres_loop_names)
    pres_vars = [pres_names[n] for n in pres_loop_names]  # Halide orders them as the loops, innermost first

    def loop_expr(name) -> Expr:
        if name in pres_names:
            return pres_names[name]._as_expr()
        return intm_dom[intm_names.index(name)]._as_expr()

    value_of, raw = {}, {}
    for j, r in enumerate(rvars):
        mine = sorted([l for l in rv_loops if l.dim == j], key=lambda l: -l.stride)
        if len(mine) == 1 and mine[0].stride == 1:
            value_of[r.name()] = loop_expr(mine[0].name)
            continue
        e = to_expr(r.min())
        for l in mine:
            term = loop_expr(l.name)
            e = binary("add", e, term if l.stride == 1 else binary("mul", term, l.stride))
        raw[r.name()] = e
        if j in guards:  # Halide's promise_clamped: bounds inference sees the RDom's range, not the loops'
            hi = binary("sub", binary("add", to_expr(r.min()), to_expr(r.extent())), 1)
            e = Expr("max", e.type, (Expr("min", e.type, (e, hi)), to_expr(r.min())))
        value_of[r.name()] = e
    intm = Func(f"{func.name()}_intm")
    pv_exprs = tuple(v._as_expr() for v in pres_vars)

    def to_intm(e: Expr) -> Expr:
        def leaf(n, args):
            if n.kind == "rvar":
                return value_of[n.value.name()]
            if n.kind == "call" and n.value is func:
                c = Expr("call", n.type, (*args, *pv_exprs), intm)
                c.site, c.index = n.site, n.index
                return c
            return None

        return rebuild(e, leaf)

    preds = [to_intm(p) for p in d.predicates()]
    for j in guards:
        preds.append(
            binary("lt", binary("sub", raw[rvars[j].name()], to_expr(rvars[j].min())), to_expr(rvars[j].extent()))
        )
    types = func.output_types()
    identities = tuple(p.identity(t) for p, t in zip(patterns, types))
    intm[(*func._pure.args, *pres_vars)] = identities if len(identities) > 1 else identities[0]
    args = [to_intm(a) for a in d.args]
    lhs = [func._pure.args[j] if a.kind == "var" and a.value.name() == pure[j] else a for j, a in enumerate(args)]
    values = [to_intm(v) for v in d.values]
    if preds and intm_dom is not None:
        for p in preds:
            intm_dom.where(p)
    elif preds:  # no RVar left to carry the condition: the update keeps the old value where it is false
        from .operators import select

        cond = preds[0]
        for p in preds[1:]:
            cond = binary("and", cond, p)
        olds = [Expr("call", t, (*args, *pv_exprs), intm) for t in types]
        for k, o in enumerate(olds):
            o.index = k
        values = [select(cond, v, o) for v, o in zip(values, olds)]
    intm._define_update((*lhs, *pres_vars), tuple(values) if len(values) > 1 else values[0])
    intm._updates[0].site = d.site

    # --- the merge: f(x) = f(x) op f_intm(x, rv') over the factored RVars
    pres_rvars = [pres_dom[i]._as_expr() for i in range(len(pres_loop_names))] if pres_dom is not None else []
    x_exprs = tuple(a._as_expr() for a in func._pure.args)
    merged = []
    for k, (p, t) in enumerate(zip(patterns, types)):
        old = Expr("call", t, x_exprs, func)
        part = Expr("call", t, (*x_exprs, *pres_rvars), intm)
        old.index = part.index = k
        old.site = part.site = capture_site()
        merged.append(binary(p.op, old, part) if p.self_left else binary(p.op, part, old))
    from .func import Definition

    new_def = Definition(x_exprs, tuple(merged) if len(merged) > 1 else merged[0], d.site, sched)
    func._updates[index] = new_def

    # --- schedules: each side keeps the loops it still has, in Halide's order, with their kinds
    rv_derived = {r.name() for r in rvars}
    var_splits = []
    for dv in sched.directives:
        if dv.kind == DirectiveKind.SPLIT:
            if dv.args[0] in rv_derived:
                rv_derived.update(dv.args[1:3])
            else:
                var_splits.append(dv)

    def carried(keep, rename):
        out = list(var_splits)
        order = [rename.get(n, n) for n in names if keep(n)]
        out.append(Directive(DirectiveKind.REORDER, tuple(order), d.site))
        for l in inner_first:
            if keep(l.name) and l.kind != "serial":
                kind = {
                    "parallel": DirectiveKind.PARALLEL,
                    "vectorized": DirectiveKind.VECTORIZE,
                    "unrolled": DirectiveKind.UNROLL,
                }[str(l.kind)]
                out.append(Directive(kind, (rename.get(l.name, l.name),), d.site))
        return out

    ischedule = intm._updates[0].schedule
    ischedule.directives = carried(lambda n: True, {n: pres_names[n].name() for n in pres_loop_names})
    ischedule.atomic, ischedule.atomic_override = sched.atomic, sched.atomic_override
    sched.directives[:] = carried(lambda n: n not in intm_names, {})
    touch()
    return intm


def check_atomic(stage, var: str) -> None:
    """``atomic().parallel(rv)`` without override: the update must be a constant assignment or proved
    associative and commutative (Halide's Stage::set_dim_type)."""
    func, d = stage._func, stage._func._updates[stage._index]
    derived = {r.name() for r in d.rvars()}
    for dv in d.schedule.directives:
        if dv.kind == DirectiveKind.SPLIT and dv.args[0] in derived:
            derived.update(dv.args[1:3])
    if var not in derived or not any(_calls(v, func) for v in d.values):
        return
    if prove_associativity(func, d) is None:
        raise HalideError(
            f"{user_site()}: Failed to call atomic() on {func.name()}.update({stage._index}) since "
            f"it can't prove associativity or commutativity of the operator."
        )
