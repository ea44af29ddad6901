"""Coordinates of the form ``a * var + constant``: the reads that become slices (strided when ``a`` > 1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lang.traversal import walk

if TYPE_CHECKING:  # annotations only
    from ..lang.expr import Expr

# Strided reads up to this stride are slices (a dense load plus a shuffle once vectorized:
# codegen/strided_reads.py); beyond it the dense load would move more data than a gather.
MAX_STRIDE = 4


def linear_form(e: Expr) -> tuple[str | None, int, int] | None:
    """``e`` as (var name or None, coefficient, integer constant) if it is ``a * var + c`` / ``c`` after folding
    (``a`` an integer)."""
    k = e.kind
    if k == "const" and not e.type.is_float():
        return None, 0, int(e.value)
    if k == "param" and not e.type.is_float():
        return None, 0, int(e.value.get())  # index Params are compile-time values (see realize's cache key)
    if k == "var":
        return e.value.name(), 1, 0
    if k in ("add", "sub", "mul") and not e.type.is_float():
        a, b = linear_form(e.args[0]), linear_form(e.args[1])
        if a is None or b is None:
            return None
        if k == "mul":
            if a[0] is not None and b[0] is not None:
                return None
            (v, coef, c), factor = (a, b[2]) if b[0] is None else (b, a[2])
            return (v if coef * factor else None), coef * factor, c * factor
        sign = 1 if k == "add" else -1
        if a[0] is not None and b[0] is not None:
            if a[0] != b[0]:
                return None
            coef = a[1] + sign * b[1]
            return (a[0] if coef else None), coef, a[2] + sign * b[2]
        return a[0] or b[0], a[1] + sign * b[1], a[2] + sign * b[2]
    if k == "cast" and e.type.bits() >= 32 and e.args[0].type.bits() <= 32 and e.args[0].type.is_int():
        return linear_form(e.args[0])
    return None


def strided_forms(call: Expr) -> list | None:
    """The coordinates of a call as (var, stride, constant) if the read is a strided slice: distinct Vars with
    integer coefficients 1..MAX_STRIDE, plus constants (no call inside a coordinate); None for any other read (a
    gather: ``tensor.extract`` in codegen)."""
    if any(m.kind == "call" for a in call.args for m in walk(a)):
        return None
    forms = [linear_form(a) for a in call.args]
    if any(f is None or not 0 <= f[1] <= MAX_STRIDE for f in forms):
        return None
    used = [v for v, _, _ in forms if v is not None]
    return forms if len(set(used)) == len(used) else None


def slice_forms(call: Expr) -> list | None:
    """The coordinates of a call as (var, constant) if the read is a unit-stride slice (``var + c``, ``c``);
    None for any other read."""
    forms = strided_forms(call)
    if forms is None or any(v is not None and a != 1 for v, a, _ in forms):
        return None
    return [(v, c) for v, _, c in forms]


def affine_form(e: Expr, dim_of: dict, base_of: dict) -> tuple[dict, int] | None:
    """``e`` as an affine expression of loop dims: ({dim: coefficient}, constant), or None."""
    k = e.kind
    if k == "const" and not e.type.is_float():
        return {}, int(e.value)
    if k == "param" and not e.type.is_float():
        return {}, int(e.value.get())
    if k in ("var", "rvar"):
        name = e.value.name()
        return {dim_of[name]: 1}, base_of[name]
    if k in ("add", "sub") and not e.type.is_float():
        a, b = affine_form(e.args[0], dim_of, base_of), affine_form(e.args[1], dim_of, base_of)
        if a is None or b is None:
            return None
        sign = 1 if k == "add" else -1
        coef = dict(a[0])
        for d, c in b[0].items():
            coef[d] = coef.get(d, 0) + sign * c
        return coef, a[1] + sign * b[1]
    if k == "mul" and not e.type.is_float():
        a, b = affine_form(e.args[0], dim_of, base_of), affine_form(e.args[1], dim_of, base_of)
        if a is None or b is None or (a[0] and b[0]):
            return None
        (coef, c), scale = (a, b[1]) if a[0] else (b, a[1])
        return {d: v * scale for d, v in coef.items()}, c * scale
    if k == "cast" and e.type.bits() >= 32 and e.args[0].type.is_int() and e.args[0].type.bits() <= 32:
        return affine_form(e.args[0], dim_of, base_of)
    return None


def map_forms(call: Expr, dim_of: dict, base_of: dict) -> list | None:
    """The coordinates of an update's read as affine forms of its loop dims if the read is an indexing map of its
    generic (codegen/updates.py emit_reduction), else None (a ``tensor.extract``): every coordinate affine, no
    call inside one, and no negative coefficient. linalg's tiling asserts on a map like ``d1 - d2``
    ("nonpositive multiplying coefficient" in Linalg/Utils: an abort, not a diagnostic), so ``input[x - r.x]``
    is gathered (docs/mlir-pitfalls.md#negative-coefficient-maps)."""
    if any(m.kind == "call" for a in call.args for m in walk(a)):
        return None
    forms = [affine_form(a, dim_of, base_of) for a in call.args]
    if any(f is None or any(c < 0 for c in f[0].values()) for f in forms):
        return None
    return forms


def scaled_form(e: Expr) -> tuple[str | None, int, int, int] | None:
    """``e`` as (var or None, a, c, d) if it is ``(a * var + c) / d`` (Halide's flooring division, ``d`` >= 1;
    ``d`` is 1 without a division), else None."""
    if e.kind == "div" and not e.type.is_float():
        num, den = linear_form(e.args[0]), linear_form(e.args[1])
        if num is None or den is None or den[0] is not None or den[2] < 1:
            return None
        return num[0], num[1], num[2], den[2]
    if e.kind in ("add", "sub") and not e.type.is_float():  # x / 2 - 1: (x - 2) / 2
        a, b = scaled_form(e.args[0]), scaled_form(e.args[1])
        sign = 1 if e.kind == "add" else -1
        if a is not None and b is not None and a[3] > 1 and b[0] is None and b[3] == 1:
            return a[0], a[1], a[2] + sign * b[2] * a[3], a[3]
        if e.kind == "add" and a is not None and b is not None and b[3] > 1 and a[0] is None and a[3] == 1:
            return b[0], b[1], b[2] + a[2] * b[3], b[3]
    f = linear_form(e)
    return None if f is None else (f[0], f[1], f[2], 1)


def scaled_forms(call: Expr) -> list | None:
    """The coordinates of a call as (var, a, c, d) (``(a * var + c) / d``), distinct Vars with 0 < a <=
    MAX_STRIDE and no call inside a coordinate; None for any other read. A unit-stride slice is the case a = d = 1."""
    if any(m.kind == "call" for a in call.args for m in walk(a)):
        return None
    forms = [scaled_form(a) for a in call.args]
    if any(f is None or (f[0] is not None and not 0 < f[1] <= MAX_STRIDE) for f in forms):
        return None
    used = [f[0] for f in forms if f[0] is not None]
    return forms if len(set(used)) == len(used) else None


def lut_forms(call: Expr) -> list | None:
    """The coordinates of a call as scaled_forms gives them, where a coordinate holding a call (data dependent:
    max_filter's ``vert[x + k, y, c, clamp(filter_height[k], 0, 27)]``) is None; None if another coordinate is not
    ``(a * var + c) / d`` of distinct Vars, or no coordinate is data dependent (scaled_forms' case)."""
    forms = []
    for a in call.args:
        if any(m.kind == "call" for m in walk(a)):
            forms.append(None)
            continue
        f = scaled_form(a)
        if f is None or (f[0] is not None and not 0 < f[1] <= MAX_STRIDE):
            return None
        forms.append(f)
    used = [f[0] for f in forms if f is not None and f[0] is not None]
    if None not in forms or len(set(used)) != len(used):
        return None
    return forms
