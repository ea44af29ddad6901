"""Issue 15, API parity: Halide's integer intrinsics, the concise saturating casts, target queries and the
value-keeping markers, each evaluated through real Halide 21 and halide_mlir on edge values (table-driven: one
pipeline per operand type realizes every op over all pairs of edge values); the names that cannot be honoured
refuse with the exception type Halide raises; tools/api_parity.py's table explains every missing name."""

import itertools
import subprocess
import sys
from pathlib import Path

import halide
import numpy as np
import pytest

import halide_mlir as hl

REPO = Path(__file__).resolve().parents[2]


def _edges(dtype):
    info = np.iinfo(dtype)
    vals = {info.min, info.min + 1, info.min // 2, -7, -2, -1, 0, 1, 2, 3, 7, 100}
    vals |= {info.max // 2, info.max - 1, info.max}
    return sorted(v for v in vals if info.min <= v <= info.max)


def _pairs(dtype):
    e = _edges(dtype)
    a, b = zip(*itertools.product(e, e))
    return np.array(a, dtype=dtype), np.array(b, dtype=dtype)


# op name -> how to call it on (m, a, b) where a, b are FuncRefs of the operand type
BINARY = {
    "widening_add": lambda m, a, b: m.widening_add(a, b),
    "widening_sub": lambda m, a, b: m.widening_sub(a, b),
    "widening_mul": lambda m, a, b: m.widening_mul(a, b),
    "saturating_add": lambda m, a, b: m.saturating_add(a, b),
    "saturating_sub": lambda m, a, b: m.saturating_sub(a, b),
    "halving_add": lambda m, a, b: m.halving_add(a, b),
    "halving_sub": lambda m, a, b: m.halving_sub(a, b),
    "rounding_halving_add": lambda m, a, b: m.rounding_halving_add(a, b),
    "mul_shift_right": lambda m, a, b: m.mul_shift_right(a, b, 3),
    "rounding_mul_shift_right": lambda m, a, b: m.rounding_mul_shift_right(a, b, 5),
    "popcount": lambda m, a, b: m.popcount(a),
    "count_leading_zeros": lambda m, a, b: m.count_leading_zeros(a),
    "count_trailing_zeros": lambda m, a, b: m.count_trailing_zeros(b),
    "concat_bits": lambda m, a, b: m.concat_bits([a, b]),
    "extract_bits": lambda m, a, b: m.extract_bits(m.UInt(8), a, 3),
    "extract_bits_wide": lambda m, a, b: m.extract_bits(m.Int(32), a, 1),
    "u8_sat": lambda m, a, b: m.u8_sat(a),
    "i8_sat": lambda m, a, b: m.i8_sat(a),
    "u16_sat": lambda m, a, b: m.u16_sat(a),
    "i16_sat": lambda m, a, b: m.i16_sat(a),
    "u32_sat": lambda m, a, b: m.u32_sat(a),
    "i32_sat": lambda m, a, b: m.i32_sat(b),
    "u64_sat": lambda m, a, b: m.u64_sat(a),
    "i64_sat": lambda m, a, b: m.i64_sat(b),
    "unsafe_promise_clamped": lambda m, a, b: m.unsafe_promise_clamped(a, 0, 10),
    "memoize_tag": lambda m, a, b: m.memoize_tag(a, b),
}
WIDENING = ("widening_add", "widening_sub", "widening_mul", "mul_shift_right", "rounding_mul_shift_right")


def _realize(m, dtype, ops, a_np, b_np):
    x = m.Var("x")
    a, b = m.Buffer(a_np, "a"), m.Buffer(b_np, "b")
    outs = []
    for name in ops:
        f = m.Func(name)
        f[x] = BINARY[name](m, a[x], b[x])
        outs.append(f)
    r = m.Pipeline(outs).realize([len(a_np)])
    return [np.asarray(r[i]) for i in range(len(ops))]


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64])
def test_binary_intrinsics_match_halide(dtype):
    ops = [n for n in BINARY if not (np.dtype(dtype).itemsize == 8 and n in WIDENING)]
    if np.dtype(dtype).itemsize >= 4:
        ops.remove("concat_bits") if np.dtype(dtype).itemsize == 8 else None
    a_np, b_np = _pairs(dtype)
    theirs = _realize(halide, dtype, ops, a_np, b_np)
    mine = _realize(hl, dtype, ops, a_np, b_np)
    for name, t, o in zip(ops, theirs, mine):
        assert t.dtype == o.dtype, name
        bad = np.nonzero(t != o)[0]
        assert bad.size == 0, (name, [(a_np[i], b_np[i], t[i], o[i]) for i in bad[:5]])


SHIFTS = {
    "rounding_shift_right": lambda m, a, s: m.rounding_shift_right(a, s),
    "rounding_shift_left": lambda m, a, s: m.rounding_shift_left(a, s),
    "widening_shift_left": lambda m, a, s: m.widening_shift_left(a, s),
    "widening_shift_right": lambda m, a, s: m.widening_shift_right(a, s),
}


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint32, np.int32])
def test_shift_intrinsics_match_halide(dtype):
    bits = np.dtype(dtype).itemsize * 8
    signed = np.issubdtype(dtype, np.signedinteger)
    amounts = list(range(-(bits - 1) if signed else 0, bits))
    e = _edges(dtype)
    pairs = list(itertools.product(e, amounts))
    a_np = np.array([p[0] for p in pairs], dtype=dtype)
    s_np = np.array([p[1] for p in pairs], dtype=dtype)

    def run(m, ops):
        x = m.Var("x")
        a, s = m.Buffer(a_np, "a"), m.Buffer(s_np, "s")
        fs = []
        for name in ops:
            f = m.Func(name)
            f[x] = SHIFTS[name](m, a[x], s[x])
            fs.append(f)
        r = m.Pipeline(fs).realize([len(a_np)])
        return [np.asarray(r[i]) for i in range(len(fs))]

    ops = list(SHIFTS)
    for name, t, o in zip(ops, run(halide, ops), run(hl, ops)):
        assert t.dtype == o.dtype, name
        bad = np.nonzero(t != o)[0]
        assert bad.size == 0, (name, [(a_np[i], s_np[i], t[i], o[i]) for i in bad[:5]])


SCALARS = [
    lambda m: m.rounding_shift_right(m.i8(-5), 1),
    lambda m: m.rounding_shift_right(m.u8(255), 1),
    lambda m: m.rounding_shift_right(m.i16(-300), -2),
    lambda m: m.rounding_shift_left(m.i16(77), -3),
    lambda m: m.widening_shift_left(m.u8(255), 4),
    lambda m: m.widening_shift_right(m.i16(-1000), 3),
    lambda m: m.widening_shift_left(m.i8(-3), -1),
    lambda m: m.widening_mul(m.u8(200), m.i8(-2)),
    lambda m: m.widening_mul(m.i16(-300), m.u8(255)),
    lambda m: m.widening_add(m.u8(250), 10),
    lambda m: m.widen_right_add(m.u16(65000), m.u8(255)),
    lambda m: m.widen_right_sub(m.i16(5), m.i8(-128)),
    lambda m: m.widen_right_mul(m.u16(300), m.u8(255)),
    lambda m: m.widen_right_mul(m.i32(-70000), m.i16(-2)),
    lambda m: m.mul_shift_right(m.u8(200), m.u8(200), 8),
    lambda m: m.rounding_mul_shift_right(m.i8(-128), m.i8(-128), 7),
    lambda m: m.mul_shift_right(m.i32(-2**31), m.i32(-2**31), 31),
    lambda m: m.concat_bits([m.u8(1), m.u8(2), m.u8(3), m.u8(4)]),
    lambda m: m.concat_bits([m.i16(-1), m.i16(1)]),
    lambda m: m.extract_bits(m.Int(16), m.u8(0xFF), 4),
    lambda m: m.extract_bits(m.Float(32), m.u64(0x3F80000000000000), 32),
    lambda m: m.extract_bits(m.UInt(8), m.f32(-1.5), 24),
    lambda m: m.u8_sat(m.f32(-3.5)),
    lambda m: m.i16_sat(m.f64(1e9)),
    lambda m: m.u32_sat(m.i64(-5)),
    lambda m: m.i8_sat(m.u32(200)),
    lambda m: m.count_leading_zeros(m.u8(0)),
    lambda m: m.count_leading_zeros(m.i64(1)),
    lambda m: m.count_trailing_zeros(m.i32(0)),
    lambda m: m.popcount(m.u64(2**64 - 1)),
    lambda m: m.target_bits(),
    lambda m: m.target_arch_is(m.TargetArch.X86),
    lambda m: m.target_arch_is(m.TargetArch.ARM),
    lambda m: m.target_os_is(m.TargetOS.Linux),
    lambda m: m.target_has_feature(m.TargetFeature.SSE41),
    lambda m: m.target_has_feature(m.TargetFeature.CUDA),
    lambda m: m.target_natural_vector_size(m.Float(32)),
    lambda m: m.target_natural_vector_size(m.UInt(8)),
    lambda m: m.strict_float(m.f32(1) / 3),
    lambda m: m.strict_float(m.f32(0.1) * m.f32(3) + m.f32(1e-9)),
    lambda m: m.strict_float(m.i32(3)),
]


@pytest.mark.parametrize("case", range(len(SCALARS)))
def test_scalar_cases_match_halide(case):
    theirs = halide.evaluate(SCALARS[case](halide))
    mine = hl.evaluate(SCALARS[case](hl))
    assert type(theirs) is type(mine) and (theirs == mine or (theirs != theirs and mine != mine)), (theirs, mine)


def test_strict_float_keeps_mul_add_unfused():
    """Under strict_float, a * b + c rounds twice (no FMA), as Halide's strict float does."""
    a_np = np.array([1 + 2**-23, 0.1, 3.3], dtype=np.float32)

    def run(m):
        x = m.Var("x")
        a = m.Buffer(a_np, "a")
        f = m.Func("f")
        f[x] = m.strict_float(a[x] * a[x] - m.f32(1) - a[x] * a[x] + m.f32(1))
        return np.asarray(f.realize([3]))

    np.testing.assert_array_equal(run(halide), run(hl))


ERRORS = [
    (lambda m: m.widen_right_add(m.u16(5), m.i8(3)), "type mismatch"),
    (lambda m: m.popcount(m.f32(1)), "must be an integer"),
    (lambda m: m.count_leading_zeros(m.f32(1)), "must be an integer"),
    (lambda m: m.concat_bits([m.u8(1), m.u8(2), m.u8(3)]), "power of two"),
    (lambda m: m.concat_bits([m.u8(1), m.u16(2)]), "same type"),
    (lambda m: m.concat_bits([]), "at least one"),
    (lambda m: m.mul_shift_right(m.u8(1), m.u8(1), m.i8(1)), "must be unsigned"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_intrinsic_errors_like_halide(case):
    build, text = ERRORS[case]
    with pytest.raises(halide.HalideError):
        build(halide)
    with pytest.raises(hl.HalideError, match=text):
        build(hl)


def test_widening_64_bit_refuses_like_halide():
    """Halide builds the Expr and fails to realize its 128-bit type with ValueError; we refuse at once."""
    with pytest.raises(ValueError):
        halide.evaluate(halide.widening_add(halide.i64(1), halide.i64(2)))
    with pytest.raises(ValueError):
        hl.widening_add(hl.i64(1), hl.i64(2))
    with pytest.raises(hl.HalideError, match="128-bit"):
        hl.widening_mul(hl.u64(1), hl.u64(2))


def test_saturating_float_refuses():
    with pytest.raises(halide.HalideError):
        halide.evaluate(halide.saturating_add(halide.f32(1.5), halide.f32(2)))
    with pytest.raises(hl.HalideError, match="only defined for integer types"):
        hl.saturating_add(hl.f32(1.5), hl.f32(2))


def test_parity_table_explains_every_missing_name():
    r = subprocess.run(
        [sys.executable, str(REPO / "tools" / "api_parity.py"), "--check"], capture_output=True, text=True,
        cwd=REPO,
    )
    assert r.returncode == 0, r.stderr
    assert "| **total** |" in r.stdout


# --- the rest of the surface (lang/api_extras.py) --------------------------------------------------------------
BOTH = pytest.mark.parametrize("m", [halide, hl], ids=["halide", "halide_mlir"])


@BOTH
def test_param_range_checked_at_realize(m):
    x = m.Var("x")
    p = m.Param(m.Int(32), "p", 5)
    assert not p.min_value().defined() and not p.max_value().defined()
    p.set_range(0, 10)
    assert m.evaluate(p.min_value()) == 0 and m.evaluate(p.max_value()) == 10
    f = m.Func("f")
    f[x] = p + x
    assert list(f.realize([2])) == [5, 6]
    p.set(20)
    with pytest.raises(m.HalideError, match="Parameter p is 20 but must be at most 10"):
        f.realize([2])
    p.set(-3)
    with pytest.raises(m.HalideError, match="Parameter p is -3 but must be at least 0"):
        f.realize([2])
    p.set(7)
    assert list(f.realize([2])) == [7, 8]


@BOTH
def test_update_introspection(m):
    x = m.Var("x")
    r = m.RDom([m.Range(0, 3)])
    g = m.Func("g")
    g[x] = 0
    g[x] += r.x
    rv = g.rvars(0)
    assert len(rv) == 1 and isinstance(rv[0], m.RVar)
    vals = g.update_values(0)
    assert len(vals) == 1
    assert not g.is_extern() and g.extern_function_name() == ""
    f = m.Func("f")
    y = m.Var("y")
    f[x, y] = m.Tuple([x, y, x])
    assert f[x, y].size() == 3 and g[x].size() == 1
    assert r.same_as(r) and not r.same_as(m.RDom([m.Range(0, 3)]))


@BOTH
def test_loop_level_values(m):
    x = m.Var("x")
    g, f = m.Func("g"), m.Func("f")
    g[x] = x * 2
    f[x] = g[x] + 1
    g.compute_at(m.LoopLevel(f, x))
    assert list(f.realize([3])) == [1, 3, 5]
    g.compute_at(m.LoopLevel.root()).store_at(m.LoopLevel.root())
    assert list(f.realize([3])) == [1, 3, 5]
    g.compute_at(m.LoopLevel.inlined())
    assert list(f.realize([3])) == [1, 3, 5]


@BOTH
def test_var_or_rvar(m):
    x = m.Var("x")
    r = m.RDom([m.Range(0, 4)])
    v, w = m.VarOrRVar(x), m.VarOrRVar(r.x)
    assert not v.is_rvar and w.is_rvar and v.name() == "x"
    f = m.Func("f")
    f[x] = x + 1
    f.split(m.VarOrRVar(x), m.VarOrRVar(m.Var("xo")), m.VarOrRVar(m.Var("xi")), 2)
    assert list(f.realize([4])) == [1, 2, 3, 4]


@BOTH
def test_image_param_extras(m):
    ip = m.ImageParam(m.UInt(8), 2, "ip")
    assert ip.host_alignment() == 1
    ip.set_host_alignment(32)
    assert ip.host_alignment() == 32
    ip.store_in(m.MemoryType.Heap)
    ip.reset()
    assert ip.defined()


@BOTH
def test_enum_ints_and_order(m):
    assert int(m.TailStrategy.Auto) == 8 and int(m.TailStrategy.RoundUp) == 0
    with pytest.raises(TypeError):  # pybind11 enums have no order
        assert m.TailStrategy.RoundUp < m.TailStrategy.GuardWithIf
    assert m.TailStrategy.RoundUp != m.TailStrategy.GuardWithIf
    assert int(m.OutputFileType.static_library) == 15 and int(m.MemoryType.Stack) == 2
    assert int(m.NameMangling.CPlusPlus) == 2 and int(m.ArgInfoKind.Buffer) == 2


@BOTH
def test_reflected_comparisons(m):
    x = m.Var("x")
    f = m.Func("f")
    f[x] = m.select(x.__rlt__(2), 1, 0) + m.select(m.Expr(x).__req__(3), 10, 0)
    assert list(f.realize([5])) == [0, 0, 0, 11, 1]


@BOTH
def test_require_with_constant_condition(m):
    assert m.evaluate(m.require(m.Expr(True), m.i32(5), m.Expr(7))) == 5


REFUSED = [
    lambda m: m.Func("f").compile_to_conceptual_stmt("/nonexistent/f.stmt", []),
    lambda m: m.Func("f").copy_to_host(),
    lambda m: m.user_context_value(),
]


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_refused_names_raise_halide_error(case):
    with pytest.raises(hl.HalideError, match="not supported by halide_mlir"):
        REFUSED[case](hl)


@pytest.mark.parametrize("type_name", ["UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64"])
def test_bit_counts_vectorized_match_halide(type_name):
    """popcount / count_leading_zeros / count_trailing_zeros on vectors (the vectorizer's 2-D vectors once
    failed to lower) against real Halide, over edge values and a sweep of bit patterns, at an odd width."""
    bits = int("".join(ch for ch in type_name if ch.isdigit()))
    signed = type_name.startswith("Int")
    dtype = np.dtype(f"{'i' if signed else 'u'}{bits // 8}")
    rng = np.random.default_rng(bits)
    raw = rng.integers(0, 1 << 62, 61, dtype=np.int64).astype(np.uint64) >> rng.integers(0, 63, 61).astype(np.uint64)
    edge = np.array([0, 1, 2, 3, (1 << (bits - 1)), (1 << bits) - 1, (1 << (bits - 1)) - 1], dtype=np.uint64)
    data = np.concatenate([edge, raw]).astype(dtype)  # wraps to the type, as a cast does
    results = []
    for m in (halide, hl):
        x = m.Var("x")
        inp = m.Buffer(data, "inp")
        f = m.Func("f")
        f[x] = m.Tuple([m.popcount(inp[x]), m.count_leading_zeros(inp[x]), m.count_trailing_zeros(inp[x])])
        f.vectorize(x, 16)
        out = f.realize([len(data)])
        results.append([np.asarray(b).copy() for b in out])
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_array_equal(ours, theirs)
