"""Errors in a program's inputs and realize() calls: Buffers and ImageParams of the wrong type, dimensionality
or size, reads outside an input, realize() arguments, inputs never given, Param values of the wrong type.

Every mistake a user can make gets an `hl.HalideError` -- never a segfault, a raw IndexError/KeyError/ValueError
from our internals, an MLIR diagnostic at `loc(unknown)`, a hang or a wrong result. Where real Halide 21 also
refuses the program the test runs it under both (oracle.raises_both). The message names what is wrong (the Func,
the buffer or the schedule call) and, where the mistake sits on one line of the user's program, that line as
`<this file>.py:<line>`, found by a `# site:<tag>` marker on it (helpers.UserLines).

Real Halide's wording, for reference (Halide 21):
  Input buffer input is accessed at -3, which is before the min (0) in dimension 0
  Input buffer input is accessed at 14, which is beyond the max (12) in dimension 0
  Output buffer f has type uint8 but type of the buffer passed in is float32
  Buffer argument ip is nullptr
  Func f is defined with 2 dimensions, but realize() is requesting a realization with 1 dimensions.
  The value 1.5 cannot be losslessly converted to type int32
"""

import re

import numpy as np
import pytest

from helpers import UserLines, ours_raises
from oracle import image_f32, image_u8, raises_both, realize_raises_both, run_both, run_program_both

LINES = UserLines(__file__)
check = LINES.check

IMG8 = image_u8(16, 12, seed=5)
IMGF = image_f32(16, 12, seed=6)


def _has_number(msg, n):
    """`n` appears in msg as a whole number (so -3 does not match -31 or 3)."""
    return re.search(rf"(?<![\d-]){re.escape(str(n))}(?!\d)", msg) is not None


# ---------------------------------------------------------------------------
# Buffers and ImageParams of the wrong type / dimensionality / size
# ---------------------------------------------------------------------------

def test_imageparam_set_with_wrong_dtype_names_param_types_and_line():
    def program(hl):
        ip = hl.ImageParam(hl.UInt(8), 2, "ip_u8")
        ip.set(hl.Buffer(IMGF))  # site:ip-type
        return ip

    ref, msg = raises_both(program)
    assert "ip_u8" in ref
    check(msg, "ip_u8", "uint8", "float32", at="ip-type")


def test_imageparam_set_with_wrong_ndim():
    """Halide accepts the set() and refuses at realize; ours refuses at set(): both before running."""
    def program(hl):
        ip = hl.ImageParam(hl.UInt(8), 3, "ip_3d")
        ip.set(hl.Buffer(IMG8))  # site:ip-ndim
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        f = hl.Func("f")
        f[x, y, c] = ip[x, y, c]
        return f.realize([4, 4, 1])

    _, msg = raises_both(program)
    check(msg, "ip_3d", "3", "2", at="ip-ndim")


def test_realize_into_buffer_of_wrong_type():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("typed_f")
        f[x, y] = hl.u16(x + y)
        out = hl.Buffer(hl.Float(32), [4, 4], "out_f32")
        f.realize(out)  # site:realize-type

    ref, msg = raises_both(program)
    assert "uint16" in ref and "float32" in ref
    check(msg, "typed_f", "uint16", "float32", at="realize-type")


def test_realize_into_buffer_of_wrong_ndim():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("two_d_f")
        f[x, y] = x + y
        f.realize(hl.Buffer(hl.Int(32), [4, 4, 3]))  # site:realize-ndim

    ref, msg = raises_both(program)
    check(msg, "two_d_f", "2", "3", at="realize-ndim")


def test_input_too_small_is_caught_before_running():
    sentinel = np.full((12, 20), 99, np.uint8)

    def program(hl):
        ip = hl.ImageParam(hl.UInt(8), 2, "small_in")
        ip.set(hl.Buffer(IMG8))
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("copy")
        f[x, y] = ip[x, y]  # site:too-small
        out = sentinel.copy()
        program.out = out
        f.realize(hl.Buffer(out))  # 20 wide, the input is 16

    ref, msg = raises_both(program)
    assert "small_in" in ref and "19" in ref
    check(msg, "small_in", "copy", "19", "15", "dimension 0", at="too-small")
    np.testing.assert_array_equal(program.out, sentinel, err_msg="the pipeline ran before the error")


# each side of each dimension, read through a compute_root stencil: (id, dx, dy, dim, accessed)
OOB = [("x-low", -2, 0, 0, -2), ("x-high", 3, 0, 0, 18), ("y-low", 0, -1, 1, -1), ("y-high", 0, 4, 1, 15)]


@pytest.mark.parametrize("case", OOB, ids=[c[0] for c in OOB])
def test_access_outside_input_without_boundary_condition(case):
    _, dx, dy, dim, accessed = case

    def program(hl):
        ip = hl.ImageParam(hl.Float(32), 2, "img")
        ip.set(hl.Buffer(IMGF))
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("stencil")
        g[x, y] = ip[x, y] + ip[x + dx, y + dy]  # site:oob
        g.compute_root()
        f = hl.Func("out")
        f[x, y] = g[x, y] * 2
        return f.realize([16, 12])

    ref, msg = raises_both(program)
    assert f"dimension {dim}" in ref and str(accessed) in ref
    check(msg, "img", "stencil", f"dimension {dim}", str(accessed), at="oob")


def test_boundary_condition_makes_the_same_access_legal():
    def build(hl):
        inp = hl.Buffer(IMGF, "img")
        clamped = hl.BoundaryConditions.repeat_edge(inp)
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = clamped[x - 2, y] + clamped[x + 3, y + 4]
        return f

    run_both(build, [16, 12])


def test_buffer_of_unsupported_dtype():
    def program(hl):
        return hl.Buffer(np.zeros((4, 4), np.complex64))

    _, msg = raises_both(program)
    check(msg, "complex64")


def test_buffer_with_negative_size_is_an_error_not_a_numpy_exception():
    msg = ours_raises(lambda hl: hl.Buffer(hl.Int(32), [-1, 4]))  # site:neg-buffer
    check(msg, "-1", at="neg-buffer")


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
# realize() arguments
# ---------------------------------------------------------------------------

def test_realize_negative_size_matches_halide_wording():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("neg")
        f[x, y] = x + y
        return f.realize([-3, 8])  # site:neg-size

    ref, msg = raises_both(program)
    assert "is negative (-3)" in ref
    check(msg, "neg", "dimension 0 is negative (-3)", at="neg-size")


def test_realize_zero_size_gives_an_empty_buffer_as_in_halide():
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("empty")
        f[x, y] = x + y
        return f

    ref, got = run_both(build, [0, 8])
    assert got.shape == (8, 0)


@pytest.mark.parametrize("sizes", [[4], [4, 4, 4]], ids=["fewer", "more"])
def test_realize_sizes_of_wrong_dimensionality(sizes):
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("dims2")
        f[x, y] = x + y
        return f.realize(sizes)  # site:realize-dims

    ref, msg = raises_both(program)
    check(msg, "dims2", "2", str(len(sizes)), at="realize-dims")


@pytest.mark.parametrize("sizes", [[4.5, 2], "ab", None], ids=["float", "str", "none"])
def test_realize_sizes_that_are_not_integers(sizes):
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("int_sizes")
        f[x, y] = x + y
        return f.realize(sizes)  # site:realize-nonint

    _, msg = raises_both(program)
    check(msg, "int_sizes", at="realize-nonint")


def test_realize_output_too_large_for_memory():
    """64 TiB output: a HalideError (real Halide 21 segfaults here, so no oracle)."""
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("huge_out")
        f[x, y] = x
        return f.realize([1 << 22, 1 << 22])  # site:huge-out

    check(ours_raises(program), "huge_out", at="huge-out")


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


# ---------------------------------------------------------------------------
# Inputs that were never given
# ---------------------------------------------------------------------------

def test_imageparam_used_without_set_message_is_clean():
    def program(hl):
        ip = hl.ImageParam(hl.Float(32), 2, "never_set")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = ip[x, y]
        return f.realize([4, 4])

    _, msg = raises_both(program)
    check(msg, "never_set")


def test_param_used_without_value_message_is_clean():
    def program(hl):
        p = hl.Param(hl.Float(32), "no_value")
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = p * x
        return f.realize([4])

    _, msg = raises_both(program)
    check(msg, "no_value")


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


@pytest.mark.parametrize("ptype,value", [(("UInt", 8), 1000), (("Int", 16), 2.5), (("Int", 8), -129)],
                         ids=["u8=1000", "i16=2.5", "i8=-129"])
def test_param_set_out_of_range(ptype, value):
    def program(hl):
        p = hl.Param(getattr(hl, ptype[0])(ptype[1]), "ranged")
        p.set(value)  # site:param-range
        return p

    ref, msg = raises_both(program)
    assert "cannot be losslessly converted" in ref
    check(msg, "cannot be losslessly converted", str(value), "ranged", at="param-range")
