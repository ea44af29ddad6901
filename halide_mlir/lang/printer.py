"""Halide-style text for Exprs (used by repr and by error messages)."""

from __future__ import annotations

_INFIX = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "div": "/",
    "mod": "%",
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
    "shl": "<<",
    "shr": ">>",
}


def expr_str(e) -> str:
    k = e.kind
    if k == "const":
        if e.type.is_float():
            return f"{e.value:f}" + ("f" if e.type.bits() == 32 else "")
        return str(e.value) if e.type.is_int() and e.type.bits() == 32 else f"({e.type}){e.value}"
    if k in ("var", "param", "rvar"):
        return e.value.name()
    if k == "call":
        element = f"[{e.index}]" if getattr(e, "index", 0) else ""
        return f"{e.value.name()}({', '.join(expr_str(a) for a in e.args)}){element}"
    if k == "buffer_dim":
        holder, dim, field = e.value
        return f"{holder.name()}.{field}.{dim}"
    if k == "cast":
        return f"{e.type}({expr_str(e.args[0])})"
    if k in _INFIX:
        return f"({expr_str(e.args[0])} {_INFIX[k]} {expr_str(e.args[1])})"
    if k == "not":
        return f"~{expr_str(e.args[0])}"
    return f"{k}({', '.join(expr_str(a) for a in e.args)})"
