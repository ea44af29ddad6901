"""``specialize(cond)`` / ``specialize_fail(msg)``: versions of a stage's schedule chosen at run time.

Recorded as data here: each stage schedule (a Func's pure definition, an update, or a specialization itself --
they nest) holds a list of ``Specialization``s in the order the user added them. The first whose condition
holds is used, as Halide's ``if (c1) ... else if (c2) ... else`` does; analysis/specialize.py chooses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..error import HalideError
from .expr import Expr, const, to_expr
from .schedule import Directive, FuncSchedule, touch
from .source import capture_site, user_site
from .types import Bool


@dataclass(eq=False)
class Specialization:
    condition: Expr
    schedule: FuncSchedule  # the stage's directives under this condition (its own specializations nest)
    failure: str | None = None  # specialize_fail's message: reaching it is an error
    site: object = field(default=None)


def same_expr(a: Expr, b: Expr) -> bool:
    """Structural equality (Halide's ``equal``): specializing on the same condition returns the same Stage."""
    if a.kind != b.kind or a.type != b.type or len(a.args) != len(b.args):
        return False
    va, vb = a.value, b.value
    if isinstance(va, tuple) and isinstance(vb, tuple):
        if len(va) != len(vb) or any(x is not y and x != y for x, y in zip(va, vb)):
            return False
    elif a.kind in ("const",):
        if va != vb:
            return False
    elif va is not vb and not (
        hasattr(va, "name") and hasattr(vb, "name") and a.kind == "var" and va.name() == vb.name()
    ):
        return False
    return all(same_expr(x, y) for x, y in zip(a.args, b.args))


def _inherit(parent: FuncSchedule) -> FuncSchedule:
    """Halide: a specialization inherits everything about its parent stage's schedule but its specializations."""
    return FuncSchedule(
        parent.compute, parent.store, [Directive(d.kind, d.args, d.site) for d in parent.directives], parent.padded_copy
    )


def specialize(stage_schedule: FuncSchedule, cond, name: str) -> Specialization:
    try:
        c = to_expr(cond)
    except HalideError:
        raise HalideError(
            f"{user_site()}: In schedule for {name}: Argument passed to specialize must be of type bool"
        ) from None
    if not c.type.is_bool():
        raise HalideError(f"{user_site()}: In schedule for {name}: Argument passed to specialize must be of type bool")
    from .traversal import walk

    bad = next((n for n in walk(c) if n.kind in ("var", "rvar")), None)
    if bad is not None:
        raise HalideError(
            f"{user_site()}: Specialization condition {c} for {name} depends on Var or RVar "
            f"{bad.value.name()}. Specialization conditions may not depend on any Vars or RVars."
        )
    specs = stage_schedule.specializations
    for s in specs:
        if s.failure is None and same_expr(s.condition, c):
            return s
    if specs and specs[-1].failure is not None:
        raise HalideError(
            f"{user_site()}: In schedule for {name}: Cannot add new specializations after specialize_fail()."
        )
    s = Specialization(c, _inherit(stage_schedule), None, capture_site())
    specs.append(s)
    touch()
    return s


def specialize_fail(stage_schedule: FuncSchedule, message) -> None:
    if not isinstance(message, str) or not message:
        raise HalideError(f"{user_site()}: Argument passed to specialize_fail() must not be empty.")
    specs = stage_schedule.specializations
    if specs and specs[-1].failure is not None:
        raise HalideError(f"{user_site()}: Only one specialize_fail() may be defined per Stage.")
    specs.append(Specialization(const(True, Bool()), FuncSchedule(), message, capture_site()))
    touch()
