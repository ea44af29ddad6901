"""Differential tests of halide_mlir's Expr semantics against real Halide 21:
operators on every scalar type, comparisons / select, math functions, casts,
type promotion, and integer division / modulo."""

import numpy as np
import pytest

from oracle import (
    hl_type,
    image_f32,
    image_float,
    image_i32,
    image_int,
    image_of,
    image_u8,
    run_both,
    run_program_both,
)

W, H = 37, 11  # odd sizes: no accidental divisibility by vector widths

INT_TYPES = ["uint8", "uint16", "uint32", "int8", "int16", "int32"]
FLOAT_TYPES = ["float32", "float64"]
ALL_TYPES = INT_TYPES + FLOAT_TYPES


def _is_int(dt):
    return np.dtype(dt).kind in "iu"


def _operands(dtype, op):
    """Two deterministic (H, W) operand arrays for `a op b`, kept inside the range
    where Halide defines the result (signed 32-bit overflow is undefined in
    Halide; narrower integer types and unsigned types wrap)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        a = image_float(dt, W, H, seed=1, lo=-8.0, hi=8.0)
        b = image_float(dt, W, H, seed=2, lo=-8.0, hi=8.0)
        if op in ("truediv", "floordiv", "mod"):
            b = np.where(np.abs(b) < 0.25, np.asarray(0.5, dt), b).astype(dt)
        return a, b
    if dt == np.int32:
        a = image_i32(W, H, seed=1, lo=-30000, hi=30000)
        b = image_i32(W, H, seed=2, lo=-30000, hi=30000)
    else:
        a = image_int(dt, W, H, seed=1)
        b = image_int(dt, W, H, seed=2)
    bits = dt.itemsize * 8
    if op in ("shl", "shr"):
        b = (image_int(np.int64, W, H, seed=3, lo=0, hi=bits - 1)).astype(dt)
        if dt == np.int32 and op == "shl":
            a = image_i32(W, H, seed=1, lo=-(1 << 14), hi=1 << 14)
            b = image_i32(W, H, seed=3, lo=0, hi=15)
    if op in ("truediv", "floordiv", "mod"):
        if dt.kind == "i":  # avoid MIN / -1, whose quotient does not fit
            a = np.where(a == np.iinfo(dt).min, np.asarray(0, dt), a).astype(dt)
        # small divisors make the sign rules visible; every 5th is zero
        b = image_int(dt, W, H, seed=4, lo=-7 if dt.kind == "i" else 0, hi=7)
        b[:, ::5] = 0
    return a, b


BINOPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "shl": lambda a, b: a << b,
    "shr": lambda a, b: a >> b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
}
INT_ONLY = {"shl", "shr", "and", "or", "xor"}

BINOP_CASES = [
    pytest.param(op, dt, id=f"{op}-{dt}")
    for op in BINOPS for dt in ALL_TYPES
    if not (op in INT_ONLY and not _is_int(dt))
]


@pytest.mark.parametrize("op,dtype", BINOP_CASES)
def test_binary_operator(op, dtype):
    a, b = _operands(dtype, op)

    def build(hl):
        A = hl.Buffer(a, "a")
        B = hl.Buffer(b, "b")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = BINOPS[op](A[x, y], B[x, y])
        return f

    run_both(build, [W, H])


@pytest.mark.parametrize("op", ["add", "sub", "mul", "floordiv", "mod", "shl", "shr", "and", "or", "xor"])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32"])
def test_binary_operator_with_python_literal(op, dtype):
    """`expr op 3` and `3 op expr`: the literal takes the Expr's type."""
    a, _ = _operands(dtype, op)
    if dtype == "int32":
        a = image_i32(W, H, seed=1, lo=-1000, hi=1000)

    def build(hl):
        A = hl.Buffer(a, "a")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        lhs = BINOPS[op](A[x, y], 3)
        rhs = BINOPS[op](5, A[x, y]) if op not in ("shl", "shr") else BINOPS[op](A[x, y], 1)
        f[x, y] = hl.select(x % 2 == 0, lhs, rhs)
        return f

    run_both(build, [W, H])


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_unary_minus(dtype):
    a = image_of(dtype, W, H, seed=5)
    if dtype == "int32":
        a = image_i32(W, H, seed=5, lo=-(1 << 30), hi=1 << 30)

    def build(hl):
        A = hl.Buffer(a, "a")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = -A[x, y]
        return f

    run_both(build, [W, H])


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_bitwise_not(dtype):
    a = image_of(dtype, W, H, seed=6)

    def build(hl):
        A = hl.Buffer(a, "a")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = ~A[x, y]
        return f

    ref, _ = run_both(build, [W, H])
    np.testing.assert_array_equal(ref, ~a)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_float_shift_by_literal(dtype):
    """Halide allows `float << k` / `float >> k` with a constant k: multiply /
    divide by 2**k.  (A non-constant shift amount on a float aborts Halide 21.)"""
    a = image_float(dtype, W, H, seed=3, lo=-8, hi=8)

    def build(hl):
        A = hl.Buffer(a, "a")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = hl.select(x % 2 == 0, A[x, y] << 2, A[x, y] >> 1)
        return f

    run_both(build, [W, H])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
def test_shift_by_negative_amount(dtype):
    """Halide: a signed negative shift amount shifts the other way."""
    a = image_int(dtype, W, H, seed=7, lo=-100, hi=100)
    s = image_int(dtype, W, H, seed=8, lo=-3, hi=3)

    def build(hl):
        A, S = hl.Buffer(a, "a"), hl.Buffer(s, "s")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = hl.select(x % 2 == 0, A[x, y] << S[x, y], A[x, y] >> S[x, y])
        return f

    run_both(build, [W, H])


# ---------------------------------------------------------------------------
# Integer division and modulo: Euclidean (floor for positive divisors), x/0 == 0
# ---------------------------------------------------------------------------

def _euclid(a, b):
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    safe = np.where(b == 0, 1, b)
    r = np.mod(a, np.abs(safe))
    q = (a - r) // safe
    return np.where(b == 0, 0, q), np.where(b == 0, 0, r)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_division_and_modulo_semantics(dtype):
    a, b = _operands(dtype, "mod")
    q, r = _euclid(a, b)

    def program(hl):
        A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
        x, y = hl.Var("x"), hl.Var("y")
        fq, fr, ff = hl.Func("q"), hl.Func("r"), hl.Func("ff")
        fq[x, y] = A[x, y] / B[x, y]
        ff[x, y] = A[x, y] // B[x, y]
        fr[x, y] = A[x, y] % B[x, y]
        return [fq.realize([W, H]), ff.realize([W, H]), fr.realize([W, H])]

    run_program_both(program, expected=[q.astype(dtype), q.astype(dtype), r.astype(dtype)])


def test_division_by_constants_negative_and_zero():
    """x in [-10, 10): x/3, x/-3, x%3, x%-3, x/0, x%0, (x-3)//2 with Python literals."""
    xs = np.arange(-10, 10)
    ex = [
        np.floor_divide(xs, 3), -np.floor_divide(xs, 3),  # Euclidean: x/-3 == -(x/3)
        np.mod(xs, 3), np.mod(xs, 3), np.zeros_like(xs), np.zeros_like(xs), np.floor_divide(xs - 3, 2),
    ]

    def program(hl):
        x = hl.Var("x")
        exprs = [x / 3, x / -3, x % 3, x % -3, x / 0, x % 0, (x - 3) // 2]
        outs = []
        for i, e in enumerate(exprs):
            f = hl.Func(f"d{i}")
            f[x] = e
            out = hl.Buffer(hl.Int(32), [20])
            out.set_min([-10])
            f.realize(out)
            outs.append(out)
        return outs

    run_program_both(program, expected=[e.astype(np.int32) for e in ex])


def test_float_floordiv_and_mod_signs():
    a = image_f32(W, H, seed=9, lo=-10, hi=10)
    b = np.where(np.arange(W) % 2 == 0, np.float32(2.5), np.float32(-1.5)) * np.ones((H, 1), np.float32)

    def program(hl):
        A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
        x, y = hl.Var("x"), hl.Var("y")
        f, g = hl.Func("f"), hl.Func("g")
        f[x, y] = A[x, y] // B[x, y]
        g[x, y] = A[x, y] % B[x, y]
        return [f.realize([W, H]), g.realize([W, H])]

    fl = np.floor(a / b)
    run_program_both(program, expected=[fl, a - b * fl], atol=1e-5)


# ---------------------------------------------------------------------------
# Comparisons, boolean logic, select
# ---------------------------------------------------------------------------

CMPS = {
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
}


@pytest.mark.parametrize("cmp", list(CMPS))
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_comparison_feeding_select(cmp, dtype):
    a = image_of(dtype, W, H, seed=10)
    b = image_of(dtype, W, H, seed=11)
    b[:, ::3] = a[:, ::3]  # some equal pairs

    def build(hl):
        A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = hl.select(CMPS[cmp](A[x, y], B[x, y]), A[x, y], B[x, y])
        return f

    run_both(build, [W, H])


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32"])
def test_comparison_as_bool_output(dtype):
    a = image_of(dtype, W, H, seed=12)
    b = image_of(dtype, W, H, seed=13)
    b[::2, :] = a[::2, :]

    def build(hl):
        A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = A[x, y] <= B[x, y]
        return f

    ref, _ = run_both(build, [W, H])
    assert ref.dtype == np.bool_


def test_bool_and_or_xor_not_feeding_select():
    a = image_i32(W, H, seed=14, lo=-10, hi=10)

    def build(hl):
        A = hl.Buffer(a, "a")
        x, y = hl.Var("x"), hl.Var("y")
        v = A[x, y]
        c1 = (v > -3) & (v < 4)
        c2 = (v == 7) | (x > y)
        c3 = ~((v % 2 == 0) ^ (y < 5))
        f = hl.Func("f")
        f[x, y] = hl.select(c1 & ~c2, v * 2, hl.select(c2 | c3, v + 100, -v))
        return f

    run_both(build, [W, H])


def test_variadic_select():
    a = image_u8(W, H, seed=15)

    def build(hl):
        A = hl.Buffer(a, "a")
        x, y = hl.Var("x"), hl.Var("y")
        v = A[x, y]
        f = hl.Func("f")
        # first true condition wins; default last
        f[x, y] = hl.select(v < 50, hl.u8(0), v < 100, hl.u8(1), v < 100 + y, hl.u8(2), x > 20, v, hl.u8(255))
        return f

    a2 = a.astype(np.int64)
    yy, xx = np.mgrid[0:H, 0:W]
    exp = np.select([a2 < 50, a2 < 100, a2 < 100 + yy, xx > 20], [0, 1, 2, a2], 255).astype(np.uint8)
    run_both(build, [W, H], expected=exp)


# ---------------------------------------------------------------------------
# Math functions
# ---------------------------------------------------------------------------

MATH_F = {
    "sqrt": (lambda hl, v: hl.sqrt(v), 0.0, 100.0),
    "sin": (lambda hl, v: hl.sin(v), -4.0, 4.0),
    "cos": (lambda hl, v: hl.cos(v), -4.0, 4.0),
    "tan": (lambda hl, v: hl.tan(v), -1.2, 1.2),
    "exp": (lambda hl, v: hl.exp(v), -10.0, 10.0),
    "log": (lambda hl, v: hl.log(v), 0.01, 1000.0),
    "pow": (lambda hl, v: hl.pow(v, 2.5), 0.0, 10.0),
    "pow_expr": (lambda hl, v: hl.pow(v, v * 0.25), 0.1, 6.0),
    "floor": (lambda hl, v: hl.floor(v), -5.0, 5.0),
    "ceil": (lambda hl, v: hl.ceil(v), -5.0, 5.0),
    "round": (lambda hl, v: hl.round(v), -5.0, 5.0),
    "abs": (lambda hl, v: hl.abs(v), -5.0, 5.0),
    "min": (lambda hl, v: hl.min(v, 0.5), -5.0, 5.0),
    "max": (lambda hl, v: hl.max(v, -0.5), -5.0, 5.0),
    "clamp": (lambda hl, v: hl.clamp(v, -1.0, 2.0), -5.0, 5.0),
}


@pytest.mark.parametrize("fn", list(MATH_F))
@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_float_math(fn, dtype):
    make, lo, hi = MATH_F[fn]
    a = image_float(dtype, W, H, seed=16, lo=lo, hi=hi)

    def build(hl):
        A = hl.Buffer(a, "a")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = make(hl, A[x, y])
        return f

    run_both(build, [W, H])


def test_round_half_to_even_and_floor_ceil_of_halves():
    vals = np.array([-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.49, 0.51, -2.0, 2.0], np.float32)

    def program(hl):
        A = hl.Buffer(vals, "a")
        x = hl.Var("x")
        outs = []
        for name in ("round", "floor", "ceil"):
            f = hl.Func("f_" + name)  # (a Func named "ceil" breaks real Halide: "Symbol not found")
            f[x] = getattr(hl, name)(A[x])
            outs.append(f.realize([len(vals)]))
        return outs

    run_program_both(program, expected=[np.round(vals), np.floor(vals), np.ceil(vals)], atol=0)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_integer_min_max_clamp_abs(dtype):
    a = image_of(dtype, W, H, seed=17)
    b = image_of(dtype, W, H, seed=18)
    info = np.iinfo(dtype)
    lo, hi = (info.min // 4, info.max // 4) if info.min < 0 else (10, info.max // 2)

    def program(hl):
        A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
        x, y = hl.Var("x"), hl.Var("y")
        t = hl_type(hl, dtype)
        fs = [hl.Func(n) for n in ("mn", "mx", "cl", "ab")]
        fs[0][x, y] = hl.min(A[x, y], B[x, y])
        fs[1][x, y] = hl.max(A[x, y], B[x, y])
        fs[2][x, y] = hl.clamp(A[x, y], hl.cast(t, lo), hl.cast(t, hi))
        fs[3][x, y] = hl.abs(A[x, y])  # signed -> unsigned of the same width
        return [f.realize([W, H]) for f in fs]

    uabs = np.abs(a.astype(np.int64)).astype(np.dtype(dtype).str.replace("i", "u"))
    run_program_both(program, expected=[np.minimum(a, b), np.maximum(a, b), np.clip(a, lo, hi).astype(dtype), uabs])


# ---------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------

CAST_TYPES = ALL_TYPES + ["bool"]


def _cast_source(src, dst):
    src, dst = np.dtype(src), np.dtype(dst)
    if src.kind == "f" and dst.kind in "iu":
        # float -> int truncates toward zero; stay in the destination's range
        # (out-of-range float -> int is undefined in Halide)
        info = np.iinfo(dst)
        lo = max(float(info.min), -1e6)
        hi = min(float(info.max), 1e6) - 1.0
        a = image_float(src, W, H, seed=19, lo=lo, hi=hi)
        a[0, :8] = np.array([-0.9, 0.9, -1.5, 1.5, 2.999, -2.999, 0.0, 7.5], src)[: 8].clip(lo, hi)
        return a
    if src.kind == "b":
        return image_of(bool, W, H, seed=19)
    return image_of(src, W, H, seed=19)


@pytest.mark.parametrize("src,dst", [
    pytest.param(s, d, id=f"{s}->{d}") for s in CAST_TYPES for d in CAST_TYPES if s != d])
def test_cast(src, dst):
    a = _cast_source(src, dst)

    def build(hl):
        A = hl.Buffer(a, "a")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = hl.cast(hl_type(hl, dst), A[x, y])
        return f

    run_both(build, [W, H])


def test_cast_wraparound_and_truncation_explicit():
    """Pin the semantics: int narrowing wraps (two's complement), float -> int
    truncates toward zero, and -- surprisingly -- Halide 21's cast to Bool keeps
    the LOW BIT (2 -> false, 3 -> true), it is not `!= 0`; constant folding
    agrees, so it is the semantics, not a codegen accident."""
    ints = np.array([-200, -129, -128, -1, 0, 1, 127, 128, 255, 256, 300, 70000], np.int32)
    floats = np.array([-2.9, -2.5, -0.5, 0.5, 1.99, 2.5, 100.7, 126.999], np.float32)

    def program(hl):
        I, F = hl.Buffer(ints, "ints"), hl.Buffer(floats, "floats")
        x = hl.Var("x")
        outs = []
        for name, e, n in [
            ("to_u8", hl.u8(I[x]), len(ints)), ("to_i8", hl.i8(I[x]), len(ints)),
            ("to_u16", hl.u16(I[x]), len(ints)), ("to_i16", hl.i16(I[x]), len(ints)),
            ("to_bool", hl.cast(hl.Bool(), I[x]), len(ints)),
            ("f_to_i32", hl.i32(F[x]), len(floats)), ("f_to_i8", hl.cast(hl.Int(8), F[x]), len(floats)),
        ]:
            f = hl.Func(name)
            f[x] = e
            outs.append(f.realize([n]))
        return outs

    expected = [ints.astype(np.uint8), ints.astype(np.int8), ints.astype(np.uint16), ints.astype(np.int16),
                (ints & 1).astype(bool), np.trunc(floats).astype(np.int32), np.trunc(floats).astype(np.int8)]
    run_program_both(program, expected=expected)


@pytest.mark.parametrize("helper,dtype", [
    ("u8", "uint8"), ("u16", "uint16"), ("u32", "uint32"), ("i8", "int8"), ("i16", "int16"),
    ("i32", "int32"), ("f32", "float32"), ("f64", "float64"),
])
def test_cast_helpers(helper, dtype):
    a = image_f32(W, H, seed=20, lo=0, hi=120)
    b = image_i32(W, H, seed=21, lo=-100000, hi=100000)

    def build(hl):
        A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        h = getattr(hl, helper)
        f[x, y] = hl.select(x < 20, h(A[x, y]), h(B[x, y]))
        return f

    ref, _ = run_both(build, [W, H])
    assert ref.dtype == np.dtype(dtype)


def test_type_constructors_and_cast_with_type_objects():
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = hl.cast(hl.UInt(8), x * 37) + hl.u8(1)
        g = hl.Func("g")
        g[x] = hl.cast(hl.Int(32), hl.cast(hl.Float(32), x) * 1.5)
        h = hl.Func("h")
        h[x] = hl.cast(hl.Float(32), x) / 3
        k = hl.Func("k")
        k[x] = hl.cast(hl.Bool(), x % 3)
        types = [str(t) for t in (hl.UInt(8), hl.Int(32), hl.Float(32), hl.Bool(), hl.UInt(16), hl.Float(64))]
        return [f.realize([20]), g.realize([20]), h.realize([20]), k.realize([20]), np.array(types)]

    run_program_both(program)


# ---------------------------------------------------------------------------
# Type promotion
# ---------------------------------------------------------------------------

# (id, builder(hl, A_u8, B_i16, x), expected dtype)
PROMOTIONS = [
    ("u8+int_literal", lambda hl, x: hl.u8(x) + 1, "uint8"),
    ("int_literal+u8", lambda hl, x: 1 + hl.u8(x), "uint8"),
    ("int_literal-u8_wraps", lambda hl, x: 3 - hl.u8(x), "uint8"),
    ("u8*literal_wraps", lambda hl, x: hl.u8(x * 13) * 7, "uint8"),
    ("u8/literal", lambda hl, x: hl.u8(x * 13) / 2, "uint8"),
    ("i16+literal", lambda hl, x: hl.i16(x) * 1000, "int16"),
    ("u8+float_literal", lambda hl, x: hl.u8(x) + 1.5, "float32"),
    ("i32*float_literal", lambda hl, x: x * 0.5, "float32"),
    ("i32/float_literal", lambda hl, x: x / 4.0, "float32"),
    ("f64+float_literal", lambda hl, x: hl.f64(x) + 0.25, "float64"),
    ("f32*int_literal", lambda hl, x: hl.f32(x) * 3, "float32"),
    ("u8+i16", lambda hl, x: hl.u8(x * 13) + hl.i16(x - 20), "int16"),
    ("u8+i8", lambda hl, x: hl.u8(x * 13) + hl.i8(x - 20), "int8"),
    ("u16+i8", lambda hl, x: hl.u16(x * 999) + hl.i8(x - 20), "int16"),
    ("u8+u16", lambda hl, x: hl.u8(x * 13) + hl.u16(x * 999), "uint16"),
    ("i8+i16", lambda hl, x: hl.i8(x - 20) + hl.i16(x * 999), "int16"),
    ("u32+i32", lambda hl, x: hl.u32(x * 7) + hl.i32(x - 20), "int32"),
    ("u16*u32", lambda hl, x: hl.u16(x * 999) * hl.u32(x * 99999), "uint32"),
    ("i32+f32", lambda hl, x: (x - 20) + hl.f32(x) * 0.5, "float32"),
    ("u8+f64", lambda hl, x: hl.u8(x * 13) + hl.f64(x) * 0.5, "float64"),
    ("f32+f64", lambda hl, x: hl.f32(x) / 3 + hl.f64(x) / 7, "float64"),
    ("i16/f32", lambda hl, x: hl.i16(x - 20) / hl.f32(3), "float32"),
    ("Expr(float)", lambda hl, x: hl.Expr(1.5) + x, "float32"),
    ("Expr(int)", lambda hl, x: hl.Expr(7) * hl.u8(x), "int32"),
    ("u8<<i32", lambda hl, x: hl.u8(x) << (x % 4), "uint32"),
    ("i32<<u8", lambda hl, x: x << hl.u8(x % 4), "int32"),
    ("select(u8,literal)", lambda hl, x: hl.select(x < 10, hl.u8(x), 200), "uint8"),
    ("select(f32,int_literal)", lambda hl, x: hl.select(x < 10, hl.f32(x) / 3, 4), "float32"),
    # the Python binding makes the literal an Int(32) Expr first, so this is int32
    ("min(u8,literal)", lambda hl, x: hl.min(hl.u8(x), 30), "int32"),
    ("max(u8,u8)", lambda hl, x: hl.max(hl.u8(x), hl.u8(30)), "uint8"),
    ("clamp(u8,lits)", lambda hl, x: hl.clamp(hl.u8(x * 13), 5, 200), "uint8"),
    ("max(f32,int_literal)", lambda hl, x: hl.max(hl.f32(x) / 3, 4), "float32"),
    ("abs(i8)", lambda hl, x: hl.abs(hl.i8(x - 20)), "uint8"),
    ("abs(i32)", lambda hl, x: hl.abs(x - 20), "uint32"),
    ("sqrt(i32)", lambda hl, x: hl.sqrt(x), "float32"),
    ("floor(i32)", lambda hl, x: hl.floor(x), "float32"),
    ("sin(f64)", lambda hl, x: hl.sin(hl.f64(x)), "float64"),
    # Halide: a constant integer exponent is raise_to_integer_power in x's own type
    ("pow(i32,int)", lambda hl, x: hl.pow(x, 2), "int32"),
    ("pow(u8,int)", lambda hl, x: hl.pow(hl.u8(x), 2), "uint8"),
    ("pow(i32,-1)", lambda hl, x: hl.pow(x + 1, -1), "int32"),
    ("pow(i32,expr)", lambda hl, x: hl.pow(x, x % 3), "float32"),
    ("pow(f32,-2)", lambda hl, x: hl.pow(hl.f32(x) + 1, -2), "float32"),
    ("pow(f32,int)", lambda hl, x: hl.pow(hl.f32(x), 2), "float32"),
    ("cmp_is_bool", lambda hl, x: hl.u8(x) < 20, "bool"),
    ("neg_u8", lambda hl, x: -hl.u8(x), "uint8"),
]


@pytest.mark.parametrize("case", PROMOTIONS, ids=[p[0] for p in PROMOTIONS])
def test_type_promotion(case):
    _, make, dtype = case

    def build(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = make(hl, x)
        return f

    ref, got = run_both(build, [40])
    if dtype is not None:  # None: whatever the oracle does (pinned by run_both)
        assert ref.dtype == np.dtype(dtype), f"oracle gives {ref.dtype}; test expectation is wrong"


def test_float_literal_is_float32_even_next_to_f64():
    """A Python float literal is an f32 constant, also when the other side is f64
    (0.1 becomes 0.100000001490116...)."""
    def build(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = hl.f64(x) + 0.1
        return f

    exp = np.arange(8, dtype=np.float64) + np.float64(np.float32(0.1))
    run_both(build, [8], expected=exp, rtol=1e-15, atol=0)


def test_mixed_type_pipeline_from_buffers():
    """u8 and i16 buffers, a float scale: per-element promotion chain."""
    a = image_u8(W, H, seed=22)
    b = image_int(np.int16, W, H, seed=23, lo=-3000, hi=3000)

    def build(hl):
        A, B = hl.Buffer(a, "a"), hl.Buffer(b, "b")
        x, y = hl.Var("x"), hl.Var("y")
        s = hl.Func("s")
        s[x, y] = A[x, y] + B[x, y]           # i16
        t = hl.Func("t")
        t[x, y] = s[x, y] * 0.5 + A[x, y]     # f32
        f = hl.Func("f")
        f[x, y] = hl.select(t[x, y] > 0, hl.i32(t[x, y]), hl.i32(s[x, y] // 3))
        return f

    ref, _ = run_both(build, [W, H])
    assert ref.dtype == np.int32


def test_type_api_matches_halide():
    """Type's accessors are methods, as in Halide's bindings (``t.bits()``, not ``t.bits``)."""
    def program(hl):
        out = []
        for t in (hl.UInt(8), hl.Int(16), hl.UInt(32), hl.Float(32), hl.Float(64), hl.Bool()):
            out += [t.bits(), t.bytes(), t.lanes(), t.is_float(), t.is_int(), t.is_uint(), t.is_bool(),
                    t.is_scalar(), t.is_vector(), t.with_bits(16).bits()]
        return out

    import halide
    import halide_mlir
    assert program(halide_mlir) == program(halide)
