"""Issue 15, third part: Halide's texts where its tests match them, output buffers and dimension constraints,
infer_input_bounds, Pipeline.add_requirement/get_func, ``**``, unevaluated FuncRefs. Each checked against real
Halide 21 where it runs."""
import re

import halide
import pytest

import halide_mlir as hl

BOTH = pytest.mark.parametrize("m", [halide, hl], ids=["halide", "halide_mlir"])


def _raises(m, exc, pattern, fn):
    with pytest.raises(exc) as e:
        fn()
    assert re.search(pattern, str(e.value)), str(e.value)


@BOTH
def test_output_buffer_type_message(m):
    x = m.Var("x")
    f = m.Func("f")
    f[x] = m.u16(x)
    _raises(m, m.HalideError, r"Error: Output buffer f(\$\d+)? has type uint16 but type of the buffer passed in is "
            r"uint8", lambda: f.realize(m.Buffer(m.UInt(8), [2])))


@BOTH
def test_func_names_are_unique(m):
    a, b = m.Func("twice_named"), m.Func("twice_named")
    assert a.name() == "twice_named" and re.fullmatch(r"twice_named\$\d+", b.name())


@BOTH
def test_typed_func_messages(m):
    x, y = m.Var("x"), m.Var("y")
    _raises(m, m.HalideError, "because it is undefined", lambda: m.Func("u").type())
    _raises(m, m.HalideError, "because it is undefined", lambda: m.Func("u").dimensions())
    _raises(m, m.HalideError, "it returns a Tuple", lambda: m.Func([m.Int(32), m.Float(64)], 3, "t").type())
    assert m.Func([m.Int(32), m.Float(64)], 3, "t").outputs() == 2
    f = m.Func(m.Int(32), 1, "c1")

    def define():
        f[x, y] = m.i32(0)
    _raises(m, m.HalideError, "is constrained to have exactly 1 dimensions, but is defined with 2 dimensions",
            define)
    g = m.Func(m.Int(32), 2, "c2")

    def define2():
        g[x, y] = m.i16(0)
    _raises(m, m.HalideError, "is constrained to only hold values of type int32 but is defined with values of type "
            "int16", define2)


@BOTH
def test_float_coordinate_refused_at_the_call(m):
    x = m.Var("x")
    f = m.Func("c")
    f[x] = x
    _raises(m, m.HalideError, "Implicit cast from float32 to int in argument 1", lambda: f[x * 8 - 4.0])


@BOTH
def test_requirements(m):
    delta = m.Param(m.Int(32), "delta")
    x = m.Var("x")
    f = m.Func("f_req")
    f[x] = x + delta
    p = m.Pipeline([f])
    p.add_requirement(delta != 0)
    p.add_requirement(delta > 0, "negative values are bad", delta)
    delta.set(1)
    assert list(p.realize([3])) == [1, 2, 3]
    delta.set(-1)
    _raises(m, m.HalideError, r"Requirement Failed: \(false\) negative values are bad -1", lambda: p.realize([3]))


@BOTH
def test_get_func_order(m):
    x = m.Var("x")
    a, b, c, d, e = (m.Func(n) for n in ("ga", "gb", "gc", "gd", "ge"))
    a[x] = x
    b[x] = a[x] + 1
    c[x] = a[x] * 2
    d[x] = b[x] + c[x]
    e[x] = c[x] + b[x]
    p = m.Pipeline([e, d])
    assert [p.get_func(i).name() for i in range(5)] == ["ga", "gb", "gc", "ge", "gd"]


@BOTH
def test_pow_operator(m):
    x = m.Var("x")
    assert (x ** 2).type() == m.Int(32)
    assert (2 ** x).type() == m.Float(32)
    assert (m.i16(x) ** m.u8(2)).type() == m.Float(32)
    f = m.Func("pw")
    f[x] = m.f32(x) ** 2 + 2 ** m.f32(x)
    assert list(f.realize([3])) == [1.0, 3.0, 8.0]


@BOTH
def test_unevaluated_funcref(m):
    x = m.Var("x")
    f = m.Func("uf")
    ref = f[x]
    ref += 1
    with pytest.raises(TypeError, match="_UnevaluatedFuncRefExpr"):
        ref += 1
    f[x] = ref
    _raises(m, m.HalideError, "when a pure definition already exists", lambda: f.__setitem__(x, ref))
    assert f.realize([1])[0] == 1
    g = m.Func("uf")
    _raises(m, m.HalideError, r"unevaluated reference to 'uf' to define an update at a different location",
            lambda: g.__setitem__(x, ref))
    h = m.Func("uh")
    _raises(m, m.HalideError, r"Can't call Func \"uh(\$\d+)?\" because it has not yet been defined",
            lambda: 1 + h[x])
    k = m.Func("uk")
    k[x] = 2
    k[x] += 5                      # a defined Func: an ordinary update
    assert list(k.realize([2])) == [7, 7]


@BOTH
def test_reprs(m):
    assert repr(m.OutputImageParam()) == "<halide.OutputImageParam OutputImageParam()>"
    assert repr(m.ImageParam()) == "<halide.ImageParam ImageParam()>"
    assert repr(m.ImageParam(m.UInt(16), 2, "input")) == "<halide.ImageParam 'input', dims: 2, type: uint16>"
    assert repr(m.RDom()) == "<halide.RDom RDom()>"
    assert repr(m.Pipeline()) == "<halide.Pipeline Pipeline()>"
    assert list(m.StmtOutputFormat.__members__)[:2] == ["Text", "HTML"]


@BOTH
def test_output_buffer(m):
    x = m.Var("x")
    f = m.Func("ob")
    f[x] = x
    o = f.output_buffer()
    assert isinstance(o, m.OutputImageParam) and o.dimensions() == 1 and o.type() == m.Int(32)
    assert repr(o).startswith("<halide.OutputImageParam 'ob")
    assert len(f.output_buffers()) == 1


@BOTH
def test_multipass_constraints(m):
    """Halide's multipass_constraints.py: constraints that need several bounds queries to settle."""
    inp = m.ImageParam(m.Float(32), 2, "input")
    f = m.Func("f")
    x, y = m.Var("x"), m.Var("y")
    f[x, y] = inp[x + 1, y + 1] + inp[x - 1, y - 1]
    f[x, y] += 3.0
    f.update().vectorize(x, 4)
    o = f.output_buffer()
    inp.dim(0).set_bounds(min=inp.dim(1).min() - 5, extent=inp.dim(1).extent() + o.dim(0).extent())
    o.dim(0).set_bounds(min=0, extent=m.select(o.dim(0).extent() < 22, o.dim(0).extent() + 1, o.dim(0).extent()))
    q = m.Buffer.make_bounds_query(type=m.Float(32), sizes=[7, 8])
    q.set_min([2, 2])
    f.infer_input_bounds(q)
    got = [inp.get().dim(0).min(), inp.get().dim(0).extent(), inp.get().dim(1).min(), inp.get().dim(1).extent(),
           q.dim(0).min(), q.dim(0).extent(), q.dim(1).min(), q.dim(1).extent()]
    assert got == [-4, 34, 1, 10, 0, 24, 2, 8]


@BOTH
def test_infer_input_bounds_sizes(m):
    inp = m.ImageParam(m.UInt(8), 2, "in_sizes")
    x, y = m.Var("x"), m.Var("y")
    f = m.Func("ib")
    f[x, y] = inp[x, y] + inp[x + 2, y + 1]
    f.infer_input_bounds([10, 5])
    b = inp.get()
    assert [b.dim(0).min(), b.dim(0).extent(), b.dim(1).min(), b.dim(1).extent()] == [0, 12, 0, 6]


@BOTH
def test_input_constraint_violated(m):
    x, y = m.Var("x"), m.Var("y")
    im = m.ImageParam(m.UInt(8), 2, "im")
    f = m.Func("cv")
    f[x, y] = im[x, y]
    im.dim(0).set_stride(1)
    im.dim(1).set_extent(4)
    assert str(im.dim(0).stride()) in ("im.stride.0", "<halide.Expr of type int32: im.stride.0>")
    im.set(m.Buffer(m.UInt(8), [8, 5]))
    _raises(m, m.HalideError, r"Error: Constraint violated: im\.extent\.1 \(5\) == 4 \(4\)", lambda: f.realize([2, 2]))
    im.set(m.Buffer(m.UInt(8), [8, 4]))
    assert f.realize([2, 2]).dim(0).extent() == 2
