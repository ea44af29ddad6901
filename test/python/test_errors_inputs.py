"""Errors: wherever real Halide 21 refuses a program, halide_mlir must refuse it
too, with `hl.HalideError` and a message that says what is wrong.

Real Halide's wording, for reference (Halide 21):
  Input buffer input is accessed at -3, which is before the min (0) in dimension 0
  Input buffer input is accessed at 14, which is beyond the max (12) in dimension 0
  Output buffer f has type uint8 but type of the buffer passed in is float32
  Buffer argument ip is nullptr
  Func f is defined with 2 dimensions, but realize() is requesting a realization with 1 dimensions.
  Can't realize undefined Func.
  The value 1.5 cannot be losslessly converted to type int32
"""

import re

import numpy as np
import pytest

from oracle import (
    image_f32,
    image_u8,
    ours,
    raises_both,
    realize_raises_both,
    run_both,
    run_program_both,
)


def _has_number(msg, n):
    """`n` appears in msg as a whole number (so -3 does not match -31 or 3)."""
    return re.search(rf"(?<![\d-]){re.escape(str(n))}(?!\d)", msg) is not None


# ---------------------------------------------------------------------------
# Out-of-bounds reads of an input Buffer
# ---------------------------------------------------------------------------

IN_W, IN_H = 13, 7
OOB_INPUT = image_u8(IN_W, IN_H, seed=1)

# (id, tap (dx, dy), dimension, extreme accessed coordinate, violated bound)
OOB_CASES = [
    ("dim0-negative", (-3, 0), 0, -3, 0),
    ("dim0-positive", (2, 0), 0, IN_W - 1 + 2, IN_W - 1),
    ("dim1-negative", (0, -4), 1, -4, 0),
    ("dim1-positive", (0, 5), 1, IN_H - 1 + 5, IN_H - 1),
]


@pytest.mark.parametrize("case", OOB_CASES, ids=[c[0] for c in OOB_CASES])
def test_input_buffer_out_of_bounds(case):
    _, (dx, dy), dim, accessed, bound = case
    sentinel = np.full((IN_H, IN_W), 77, np.uint8)

    def program(hl):
        inp = hl.Buffer(OOB_INPUT, "input")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = inp[x + dx, y + dy] + inp[x, y]
        out_arr = sentinel.copy()
        program.out_arr = out_arr
        f.realize(hl.Buffer(out_arr))
        return out_arr

    ref_msg, msg = raises_both(program)
    assert f"dimension {dim}" in ref_msg and _has_number(ref_msg, accessed)  # oracle wording as documented
    assert "input" in msg, f"error does not name the buffer: {msg!r}"
    assert f"dimension {dim}" in msg, f"error does not name the dimension: {msg!r}"
    assert _has_number(msg, accessed), f"error does not give the accessed position {accessed}: {msg!r}"
    assert _has_number(msg, bound), f"error does not give the buffer's bound {bound}: {msg!r}"
    # "before running": nothing was written to the output
    np.testing.assert_array_equal(program.out_arr, sentinel, err_msg="the pipeline ran before the bounds error")


def test_input_buffer_out_of_bounds_through_shifted_realization():
    """In bounds for an unshifted output, out of bounds once the output min moves."""
    def build(hl):
        inp = hl.Buffer(OOB_INPUT, "shifted_input")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = inp[x, y]
        return f

    _, msg = realize_raises_both(build, [IN_W, IN_H], mins=[0, 2], out_dtype="uint8")
    assert "shifted_input" in msg and "dimension 1" in msg and _has_number(msg, IN_H + 1), msg


def test_input_buffer_out_of_bounds_through_intermediate_stencil():
    """Bounds inference through a compute_root producer with a stencil."""
    def build(hl):
        inp = hl.Buffer(OOB_INPUT, "input")
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("g")
        g[x, y] = inp[x - 1, y] + inp[x + 1, y]
        g.compute_root()
        f = hl.Func("f")
        f[x, y] = g[x, y + 2]
        return f

    # x in [1, 11] keeps dim 0 in bounds; y + 2 in [2, 7] overruns dim 1 (max 6) by one
    ref_msg, msg = realize_raises_both(build, [IN_W - 2, IN_H - 1], mins=[1, 0], out_dtype="uint8")
    assert "dimension 1" in ref_msg and _has_number(ref_msg, IN_H)
    assert "input" in msg and "dimension 1" in msg and _has_number(msg, IN_H), msg


def test_in_bounds_edge_realization_is_fine():
    """The tightest legal region must NOT raise (guards against off-by-one checks)."""
    def build(hl):
        inp = hl.Buffer(OOB_INPUT, "input")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = inp[x - 3, y] + inp[x + 2, y + 1]
        return f

    run_both(build, [IN_W - 5, IN_H - 1], mins=[3, 0])


# ---------------------------------------------------------------------------
# Realize mistakes
# ---------------------------------------------------------------------------

def test_realize_into_output_buffer_of_wrong_dtype():
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("wrong_type_out")
        f[x, y] = hl.u8(x + y)
        return f

    _, msg = realize_raises_both(build, [4, 4], mode="buffer", out_dtype="float32")
    assert "uint8" in msg and "float32" in msg, f"error should name both types: {msg!r}"


def test_realize_into_output_buffer_of_wrong_dimensionality():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("wrong_dims_out")
        f[x, y] = x + y
        f.realize(hl.Buffer(hl.Int(32), [4]))

    _, msg = raises_both(program)
    assert "wrong_dims_out" in msg and _has_number(msg, 2) and _has_number(msg, 1), msg


@pytest.mark.parametrize("sizes", [[4], [4, 4, 4]], ids=["too_few", "too_many"])
def test_realize_with_wrong_number_of_sizes(sizes):
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("wrong_sizes")
        f[x, y] = x + y
        return f

    _, msg = realize_raises_both(build, sizes)
    assert "wrong_sizes" in msg, f"error should name the Func: {msg!r}"
    assert _has_number(msg, 2) and _has_number(msg, len(sizes)), msg


def test_imageparam_used_without_set():
    def build(hl):
        ip = hl.ImageParam(hl.UInt(8), 2, "unset_ip")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = ip[x, y]
        return f

    _, msg = realize_raises_both(build, [4, 4])
    assert "unset_ip" in msg, f"error should name the ImageParam: {msg!r}"


def test_param_used_without_value():
    def build(hl):
        p = hl.Param(hl.Int(32), "unset_param")
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = x + p
        return f

    _, msg = realize_raises_both(build, [4])
    assert "unset_param" in msg, msg


def test_imageparam_set_with_wrong_type_buffer():
    arr = image_f32(4, 4, seed=2)

    def program(hl):
        ip = hl.ImageParam(hl.UInt(8), 2, "typed_ip")
        ip.set(hl.Buffer(arr))
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = ip[x, y]
        return f.realize([4, 4])

    _, msg = raises_both(program)
    assert "typed_ip" in msg and "uint8" in msg and "float32" in msg, msg


def test_imageparam_set_with_wrong_dimensionality():
    arr = image_u8(4, seed=3)

    def program(hl):
        ip = hl.ImageParam(hl.UInt(8), 2, "dims_ip")
        ip.set(hl.Buffer(arr))
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = ip[x, y]
        return f.realize([4, 4])

    _, msg = raises_both(program)
    assert "dims_ip" in msg, msg


# ---------------------------------------------------------------------------
# Definition mistakes
# ---------------------------------------------------------------------------

def test_defining_a_func_twice_with_pure_definitions_follows_halide():
    """Real Halide does NOT error: it warns and the second definition replaces the
    first.  Ours must give the same numbers (no error)."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("twice")
        f[x, y] = x + y
        f[x, y] = x * y + 1
        return f

    yy, xx = np.mgrid[0:3, 0:5]
    run_both(build, [5, 3], expected=(xx * yy + 1).astype(np.int32))


def test_calling_an_undefined_func():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("never_defined")
        f = hl.Func("f")
        f[x, y] = g[x, y] + 1
        return f.realize([4, 4])

    _, msg = raises_both(program)
    assert "never_defined" in msg, f"error should name the undefined Func: {msg!r}"


def test_realizing_an_undefined_func():
    def program(hl):
        return hl.Func("empty_func").realize([4, 4])

    _, msg = raises_both(program)
    assert "undefined" in msg.lower() or "empty_func" in msg, msg


def test_calling_func_with_wrong_number_of_args():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("two_d")
        g[x, y] = x + y
        f = hl.Func("f")
        f[x] = g[x]
        return f.realize([4])

    _, msg = raises_both(program)
    assert "two_d" in msg, msg


def test_accessing_buffer_with_wrong_number_of_args():
    arr = image_u8(4, 4, seed=4)

    def program(hl):
        b = hl.Buffer(arr, "two_d_buf")
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = b[x]
        return f.realize([4])

    _, msg = raises_both(program)
    assert "two_d_buf" in msg, msg


def test_func_name_with_dot_is_rejected():
    def program(hl):
        return hl.Func("bad.name")

    _, msg = raises_both(program)
    assert "bad.name" in msg, msg


# ---------------------------------------------------------------------------
# Param values of the wrong type
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ptype,value,typename", [
    (("Int", 32), 1.5, "int32"),
    (("UInt", 8), 300, "uint8"),
    (("UInt", 8), 256, "uint8"),
    (("Int", 8), -129, "int8"),
], ids=["i32<-1.5", "u8<-300", "u8<-256", "i8<-neg129"])
def test_param_set_with_value_of_wrong_type(ptype, value, typename):
    def program(hl):
        kind, bits = ptype
        p = hl.Param(getattr(hl, kind)(bits), "badparam")
        p.set(value)
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = p + x * 0
        return f.realize([2])

    _, msg = raises_both(program)
    assert typename in msg or "badparam" in msg, f"error should name the type or the Param: {msg!r}"


def test_param_set_values_real_halide_accepts():
    """Halide 21 accepts some out-of-range values by bit pattern (u8 <- -1 is 255,
    i8 <- 128 is -128, i16 <- 40000 is -25536) and int values for float Params:
    ours must accept them too and give the same numbers."""
    def program(hl):
        x = hl.Var("x")
        outs = []
        for i, (t, v) in enumerate([(hl.UInt(8), -1), (hl.Int(8), 128), (hl.Int(16), 40000),
                                    (hl.Float(32), 3), (hl.Int(32), 3.0)]):
            p = hl.Param(t, f"accepted{i}")
            p.set(v)
            f = hl.Func(f"f{i}")
            f[x] = p
            outs.append(f.realize([2]))
        return outs

    run_program_both(program, expected=[
        np.array([255, 255], np.uint8), np.array([-128, -128], np.int8), np.array([-25536] * 2, np.int16),
        np.array([3, 3], np.float32), np.array([3, 3], np.int32)])


# ---------------------------------------------------------------------------
# Type errors in Exprs
# ---------------------------------------------------------------------------

def _expr_program(make):
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = make(hl, x)
        return f.realize([4])
    return program


@pytest.mark.parametrize("make,words", [
    (lambda hl, x: hl.u8(x) + 300, ["300"]),
    (lambda hl, x: hl.u8(x) - 1 + (-1), ["-1"]),
    (lambda hl, x: hl.i16(x) * 40000, ["40000"]),
    (lambda hl, x: hl.f32(x) & 1, []),
    (lambda hl, x: ~hl.f32(x), []),
    (lambda hl, x: hl.u8(x) & x, []),
    (lambda hl, x: hl.select(x < 2, x, 2.5), []),
    (lambda hl, x: hl.select(x < 2, hl.i32(x), hl.i16(x)), []),
], ids=["u8+300", "u8+-1", "i16*40000", "float&int", "~float", "u8&i32", "select_i32_f32", "select_i32_i16"])
def test_expr_type_errors(make, words):
    _, msg = raises_both(_expr_program(make))
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"


def test_halide_error_is_exported():
    hl = ours()
    assert issubclass(hl.HalideError, Exception)
