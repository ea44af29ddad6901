"""Halide's ``fast_*`` math: float32 functions Halide computes with short vector polynomials (or x86's rcp/rsqrt),
trading accuracy for speed.

Each is built here from ordinary Exprs, so it vectorizes like arithmetic (no libm call per lane) and is at least as
accurate as Halide's (test/python/test_math_functions.py measures both against numpy):

* ``fast_exp``, ``fast_log``: our ``exp``/``log`` are already inline vector polynomials (codegen/math_approx.py,
  within 1 ulp) about as fast as Halide's fast ones, so they are used as they are.
* ``fast_pow``: 2^(y log2 x) with short polynomials and exponent bits (its docstring), Halide's rules (a constant
  integer exponent is repeated multiplication, ``x == 0`` gives 0): ``exp(log(x) * y)`` chained two 1-ulp
  polynomials and ran 2.4x slower than Halide's.
* ``fast_inverse``, ``fast_inverse_sqrt``: ``1 / x`` and ``1 / sqrt(x)``, correctly rounded (Halide's rcp/rsqrt
  estimates are good to ~2^-14); a vector division costs about what the estimate plus its refinement does.
* ``fast_sin``, ``fast_cos``: x = k pi/2 + r with |r| <= pi/4 (Cody-Waite: pi/2 in three parts, exact for
  |x| < ~1e5), then sin or cos of r by minimax polynomials (Cephes' sinf/cosf coefficients) and the quadrant's sign:
  within 2 ulp where |x| < 1e4 (Halide's fast_sin is ~3e-6 absolute), in [-1, 1] beyond. float64 arguments use
  sin and cos. Like Halide's, fast_log and fast_pow return nonsense for x < 0 (here nan).
"""

from __future__ import annotations

from ..error import HalideError
from .expr import Expr, cast, const, to_expr
from .operators import _float_arg, _integer_power, cos, exp, log, select, sin, sqrt
from .source import user_site
from .types import Float, Int

F32 = Float(32)

_TWO_OVER_PI = 0.63661977236758134
_PI_2 = (1.5703125, 4.837512969970703125e-4, 7.54978995489188216e-8)  # pi/2 = sum, the first with 8 bits
_SIN = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)  # sin r ~ r + r^3 P(r^2)
_COS = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)  # cos r ~ 1 - r^2/2 + r^4 Q(r^2)


def _only_f32(name: str, e, what: str = "only works for Float(32)") -> Expr:
    e = to_expr(e)
    if e.type != F32:
        raise HalideError(f"{user_site()}: {name} {what}")
    return e


def fast_exp(x) -> Expr:
    return exp(_only_f32("fast_exp", x))


def fast_log(x) -> Expr:
    return log(_only_f32("fast_log", x))


# log2(1 + f) ~ f L(f) on [sqrt(1/2) - 1, sqrt(2) - 1] and 2^r ~ E(r) on [-1/2, 1/2], highest power first: fits made
# for this file (relative least squares, reweighted toward minimax): 2e-7 absolute, 1.4e-7 relative
_LOG2 = (
    -0.15255039930343628,
    0.23604728281497955,
    -0.2476341724395752,
    0.28679656982421875,
    -0.36030712723731995,
    0.480934202671051,
    -0.7213518023490906,
    1.442694902420044,
)
_EXP2 = (
    0.0013312093215063214,
    0.009673072025179863,
    0.05550582706928253,
    0.24022163450717926,
    0.6931470632553101,
    1.0,
)  # (the fit says 1.0000001: exactly 1 keeps x^0 = 1)


def fast_pow(x, y) -> Expr:
    """Halide's rules: an integer constant exponent is repeated multiplication; else float32, 0 where x is 0, nonsense
    (here nan) where x < 0. 2^(y log2 x): log2 from x's exponent bits and a polynomial in the mantissa (centred on
    1), 2^t as 2^round(t) from bits times a polynomial in the rest; about 40 vector ops where exp(y log x) is 100
    (measured 2.4x faster). The rounding of t = y log2 x is the error (|t| <= 128: up to ~50 ulp; Halide's 159);
    results below 2^-126 are 0 (as Halide's), above float32's range inf; denormal x are approximated as Halide does
    (nonsense too: there log2 is read from the bits as if normal)."""
    from .functions import reinterpret
    from .operators import max as _max
    from .operators import min as _min
    from .operators import round as _round

    if isinstance(y, int) or (isinstance(y, Expr) and y.kind == "const" and not y.type.is_float()):
        return _integer_power(to_expr(x), int(y if isinstance(y, int) else y.value))
    x, y = cast(F32, to_expr(x)), cast(F32, to_expr(y))
    i32 = Int(32)
    bits = reinterpret(i32, x)
    e = (bits - 0x3F3504F3) >> 23  # m = x / 2^e in [sqrt(1/2), sqrt(2))
    f = reinterpret(F32, bits - (e << 23)) - const(1.0, F32)
    t = y * (cast(F32, e) + f * _poly(f, _LOG2))
    tc = _max(_min(t, const(128.0, F32)), const(-127.0, F32))  # 2^-127 -> bits 0 (0.0), 2^128 -> inf
    k = _round(tc)
    scale = reinterpret(F32, (cast(i32, k) + 127) << 23)
    v = select(t == t, scale * _poly(tc - k, _EXP2), t)  # (t is nan: k would make a poison int)
    return select(x > 0.0, v, select(x == 0.0, const(0.0, F32), const(float("nan"), F32)))


def fast_inverse(x) -> Expr:
    x = _only_f32("fast_inverse", x, "only takes float16 or float32 arguments")
    return const(1.0, F32) / x


def fast_inverse_sqrt(x) -> Expr:
    x = _only_f32("fast_inverse_sqrt", x, "only takes float16 or float32 arguments")
    return const(1.0, F32) / sqrt(x)


def _poly(x: Expr, coeffs) -> Expr:
    p = const(coeffs[0], F32)
    for c in coeffs[1:]:
        p = p * x + const(c, F32)
    return p


_ROUNDER = 12582912.0  # 1.5 * 2^23: x + it rounds x to an integer, held in the low mantissa bits


def _sin_cos(x, quadrant_shift: int) -> Expr:
    """sin(x + quadrant_shift * pi/2) of a float32, by quadrant (see the module docstring). k = round(x 2/pi) by
    adding 1.5 * 2^23 (no floor, and k's low bits are then the sum's low bits: a bitcast, defined for inf and nan
    too, where a float-to-int conversion would be poison)."""
    from .functions import reinterpret

    kr = x * const(_TWO_OVER_PI, F32) + const(_ROUNDER, F32)
    k = kr - const(_ROUNDER, F32)
    r = x
    for part in _PI_2:
        r = r - k * const(part, F32)
    r2 = r * r
    r2 = select(r2 > 1.0, const(1.0, F32), r2)  # (|r| <= pi/4 unless x is huge: no inf - inf there)
    s = r + r * r2 * _poly(r2, _SIN)
    c = const(1.0, F32) - r2 * const(0.5, F32) + r2 * r2 * _poly(r2, _COS)
    q = reinterpret(Int(32), kr) + quadrant_shift
    v = select((q & 1) == 1, c, s)
    v = reinterpret(F32, reinterpret(Int(32), v) ^ ((q & 2) << 30))  # negated in quadrants 2 and 3
    # beyond ~1e5 the reduction is inexact (Halide's gives -inf at 1e30, 6e21 at 1e10): at least stay in [-1, 1]
    one = const(1.0, F32)
    return select(v > one, one, select(v < -one, -one, v))  # (nan stays nan)


def fast_sin(x) -> Expr:
    x = _float_arg(x)
    return _sin_cos(x, 0) if x.type == F32 else sin(x)


def fast_cos(x) -> Expr:
    x = _float_arg(x)
    return _sin_cos(x, 1) if x.type == F32 else cos(x)


__all__ = ["fast_cos", "fast_exp", "fast_inverse", "fast_inverse_sqrt", "fast_log", "fast_pow", "fast_sin"]
