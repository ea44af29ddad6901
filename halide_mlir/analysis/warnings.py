"""Halide's schedule warnings, printed where and as Halide prints them (to stdout, ``Warning: ...``).

- a ``bound`` on a Func that is computed inline (Halide's Inline.cpp): the bound has nothing to apply to;
- an update definition left unscheduled while another definition of its Func was scheduled (Halide's
  ScheduleFunctions.cpp), unless ``f.update(i).unscheduled()`` says so.
"""

from __future__ import annotations

import sys

from ..lang.schedule import DirectiveKind, LevelKind
from ..lang.traversal import walk


def _funcs(output) -> list:
    """Every Func the output reads, directly or not (inline ones too), output first."""
    from ..lang.func import Func

    seen, order, todo = set(), [], [output]
    while todo:
        f = todo.pop()
        if id(f) in seen or not f.defined():
            continue
        seen.add(id(f))
        order.append(f)
        d = f._definition()
        exprs = [*d.values] + [e for u in f.updates() for e in (*u.args, *u.values)]
        for e in exprs:
            for n in walk(e):
                if n.kind == "call" and isinstance(n.value, Func):
                    todo.append(n.value)
    return order


def _touched(sched) -> bool:
    return bool(sched.directives) or getattr(sched, "unscheduled", False)


def schedule_warnings(output) -> list[str]:
    lines = []
    for f in _funcs(output):
        sched = f.schedule()
        inline = f is not output and sched.compute.kind == LevelKind.INLINE and not f.updates()
        if inline:
            for d in sched.directives:
                if d.kind == DirectiveKind.BOUND:
                    lines.append(
                        f"It is meaningless to bound dimension {d.args[0]} of function {f.name()} to be "
                        f"within [{d.args[1]}, {d.args[2]}] because the function is scheduled inline."
                    )
        if _touched(sched) or any(_touched(u.schedule) for u in f.updates()):
            for i, u in enumerate(f.updates()):
                if not _touched(u.schedule):
                    lines.append(
                        f"Update definition {i} of function {f.name()} has not been scheduled, even though "
                        f"some other definitions have been. You may have forgotten to schedule it. If "
                        f"this was intentional, call {f.name()}.update({i}).unscheduled() to suppress "
                        f"this warning."
                    )
    return lines


def print_schedule_warnings(output) -> None:
    for line in schedule_warnings(output):
        print(f"Warning: {line}", file=sys.stdout)
