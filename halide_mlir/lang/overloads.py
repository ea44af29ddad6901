"""Argument matching for Halide's overloaded constructors and functions.

Halide's bindings take each of a few fixed forms, positionally or by keyword, and raise TypeError for anything
else (``hl.Buffer(array, False)``, ``hl.RDom(hl.Range(0, 3))``). Matching the same forms here keeps a call that
Halide reads one way from being read another way (``hl.Buffer(array, "name", False)`` is ``reverse_axes=False``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..error import HalideTypeError
from .source import user_site

REQUIRED = object()


class Arg:
    """One parameter of a form: its keyword name, what it accepts, its default (REQUIRED if none)."""

    def __init__(self, name: str, accepts: Callable[[Any], bool], default=REQUIRED, keyword: bool = True):
        # keyword=False: positional only (pybind11's unnamed ``arg0`` parameters)
        self.name, self.accepts, self.default, self.keyword = name, accepts, default, keyword


def _bind(form: list[Arg], args: tuple, kwargs: dict):
    if len(args) > len(form):
        return None
    bound = {}
    for a, v in zip(form, args):
        bound[a.name] = v
    for k, v in kwargs.items():
        if k in bound or not any(a.name == k and a.keyword for a in form):
            return None
        bound[k] = v
    for a in form:
        if a.name not in bound:
            if a.default is REQUIRED:
                return None
            bound[a.name] = a.default
        elif not a.accepts(bound[a.name]):
            return None
    return bound


def match(what: str, args: tuple, kwargs: dict, *forms) -> tuple[int, dict]:
    """The index of the first form that takes ``args``/``kwargs``, and the bound values by name."""
    for i, form in enumerate(forms):
        bound = _bind(form, args, kwargs)
        if bound is not None:
            return i, bound
    given = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    supported = "\n".join(f"    {what}({', '.join(_describe(a) for a in form)})" for form in forms)
    kind = "constructor arguments" if what[:1].isupper() else "function arguments"  # pybind11's words
    raise HalideTypeError(f"{user_site()}: {what}(): incompatible {kind} ({given}); Halide takes:\n{supported}")


def _describe(a: Arg) -> str:
    return a.name if a.default is REQUIRED else f"{a.name}={a.default!r}"


# --- what a parameter accepts (pybind11's conversions, without implicit ones) -------------------------------
def is_str(v) -> bool:
    return isinstance(v, str)


def is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def is_bool(v) -> bool:
    return isinstance(v, (bool, np.bool_))


def is_type(v) -> bool:
    from .types import Type

    return isinstance(v, Type)


def is_int_list(v) -> bool:
    return isinstance(v, (list, tuple)) and all(is_int(x) for x in v)


def is_buffer_like(v) -> bool:
    """Anything with the buffer protocol (numpy arrays, memoryviews, ...) or an hl.Buffer."""
    from .buffer import Buffer

    if isinstance(v, (Buffer, np.ndarray)):
        return True
    if isinstance(v, (str, list, tuple)):
        return False
    try:
        memoryview(v)
    except TypeError:
        return False
    return True


def is_expr_like(v) -> bool:
    """What Halide converts to an Expr: numbers, Exprs, Vars, Params, RVars, RDoms, Func calls."""
    from .expr import Expr

    return isinstance(v, (Expr, bool, int, float, np.number, np.bool_)) or hasattr(v, "_as_expr")
