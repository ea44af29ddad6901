"""``Generator.add_requirement(condition, *message)``: a condition on the pipeline's scalar inputs checked before
it runs; a false one is Halide's ``halide_error_code_requirement_failed`` (-27).

The conditions are of Params and constants (what Halide's tests and apps use), so they are checked outside the
kernel: in Python before a ``Callable`` call, and in the AOT wrapper as a C expression. A condition reading
anything else (a buffer, a Func) is refused when the Generator is built.
"""

from __future__ import annotations

from ..error import HalideError
from ..lang.expr import REQUIRE, to_expr
from ..lang.param import Param
from ..lang.source import user_site
from ..lang.traversal import walk

REQUIREMENT_FAILED = -27

_C_BINARY = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
    "land": "&&",
    "lor": "||",
    "and": "&",
    "or": "|",
    "xor": "^",
}
_PY_BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "land": lambda a, b: bool(a) and bool(b),
    "lor": lambda a, b: bool(a) or bool(b),
    "min": min,
    "max": max,
}
_KINDS = set(_C_BINARY) | {"const", "param", "not", "min", "max", "cast", "select"}


class Requirement:
    def __init__(self, condition, message: list):
        self.condition = to_expr(condition)
        self.message = message
        bad = {n.kind for n in walk(self.condition)} - _KINDS
        if bad:
            raise HalideError(
                f"add_requirement: halide_mlir checks requirements of Params and constants only; "
                f"this condition uses {', '.join(sorted(bad))}"
            )

    def params(self) -> list:
        return [n.value for n in walk(self.condition) if n.kind == "param"]

    def holds(self) -> bool:
        return bool(_eval(self.condition))

    def text(self) -> str:
        return " ".join(str(_message_value(m)) for m in self.message)


def _message_value(m):
    """An error argument as Halide prints it: a Param's or a Param expression's value, else the argument."""
    if isinstance(m, Param):
        return m.get()
    if hasattr(m, "kind") and all(n.kind in _KINDS for n in walk(m)):
        return _eval(m)
    return m


def in_definitions(funcs) -> list:
    """The ``hl.require`` conditions in the definitions of ``funcs`` and every Func they call."""
    from ..lang.pipeline_funcs import topological_funcs

    found = []
    for f in topological_funcs(list(funcs)):
        d = f._definition()
        for e in [*d.values, *(x for u in f.updates() for x in (*u.args, *u.values))]:
            found += [n.value for n in walk(e) if n.kind == REQUIRE and n.value not in found]
    return found


def check_all(requirements) -> None:
    """Halide's error for the first requirement that fails (before a realize runs)."""
    for r in requirements:
        if not r.holds():
            c = str(r.condition)
            c = c if c.startswith("(") and c.endswith(")") else f"({c})"
            raise HalideError(f"{user_site()}: Error: Requirement Failed: {c} {r.text()}".rstrip())


def add_requirements(pipeline, reqs) -> None:
    pipeline._halide_mlir_requirements = [Requirement(c, list(m)) for c, m in reqs]


def requirements_of(pipeline) -> list:
    return list(getattr(pipeline, "_halide_mlir_requirements", ()))


def check(pipeline) -> None:
    """Before a JIT call: Halide's message for the first requirement that fails."""
    for r in requirements_of(pipeline):
        if not r.holds():
            raise HalideError(f"Requirement Failed: ({r.condition}) {r.text()}".rstrip())


def _eval(e):
    k = e.kind
    if k == "const":
        return e.value
    if k == "param":
        return e.value.get()
    if k == "not":
        return not _eval(e.args[0])
    if k == "cast":
        v = _eval(e.args[0])
        return float(v) if e.type.is_float() else int(v)
    if k == "select":
        return _eval(e.args[1]) if _eval(e.args[0]) else _eval(e.args[2])
    return _PY_BINARY[k](_eval(e.args[0]), _eval(e.args[1]))


def c_expr(e, c_name) -> str:
    """The condition as C over the wrapper's scalar parameters (``c_name(param)`` names each)."""
    from .wrapper import c_scalar

    k = e.kind
    if k == "const":
        v = e.value
        return repr(float(v)) if e.type.is_float() else f"{int(v)}LL" if not isinstance(v, bool) else str(int(v))
    if k == "param":
        return c_name(e.value)
    if k == "not":
        return f"(!{c_expr(e.args[0], c_name)})"
    if k == "cast":
        return f"(({c_scalar(e.type)}){c_expr(e.args[0], c_name)})"
    if k == "select":
        return f"({c_expr(e.args[0], c_name)} ? {c_expr(e.args[1], c_name)} : {c_expr(e.args[2], c_name)})"
    a, b = c_expr(e.args[0], c_name), c_expr(e.args[1], c_name)
    if k in ("min", "max"):
        return f"(({a}) {'<' if k == 'min' else '>'} ({b}) ? ({a}) : ({b}))"
    return f"({a} {_C_BINARY[k]} {b})"
