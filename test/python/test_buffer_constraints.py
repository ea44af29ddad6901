"""Buffer constraints and dimensions as Exprs: ``dim(d).set_bounds/set_min/set_extent/set_stride/set_estimate``
and ``dim(d).min()/extent()/stride()/max()`` on ImageParams and on ``Func.output_buffer()``, Halide's run-time
checks of them, strides compiled in, ``bound()`` with Exprs of image sizes (real Halide 21 is the oracle)."""

import numpy as np
import pytest

from oracle import image_f32, ours, raises_both, reference

A3 = np.ones((3, 5, 6), np.float32)
A4 = image_f32(6, 5, c=4, seed=2)


def _fresh(hl, name):
    return hl.Func(name)  # (Halide's JIT keeps a Func's code across constraint changes: one Func per realize)


def test_input_bounds_violated_and_met():
    def program(hl, arr):
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        im = hl.ImageParam(hl.Float(32), 3, "im1")
        im.dim(2).set_bounds(0, 4)
        f = _fresh(hl, "f")
        f[x, y, c] = im[x, y, c] * 2 + hl.f32(im.channels())  # the constrained extent, read as an Expr
        im.set(hl.Buffer(arr))
        return np.asarray(f.realize([6, 5, 3]))

    _, msg = raises_both(lambda hl: program(hl, A3))
    assert "Constraint violated: im1.extent.2 (3) == 4 (4)" in msg
    np.testing.assert_array_equal(program(reference(), A4), program(ours(), A4))


@pytest.mark.parametrize("order", ["C", "F"])
def test_input_stride_constraint(order):
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        im = hl.ImageParam(hl.Float(32), 2, "im2")
        im.dim(0).set_stride(1)
        g = _fresh(hl, "g")
        g[x, y] = im[x, y] + 1
        im.set(hl.Buffer(np.ones((5, 6), np.float32, order=order)))
        return np.asarray(g.realize([6, 5]))

    if order == "F":
        _, msg = raises_both(program)
        assert "Constraint violated: im2.stride.0 (5) == 1 (1)" in msg
    else:
        np.testing.assert_array_equal(program(reference()), program(ours()))


def test_constraint_between_params():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        a, b = hl.ImageParam(hl.Float(32), 2, "a10"), hl.ImageParam(hl.Float(32), 2, "b10")
        b.dim(0).set_extent(a.dim(0).extent())
        r = _fresh(hl, "r")
        r[x, y] = a[x, y] + b[x, y]
        a.set(hl.Buffer(np.ones((5, 6), np.float32)))
        b.set(hl.Buffer(np.ones((5, 7), np.float32)))
        return r.realize([6, 5])

    _, msg = raises_both(program)
    assert "Constraint violated: b10.extent.0 (7) == a10.extent.0 (6)" in msg


@pytest.mark.parametrize("case", ["bounds_too_big", "min_moved", "stride", "bounds_smaller"])
def test_output_constraints_on_given_buffers(case):
    def program(hl, ok):
        x, y = hl.Var("x"), hl.Var("y")
        h = _fresh(hl, "h")
        h[x, y] = x + 10 * y
        d = h.output_buffer().dim(0 if case != "stride" else 1)
        extent = 6 if ok else {"bounds_too_big": 6, "min_moved": 6, "stride": 6, "bounds_smaller": 10}[case]
        if case in ("bounds_too_big", "bounds_smaller"):
            d.set_bounds(0, 8 if case == "bounds_too_big" else 3)
            extent = extent if not ok else (8 if case == "bounds_too_big" else 3)
        elif case == "min_moved":
            d.set_min(2)
        else:
            d.set_stride(8)
            extent = 8 if ok else 6
        buf = hl.Buffer(hl.Int(32), [extent, 5])
        if ok and case == "min_moved":
            buf.set_min([2, 0])
        h.realize(buf)
        return np.asarray(buf)

    _, msg = raises_both(lambda hl: program(hl, False))
    expected = {
        "bounds_too_big": "Output buffer h is accessed at 7, which is beyond the max (5) in dimension 0",
        "min_moved": "Output buffer h is accessed at 7, which is beyond the max (5) in dimension 0",
        "stride": "Constraint violated: h.stride.1 (6) == 8 (8)",
        "bounds_smaller": "Constraint violated: h.extent.0 (10) == 3 (3)",
    }[case]
    assert expected in msg
    np.testing.assert_array_equal(program(reference(), True), program(ours(), True))


def test_dims_as_exprs():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        im = hl.ImageParam(hl.Int(32), 2, "im5")
        k = _fresh(hl, "k")
        d0, d1 = im.dim(0), im.dim(1)
        k[x, y] = d0.min() + 10 * d0.extent() + 100 * d1.max() + 1000 * d1.stride() + 10000 * d0.stride()
        b = hl.Buffer(hl.Int(32), [4, 3])
        b.set_min([2, 1])
        im.set(b)
        return np.asarray(k.realize([2, 2]))

    np.testing.assert_array_equal(program(reference()), program(ours()))


@pytest.mark.parametrize("layout", ["C", "F", "transposed", "negative"])
def test_strides_compiled_in(layout):
    """callable.py's test_callable_buffer_conventions: the same code called with differently laid out inputs."""
    arrays = {
        "C": lambda: np.zeros((16, 12, 3), np.int32),
        "F": lambda: np.zeros((16, 12, 3), np.int32, order="F"),
        "transposed": lambda: np.transpose(np.zeros((16, 12, 3), np.int32), (1, 0, 2)),
        "negative": lambda: np.zeros((16, 12, 3), np.int32)[::-1, :, :],
    }
    hl = ours()
    im = hl.ImageParam(hl.Int(32), 3, "im")
    im.dim(0).set_stride(hl.Expr())  # no stride-1 requirement
    d = hl.Var("d")
    f = hl.Func("echo_strides")
    f[d] = hl.mux(d, [im.dim(0).stride(), im.dim(1).stride(), im.dim(2).stride()])
    c = f.compile_to_callable([im])
    for name in ("C", layout):  # a first layout compiled, then the one tested: not the first's code
        a = arrays[name]()
        out = hl.Buffer(hl.Int(32), [3])
        c(a, out)
        expected = [s // 4 for s in reversed(a.strides)]
        assert list(np.asarray(out)) == expected
        im.set(hl.Buffer(a))
        assert list(np.asarray(f.realize([3]))) == expected


def test_size_read_through_dims_only():
    """An ImageParam whose size is read but not its values: a new size compiles again."""
    hl = ours()
    x = hl.Var("x")
    im = hl.ImageParam(hl.Float(32), 2, "im")
    f = hl.Func("f")
    f[x] = im.width() + x
    for w in (5, 9):
        im.set(hl.Buffer(np.zeros((3, w), np.float32)))
        assert list(np.asarray(f.realize([2]))) == [w, w + 1]


def test_output_estimates_are_the_funcs():
    hl = ours()
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = x + y
    f.output_buffer().dim(0).set_estimate(0, 1536).dim(1).set_estimate(0, 2560)
    assert f._estimates == {"x": (0, 1536), "y": (0, 2560)}


def test_bound_with_image_size():
    """interpolate's output.bound(x, 0, input.width()): an Expr of image sizes, evaluated per compile."""
    def program(hl, w):
        x, y = hl.Var("x"), hl.Var("y")
        im = hl.ImageParam(hl.Float(32), 2, "im")
        f = _fresh(hl, "fb")
        f[x, y] = im[x, y] * 2
        f.bound(x, 0, im.width()).bound(y, 0, im.height())
        im.set(hl.Buffer(image_f32(w, 4, seed=w)))
        return np.asarray(f.realize([w, 4]))

    for w in (8, 12):
        np.testing.assert_array_equal(program(reference(), w), program(ours(), w))
    _, msg = raises_both(lambda hl: program(hl, 8) if False else _bound_too_small(hl))
    assert "do not cover required region" in msg


def _bound_too_small(hl):
    x = hl.Var("x")
    im = hl.ImageParam(hl.Float(32), 1, "im")
    f = hl.Func("fs")
    f[x] = im[x]
    f.bound(x, 0, im.width() - 2)
    im.set(hl.Buffer(np.zeros(8, np.float32)))
    g = hl.Func("gs")
    g[x] = f[x]
    f.compute_root()
    return g.realize([8])


def test_output_dims_read_by_the_algorithm():
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = x
        ob = f.output_buffer()
        f[x] = f[x] + 10 * ob.dim(0).extent() + 100 * ob.dim(0).min() + 1000 * ob.dim(0).max()
        b = hl.Buffer(hl.Int(32), [4])
        b.set_min([2])
        f.realize(b)
        return [list(np.asarray(b)), list(np.asarray(f.realize([3])))]

    assert program(reference()) == program(ours())


def test_callable_checks_output_constraints_each_call():
    hl = ours()
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = x + 10 * y
    f.output_buffer().dim(0).set_stride(1)
    c = f.compile_to_callable([])
    for _ in range(2):  # (a second call would take the fast path)
        dense = np.zeros((5, 8), np.int32)
        c(dense)
        assert dense[4, 7] == 47
    strided = np.zeros((8, 5), np.int32).T  # the same shape, dimension 0 not dense
    with pytest.raises(hl.HalideError, match=r"Constraint violated: f\.stride\.0 \(5\) == 1 \(1\)"):
        c(strided)


def test_access_error_before_constraint_error():
    """Halide checks that the inputs cover the reads before it checks their constraints."""
    def program(hl):
        x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
        im = hl.ImageParam(hl.Float(32), 3, "im1")
        im.dim(2).set_bounds(0, 4)
        f = _fresh(hl, "f")
        f[x, y, c] = im[x, y, c] * 2
        b = hl.Buffer(A4)
        b.set_min([0, 0, 1])
        im.set(b)
        return f.realize([6, 5, 3])

    _, msg = raises_both(program)
    assert "im1 is accessed at 0, which is before the min (1) in dimension 2" in msg
