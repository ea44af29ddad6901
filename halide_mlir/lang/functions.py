"""Halide's everyday free functions beyond arithmetic: mux, lerp, saturating_cast, reinterpret, the float
classification tests, fract/hypot/absd/erf and the inverse hyperbolics, rounding-to-zero division, logical_not,
likely, evaluate, vars/funcs.

Most are built from existing Expr kinds (so bounds inference and vectorization see ordinary arithmetic); the
few that need their own instruction (``is_nan``, ``reinterpret``, ``div_round_to_zero`` ...) become
their own kinds, lowered in codegen/body.py.
"""

from __future__ import annotations

from ..error import HalideError
from .expr import Expr, cast, const, to_expr
from .operators import _float_arg, select, sqrt, trunc
from .operators import abs as _abs
from .source import user_site
from .types import Bool, Float, UInt, as_type, match_types


def _needs_float(name: str, e: Expr) -> None:
    if not e.type.is_float():
        raise HalideError(f"{user_site()}: {name} only works for float, got {e} of type {e.type}")


def mux(index, values) -> Expr:
    """``values[index]``; an index out of range gives the last value (as Halide's select chain does)."""
    from .func import Tuple

    values = list(values) if isinstance(values, (list, tuple, Tuple)) else None
    if not values:
        raise HalideError(f"{user_site()}: mux() requires a non-empty vector of values")
    vals = [to_expr(v) for v in values]
    if len({v.type for v in vals}) != 1:
        raise HalideError(f"{user_site()}: mux() requires all the values to have the same type.")
    index = to_expr(index)
    if len(vals) == 1:
        return vals[0]
    args: list = []
    for i, v in enumerate(vals[:-1]):
        args += [index == i, v]
    return select(*args, vals[-1])


def lerp(zero_val, one_val, weight) -> Expr:
    """Halide's linear interpolation. A float weight is used as is for float values; integer values take an
    unsigned weight (a float one is first scaled to the unsigned range) and are blended exactly as Halide
    does: ``(zero * (max - w) + one * w + max / 2) / max`` in a wider type, signed values with their sign bit
    flipped around it."""
    z, o, w = to_expr(zero_val), to_expr(one_val), to_expr(weight)
    if isinstance(zero_val, (int, float)) and not isinstance(one_val, (int, float)):
        z = cast(o.type, z)
    elif isinstance(one_val, (int, float)) and not isinstance(zero_val, (int, float)):
        o = cast(z.type, o)
    if z.type != o.type:
        raise HalideError(f"{user_site()}: Can't lerp between {z} of type {z.type} and {o} of different type {o.type}")
    if not (w.type.is_uint() or w.type.is_float()):
        raise HalideError(
            f"{user_site()}: A lerp weight must be an unsigned integer or a float, but lerp weight "
            f"{w} has type {w.type}."
        )
    t = z.type
    if t.is_float():
        w = cast(t, w)
        return z + (o - z) * w
    if w.type.is_float() and t.is_bool():
        return select(w >= 0.5, o, z)
    bits = t.bits()
    ut = UInt(bits)
    if w.type.is_float():
        limit = float((1 << bits) - 1)
        w = cast(ut, _clamp_f(w * cast(w.type, const(limit, Float(32))), 0.0, limit))  # truncated, as Halide
    elif w.type.bits() != bits:  # rescale the weight to the values' width (an exact ratio of the ranges)
        wb = w.type.bits()
        if wb > bits:  # divided by (2^wb - 1) / (2^bits - 1), e.g. 257 for u16 -> u8, as Halide (not a shift)
            w = cast(ut, w / const(((1 << wb) - 1) // ((1 << bits) - 1), w.type))
        else:
            wide = cast(ut, w)
            reps = [wide << (k * wb) for k in range(bits // wb)]
            acc = reps[0]
            for r in reps[1:]:
                acc = acc | r
            w = acc
    if t.is_int():  # flip the sign bit: the signed order becomes the unsigned order
        flip = const(1 << (bits - 1), ut)
        zu, ou = cast(ut, z) ^ flip, cast(ut, o) ^ flip
    else:
        zu, ou = z, o
    wide = UInt(bits * 2)
    mx = (1 << bits) - 1
    zw, ow, ww = cast(wide, zu), cast(wide, ou), cast(wide, w)
    blended = (zw * (const(mx, wide) - ww) + ow * ww + const(mx // 2, wide)) / const(mx, wide)
    r = cast(ut, blended)
    return cast(t, r ^ flip) if t.is_int() else r


def _clamp_f(e: Expr, lo: float, hi: float) -> Expr:
    from .operators import clamp

    return clamp(e, lo, hi)


def saturating_cast(t, e) -> Expr:
    """``e`` converted to ``t``, clamped to ``t``'s range first (NaN is not special-cased, as in Halide)."""
    t = as_type(t)
    e = to_expr(e)
    s = e.type
    if s == t:
        return e
    if t.is_float():
        if s.is_float() and s.bits() > t.bits():
            return cast(t, _clamp_exact(e, float(t.min_finite()), float(t.max_finite())))
        return cast(t, e)
    if s.is_float():
        # 2**k limits are exact floats: at or past them the result is the integer limit itself
        top = const(float(t.max_value() + 1), s)
        bottom = const(float(t.min_value()), s)
        return select(e >= top, const(t.max_value(), t), e <= bottom, const(t.min_value(), t), cast(t, e))
    lo = max(t.min_value(), s.min_value())
    hi = min(t.max_value(), s.max_value())
    v = e
    if hi < s.max_value():
        v = Expr("min", s, (v, const(hi, s)))
    if lo > s.min_value():
        v = Expr("max", s, (v, const(lo, s)))
    return cast(t, v)


def _clamp_exact(e: Expr, lo: float, hi: float) -> Expr:
    t = e.type
    return Expr("max", t, (Expr("min", t, (e, const(hi, t))), const(lo, t)))


def reinterpret(t, e) -> Expr:
    """The bits of ``e`` read as type ``t`` (same width)."""
    t = as_type(t)
    e = to_expr(e)
    if t.bits() != e.type.bits():
        raise HalideError(
            f"{user_site()}: Reinterpret cast from type {e.type} which has {e.type.bits()} bits, "
            f"to type {t} which has {t.bits()} bits"
        )
    return e if t == e.type else Expr("reinterpret", t, (e,))


def is_nan(e) -> Expr:
    e = to_expr(e)
    _needs_float("is_nan", e)
    return Expr("is_nan", Bool(), (e,))


def is_inf(e) -> Expr:
    e = to_expr(e)
    _needs_float("is_inf", e)
    return Expr("is_inf", Bool(), (e,))


def is_finite(e) -> Expr:
    e = to_expr(e)
    _needs_float("is_finite", e)
    return Expr("is_finite", Bool(), (e,))


def fract(e) -> Expr:
    """The fractional part, with the sign of ``e``: ``e - trunc(e)``."""
    e = _float_arg(e)
    return e - trunc(e)


def hypot(x, y) -> Expr:
    x, y = _float_arg(x), _float_arg(y)
    t = match_types(x.type, y.type)
    x, y = cast(t, x), cast(t, y)
    return sqrt(x * x + y * y)


# erf(x) / x as a polynomial in x^2 on [0, 1.25], and erfc(x)^(1/16) as a polynomial in x on [1.25, 4]: least-squares
# fits (relative, reweighted toward minimax) made for this file; highest power first
_ERF_SMALL = (
    6.20883220108226e-05,
    -0.0007425762014463544,
    0.005109182093292475,
    -0.026803387328982353,
    0.11282084882259369,
    -0.3761245012283325,
    1.1283791065216064,
)
_ERFC_16 = (
    1.0966120953526115e-06,
    3.5959340038971277e-06,
    -0.0003921401221305132,
    0.0035502200480550528,
    -0.005749086383730173,
    -0.03496191278100014,
    -0.07204997539520264,
    1.0004318952560425,
)


def erf(e) -> Expr:
    """The error function of a float32, within 3 ulp (Halide's approximation: 7.5).

    Polynomials only, so it vectorizes like arithmetic with no division and no exp (about Halide's cost): erf(x) =
    x P(x^2) for |x| < 1.25; beyond, 1 - Q(|x|)^16 with Q ~ erfc^(1/16) (the form of Abramowitz and Stegun 7.1.28,
    whose 16th power keeps Q smooth and its rounding error small), x clamped to 4, where erf is 1 in float32.
    The sign is x's; nan stays nan; denormals keep their value (erf(x) ~ 2x / sqrt(pi))."""
    e = to_expr(e)
    if e.type != Float(32):
        raise HalideError(f"{user_site()}: erf only takes float arguments")
    f32 = Float(32)

    def poly(v, coeffs):
        p = const(coeffs[0], f32)
        for c in coeffs[1:]:
            p = p * v + const(c, f32)
        return p

    z = _abs(e)
    small = z * poly(z * z, _ERF_SMALL)
    q = poly(select(z > 4.0, const(4.0, f32), z), _ERFC_16)  # (nan > 4 is false: nan stays nan)
    q2 = q * q
    q4 = q2 * q2
    q8 = q4 * q4
    r = select(z < 1.25, small, 1.0 - q8 * q8)
    return select(e < 0, -r, r)


def acosh(e) -> Expr:
    """log(x + sqrt(x^2 - 1)); a non-float argument is first cast to float32 (as in Halide)."""
    from .operators import log

    x = _float_arg(e)
    return log(x + sqrt(x * x - 1))


def asinh(e) -> Expr:
    """sign(x) log(|x| + sqrt(x^2 + 1)) (odd, so negative inputs lose nothing to cancellation)."""
    from .operators import log

    x = _float_arg(e)
    a = _abs(x)
    r = log(a + sqrt(a * a + 1))
    return select(x < 0, -r, r)


def atanh(e) -> Expr:
    """log((1 + x) / (1 - x)) / 2."""
    from .operators import log

    x = _float_arg(e)
    return log((1 + x) / (1 - x)) * 0.5


def absd(a, b) -> Expr:
    """``|a - b|`` without overflow: unsigned of the same width for integers."""
    from .expr import operands

    a, b = operands(a, b)
    t = a.type
    if t.is_float():
        return _abs(a - b)
    ut = UInt(t.bits())
    ua, ub = cast(ut, a), cast(ut, b)
    return select(a < b, ub - ua, ua - ub)


def _round_to_zero(kind: str, name: str, a, b) -> Expr:
    from .expr import operands

    a, b = operands(a, b)
    for i, v in enumerate((a, b)):
        if v.type.is_float():
            raise HalideError(f"{user_site()}: {('First', 'Second')[i]} argument to {name} is not an integer: {v}")
    return Expr(kind, a.type, (a, b))


def div_round_to_zero(a, b) -> Expr:
    """C's integer division (towards zero). Halide leaves x / 0 undefined; here it is 0, as ``/`` is."""
    return _round_to_zero("div_rtz", "div_round_to_zero", a, b)


def mod_round_to_zero(a, b) -> Expr:
    """C's remainder (the sign of ``a``); x % 0 is 0 here (undefined in Halide)."""
    return _round_to_zero("mod_rtz", "mod_round_to_zero", a, b)


def logical_not(e) -> Expr:
    e = to_expr(e)
    if not e.type.is_bool():
        raise HalideError(f"{user_site()}: argument of Not is not a bool")
    return ~e


def likely(e) -> Expr:
    """A hint for Halide's loop partitioning; the value is ``e`` itself."""
    return to_expr(e)


def likely_if_innermost(e) -> Expr:
    return to_expr(e)


def evaluate(e):
    """The value of an Expr (or a tuple of them) that uses no Vars, as a Python number."""
    from .func import Func, Tuple

    if isinstance(e, (tuple, list, Tuple)):
        values = tuple(to_expr(v) for v in e)
        f = Func("evaluate_func")
        f[()] = values
        r = f.realize([])
        return tuple(r[k][()] for k in range(len(values)))
    e = to_expr(e)
    f = Func("evaluate_func")
    f[()] = e
    return f.realize([])[()]


def vars(names: str) -> tuple:  # noqa: A001 - Halide's name
    """``hl.vars("x y z")``: a Var per whitespace-separated name."""
    from .var import Var

    return tuple(Var(n) for n in names.split())


def funcs(names: str) -> tuple:
    from .func import Func

    return tuple(Func(n) for n in names.split())


__all__ = [
    "absd",
    "acosh",
    "asinh",
    "atanh",
    "div_round_to_zero",
    "erf",
    "evaluate",
    "fract",
    "funcs",
    "hypot",
    "is_finite",
    "is_inf",
    "is_nan",
    "lerp",
    "likely",
    "likely_if_innermost",
    "logical_not",
    "mod_round_to_zero",
    "mux",
    "reinterpret",
    "saturating_cast",
    "vars",
]
