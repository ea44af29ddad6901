"""``print_loop_nest``: the loops each stage will run, in Halide's pseudo-code style."""
from __future__ import annotations

from .pipeline import build_pipeline


def loop_nest_text(func) -> str:
    p = build_pipeline(func)
    lines = []
    for stage in p.stages:
        indent = ""
        lines.append(f"produce {stage.name}:")
        indent = "  "
        for v in reversed(stage.vars):
            lines.append(f"{indent}for {stage.name}.s0.{v}:")
            indent += "  "
        lines.append(f"{indent}{stage.name}(...) = ...")
    return "\n".join(lines)
