"""Coordinates of the form ``var + constant``: the reads that become slices."""
from __future__ import annotations

from ..lang.traversal import walk


def linear_form(e):
    """``e`` as (var name or None, integer constant) if it is ``var + c`` / ``c`` after folding."""
    k = e.kind
    if k == "const" and not e.type.is_float():
        return None, int(e.value)
    if k == "param" and not e.type.is_float():
        return None, int(e.value.get())  # index Params are compile-time values (see realize's cache key)
    if k == "var":
        return e.value.name(), 0
    if k in ("add", "sub") and not e.type.is_float():
        a, b = linear_form(e.args[0]), linear_form(e.args[1])
        if a is None or b is None:
            return None
        if k == "sub":
            if b[0] is not None:
                return None
            return a[0], a[1] - b[1]
        if a[0] is not None and b[0] is not None:
            return None
        return a[0] or b[0], a[1] + b[1]
    if k == "cast" and e.type.bits >= 32 and e.args[0].type.bits <= 32 and e.args[0].type.is_int():
        return linear_form(e.args[0])
    return None


def slice_forms(call) -> list | None:
    """The coordinates of a call as linear forms if the read is a slice: distinct Vars plus constants (no
    call inside a coordinate); None for any other read (a gather: ``tensor.extract`` in codegen)."""
    if any(m.kind == "call" for a in call.args for m in walk(a)):
        return None
    forms = [linear_form(a) for a in call.args]
    if any(f is None for f in forms):
        return None
    used = [v for v, _ in forms if v is not None]
    return forms if len(set(used)) == len(used) else None
