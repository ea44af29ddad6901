"""The schedule → one ``transform.named_sequence @__transform_main`` that ``mlir-opt`` runs as it is."""
from __future__ import annotations

from ..analysis.bounds import Bounded
from ..error import HalideError
from .mlir_text import mlir_string
from .payload import _unique_names

HEADER = "module attributes {transform.with_named_sequence} {"


class ScriptBuilder:
    def __init__(self):
        self.lines: list[str] = []
        self.n = 0

    def fresh(self, prefix="h") -> str:
        self.n += 1
        return f"%{prefix}{self.n}"

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def match_stage(self, name: str) -> str:
        h = self.fresh("stage")
        self.emit(f"{h} = transform.structured.match ops{{[\"linalg.generic\"]}} attributes "
                  f"{{hl.func = {mlir_string(name)}}} in %root : (!transform.any_op) -> !transform.any_op")
        return h

    def cleanup(self) -> None:
        f = self.fresh("fn")
        self.emit(f"{f} = transform.structured.match ops{{[\"func.func\"]}} in %root "
                  f": (!transform.any_op) -> !transform.any_op")
        self.emit(f"transform.apply_patterns to {f} {{")
        self.emit("  transform.apply_patterns.canonicalization")
        self.emit("} : !transform.any_op")
        self.emit(f"transform.apply_cse to {f} : !transform.any_op")

    def text(self) -> str:
        body = "\n".join(self.lines)
        return (f"{HEADER}\n  transform.named_sequence @__transform_main(%root: !transform.any_op "
                f"{{transform.readonly}}) {{\n{body}\n    transform.yield\n  }}\n}}\n")


def build_transform(bounded: Bounded) -> str:
    stages = bounded.pipeline.stages
    names = _unique_names([s.name for s in stages])
    sb = ScriptBuilder()
    for stage, name in zip(reversed(stages), reversed(names)):
        for d in stage.func.schedule().directives:
            raise HalideError(f"{d.site}: Func '{stage.name}': the '{d.kind}' schedule directive is not "
                              f"supported yet")
    sb.cleanup()
    return sb.text()
