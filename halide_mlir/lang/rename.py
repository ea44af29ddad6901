"""``Func.rename`` / ``Stage.rename``: Halide's naming directive (a loop of the stage is called ``new`` from then on).

The loop keeps its first name inside the compiler: the directives given after the rename name it by ``new`` and are
recorded with the loop's first name (so every analysis that reads directives sees one name per loop), and the old
name is refused from then on, as in Halide. The rename itself is recorded as a RENAME directive, which
analysis/loop_nest.py checks (the loop must exist: Halide's "could not find rename dimension") and
print_loop_nest shows as Halide does (``x.xx.xo``: analysis/loop_nest_text.py reads ``display_names``)."""

from __future__ import annotations

from ..error import HalideError
from .schedule import Directive, DirectiveKind, touch
from .source import capture_site, user_site


def _renames(schedule) -> dict:
    """new name -> the loop's first name, of one stage (pure or update) schedule."""
    r = schedule.__dict__.get("_renames")
    if r is None:
        r = schedule._renames = {}
        schedule._retired = {}  # name renamed away -> the name it became (for the message)
    return r


def rename(self, old, new):
    from .func import _var_name

    sch = self._stage_schedule()
    o, n = _var_name(old), _var_name(new)
    renames = _renames(sch)
    if o in sch._retired:
        raise HalideError(
            f"{user_site()}: In schedule for {self.name()}, could not find rename dimension: {o} (it was renamed "
            f"{sch._retired[o]})"
        )
    first = renames.pop(o, o)
    if n != o:
        renames[n] = first
        sch._retired[o] = n
        sch._retired.pop(n, None)
    sch.directives.append(Directive(DirectiveKind.RENAME, (first, n), capture_site()))
    touch()
    return self


def translate(schedule, args: tuple, stage_name: str) -> tuple:
    """A directive's arguments with renamed loops named by their first names; an old name refused (Halide's
    message)."""
    renames = schedule.__dict__.get("_renames")
    if not renames and not schedule.__dict__.get("_retired"):
        return args
    out = []
    for a in args:
        if isinstance(a, str):
            if a in schedule._retired and a not in renames:
                raise HalideError(
                    f"{user_site()}: In schedule for {stage_name}, could not find dimension: {a} (renamed "
                    f"{schedule._retired[a]})"
                )
            a = renames.get(a, a)
        out.append(a)
    return tuple(out)


def translate_var(func, var: str) -> str:
    """A loop of ``func`` named in a compute_at/store_at: its first name."""
    sch = func.schedule()
    if var in sch.__dict__.get("_retired", {}) and var not in sch._renames:
        raise HalideError(f"{user_site()}: Func '{func.name()}' has no loop {var}: it was renamed {sch._retired[var]}")
    return sch.__dict__.get("_renames", {}).get(var, var)


def display_names(schedule) -> dict:
    """The loop's first name -> the path segment print_loop_nest shows (``x.xx`` for x renamed xx)."""
    out: dict = {}
    for d in schedule.directives:
        if d.kind == DirectiveKind.RENAME:
            first, new = d.args
            out[first] = f"{out.get(first, first)}.{new}"
    return out
