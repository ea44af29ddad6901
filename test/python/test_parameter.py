"""hl.Parameter (Halide's low-level parameter under a Param or an ImageParam, or a new one) against Halide 21:
its values, ranges, estimates, buffers and constraints are the Param's, and its errors are Halide's type."""

import importlib

import numpy as np
import pytest

BOTH = pytest.mark.parametrize("mod", ["halide", "halide_mlir"])


def val(m, e):
    return None if not e.defined() else m.evaluate(e)


@BOTH
def test_new_parameters(mod):
    m = importlib.import_module(mod)
    p = m.Parameter(m.Int(32), False, 0)
    assert (p.type(), p.dimensions(), p.is_buffer(), p.defined()) == (m.Int(32), 0, False, True)
    q = m.Parameter(m.Float(32), False, 0, "q")
    assert q.name() == "q" and repr(q) == "<halide.Parameter 'q' type float32>"
    q.set_scalar(2.5)
    assert val(m, q.scalar_expr()) == 2.5
    b = m.Parameter(m.UInt(16), True, 3, "bp")
    assert (b.is_buffer(), b.dimensions(), b.name()) == (True, 3, "bp")
    assert not m.Parameter().defined()
    assert m.Parameter(q).same_as(q) and not q.same_as(p)


@BOTH
def test_param_parameter_is_the_param(mod):
    m = importlib.import_module(mod)
    k = m.Param(m.UInt(8), "k", 7)
    kp = k.parameter()
    assert kp.same_as(k.parameter()) and val(m, kp.scalar_expr()) == 7
    x = m.Var("x")
    f = m.Func("f")
    f[x] = m.i32(x) + k
    kp.set_scalar(9)  # (a uint8 value: Halide's binding picks the uint8 overload)
    assert list(np.asarray(f.realize([2]))) == [9, 10]
    for getter in ("min_value", "max_value", "estimate", "default_value"):
        assert not getattr(kp, getter)().defined()
    kp.set_min_value(m.u8(1))
    kp.set_max_value(m.u8(20))
    kp.set_estimate(m.u8(5))
    kp.set_default_value(m.u8(3))
    got = [val(m, getattr(kp, g)()) for g in ("min_value", "max_value", "estimate", "default_value")]
    assert got == [1, 20, 5, 3] and val(m, k.min_value()) == 1
    ae = kp.get_argument_estimates()
    assert [val(m, e) for e in (ae.scalar_min, ae.scalar_max, ae.scalar_estimate, ae.scalar_def)] == [1, 20, 5, 3]
    assert len(ae.buffer_estimates) == 0


@BOTH
def test_image_param_parameter(mod):
    m = importlib.import_module(mod)
    im = m.ImageParam(m.UInt(8), 2, "im")
    ip = im.parameter()
    assert (ip.is_buffer(), ip.dimensions(), ip.host_alignment()) == (True, 2, 1)
    assert ip.memory_type() == m.MemoryType.Auto and not ip.buffer().defined()
    cons = [ip.min_constraint(0), ip.extent_constraint(1), ip.stride_constraint(0), ip.stride_constraint(1)]
    assert [val(m, e) for e in cons] == [None, None, 1, None]
    assert not ip.min_constraint_estimate(0).defined() and not ip.extent_constraint_estimate(0).defined()
    ip.set_min_constraint(0, m.Expr(0))
    ip.set_extent_constraint(1, m.Expr(5))
    ip.set_min_constraint_estimate(0, m.Expr(0))
    ip.set_extent_constraint_estimate(0, m.Expr(64))
    assert [val(m, ip.min_constraint(0)), val(m, ip.extent_constraint(1))] == [0, 5]
    assert val(m, ip.extent_constraint_estimate(0)) == 64
    assert len(ip.get_argument_estimates().buffer_estimates) == 2
    data = np.arange(20, dtype=np.uint8).reshape(5, 4)
    ip.set_buffer(m.Buffer(data))
    assert (ip.buffer().dimensions(), ip.buffer().width()) == (2, 4)
    x, y = m.Var("x"), m.Var("y")
    g = m.Func("g")
    g[x, y] = m.i32(im[x, y]) * 2
    np.testing.assert_array_equal(np.asarray(g.realize([4, 5])), data.astype(np.int32) * 2)
    ip.set_host_alignment(32)
    assert ip.host_alignment() == 32 and im.host_alignment() == 32
    ip.store_in(m.MemoryType.Heap)
    assert ip.memory_type() == m.MemoryType.Heap


@BOTH
def test_wrong_kind_refused(mod):
    m = importlib.import_module(mod)
    kp = m.Param(m.Int(16), "k", 1).parameter()
    ip = m.ImageParam(m.UInt(8), 2, "im").parameter()
    for bad in (kp.buffer, lambda: kp.min_constraint(0), ip.scalar_expr, lambda: ip.min_constraint(5),
                lambda: m.Param(m.Int(32), "z").parameter().scalar_expr(), lambda: kp.set_scalar(1.5),
                lambda: m.Parameter().name()):
        with pytest.raises(m.HalideError):
            bad()
