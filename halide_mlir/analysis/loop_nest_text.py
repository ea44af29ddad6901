"""``Func.print_loop_nest()``: the loop nest of a placed pipeline as Halide prints it."""

from __future__ import annotations

from ..lang.rename import display_names
from ..lang.schedule import LoopKind
from .loop_nest import stage_loops, update_loops
from .pipeline import Pipeline


def loop_nest_text(p: Pipeline) -> str:
    """Halide's pseudo-code: produce/consume blocks, ``parallel y:``, ``vectorized x.v0 in [0, 15]:`` ...
    (the user's loops, as Halide prints them: without the loops auto-vectorization adds)."""
    loops = {s.func: stage_loops(s.name, s.vars, None, s.directives) for s in p.stages}
    at: dict = {}  # (consumer Func, loop name) -> producers computed there
    roots = []
    for s in p.stages:
        level = s.compute
        if s.func is not p.output and level.at_loop():
            at.setdefault((level.func, level.var), []).append(s)
        elif s.func is not p.output:
            roots.append(s)

    def produce(stage, indent: str, out: list) -> None:
        out.append(f"{indent}produce {stage.name}:")
        nest(stage, loops[stage.func], indent + "  ", out, display_names(stage.func.schedule()))
        for u in stage.updates:
            nest(stage, update_loops(stage, u), indent + "  ", out, display_names(u.schedule))

    def nest(stage, stage_loops_, indent: str, out: list, names: dict) -> None:
        inner = indent
        for l in stage_loops_:
            prefix = "for" if l.kind == LoopKind.SERIAL else l.kind
            rng = f" in [0, {l.extent - 1}]" if l.constant else ""
            path = ".".join(names.get(c, c) for c in l.path.split(".")) if names else l.path
            out.append(f"{inner}{prefix} {path}{rng}:")
            inner += "  "
            # a producer goes in the first definition that has its loop (loop_nest.py loop_position)
            for producer in at.pop((stage.func, l.name), []):
                produce(producer, inner, out)
                out.append(f"{inner}consume {producer.name}:")
                inner += "  "
        out.append(f"{inner}{stage.name}(...) = ...")

    out: list[str] = []
    indent = ""
    for s in roots:
        produce(s, indent, out)
        out.append(f"{indent}consume {s.name}:")
        indent += "  "
    produce(p.stage(p.output), indent, out)
    return "\n".join(out)
