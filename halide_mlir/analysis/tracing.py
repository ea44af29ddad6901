"""Stages that print (``hl.print``, traced stores or loads, lang/debugging.py) run their vectorized loop's lanes
one after another: each lane's print is a call (codegen/trace.py), which MLIR's vectorizer can't widen.
Halide prints a vector event as one line; the lanes' lines are merged into that line when they are printed
(runtime/trace.py), so a stage keeps its vector width as ``trace_lanes``. Their values are the same."""

from __future__ import annotations

from ..lang.debugging import tracing
from ..lang.schedule import DirectiveKind, LoopKind
from ..lang.traversal import walk
from .loop_nest import stage_loops


def _prints(exprs) -> bool:
    for e in exprs:
        for n in walk(e):
            if n.kind == "print" or (n.kind == "call" and "loads" in tracing(n.value)):
                return True
    return False


def prints_in_stage(bounded, stage) -> bool:
    """Does the stage's pure definition print: traced stores, traced loads it makes, an hl.print?"""
    return "stores" in tracing(stage.func) or _prints(bounded.bodies[stage.func])


def prints_in_update(bounded, stage, u) -> bool:
    return "stores" in tracing(stage.func) or _prints([*u.values, *u.predicates, *u.args])


def scalar_lanes(name: str, vars_, extents, directives) -> tuple[list, int]:
    """``directives`` less vectorize, and the lanes of the vector event each vectorized iteration is (1 when the
    vectors do not tile the loop's dimension exactly: Halide's last vector then overlaps, and ours would not)."""
    loops = stage_loops(name, list(vars_), extents, directives)
    vec = next((l for l in loops if l.kind == LoopKind.VECTORIZED), None)
    kept = [d for d in directives if d.kind != DirectiveKind.VECTORIZE]
    if vec is None or len(vec.parts) != 1 or not vec.exact or vec is not loops[-1]:
        return kept, 1
    lanes = vec.extent
    return kept, lanes if lanes > 1 and extents[vec.dim] % lanes == 0 else 1


def scalar_update_lanes(stage, u, extents, directives) -> tuple[list, int]:
    names = [r.name() for r in u.rvars] + list(stage.vars)
    return scalar_lanes(f"{stage.name}.update({u.index})", names, extents, directives)
