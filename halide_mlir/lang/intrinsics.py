"""Halide's integer intrinsics (widening, saturating, halving, rounding-shift, mul-shift-right, bit counting and
bit packing), the concise saturating casts (``hl.u8_sat`` ...), the target queries usable inside Exprs, and the
value-preserving markers (``unsafe_promise_clamped``, ``memoize_tag``, ``strict_float``).

Each intrinsic is spelled in ordinary Expr kinds with the exact values Halide's lowering gives
(FindIntrinsics' ``lower_*``): wide types where they exist, overflow-free same-width formulas elsewhere, so bounds
inference and vectorization see plain arithmetic. Only the bit counts (``popcount``, ``clz``, ``ctz``) and
``strict_float`` are kinds of their own, lowered in codegen/body.py.
"""

from __future__ import annotations

from ..error import HalideError, HalideValueError
from .expr import Expr, cast, const, is_python_number, to_expr
from .functions import saturating_cast
from .operators import select
from .source import user_site
from .types import Bool, Int, Type, UInt, as_type, match_types


def _ints(name: str, *es: Expr) -> None:
    for e in es:
        if not (e.type.is_int() or e.type.is_uint()):
            raise HalideError(f"{user_site()}: {name} is only defined for integer types, got {e} of type {e.type}")


def _widen(name: str, t: Type) -> Type:
    if t.bits() >= 64:  # Halide has no 128-bit type either (its realize fails with ValueError)
        raise HalideValueError(f"{user_site()}: {name} of a {t.bits()}-bit value needs a 128-bit type")
    return t.with_bits(t.bits() * 2)


def _matched(name: str, a, b) -> tuple[Expr, Expr]:
    """Halide's match_types on two Exprs (a Python number is an Expr first, as the bindings convert it)."""
    a, b = to_expr(a), to_expr(b)
    _ints(name, a, b)
    t = match_types(a.type, b.type)
    return cast(t, a), cast(t, b)


def _match_bits(a: Expr, b: Expr) -> tuple[Expr, Expr]:
    """Halide's match_bits: the narrower operand widened to the other's width, keeping its signedness."""
    bits = max(a.type.bits(), b.type.bits())
    return cast(a.type.with_bits(bits), a), cast(b.type.with_bits(bits), b)


def _shift_amount(name: str, a: Expr, b, signed_other):
    """An int shift amount as Halide's ``int`` overloads take it: unsigned of a's width, a negative one turning
    into the opposite shift. Returns (amount Expr, the function to use)."""
    if is_python_number(b):
        if not isinstance(b, int):
            raise HalideError(f"{user_site()}: {name}: the shift amount must be an integer, got {b!r}")
        bt = UInt(a.type.bits())
        if not bt.can_represent(abs(b)):
            raise HalideError(f"{user_site()}: {name}: shift amount {b} does not fit in {bt}")
        return (const(b, bt), None) if b >= 0 else (const(-b, bt), signed_other)
    b = to_expr(b)
    _ints(name, b)
    return b, None


# --- widening --------------------------------------------------------------------------------------------------
def widening_add(a, b) -> Expr:
    """``a + b`` in the type twice as wide (exact)."""
    a, b = _matched("widening_add", a, b)
    w = _widen("widening_add", a.type)
    return cast(w, a) + cast(w, b)


def widening_sub(a, b) -> Expr:
    """``a - b`` in the signed type twice as wide (exact, also for unsigned operands)."""
    a, b = _matched("widening_sub", a, b)
    w = Int(_widen("widening_sub", a.type).bits())
    return cast(w, a) - cast(w, b)


def widening_mul(a, b) -> Expr:
    """``a * b`` exactly, twice as wide; the operands may differ in signedness (then the result is signed)."""
    a, b = to_expr(a), to_expr(b)
    _ints("widening_mul", a, b)
    a, b = _match_bits(a, b)
    w = _widen("widening_mul", a.type)
    if w.is_uint() and b.type.is_int():
        w = Int(w.bits())
    return cast(w, a) * cast(w, b)


def _widen_right(name: str, kind: str, a, b) -> Expr:
    a, b = to_expr(a), to_expr(b)
    _ints(name, a, b)
    if b.type.bits() > 32:
        raise HalideError(f"{user_site()}: {name} of large Expr {a}, {b}")
    if b.type.with_bits(b.type.bits() * 2) != a.type:
        raise HalideError(f"{user_site()}: {name} type mismatch: {a} of type {a.type}, {b} of type {b.type}")
    return Expr(kind, a.type, (a, cast(a.type, b)))


def widen_right_add(a, b) -> Expr:
    """``a + widen(b)``: ``a`` has twice ``b``'s bits."""
    return _widen_right("widen_right_add", "add", a, b)


def widen_right_sub(a, b) -> Expr:
    return _widen_right("widen_right_sub", "sub", a, b)


def widen_right_mul(a, b) -> Expr:
    return _widen_right("widen_right_mul", "mul", a, b)


def _wide_shift(name: str, kind: str, other, a, b) -> Expr:
    a = to_expr(a)
    _ints(name, a)
    b, flip = _shift_amount(name, a, b, other)
    if flip is not None:
        return flip(a, b)
    a, b = _match_bits(a, b)
    w = _widen(name, a.type)
    return Expr(kind, w, (cast(w, a), cast(b.type.with_bits(w.bits()), b)))


def widening_shift_left(a, b) -> Expr:
    """``widen(a) << b`` (a negative signed ``b`` shifts right)."""
    return _wide_shift("widening_shift_left", "shl", widening_shift_right, a, b)


def widening_shift_right(a, b) -> Expr:
    return _wide_shift("widening_shift_right", "shr", widening_shift_left, a, b)


# --- saturating and halving ------------------------------------------------------------------------------------
def saturating_add(a, b) -> Expr:
    """``a + b`` clamped to the type's range (no wider type needed, so 64-bit works too)."""
    a, b = _matched("saturating_add", a, b)
    t = a.type
    hi, lo = const(t.max_value(), t), const(t.min_value(), t)
    if t.is_uint():
        return select(b > hi - a, hi, a + b)
    # a > 0: max - a cannot overflow; a < 0: min - a cannot
    return select((a > 0) & (b > hi - a), hi, (a < 0) & (b < lo - a), lo, a + b)


def saturating_sub(a, b) -> Expr:
    a, b = _matched("saturating_sub", a, b)
    t = a.type
    hi, lo = const(t.max_value(), t), const(t.min_value(), t)
    if t.is_uint():
        return select(a < b, const(0, t), a - b)
    return select((b < 0) & (a > hi + b), hi, (b > 0) & (a < lo + b), lo, a - b)


def halving_add(a, b) -> Expr:
    """``floor((a + b) / 2)`` without overflow."""
    a, b = _matched("halving_add", a, b)
    return (a >> 1) + (b >> 1) + (a & b & 1)


def rounding_halving_add(a, b) -> Expr:
    """``floor((a + b + 1) / 2)`` without overflow."""
    a, b = _matched("rounding_halving_add", a, b)
    return (a >> 1) + (b >> 1) + ((a | b) & 1)


def halving_sub(a, b) -> Expr:
    """``floor((a - b) / 2)`` in ``a``'s type (wrapping for unsigned results below zero)."""
    a, b = _matched("halving_sub", a, b)
    return (a >> 1) - (b >> 1) - (~a & b & 1)


# --- rounding shifts and mul-shift-right -----------------------------------------------------------------------
def rounding_shift_right(a, b) -> Expr:
    """``a >> b`` rounded to nearest (ties up), with no intermediate overflow; ``b <= 0`` shifts left."""
    a = to_expr(a)
    _ints("rounding_shift_right", a)
    b, flip = _shift_amount("rounding_shift_right", a, b, rounding_shift_left)
    if flip is not None:
        return flip(a, b)
    a, b = _match_bits(a, b)
    t, zero = a.type, const(0, a.type)
    pos = b > const(0, b.type)
    # the most significant dropped bit rounds up (a shift amount of b - 1 is only used when b > 0)
    dropped = select(pos, b - const(1, b.type), const(0, b.type))
    return Expr("add", t, (a >> b, select(pos, (a >> dropped) & 1, zero)))


def rounding_shift_left(a, b) -> Expr:
    """``a << b``; a negative ``b`` is a rounding right shift."""
    a = to_expr(a)
    _ints("rounding_shift_left", a)
    b, flip = _shift_amount("rounding_shift_left", a, b, rounding_shift_right)
    if flip is not None:
        return flip(a, b)
    a, b = _match_bits(a, b)
    t = a.type
    if b.type.is_uint():
        return a << b
    neg = b < const(0, b.type)
    up = select(neg, b + const(1, b.type), const(0, b.type))
    return Expr("add", t, (a << b, select(neg, (a << up) & 1, const(0, t))))


def _q_operand(name: str, a: Expr, q) -> Expr:
    if is_python_number(q):
        qt = UInt(a.type.bits())
        if not isinstance(q, int) or not qt.can_represent(q):
            raise HalideError(f"{user_site()}: {name}: shift {q!r} is not representable in {qt}")
        return const(q, qt)
    q = to_expr(q)
    if not q.type.is_uint():
        raise HalideError(f"{user_site()}: {name} shift must be unsigned")
    return q


def _mul_shift(name: str, rounding: bool, a, b, q) -> Expr:
    a, b = _matched(name, a, b)
    q = _q_operand(name, a, q)
    a, q = _match_bits(a, q)  # q might widen a, then b follows
    b = cast(a.type, b)
    t = a.type
    p = widening_mul(a, b)
    qw = cast(UInt(p.type.bits()), q)
    shifted = rounding_shift_right(p, qw) if rounding else p >> qw
    return saturating_cast(t, shifted)


def mul_shift_right(a, b, q) -> Expr:
    """``saturating_cast(type(a), widening_mul(a, b) >> q)``."""
    return _mul_shift("mul_shift_right", False, a, b, q)


def rounding_mul_shift_right(a, b, q) -> Expr:
    """``saturating_cast(type(a), rounding_shift_right(widening_mul(a, b), q))``."""
    return _mul_shift("rounding_mul_shift_right", True, a, b, q)


# --- bits ------------------------------------------------------------------------------------------------------
def _bit_count(name: str, kind: str, x) -> Expr:
    x = to_expr(x)
    if not (x.type.is_int() or x.type.is_uint()):
        raise HalideError(f"{user_site()}: Argument to {name} must be an integer")
    return Expr(kind, x.type, (x,))


def popcount(x) -> Expr:
    """The number of set bits, in ``x``'s type."""
    return _bit_count("popcount", "popcount", x)


def count_leading_zeros(x) -> Expr:
    """Leading zero bits (the type's width for 0), in ``x``'s type."""
    return _bit_count("count_leading_zeros", "clz", x)


def count_trailing_zeros(x) -> Expr:
    return _bit_count("count_trailing_zeros", "ctz", x)


def _as_uint(e: Expr) -> Expr:
    from .functions import reinterpret

    return e if e.type.is_uint() else reinterpret(UInt(e.type.bits()), e)


def concat_bits(values) -> Expr:
    """The bits of ``values`` side by side, the first in the least significant bits."""
    from .functions import reinterpret

    vals = [to_expr(v) for v in values]
    if not vals:
        raise HalideError(f"{user_site()}: concat_bits requires at least one argument")
    if len(vals) & (len(vals) - 1):
        raise HalideError(f"{user_site()}: concat_bits received {len(vals)} arguments, which is not a power of two.")
    t = vals[0].type
    if any(v.type != t for v in vals):
        raise HalideError(f"{user_site()}: All arguments to concat_bits must have the same type")
    if t.is_float() or t.is_bool() or t.bits() * len(vals) > 64:
        raise HalideError(f"{user_site()}: concat_bits of {len(vals)} values of type {t} is not supported")
    n = t.bits()
    w = UInt(n * len(vals))
    acc = None
    for i, v in enumerate(vals):
        part = cast(w, _as_uint(v))
        part = part << const(i * n, w) if i else part
        acc = part if acc is None else acc | part
    r = t.with_bits(w.bits())
    return acc if r == w else reinterpret(r, acc)


def extract_bits(t, e, lsb) -> Expr:
    """The bits of ``e`` from bit ``lsb`` up, as type ``t`` (zeros past ``e``'s top bit)."""
    from .functions import reinterpret

    t = as_type(t)
    e = to_expr(e)
    if e.type.is_bool() or t.is_bool():
        raise HalideError(f"{user_site()}: extract_bits of a bool is not supported")
    u = _as_uint(e)
    u = u >> lsb
    r = cast(UInt(t.bits()), u)
    return r if r.type == t else reinterpret(t, r)


# --- the concise saturating casts ------------------------------------------------------------------------------
def i8_sat(e) -> Expr:
    return saturating_cast(Int(8), e)


def i16_sat(e) -> Expr:
    return saturating_cast(Int(16), e)


def i32_sat(e) -> Expr:
    return saturating_cast(Int(32), e)


def i64_sat(e) -> Expr:
    return saturating_cast(Int(64), e)


def u8_sat(e) -> Expr:
    return saturating_cast(UInt(8), e)


def u16_sat(e) -> Expr:
    return saturating_cast(UInt(16), e)


def u32_sat(e) -> Expr:
    return saturating_cast(UInt(32), e)


def u64_sat(e) -> Expr:
    return saturating_cast(UInt(64), e)


# --- target queries: constants of the target the JIT compiles for ----------------------------------------------
def _target():
    from .target import get_jit_target_from_environment

    return get_jit_target_from_environment()


def target_arch_is(arch) -> Expr:
    return const(_target().arch == arch, Bool())


def target_os_is(os) -> Expr:
    return const(_target().os == os, Bool())


def target_bits() -> Expr:
    return const(_target().bits, Int(32))


def target_has_feature(feature) -> Expr:
    return const(_target().has_feature(feature), Bool())


def target_natural_vector_size(t) -> Expr:
    return const(_target().natural_vector_size(as_type(t)), Int(32))


# --- markers that keep the value -------------------------------------------------------------------------------
def unsafe_promise_clamped(value, min, max) -> Expr:  # noqa: A002 - Halide's names
    """``value``, promised (not checked) to lie in [min, max], as in Halide: a value outside is undefined
    behaviour there, and here keeps its value."""
    for v in (min, max):
        to_expr(v)
    return to_expr(value)


def memoize_tag(result, *cache_key_values) -> Expr:
    """``result``; the extra keys only separate entries of Halide's memoization cache by values the Func does
    not read. halide_mlir's keys are the values a memoized Func reads, and a pure Func's value depends on
    nothing else, so the extra keys change no value."""
    for v in cache_key_values:
        to_expr(v)
    return to_expr(result)


def strict_float(e) -> Expr:
    """``e`` evaluated with IEEE semantics: no fused multiply-add, no reciprocal for a constant divisor."""
    e = to_expr(e)
    if not e.type.is_float():
        return e
    return Expr("strict_float", e.type, (e,))


__all__ = [
    "concat_bits",
    "count_leading_zeros",
    "count_trailing_zeros",
    "extract_bits",
    "halving_add",
    "halving_sub",
    "i16_sat",
    "i32_sat",
    "i64_sat",
    "i8_sat",
    "memoize_tag",
    "mul_shift_right",
    "popcount",
    "rounding_halving_add",
    "rounding_mul_shift_right",
    "rounding_shift_left",
    "rounding_shift_right",
    "saturating_add",
    "saturating_sub",
    "strict_float",
    "target_arch_is",
    "target_bits",
    "target_has_feature",
    "target_natural_vector_size",
    "target_os_is",
    "u16_sat",
    "u32_sat",
    "u64_sat",
    "u8_sat",
    "unsafe_promise_clamped",
    "widen_right_add",
    "widen_right_mul",
    "widen_right_sub",
    "widening_add",
    "widening_mul",
    "widening_shift_left",
    "widening_shift_right",
    "widening_sub",
]
