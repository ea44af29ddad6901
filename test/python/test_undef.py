"""hl.undef: update definitions that leave a value (or a Tuple element) unchanged, against Halide 21."""

import pytest

from oracle import image_i32, run_both

IMG = image_i32(16, 12, seed=3, lo=-50, hi=50)


def tuple_updates(hl):
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = (x, x * 2)
    f[x] = (f[x][0] + 10, hl.undef(hl.Int(32)))
    f[x] = (hl.undef(hl.Int(32)), f[x][1] * 3)
    return f


def whole_value(hl):
    x = hl.Var("x")
    g = hl.Func("g")
    g[x] = x
    g[x] = hl.undef(hl.Int(32))  # Halide skips the store: g keeps its pure values
    return g


def depends_on_undef(hl):
    x = hl.Var("x")
    k = hl.Func("k")
    k[x] = x * 7
    k[x] = hl.undef(hl.Int(32)) + 1  # a value that depends on undef is skipped too
    return k


def reduction_with_undef(hl):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(IMG, "inp")
    r = hl.RDom([(0, 15)])
    h = hl.Func("h")
    h[x, y] = (inp[x, y], hl.f32(inp[x, y]) * 0.5)
    h[r.x, y] = (h[r.x, y][0] + h[r.x + 1, y][0], hl.undef(hl.Float(32)))  # a scan of element 0 only
    h.update(0).parallel(y)
    return h


@pytest.mark.parametrize("build", [tuple_updates, whole_value, depends_on_undef])
def test_undef_1d(build):
    run_both(build, [9])


def test_undef_in_a_scan():
    run_both(reduction_with_undef, [16, 12])


def test_undef_type_checked():
    import halide_mlir as hl

    with pytest.raises(hl.HalideError, match="Type"):
        hl.undef(3)
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = (x, x)
    with pytest.raises(hl.HalideError, match="type"):
        f[x] = (f[x][0], hl.undef(hl.Float(32)))  # element 1 is Int(32)


def test_undef_in_a_pure_definition_is_some_value():
    import halide_mlir as hl

    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = (hl.undef(hl.Int(32)), x + 1)  # Halide leaves element 0 undefined; only element 1 is compared
    out = f.realize([4])
    assert list(out[1]) == [1, 2, 3, 4]
