"""The bad-input catalogue (issue 6): every mistake a user can make gets an `hl.HalideError` -- never a
segfault, a raw IndexError/KeyError/ValueError from our internals, an MLIR diagnostic at `loc(unknown)`,
a hang or a wrong result.

Each test checks that the message names what is wrong (the Func, the buffer or the schedule call) and,
where the mistake sits on one line of the user's program, that line as `test_errors_catalogue.py:<line>`.
The line is found by a `# site:<tag>` marker on it, so editing this file does not break the tests.
Where real Halide 21 also refuses the program the test runs it under both (oracle.raises_both).
"""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from oracle import image_f32, image_u8, ours, raises_both, run_both

THIS = os.path.basename(__file__)
_SOURCE = open(__file__).read().splitlines()


def site(tag: str) -> str:
    """`test_errors_catalogue.py:<n>` for the line carrying the marker `# site:<tag>`."""
    lines = [i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# site:{tag}")]
    assert len(lines) == 1, f"marker site:{tag} found {len(lines)} times"
    return f"{THIS}:{lines[0]}"


def check(msg: str, *words, at: str | None = None) -> None:
    """The message mentions every word, the user's line if `at` is given, and no internal noise."""
    for w in words:
        assert w in msg, f"{w!r} not in error message: {msg!r}"
    if at is not None:
        where = at if at.startswith(THIS) else site(at)
        assert where in msg, f"error does not point at the user's line {where}: {msg!r}"
    assert "loc(unknown)" not in msg, msg
    assert "Traceback" not in msg, msg


def line_of(fn) -> str:
    """`test_errors_catalogue.py:<n>` for the line a lambda is written on (where its calls are made)."""
    return f"{THIS}:{fn.__code__.co_firstlineno}"


def ours_raises(program):
    """Run `program(hl)` with ours only; it must raise HalideError. Returns the message."""
    hl = ours()
    try:
        result = program(hl)
    except hl.HalideError as e:
        return str(e)
    except Exception as e:  # an internal exception leaked
        raise AssertionError(f"ours raised {type(e).__module__}.{type(e).__name__} instead of HalideError: "
                             f"{e}") from e
    raise AssertionError(f"ours did not raise (returned {result!r:.200})")


IMG8 = image_u8(16, 12, seed=5)
IMGF = image_f32(16, 12, seed=6)


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
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.dirname(__file__)))!r})
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
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
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


# ---------------------------------------------------------------------------
# Inputs that were never given
# ---------------------------------------------------------------------------

def test_imageparam_used_without_set():
    def program(hl):
        ip = hl.ImageParam(hl.Float(32), 2, "never_set")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = ip[x, y]
        return f.realize([4, 4])

    _, msg = raises_both(program)
    check(msg, "never_set")


def test_param_used_without_value():
    def program(hl):
        p = hl.Param(hl.Float(32), "no_value")
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = p * x
        return f.realize([4])

    _, msg = raises_both(program)
    check(msg, "no_value")


# ---------------------------------------------------------------------------
# Illegal schedules
# ---------------------------------------------------------------------------

def _scheduled(schedule):
    def program(hl):
        x, y, z = hl.Var("x"), hl.Var("y"), hl.Var("z")
        xo, xi = hl.Var("xo"), hl.Var("xi")
        f = hl.Func("sched_f")
        f[x, y] = x + y
        schedule(f, x, y, z, xo, xi)
        return f.realize([16, 8])
    return program


@pytest.mark.parametrize("schedule,words", [
    (lambda f, x, y, z, xo, xi: f.split(z, xo, xi, 4), ["'z'", "split"]),
    (lambda f, x, y, z, xo, xi: f.vectorize(z, 8), ["'z'"]),
    (lambda f, x, y, z, xo, xi: f.vectorize(z), ["'z'", "vectorize"]),
    (lambda f, x, y, z, xo, xi: f.unroll(z, 2), ["'z'"]),
    (lambda f, x, y, z, xo, xi: f.parallel(z), ["'z'", "parallel"]),
    (lambda f, x, y, z, xo, xi: f.reorder(z, x), ["'z'", "reorder"]),
], ids=["split", "vectorize-factor", "vectorize", "unroll", "parallel", "reorder"])
def test_schedule_names_a_var_the_func_does_not_have(schedule, words):
    ref, msg = raises_both(_scheduled(schedule))
    assert "z" in ref
    check(msg, "sched_f", *words, at=line_of(schedule))


@pytest.mark.parametrize("schedule,factor", [
    (lambda f, x, y, z, xo, xi: f.split(x, xo, xi, 0), 0),
    (lambda f, x, y, z, xo, xi: f.split(x, xo, xi, -4), -4),
    (lambda f, x, y, z, xo, xi: f.vectorize(x, 0), 0),
    (lambda f, x, y, z, xo, xi: f.unroll(x, -2), -2),
    (lambda f, x, y, z, xo, xi: f.tile(x, y, xo, xi, 0, 4), 0),
], ids=["split-0", "split-neg", "vectorize-0", "unroll-neg", "tile-0"])
def test_non_positive_split_factor(schedule, factor):
    ref, msg = raises_both(_scheduled(schedule))
    assert "strictly positive" in ref
    check(msg, "sched_f", str(factor), at=line_of(schedule))


def test_reorder_naming_a_var_twice():
    schedule = lambda f, x, y, z, xo, xi: f.reorder(x, x)  # noqa: E731
    ref, msg = raises_both(_scheduled(schedule))
    assert "twice" in ref
    check(msg, "sched_f", "twice", at=line_of(schedule))


@pytest.mark.parametrize("schedule", [
    lambda f, x, y, z, xo, xi: f.split(x, y, xi, 4),
    lambda f, x, y, z, xo, xi: f.split(x, xi, xi, 4),
], ids=["outer-exists", "outer-equals-inner"])
def test_split_into_a_name_already_used(schedule):
    ref, msg = raises_both(_scheduled(schedule))
    check(msg, "sched_f", at=line_of(schedule))


def test_vectorize_of_a_non_innermost_loop():
    schedule = lambda f, x, y, z, xo, xi: f.vectorize(y)  # noqa: E731
    ref, msg = raises_both(_scheduled(schedule))
    check(msg, "sched_f", "'y'", at=line_of(schedule))


def _compute_at_program(which):
    def program(hl):
        x, y, z = hl.Var("x"), hl.Var("y"), hl.Var("z")
        g = hl.Func("prod")
        g[x, y] = x + y
        h = hl.Func("other")
        h[x, y] = x * y
        h.compute_root()
        f = hl.Func("cons")
        f[x, y] = g[x, y] + g[x + 1, y] + h[x, y]
        if which == "not-consumer":
            g.compute_at(h, y)  # site:compute-at
        else:
            g.compute_at(f, z)  # site:compute-at-loop
        return f.realize([8, 8])
    return program


def test_compute_at_a_func_that_is_not_a_consumer():
    ref, msg = raises_both(_compute_at_program("not-consumer"))
    assert "invalid location" in ref
    check(msg, "prod", "other", at="compute-at")


def test_compute_at_a_loop_the_consumer_does_not_have():
    ref, msg = raises_both(_compute_at_program("no-loop"))
    assert "invalid location" in ref
    check(msg, "prod", "cons", "z", at="compute-at-loop")


def test_compute_at_on_the_output_is_ignored_as_in_halide():
    def build(hl):
        x = hl.Var("x")
        g = hl.Func("g")
        g[x] = x
        f = hl.Func("f")
        f[x] = g[x] + 1
        h = hl.Func("h")
        h[x] = f[x]
        f.compute_at(h, x)
        return f

    run_both(build, [4])


# ---------------------------------------------------------------------------
# Allocations too large, MLIR failures
# ---------------------------------------------------------------------------

def test_compute_root_intermediate_too_large_is_refused_before_running():
    """A 2^40-byte compute_root intermediate: Halide's own wording, and no segfault."""
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("giant")
        g[x, y] = hl.f64(x + y)  # site:giant
        g.compute_root()
        f = hl.Func("f")
        f[x, y] = g[x, y] + g[x + (1 << 20), y + (1 << 17)]
        return f.realize([4, 4])

    ref, msg = raises_both(program)
    assert "exceeds the maximum size" in ref
    check(msg, "Total allocation for buffer giant is 1099549376640, which exceeds the maximum size of 2147483647",
          at="giant")


def test_intermediates_larger_than_memory_are_refused(monkeypatch):
    """Each buffer under Halide's 2 GB limit, but more than the machine has: an error, not an OOM kill."""
    from halide_mlir.analysis import bounds
    monkeypatch.setattr(bounds, "_available_memory", lambda: 1 << 30)  # pretend 1 GiB is free

    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        a = hl.Func("big_a")
        a[x, y] = hl.f32(x)  # site:big-a
        a.compute_root()
        b = hl.Func("big_b")
        b[x, y] = a[x, y] + 1
        b.compute_root()
        f = hl.Func("f")
        f[x, y] = b[x, y] + a[x, y]
        return f.realize([16384, 12288])  # 768 MiB each, 1.5 GiB together

    check(ours_raises(program), "bytes", "available", "big_a")


def test_mlir_failure_surfaces_as_halide_error_with_the_users_line(monkeypatch):
    """Whatever MLIR rejects reaches the user as HalideError carrying their source line. We make the
    transform interpreter fail by asking for vector sizes smaller than the op (no schedule a user can
    write reaches MLIR's failures today: analysis refuses them first)."""
    from halide_mlir import driver as realize_mod
    real = realize_mod.build_transform

    def broken(plan):
        return re.sub(r"vector_sizes \[[^\]]*\]", "vector_sizes [1]", real(plan))

    monkeypatch.setattr(realize_mod, "build_transform", broken)
    hl = ours()
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("mlir_fail")
    f[x, y] = x + y  # site:mlir
    f.vectorize(x, 8)
    with pytest.raises(hl.HalideError) as e:
        f.realize([16, 4])
    check(str(e.value), "schedule", at="mlir")
    assert "loc(" not in str(e.value), str(e.value)
