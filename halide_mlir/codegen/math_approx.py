"""float32 ``exp``, ``log`` and ``pow`` as inline arithmetic (polynomials), so vector math stays vector code.

Lowered as they are, ``math.exp`` & co become ``llvm.exp`` intrinsics, which LLVM's X86 backend scalarizes into one
libm call (``expf``) per lane: a vectorized exp ran 2.3x slower than Halide's, pow 4.3x (bench/math_functions.py).
Halide computes these three with its own polynomials, scalar or vector. MLIR has the same idea upstream
(``populateMathPolynomialApproximationPatterns``), but MLIR 22.1.8's wheels expose it nowhere: no pass (only a test
pass, not in mlir-opt) and no transform op (``transform.apply_patterns.math.polynomial_approximation`` is newer), and
the Python bindings' library does not even link the patterns. So the approximations are written here, as MLIR text
(one private function per op and type, inlined where the op was), with the classic argument reductions:

* exp: x = k ln2 + r, |r| <= ln2 / 2 (Cody-Waite: ln2 in two parts, k ln2_hi exact), e^r by a degree-7 polynomial
  (Cephes' expf coefficients), times 2^k built from exponent bits in two factors (2^(k/2) 2^(k - k/2)) so
  results that overflow or are denormal round once, correctly.
* log: x = 2^k m with m in [sqrt(1/2), sqrt(2)) from the bits (denormals scaled by 2^23 first), log(1 + f) by a
  degree-9 polynomial in f = m - 1 (Cephes' logf coefficients), plus k ln2 in two parts.
* pow: exp(y log|x|) with y log|x| carried in two float32 parts (log's terms summed with their rounding errors, the
  product's error from an FMA): a plain float32 exp(y log x) loses up to ~2^7 ulp to the rounding of y log x
  (Halide's own pow does, measured 124 ulp), this one stays within ~1.5 ulp. The signs and special cases are C's
  ``powf``'s.

Special values are libm's (numpy's): exp(inf) = inf, exp(nan) = nan, log(0) = -inf, log(x < 0) = nan, log(inf) = inf,
pow's C99 table (Halide's own approximations return 0 for exp(inf) and exp(nan), 88.7 for log(inf), flush denormal
results to 0); test/python/test_math_functions.py measures both against numpy. Measured largest errors against a
correctly rounded result over float32's whole range: exp 1 ulp (Halide 5), log 1 ulp (Halide 2.3), pow 1 ulp
(Halide 124). Everything else (float64, sin, cos, tan, the inverse and hyperbolic functions) Halide computes with
libm, as we do: same speed, same bits; an approximation there would be less accurate than Halide.

Scalar ops are rewritten too, so a Func gives the same bits under any schedule (as in Halide).
"""

from __future__ import annotations

import math
import struct
from .ir_walk import ops_where

# Cephes expf: e^r ~ 1 + r + r^2 (P0 + P1 r + ... + P5 r^5) on |r| <= ln2 / 2
_EXP_P = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
# Cephes logf: log(1 + f) ~ f - f^2 / 2 + f^3 Q(f) on sqrt(1/2) - 1 <= f < sqrt(2) - 1
_LOG_Q = (
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
)
_LN2_HI, _LN2_LO = 0.693359375, -2.12194440e-4  # ln2_hi has 9 significant bits: k * ln2_hi is exact for |k| < 2^15


def _f32_bits(v: float) -> int:
    return struct.unpack("<i", struct.pack("<f", v))[0]


def _f64_bits(v: float) -> int:
    return struct.unpack("<q", struct.pack("<d", v))[0]


class _Emitter:
    """MLIR text of one function body; ``shape`` is "" for scalars or "vector<1x16x" style prefixes."""

    def __init__(self, shape: str):
        self.shape, self.lines, self.n = shape, [], 0

    def ty(self, elem: str) -> str:
        return f"{self.shape}{elem}>" if self.shape else elem

    def op(self, text: str, elem: str) -> str:
        self.n += 1
        name = f"%t{self.n}"
        self.lines.append(f"    {name} = {text} : {self.ty(elem)}")
        return name

    def const(self, value, elem: str) -> str:
        if elem.startswith("f"):
            if math.isnan(value) or math.isinf(value):
                bits = _f32_bits(value) if elem == "f32" else _f64_bits(value)
                lit = f"0x{bits & (2 ** int(elem[1:]) - 1):X}"
            else:
                lit = repr(float(value))
        elif elem == "i1":
            lit = "true" if value else "false"
            if not self.shape:  # `true` is typed already
                self.n += 1
                self.lines.append(f"    %t{self.n} = arith.constant {lit}")
                return f"%t{self.n}"
        else:
            lit = str(int(value))
        if self.shape:
            lit = f"dense<{lit}>"
        return self.op(f"arith.constant {lit}", elem)

    # float ops (contract: LLVM may fuse a * b + c into an FMA where the target has one)
    def add(self, a, b, e="f32"):
        return self.op(f"arith.addf {a}, {b} fastmath<contract>", e)

    def sub(self, a, b, e="f32"):
        return self.op(f"arith.subf {a}, {b} fastmath<contract>", e)

    def mul(self, a, b, e="f32"):
        return self.op(f"arith.mulf {a}, {b} fastmath<contract>", e)

    def fma(self, a, b, c, e="f32"):
        return self.add(self.mul(a, b, e), c, e)

    def bin(self, name, a, b, e):
        """``arith.<name> a, b`` (integer, logical and min/max ops: no fast-math flags)."""
        return self.op(f"arith.{name} {a}, {b}", e)

    def un(self, name, a, e="f32"):
        return self.op(f"{name} {a}", e)

    def poly(self, x, coeffs, e="f32"):
        """Horner: coeffs[0] x^n + ... + coeffs[-1]."""
        acc = self.const(coeffs[0], e)
        for c in coeffs[1:]:
            acc = self.fma(acc, x, self.const(c, e), e)
        return acc

    def cmpf(self, pred, a, b, e="f32"):
        return self._cmp("cmpf", pred, a, b, e)

    def _cmp(self, kind, pred, a, b, e):
        self.n += 1
        name = f"%t{self.n}"
        self.lines.append(f"    {name} = arith.{kind} {pred}, {a}, {b} : {self.ty(e)}")
        return name

    def cmpi(self, pred, a, b, e="i32"):
        return self._cmp("cmpi", pred, a, b, e)

    def select(self, c, a, b, e="f32"):
        self.n += 1
        name = f"%t{self.n}"
        cond_t = self.ty("i1")
        self.lines.append(f"    {name} = arith.select {c}, {a}, {b} : {cond_t}, {self.ty(e)}")
        return name

    def cast(self, kind, a, src, dst):
        self.n += 1
        name = f"%t{self.n}"
        self.lines.append(f"    {name} = arith.{kind} {a} : {self.ty(src)} to {self.ty(dst)}")
        return name

    def bitcast(self, a, src, dst):
        return self.cast("bitcast", a, src, dst)


# ---------------------------------------------------------------------------------------------------------------


def _exp_f32(b: _Emitter, x: str) -> str:
    # clamped, the exponent arithmetic stays in range: e^89 overflows and e^-104 rounds to 0 anyway;
    # minnumf/maxnumf turn nan into a bound (no poison from fptosi), the last select restores it
    xc = b.bin("maxnumf", b.bin("minnumf", x, b.const(89.0, "f32"), "f32"), b.const(-104.0, "f32"), "f32")
    k = b.un("math.roundeven", b.mul(xc, b.const(1.4426950408889634, "f32")))
    r = b.sub(xc, b.mul(k, b.const(_LN2_HI, "f32")))
    r = b.sub(r, b.mul(k, b.const(_LN2_LO, "f32")))
    p = b.poly(r, _EXP_P)
    p = b.add(b.add(b.mul(p, b.mul(r, r)), r), b.const(1.0, "f32"))
    ki = b.cast("fptosi", k, "f32", "i32")
    k1 = b.bin("shrsi", ki, b.const(1, "i32"), "i32")
    k2 = b.bin("subi", ki, k1, "i32")
    bias, mant = b.const(127, "i32"), b.const(23, "i32")

    def pow2(k):
        return b.bitcast(b.bin("shli", b.bin("addi", k, bias, "i32"), mant, "i32"), "i32", "f32")

    y = b.mul(b.mul(p, pow2(k1)), pow2(k2))
    return b.select(b.cmpf("uno", x, x), x, y)


def _log_f32(b: _Emitter, x: str) -> str:
    # denormals: scale into the normal range first
    tiny = b.cmpf("olt", x, b.const(2.0**-126, "f32"))
    xs = b.select(tiny, b.mul(x, b.const(2.0**23, "f32")), x)
    adj = b.select(tiny, b.const(-23, "i32"), b.const(0, "i32"), "i32")
    ix = b.bitcast(xs, "f32", "i32")
    # k = exponent of x relative to sqrt(1/2), m = x / 2^k in [sqrt(1/2), sqrt(2))
    t = b.bin("subi", ix, b.const(_f32_bits(math.sqrt(0.5)), "i32"), "i32")
    k = b.bin("shrsi", t, b.const(23, "i32"), "i32")
    mi = b.bin("subi", ix, b.bin("shli", k, b.const(23, "i32"), "i32"), "i32")
    f = b.sub(b.bitcast(mi, "i32", "f32"), b.const(1.0, "f32"))
    kf = b.cast("sitofp", b.bin("addi", k, adj, "i32"), "i32", "f32")
    z = b.mul(f, f)
    y = b.mul(b.mul(b.poly(f, _LOG_Q), f), z)
    y = b.add(y, b.mul(kf, b.const(_LN2_LO, "f32")))
    y = b.sub(y, b.mul(z, b.const(0.5, "f32")))
    r = b.add(b.add(f, y), b.mul(kf, b.const(_LN2_HI, "f32")))
    inf = b.const(math.inf, "f32")
    r = b.select(b.cmpf("oeq", x, inf), inf, r)
    r = b.select(b.cmpf("oeq", x, b.const(0.0, "f32")), b.const(-math.inf, "f32"), r)
    return b.select(b.cmpf("ult", x, b.const(0.0, "f32")), b.const(math.nan, "f32"), r)  # x < 0 or nan


def _log_f64(b: _Emitter, x: str) -> str:
    """ln x for positive finite normal x, to ~2e-11 absolute (enough for pow's float32 result)."""
    ix = b.bitcast(x, "f64", "i64")
    t = b.bin("subi", ix, b.const(_f64_bits(math.sqrt(0.5)), "i64"), "i64")
    k = b.bin("shrsi", t, b.const(52, "i64"), "i64")
    mi = b.bin("subi", ix, b.bin("shli", k, b.const(52, "i64"), "i64"), "i64")
    m = b.bitcast(mi, "i64", "f64")
    one = b.const(1.0, "f64")
    # ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172: 2 (s + s^3/3 + ... + s^11/11), 2e-11 off at most.
    # s from a float32 reciprocal, refined once in float64 (relative error 1e-7 -> 1e-14): one float32 division
    # instead of two float64 ones (the slowest instruction here: 16 cycles per 8 lanes)
    num, den = b.sub(m, one, "f64"), b.add(m, one, "f64")
    rcp = b.cast("extf", b.bin("divf", b.const(1.0, "f32"), b.cast("truncf", den, "f64", "f32"), "f32"), "f32", "f64")
    s = b.mul(num, rcp, "f64")
    s = b.add(s, b.mul(b.sub(num, b.mul(s, den, "f64"), "f64"), rcp, "f64"), "f64")
    s2 = b.mul(s, s, "f64")
    p = b.poly(s2, [2.0 / n for n in (11, 9, 7, 5, 3, 1)], "f64")
    kf = b.cast("sitofp", k, "i64", "f64")
    return b.add(b.mul(p, s, "f64"), b.mul(kf, b.const(math.log(2.0), "f64"), "f64"), "f64")


def _exp_f64(b: _Emitter, t: str) -> str:
    """e^t for t clamped to [-120, 100] (beyond, a float32 result is 0 or inf), to ~2e-10 relative."""
    tc = b.bin("maxnumf", b.bin("minnumf", t, b.const(100.0, "f64"), "f64"), b.const(-120.0, "f64"), "f64")
    n = b.un("math.roundeven", b.mul(tc, b.const(1 / math.log(2.0), "f64"), "f64"), "f64")
    ln2_hi = 0.6931471803691238  # 0x3FE62E42FEE00000: n * ln2_hi is exact
    r = b.sub(tc, b.mul(n, b.const(ln2_hi, "f64"), "f64"), "f64")
    r = b.sub(r, b.mul(n, b.const(math.log(2.0) - ln2_hi, "f64"), "f64"), "f64")
    p = b.poly(r, [1.0 / math.factorial(i) for i in range(8, -1, -1)], "f64")  # Taylor, |r| <= 0.35: 2e-10 off
    ni = b.cast("fptosi", n, "f64", "i64")
    scale = b.bin("shli", b.bin("addi", ni, b.const(1023, "i64"), "i64"), b.const(52, "i64"), "i64")
    return b.mul(p, b.bitcast(scale, "i64", "f64"), "f64")


def _log_f32_parts(b: _Emitter, x: str) -> tuple[str, str]:
    """ln x = hi + lo (lo a correction far below hi's last bit) for positive finite x: _log_f32's terms summed
    with their rounding errors kept (Fast2Sum; f^2 split exactly by an FMA)."""
    tiny = b.cmpf("olt", x, b.const(2.0**-126, "f32"))
    xs = b.select(tiny, b.mul(x, b.const(2.0**23, "f32")), x)
    adj = b.select(tiny, b.const(-23, "i32"), b.const(0, "i32"), "i32")
    ix = b.bitcast(xs, "f32", "i32")
    t = b.bin("subi", ix, b.const(_f32_bits(math.sqrt(0.5)), "i32"), "i32")
    k = b.bin("shrsi", t, b.const(23, "i32"), "i32")
    mi = b.bin("subi", ix, b.bin("shli", k, b.const(23, "i32"), "i32"), "i32")
    f = b.sub(b.bitcast(mi, "i32", "f32"), b.const(1.0, "f32"))
    kf = b.cast("sitofp", b.bin("addi", k, adj, "i32"), "i32", "f32")

    def plain(name, a, c):  # no contraction: these roundings are measured
        return b.op(f"arith.{name} {a}, {c}", "f32")

    def two_sum_fast(a, c):  # |a| >= |c| (or a = 0): a + c = s + e exactly
        s_ = plain("addf", a, c)
        return s_, plain("addf", plain("subf", a, s_), c)

    s1, e1 = two_sum_fast(plain("mulf", kf, b.const(_LN2_HI, "f32")), f)  # k ln2_hi is exact
    z = plain("mulf", f, f)
    zl = b.op(f"math.fma {f}, {f}, {b.un('arith.negf', z)}", "f32")  # f^2 = z + zl exactly
    half = b.const(-0.5, "f32")
    s2, e2 = two_sum_fast(s1, plain("mulf", z, half))
    small = b.mul(b.mul(b.poly(f, _LOG_Q), f), z)
    small = b.add(small, b.mul(kf, b.const(_LN2_LO, "f32")))
    small = b.add(small, b.add(b.mul(zl, half), b.add(e1, e2)))
    return two_sum_fast(s2, small)


def _pow_f32(b: _Emitter, x: str, y: str) -> str:
    ax = b.un("math.absf", x)
    # y ln|x| = t + tl: the product's rounding error (an FMA) and ln's low part carried into e^t (1 + tl); a
    # plain float32 exp(y log x) loses up to ~2^7 ulp there (Halide's pow: 124 ulp measured)
    hi, lo = _log_f32_parts(b, ax)
    inf, zero, one = b.const(math.inf, "f32"), b.const(0.0, "f32"), b.const(1.0, "f32")
    # ln 0 = -inf, and ln inf = inf, ln nan = nan (|x| itself): then e^(y ln|x|) is already C's powf for |x| = 0,
    # inf, nan and y = +-inf (tl below is then nan or huge, and bounded). Fewer selects than fixing each case
    # after the fact (pow's special cases were a third of its time)
    hi = b.select(b.cmpf("uge", ax, inf), ax, hi)
    hi = b.select(b.cmpf("oeq", ax, zero), b.const(-math.inf, "f32"), hi)
    t = b.op(f"arith.mulf {y}, {hi}", "f32")
    tl = b.add(b.op(f"math.fma {y}, {hi}, {b.un('arith.negf', t)}", "f32"), b.mul(y, lo))
    e = _exp_f32(b, t)
    # tl matters only when tiny; where e^t is 0 or inf, tl can be huge or nan (inf - inf): bounded, 0 and inf stay
    tl = b.bin("maxnumf", b.bin("minnumf", tl, b.const(0.5, "f32"), "f32"), b.const(-0.5, "f32"), "f32")
    r = b.select(b.cmpf("oeq", e, inf), e, b.add(b.mul(e, tl), e))
    # pow(|x|, y) = 1 for |x| = 1 (y = +-inf or nan too) and y = 0 (x = nan too)
    r = b.select(b.bin("ori", b.cmpf("oeq", ax, one), b.cmpf("oeq", y, zero), "i1"), one, r)
    # negative x (sign bit, so -0 too): odd integer y flips the sign, a non-integer y gives nan (finite x < 0;
    # pow(-1, nan) too)
    y_int = b.cmpf("oeq", b.un("math.roundeven", y), y)
    half = b.mul(y, b.const(0.5, "f32"))
    y_odd = b.bin("andi", y_int, b.cmpf("une", b.un("math.roundeven", half), half), "i1")
    x_sign = b.cmpi("slt", b.bitcast(x, "f32", "i32"), b.const(0, "i32"))
    r = b.select(b.bin("andi", x_sign, y_odd, "i1"), b.un("arith.negf", r), r)
    finite_neg = b.bin("andi", b.cmpf("olt", x, zero), b.cmpf("one", ax, inf), "i1")
    y_frac = b.bin("xori", y_int, b.const(True, "i1"), "i1")
    return b.select(b.bin("andi", finite_neg, y_frac, "i1"), b.const(math.nan, "f32"), r)


_APPROXIMATIONS = {"math.exp": (1, _exp_f32), "math.log": (1, _log_f32), "math.powf": (2, _pow_f32)}


def _shape(type_text: str) -> str | None:
    """ "vector<1x16x" for "vector<1x16xf32>", "" for "f32", None for anything else."""
    if type_text == "f32":
        return ""
    if type_text.startswith("vector<") and type_text.endswith("xf32>") and "[" not in type_text:
        return type_text[: -len("f32>")]
    return None


def function_text(op_name: str, type_text: str, symbol: str) -> str:
    """The private function computing ``op_name`` on ``type_text`` values."""
    arity, approx = _APPROXIMATIONS[op_name]
    b = _Emitter(_shape(type_text))
    args = [f"%a{i}" for i in range(arity)]
    result = approx(b, *args)
    params = ", ".join(f"{a}: {type_text}" for a in args)
    body = "\n".join(b.lines)
    return f"func.func private @{symbol}({params}) -> {type_text} {{\n{body}\n    return {result} : {type_text}\n}}"


def approximate_math(module) -> int:
    """Replace every float32 ``math.exp``, ``math.log`` and ``math.powf`` of the module by a call of its
    approximation (one private function per op and type, to be inlined: ``INLINE``). Returns how many."""
    from mlir import ir

    found = ops_where(module, lambda op: op.name in _APPROXIMATIONS)
    symbols: dict = {}
    count = 0
    for op in found:
        type_text = str(op.results[0].type)
        if _shape(type_text) is None:
            continue
        key = (op.name, type_text)
        if key not in symbols:
            symbol = f"__hl_{op.name.split('.')[1]}_{type_text.replace('<', '_').replace('>', '')}"
            module.body.append(ir.Operation.parse(function_text(op.name, type_text, symbol)))
            symbols[key] = symbol
        with ir.InsertionPoint(op), op.location:
            call = ir.Operation.create(
                "func.call",
                results=[op.results[0].type],
                operands=list(op.operands),
                attributes={"callee": ir.FlatSymbolRefAttr.get(symbols[key])},
            )
        op.results[0].replace_all_uses_with(call.results[0])
        op.erase()
        count += 1
    return count


# inlines the calls approximate_math made (and deletes the functions, private and then unused); nothing else of
# ours is a call
INLINE = "inline{default-pipeline=}"
