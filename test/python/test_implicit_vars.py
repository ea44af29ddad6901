"""Halide's implicit variables: ``hl._`` in calls and on the left of definitions, ``hl._0 .. hl._9``, the
dimensions a Func gets from them, and Halide's errors (real Halide 21 is the oracle)."""

import pytest

from oracle import image_f32, ours, raises_both, reference, run_both

IMG3 = image_f32(10, 8, c=3, seed=3)
IMG2 = image_f32(10, 8, seed=4)


def _g(hl):
    x, y = hl.Var("x"), hl.Var("y")
    g = hl.Func("g")
    g[x, y] = x + 10 * y
    return g, x, y


def test_placeholder_on_both_sides():
    def build(hl):
        g, x, y = _g(hl)
        f = hl.Func("f")
        f[hl._] = g[hl._] + 1
        assert f.dimensions() == 2 and [a.name() for a in f.args()] == ["_0", "_1"]
        return f

    run_both(build, [5, 4])


@pytest.mark.parametrize("form", ["x_", "_x", "xy_", "explicit", "const"])
def test_placeholder_positions(form):
    def build(hl):
        g, x, y = _g(hl)
        f = hl.Func("f")
        if form == "x_":
            f[x, hl._] = g[x, hl._] * 2
        elif form == "_x":
            f[hl._, x] = g[hl._, x] * 2
        elif form == "xy_":  # the placeholder stands for no Var
            f[x, y, hl._] = g[x, y, hl._] + 3
        elif form == "explicit":  # _0, _1 named directly; the placeholder on the left adds them
            f[hl._] = g[hl._0, hl._1] + g[hl._1, hl._0]
        else:
            f[hl._] = g[hl._0, 2] + g[1, hl._1]
        return f

    ref, got = run_both(build, [5, 4])
    f_ref, f_ours = [], []
    for hl, out in ((reference(), f_ref), (ours(), f_ours)):
        f = build(hl)
        out.extend([f.dimensions(), [a.name() for a in f.args()]])
    assert f_ref == f_ours


def test_downsample_over_any_dimensions():
    """local_laplacian's _downsample: one helper for 2-D and 3-D Funcs."""

    def downsample(hl, f, x, y):
        downx, downy = hl.Func("downx"), hl.Func("downy")
        downx[x, y, hl._] = (f[2 * x - 1, y, hl._] + 3.0 * (f[2 * x, y, hl._] + f[2 * x + 1, y, hl._])
                             + f[2 * x + 2, y, hl._]) / 8.0
        downy[x, y, hl._] = (downx[x, 2 * y - 1, hl._] + 3.0 * (downx[x, 2 * y, hl._] + downx[x, 2 * y + 1, hl._])
                             + downx[x, 2 * y + 2, hl._]) / 8.0
        return downy

    def build(hl):
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        a2 = hl.BoundaryConditions.repeat_edge(hl.Buffer(IMG2, "a2"))
        a3 = hl.BoundaryConditions.repeat_edge(hl.Buffer(IMG3, "a3"))
        d2 = downsample(hl, a2, x, y)
        d3 = downsample(hl, a3, x, y)
        assert d2.dimensions() == 2 and d3.dimensions() == 3
        out = hl.Func("out")
        out[x, y, c] = d2[x, y] + d3[x, y, c]
        return out

    run_both(build, [4, 3, 3])


def test_update_with_placeholder():
    def build(hl):
        g, x, y = _g(hl)
        u = hl.Func("u")
        u[x, hl._] = g[x, hl._]
        u[x, hl._] = u[x, hl._] + g[x, hl._]
        u[x, hl._] += 1
        return u

    run_both(build, [3, 2])


def test_in_place_update_defines_over_placeholder():
    def build(hl):
        g, x, y = _g(hl)
        s = hl.Func("s")
        s[x, hl._] += g[x, hl._]
        assert s.dimensions() == 2
        return s

    run_both(build, [3, 2])


def test_buffer_and_image_param_calls():
    def build(hl):
        b = hl.Buffer(IMG2, "b")
        im = hl.ImageParam(hl.Float(32), 2, "im")
        im.set(b)
        f = hl.Func("f")
        f[hl._] = b[hl._] + im[hl._] * 2
        assert f.dimensions() == 2
        return f

    run_both(build, [10, 8])


def test_zero_dimensional():
    def build(hl):
        p = hl.Func("p")
        p[hl._] = hl.f32(5)
        assert p.dimensions() == 0
        return p

    run_both(build, [])


def _errors():
    def rhs_without_placeholder(hl):
        g, x, y = _g(hl)
        hl.Func("q")[x] = g[hl._]

    def implicit_without_lhs(hl):
        g, x, y = _g(hl)
        hl.Func("r")[x, y] = hl.Expr(hl._0) + x

    def too_many(hl):
        g, x, y = _g(hl)
        return g[x, y, x]

    def too_few(hl):
        g, x, y = _g(hl)
        return g[x]

    def placeholder_too_many(hl):
        im = hl.ImageParam(hl.Int(32), 2, "im")
        x = hl.Var("x")
        return im[x, hl._, x, x]

    def buffer_count(hl):
        b = hl.Buffer(hl.Int(32), [3, 2], "bb")
        return b[hl.Var("x")]

    def update_uses_more(hl):
        g, x, y = _g(hl)
        f = hl.Func("f")
        f[x, y] = x
        f[x, y] = f[x, y] + hl.Expr(hl._0)

    return {
        "rhs_without_placeholder": (rhs_without_placeholder, "left-hand-side does not contain the placeholder"),
        "implicit_without_lhs": (implicit_without_lhs, "left-hand-side does not contain the placeholder"),
        "too_many": (too_many, 'was called with 3 arguments, but was defined with 2'),
        "too_few": (too_few, 'was called with 1 arguments, but was defined with 2'),
        "placeholder_too_many": (placeholder_too_many, "was called with 3 arguments, but was defined with 2"),
        "buffer_count": (buffer_count, "Dimensionality mismatch accessing Buffer bb. There were 1 arguments"),
        "update_uses_more": (update_uses_more, "Undefined variable \"_0\" in definition of Func"),
    }


@pytest.mark.parametrize("name", sorted(_errors()))
def test_errors(name):
    program, text = _errors()[name]
    ref_msg, msg = raises_both(program)
    assert text in ref_msg and text in msg, (ref_msg, msg)
    assert "test_implicit_vars.py:" in msg
