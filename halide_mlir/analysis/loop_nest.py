"""A stage's loop nest after its split/reorder/vectorize/parallel/unroll directives, as Halide builds it.

The same list drives ``print_loop_nest`` and codegen/transform.py, so what a user reads is what runs.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..error import HalideError
from .pipeline import build_pipeline


@dataclass(frozen=True)
class Loop:
    name: str
    dim: int          # Halide dimension of the stage it iterates (0 = innermost storage dim)
    stride: int       # elements of that dimension covered by one iteration
    extent: int       # iterations (the last one may be partial)
    kind: str = "serial"  # serial, parallel, vectorized, unrolled


def _find(loops: list[Loop], name: str, stage_name: str, d) -> int:
    for i, l in enumerate(loops):
        if l.name == name:
            return i
    raise HalideError(f"{d.site}: Func '{stage_name}' has no loop variable '{name}' to {d.kind} "
                      f"(its loops are {', '.join(l.name for l in loops)})")


def stage_loops(stage_name: str, vars_: list[str], extents, directives) -> list[Loop]:
    """Outermost loop first."""
    loops = [Loop(v, d, 1, extents[d]) for d, v in reversed(list(enumerate(vars_)))]
    for d in directives:
        k, a = d.kind, d.args
        if k == "split":
            old, outer, inner, factor = a[0], a[1], a[2], a[3]
            if factor <= 0:
                raise HalideError(f"{d.site}: split factor must be positive, got {factor}")
            i = _find(loops, old, stage_name, d)
            l = loops[i]
            loops[i:i + 1] = [Loop(outer, l.dim, l.stride * factor, -(-l.extent // factor), l.kind),
                              Loop(inner, l.dim, l.stride, factor)]
        elif k == "reorder":
            idx = [_find(loops, v, stage_name, d) for v in a]
            if len(set(idx)) != len(idx):
                raise HalideError(f"{d.site}: reorder of Func '{stage_name}' names a loop twice")
            chosen = [loops[i] for i in idx]       # innermost first
            for pos, l in zip(sorted(idx), reversed(chosen)):
                loops[pos] = l
        elif k in ("vectorize", "parallel", "unroll", "serial"):
            i = _find(loops, a[0], stage_name, d)
            kind = {"vectorize": "vectorized", "unroll": "unrolled"}.get(k, k)
            loops[i] = replace(loops[i], kind=kind)
        else:
            raise HalideError(f"{d.site}: Func '{stage_name}': the '{k}' schedule directive is not supported yet")
    return loops


def loop_nest_text(func) -> str:
    """Halide's pseudo-code, e.g. ``parallel out.s0.y:`` / ``vectorized out.s0.x.x:``."""
    p = build_pipeline(func)
    lines = []
    for stage in p.stages:
        loops = _symbolic_loops(stage)
        lines.append(f"produce {stage.name}:")
        indent = "  "
        for l in loops:
            prefix = "" if l.kind == "serial" else l.kind + " "
            lines.append(f"{indent}{prefix}for {stage.name}.s0.{l.name}:")
            indent += "  "
        lines.append(f"{indent}{stage.name}(...) = ...")
    return "\n".join(lines)


def _symbolic_loops(stage) -> list[Loop]:
    # extents are unknown before realize; a large stand-in keeps split arithmetic valid
    return stage_loops(stage.name, stage.vars, [1 << 30] * len(stage.vars), stage.func.schedule().directives)
