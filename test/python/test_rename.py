"""Func.rename / Stage.rename (a loop of the stage named anew; later directives and compute_at use the new name),
against Halide 21: the values, print_loop_nest's text, and the old name refused."""

import importlib

import numpy as np
import pytest

BOTH = pytest.mark.parametrize("mod", ["halide", "halide_mlir"])


def loop_nest(f, capfd) -> str:
    capfd.readouterr()
    f.print_loop_nest()
    return capfd.readouterr().err  # (both print the loop nest on stderr)


@BOTH
def test_rename_then_split_and_vectorize(mod, capfd):
    m = importlib.import_module(mod)
    x, y, xx, xo, xi = (m.Var(n) for n in ("x", "y", "xx", "xo", "xi"))
    f = m.Func("f")
    f[x, y] = x + 10 * y
    assert f.rename(x, xx) is not None
    f.split(xx, xo, xi, 4).vectorize(xi)
    out = loop_nest(f, capfd)
    assert "for x.xx.xo:" in out and "vectorized x.xx.xi in [0, 3]:" in out
    np.testing.assert_array_equal(np.asarray(f.realize([8, 2])), [[c + 10 * r for c in range(8)] for r in range(2)])


@BOTH
def test_update_rename_and_chained_renames(mod, capfd):
    m = importlib.import_module(mod)
    x, y, r, xx, xo = (m.Var(n) for n in ("x", "y", "r", "xx", "xo"))
    g = m.Func("g")
    g[x] = x
    g[x] += 1
    g.update(0).rename(x, r).parallel(r)
    assert "parallel x.r:" in loop_nest(g, capfd)
    np.testing.assert_array_equal(np.asarray(g.realize([5])), np.arange(5) + 1)
    h = m.Func("h")
    h[x, y] = x + y
    h.rename(x, xx).rename(xx, xo).reorder(y, xo)
    text = loop_nest(h, capfd)
    assert text.index("for x.xx.xo:") < text.index("for y:")
    np.testing.assert_array_equal(np.asarray(h.realize([3, 2])), [[0, 1, 2], [1, 2, 3]])


@BOTH
def test_compute_at_a_renamed_loop(mod):
    m = importlib.import_module(mod)
    x, hx = m.Var("x"), m.Var("hx")
    g = m.Func("g")
    g[x] = x * 3
    h = m.Func("h")
    h[x] = g[x] + g[x + 1]
    h.rename(x, hx)
    g.compute_at(h, hx)
    np.testing.assert_array_equal(np.asarray(h.realize([5])), [3 * i + 3 * (i + 1) for i in range(5)])


@BOTH
def test_old_name_and_missing_name_refused(mod):
    m = importlib.import_module(mod)
    x, y, xx = m.Var("x"), m.Var("y"), m.Var("xx")
    f = m.Func("f")
    f[x, y] = x + y
    f.rename(x, xx)
    with pytest.raises(m.HalideError):
        f.vectorize(x, 4)
        f.realize([4, 4])
    g = m.Func("g")
    g[x] = x
    with pytest.raises(m.HalideError, match="nope"):
        g.rename(m.Var("nope"), m.Var("q"))
        g.realize([4])
