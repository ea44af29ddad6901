"""``hl.random_float/random_int/random_uint``: Halide's pseudo-random numbers, bit for bit.

As in Halide (src/Random.cpp), a call records its seed and a call id; each Func definition then replaces it by a
hash (a fixed permutation polynomial on uint32, applied once per argument) of the seed, the call id, the
definition's tag and the definition's free Vars (and RVars). The hash is ordinary uint32 arithmetic, so the
rest of the compiler sees plain Exprs. Both counters are process-wide as Halide's, so a program that makes the
same calls in the same order gets the same numbers as under Halide.
"""

from __future__ import annotations

import itertools

from ..error import HalideError
from .expr import Expr, cast, const, to_expr
from .source import user_site
from .types import Float, Int, UInt

_C0, _C1, _C2 = 576942909, 1121052041, 1040796640
_call_ids = itertools.count()  # Halide's random_number_counter
_definition_tags = itertools.count()  # Halide's random_variable_counter: one per definition, used or not


def _random(t, seed) -> Expr:
    call_id = next(_call_ids)
    args = []
    if seed is not None:
        seed = to_expr(seed)
        if seed.type != Int(32):
            name = {Float(32): "random_float", Int(32): "random_int"}.get(t, "random_uint")
            raise HalideError(
                f"{user_site()}: The seed passed to {name} must have type Int(32), but instead is "
                f"{seed} of type {seed.type}"
            )
        args.append(seed)
    args.append(const(call_id, Int(32)))
    return Expr("random", t, tuple(args))


def random_float(seed=None) -> Expr:
    """A uniform float in [0, 1], a fixed function of the seed and the point of the Func it is used in."""
    return _random(Float(32), seed)


def random_int(seed=None) -> Expr:
    return _random(Int(32), seed)


def random_uint(seed=None) -> Expr:
    return _random(UInt(32), seed)


def _rng32(x: Expr) -> Expr:
    u = UInt(32)
    if x.kind == "const":
        v = x.value
        return const((((_C2 * v) + _C1) * v + _C0) & 0xFFFFFFFF, u)
    return (((const(_C2, u) * x) + const(_C1, u)) * x) + const(_C0, u)


def _hash(args: list) -> Expr:
    u = UInt(32)
    result = _rng32(cast(u, args[0]))
    for a in args[1:]:
        a = cast(u, a)
        if result.kind == "const" and a.kind == "const":
            result = _rng32(const((result.value + a.value) & 0xFFFFFFFF, u))
        else:
            result = _rng32(result + a)
    return result ^ (result >> const(16, u))


def _lowered(node: Expr, extra: list) -> Expr:
    from .functions import reinterpret
    from .operators import clamp

    h = _hash(list(node.args) + extra)
    if node.type == Float(32):
        u = UInt(32)
        bits = const(127 << 23, u) | (h >> const(9, u))
        return clamp(reinterpret(Float(32), bits) - const(1.0, Float(32)), const(0.0, Float(32)), const(1.0, Float(32)))
    return cast(Int(32), h) if node.type == Int(32) else h


def next_tag() -> int:
    return next(_definition_tags)


def lower_random(e: Expr, free_vars: list, tag: int) -> Expr:
    """``e`` with its random calls replaced by hashes over (seed, call id, tag, free vars innermost last)."""
    if not any(n.kind == "random" for n in _walk(e)):
        return e
    extra = [const(tag, Int(32))] + [to_expr(v) for v in reversed(free_vars)]
    from .traversal import replace_nodes

    return replace_nodes(e, lambda n: _lowered(n, extra) if n.kind == "random" else None)


def _walk(e):
    from .traversal import walk

    return walk(e)
