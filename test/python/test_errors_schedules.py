"""Errors in schedules: names a Func does not have, non-positive factors, illegal compute_at locations; and what
goes wrong after scheduling: allocations too large, MLIR failures.

Every mistake a user can make gets an `hl.HalideError` -- never a segfault, a raw IndexError/KeyError/ValueError
from our internals, an MLIR diagnostic at `loc(unknown)`, a hang or a wrong result. Where real Halide 21 also
refuses the program the test runs it under both (oracle.raises_both). The message names what is wrong (the Func,
the buffer or the schedule call) and, where the mistake sits on one line of the user's program, that line as
`<this file>.py:<line>`, found by a `# site:<tag>` marker on it (helpers.UserLines).
"""

import re

import pytest

from helpers import UserLines, ours_raises
from oracle import ours, raises_both, run_both

LINES = UserLines(__file__)
check, line_of = LINES.check, LINES.line_of


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
