"""Errors in Func definitions and Exprs: undefined Funcs, definitions Halide refuses (arity, free Vars,
expressions on the left, RVars in pure definitions), and type errors in Exprs.

Every mistake a user can make gets an `hl.HalideError` -- never a segfault, a raw IndexError/KeyError/ValueError
from our internals, an MLIR diagnostic at `loc(unknown)`, a hang or a wrong result. Where real Halide 21 also
refuses the program the test runs it under both (oracle.raises_both). The message names what is wrong (the Func,
the buffer or the schedule call) and, where the mistake sits on one line of the user's program, that line as
`<this file>.py:<line>`, found by a `# site:<tag>` marker on it (helpers.UserLines).

Real Halide's wording, for reference (Halide 21):
  Can't realize undefined Func.
"""

import numpy as np
import pytest

from helpers import UserLines, run_python
from oracle import image_u8, ours, raises_both, run_both

LINES = UserLines(__file__)
check, line_of = LINES.check, LINES.line_of

IMG8 = image_u8(16, 12, seed=5)


# ---------------------------------------------------------------------------
# Definitions
# ---------------------------------------------------------------------------

def test_undefined_func_used():
    def program(hl):
        x = hl.Var("x")
        g = hl.Func("never_defined")
        f = hl.Func("f")
        f[x] = g[x] + 1  # site:undefined
        return f.realize([4])

    ref, msg = raises_both(program)
    check(msg, "never_defined", at="undefined")


def test_func_redefined_with_different_arity():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("arity")
        f[x] = x
        f[x, y] = x + y  # site:arity
        return f.realize([4, 4])

    ref, msg = raises_both(program)
    assert "2 arguments" in ref
    check(msg, "arity", "2", "1", at="arity")


def test_recursive_definition_of_an_undefined_func():
    """`f[x] = f[x - 1]` with no earlier definition: Halide refuses it."""
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("rec")
        f[x] = f[x - 1]  # site:rec
        return f.realize([4])

    _, msg = raises_both(program)
    check(msg, "rec", at="rec")


def test_update_whose_self_reference_moves_a_pure_var():
    """`g[x] = g[x - 1] + 1` after a pure definition: Halide refuses (the self reference must use `x` in the
    same place). It used to compile to an out-of-bounds read and segfault; run in a subprocess."""
    r = run_python("""
        import halide_mlir as hl
        x = hl.Var("x")
        g = hl.Func("scan")
        g[x] = x
        g[x] = g[x - 1] + 1
        g.compute_root()
        f = hl.Func("f")
        f[x] = g[x]
        try:
            f.realize([4])
        except hl.HalideError as e:
            print("HalideError:", e)
    """, timeout=120)
    assert r.returncode == 0, f"crashed (rc {r.returncode}): {r.stderr[-2000:]}"
    assert "HalideError:" in r.stdout and "scan" in r.stdout and "same pure variables" in r.stdout, r.stdout

    def program(hl):
        x = hl.Var("x")
        g = hl.Func("scan")
        g[x] = x
        g[x] = g[x - 1] + 1
        return g.realize([4])
    raises_both(program)


def test_rvar_in_pure_definition():
    def program(hl):
        r = hl.RDom([(0, 4)])
        x = hl.Var("x")
        f = hl.Func("pure_r")
        f[x] = x + r.x  # site:rvar-pure
        return f.realize([4])

    ref, msg = raises_both(program)
    check(msg, "pure_r", at="rvar-pure")


def test_pure_definition_with_expression_on_the_left():
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("lhs_expr")
        f[x + 1] = x  # site:lhs-expr
        return f.realize([4])

    _, msg = raises_both(program)
    check(msg, "lhs_expr", at="lhs-expr")


def test_var_not_on_the_left():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("free_y")
        f[x] = x + y  # site:free-var
        return f.realize([4])

    _, msg = raises_both(program)
    check(msg, "free_y", "'y'", at="free-var")


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
# Type errors
# ---------------------------------------------------------------------------

def _one_line_func(make):
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("typed")
        f[x] = make(hl, x)
        return f.realize([4])
    return program


@pytest.mark.parametrize("make,words", [
    (lambda hl, x: hl.f32(x) & hl.f32(x), ["and"]),
    (lambda hl, x: hl.f32(x) | 1, ["or"]),
    (lambda hl, x: hl.f32(x) ^ hl.f32(x), ["xor"]),
    (lambda hl, x: hl.select(x, 1, 2), ["select", "int32"]),
    (lambda hl, x: hl.select(hl.f32(x) * 0.5, 1, 2), ["select", "float32"]),
    (lambda hl, x: hl.select(x > 1, hl.u8(x), hl.f32(x)), ["select"]),
    (lambda hl, x: hl.u8(x) + 1000, ["1000", "uint8"]),
    (lambda hl, x: hl.i8(x) * -200, ["-200", "int8"]),
], ids=["float&float", "float|int", "float^float", "select-int-cond", "select-float-cond", "select-u8-f32",
        "u8+1000", "i8*-200"])
def test_type_errors_halide_rejects(make, words):
    ref, msg = raises_both(_one_line_func(make))
    check(msg, *words, at=line_of(make))  # the line that built the Expr


@pytest.mark.parametrize("callee", ["func", "buffer"])
def test_float_coordinates(callee):
    def program(hl):
        x = hl.Var("x")
        if callee == "func":
            g = hl.Func("coord_g")
            g[x] = x
        else:
            g = hl.Buffer(IMG8, "coord_g")
        f = hl.Func("f")
        f[x] = g[x * 0.5] if callee == "func" else g[x * 0.5, 0]  # site:float-coord
        return f.realize([4])

    _, msg = raises_both(program)
    check(msg, "coord_g", "float32", at="float-coord")


def test_cast_to_something_that_is_not_a_type():
    def program(hl):
        return hl.cast("not_a_type", hl.Var("x"))

    _, msg = raises_both(program)
    check(msg, "not_a_type")


def test_expr_used_as_python_bool():
    def program(hl):
        x = hl.Var("x")
        if x < 3:  # site:expr-bool
            return 1
        return 2

    _, msg = raises_both(program)
    check(msg, at="expr-bool")


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
