"""``hl.undef(type)``: a Tuple element (or value) an update definition leaves as it was.

Halide drops the store of an undefined element. Here the element is replaced, when the definition is made, by a
read of the Func's own value at the update's coordinates: the same values, and the analyses never see an
undefined Expr. In a pure definition the values are undefined in Halide (whatever the memory held); here zero.
"""

from __future__ import annotations

from ..error import HalideError
from .expr import Expr, cast
from .source import user_site
from .traversal import walk
from .types import Type

UNDEF = "undef"  # the kind of hl.undef(t)


def undef(t: Type) -> Expr:
    """Halide's ``undef(type)``: an undefined value of type ``t``, for update definitions."""
    if not isinstance(t, Type):
        raise HalideError(f"{user_site()}: undef takes a halide Type, not {t!r}")
    return Expr(UNDEF, t)


def resolve_undef(func, args: tuple, value, update: bool):
    """``value`` (an Expr or a tuple of them) with each element that depends on an undef replaced (Halide skips
    such stores, ``undef + 1`` included): by ``func``'s own value at ``args`` in an update, by zero in a pure
    definition."""
    values = value if isinstance(value, tuple) else (value,)
    if not any(n.kind == UNDEF for v in values if isinstance(v, Expr) for n in walk(v)):
        return value
    out = []
    for k, v in enumerate(values):
        if isinstance(v, Expr) and any(n.kind == UNDEF for n in walk(v)):
            types = func.output_types() if update else ()
            if v.kind == UNDEF and k < len(types) and v.type != types[k]:
                raise HalideError(
                    f'{user_site()}: In definition of Func "{func.name()}": Tuple element {k} is undef of type '
                    f"{v.type}, but the Func's element {k} has type {types[k]}"
                )
            if update:
                ref = func[args]
                v = ref[k] if isinstance(value, tuple) else Expr(ref)
            else:
                v = cast(v.type, 0)
        out.append(v)
    return tuple(out) if isinstance(value, tuple) else out[0]
