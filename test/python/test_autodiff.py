"""hl.propagate_adjoints / hl.Derivative against real Halide 21's and against central finite differences.

Each pipeline is built twice by the same function, once with halide_mlir and once with real Halide; the adjoint
Funcs both build are realized over the same regions and compared. Sizes are odd on purpose."""

import numpy as np
import pytest

import halide
import halide_mlir as hl

RNG = np.random.default_rng(7)
IN1 = RNG.uniform(0.1, 1.0, 11).astype(np.float32)
IN2 = RNG.uniform(0.1, 1.0, (7, 9)).astype(np.float32)  # numpy (rows, cols): Halide (x = 9, y = 7)
W2 = RNG.uniform(-1.0, 1.0, (3, 3)).astype(np.float32)


def _arr(b):
    return np.asarray(b)


def _zero(m, inp):
    """A 0 of the pipeline's float type (the finite differences run float64 pipelines)."""
    return m.cast(m.Float(64 if inp.dtype == np.float64 else 32), 0.0)


def _blur_1d(m, inp):
    x = m.Var("x")
    b = m.Buffer(inp)
    c = m.BoundaryConditions.repeat_edge(b)
    blur = m.Func("blur")
    blur[x] = (c[x - 1] + c[x] + c[x + 1]) / 3.0
    r = m.RDom([(0, inp.shape[0])])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += blur[r.x] * blur[r.x]
    return loss, {"b": b, "blur": blur}, {"b": [inp.shape[0]], "blur": [inp.shape[0]]}


def _stencil_2d(m, inp, w):
    x, y = m.Var("x"), m.Var("y")
    b, wb = m.Buffer(inp), m.Buffer(w)
    conv = m.Func("conv")
    r = m.RDom([(0, 3), (0, 3)])
    conv[x, y] = _zero(m, inp)
    conv[x, y] += wb[r.x, r.y] * b[x + r.x, y + r.y]
    h, wd = inp.shape[0] - 2, inp.shape[1] - 2
    s = m.RDom([(0, wd), (0, h)])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += conv[s.x, s.y] * conv[s.x, s.y]
    return loss, {"b": b, "w": wb, "conv": conv}, {"b": [inp.shape[1], inp.shape[0]], "w": [3, 3],
                                                   "conv": [wd, h]}


def _pointwise(m, inp):
    x = m.Var("x")
    b = m.Buffer(inp)
    a = m.Func("a")
    a[x] = b[x] * 1.5
    f = m.Func("f")
    v = a[x]
    f[x] = (m.exp(v) * m.log(v + 2.0) + m.pow(v + 1.5, v) + m.select(v > 0.75, m.sin(v), m.cos(v))
            + m.min(v, 0.875) * m.max(v, 0.375) + m.tanh(v) + m.sqrt(v) / (v + 1.0) + m.abs(v - 0.625)
            + m.clamp(v * 2.0, 0.5, 1.5) + m.atan2(v, 1.0 - v))
    r = m.RDom([(0, inp.shape[0])])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += f[r.x]
    return loss, {"b": b, "a": a}, {"b": [inp.shape[0]], "a": [inp.shape[0]]}


def _params(m, inp):
    x = m.Var("x")
    ip = m.ImageParam(m.Float(32), 1, "ip")
    p = m.Param(m.Float(32), "p", 2.0)
    f = m.Func("f")
    f[x] = ip[x + 1] * p + ip[x] * ip[x]
    r = m.RDom([(0, inp.shape[0] - 1)])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += f[r.x] * f[r.x]
    ip.set(m.Buffer(inp))
    return loss, {"ip": m.Func(ip), "p": p, "f": f}, {"ip": [inp.shape[0]], "p": [], "f": [inp.shape[0] - 1]}


def _rdom_loss(m, inp):
    x, y = m.Var("x"), m.Var("y")
    b = m.Buffer(inp)
    # a fixed target (real Halide's Buffer does not keep its array alive: the dict returned keeps it)
    keep = (np.arange(inp.size).reshape(inp.shape) % 5 * 0.25).astype(inp.dtype)
    target = m.Buffer(keep)
    p = m.Param(m.Float(32), "p", 0.75)
    f = m.Func("f")
    f[x, y] = b[x, y] * p + b[x + 1, y] - b[x, y + 1] * 0.5
    r = m.RDom([(0, inp.shape[1] - 1), (0, inp.shape[0] - 1)])
    diff = f[r.x, r.y] - target[r.x, r.y]
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += diff * diff
    return loss, {"b": b, "f": f, "p": p, "keep": keep}, {"b": [inp.shape[1], inp.shape[0]], "f": [inp.shape[1] - 1,
                                                                                   inp.shape[0] - 1], "p": []}


def _gathers(m, inp):
    """Downsampling and upsampling reads (scatters), a Func read at an offset (gather) and an update that
    overwrites a point."""
    x = m.Var("x")
    b = m.Buffer(inp)
    f = m.Func("f")
    f[x] = b[x] * b[x]
    f[3] = _zero(m, inp) + 2.0
    down = m.Func("down")
    down[x] = f[2 * x + 1] + f[2 * x]
    up = m.Func("up")
    up[x] = down[x // 2] * 0.5 + f[x + 2]
    r = m.RDom([(0, 4)])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += up[r.x] * up[r.x + 1]
    return loss, {"b": b, "f": f, "down": down}, {"b": [11], "f": [11], "down": [4]}


def _more_math(m, inp):
    x = m.Var("x")
    b = m.Buffer(inp)
    g = m.Func("g")
    v = b[x]
    g[x] = (m.lerp(v, b[x + 1], v * 0.5) + m.floor(v * 4.0) * v + m.cast(m.Float(32), m.cast(m.Int(32), v * 9.0))
            + m.asin(v * 0.5) + m.acos(v * 0.5) + m.atan(v) + m.sinh(v) + m.cosh(v) + m.tan(v)
            + (v * 7.0) % (b[x + 1] + 0.5))
    r = m.RDom([(0, 9)])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += g[r.x]
    return loss, {"b": b}, {"b": [inp.shape[0]]}


def _unused_rvar(m, inp):
    """An RDom dimension the summand does not read still repeats it: the adjoint counts each iteration (real
    Halide 21 iterates only the RVars the adjoint reads and gives a third of this gradient)."""
    x = m.Var("x")
    b = m.Buffer(inp)
    g = m.Func("g")
    g[x] = b[x] * b[x]
    r = m.RDom([(0, 4), (0, 3)])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += g[r.x]
    return loss, {"b": b, "g": g}, {"b": [inp.shape[0]], "g": [4]}


def _predicate_on_pure_var(m, inp):
    """An update whose RDom predicate reads the pure Var (real Halide 21 fails to build this adjoint)."""
    x = m.Var("x")
    b = m.Buffer(inp)
    g = m.Func("g")
    g[x] = _zero(m, inp)
    r = m.RDom([(0, 5)])
    r.where(r.x < x)
    g[x] += b[r.x] * b[x + 1]
    s = m.RDom([(0, 6)])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += g[s.x] * g[s.x]
    return loss, {"b": b, "g": g}, {"b": [inp.shape[0]], "g": [6]}


def _scan(m, inp, kind):
    """Scans over an RDom that read f where an earlier iteration wrote it: their adjoint runs backwards (real
    Halide 21 gets the first two wrong)."""
    x, y = m.Var("x"), m.Var("y")
    b = m.Buffer(inp)
    f = m.Func("f")
    if kind == "iir_2d":  # along y, for each x
        f[x, y] = b[x, y]
        r = m.RDom([(1, inp.shape[0] - 1)])
        f[x, r.x] = f[x, r.x - 1] * 0.5 + b[x, r.x]
        s = m.RDom([(0, inp.shape[1]), (0, inp.shape[0])])
        loss = m.Func("loss")
        loss[()] = _zero(m, inp)
        loss[()] += f[s.x, s.y] * m.cast(b.type(), s.x + s.y + 1)
        return loss, {"b": b}, {"b": [inp.shape[1], inp.shape[0]]}
    n = inp.shape[0]
    f[x] = b[x]
    r = m.RDom([(2, n - 2)])
    if kind == "cumsum":
        f[r.x] = f[r.x - 1] + b[r.x] * 2.0
    elif kind == "nonlinear":
        f[r.x] = f[r.x - 1] * f[r.x - 1] * 0.5 + b[r.x] * f[r.x - 1]
    elif kind == "second_order":  # two offsets (an order-2 IIR filter, made nonlinear)
        f[r.x] = f[r.x - 1] * 0.5 + f[r.x - 2] * f[r.x - 1] * 0.25 + b[r.x]
    elif kind == "predicate":  # a where() predicate skips iterations
        r.where(r.x % 3 != 1)
        f[r.x] = f[r.x - 2] * b[r.x] + b[r.x - 1]
    s = m.RDom([(0, n)])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += f[s.x] * m.cast(b.type(), s.x + 1)
    return loss, {"b": b}, {"b": [n]}


def _tuples(m, inp, mix=True):
    """Tuple-valued Funcs: a pure definition, an update mixing its elements (real Halide 21 drops the adjoint
    element 0's new value passes to element 1's old one: compared with finite differences only), a reduction
    of a Tuple."""
    x = m.Var("x")
    b = m.Buffer(inp)
    f = m.Func("f")
    f[x] = (b[x] * 2.0, m.sin(b[x + 1]))
    if mix:
        f[x] = (f[x][0] + f[x][1] * 0.5, f[x][1] * 3.0)
    g = m.Func("g")
    g[x] = (_zero(m, inp), _zero(m, inp) + 1.0)
    r = m.RDom([(0, 5)])
    g[x] = (g[x][0] + b[x + r.x], g[x][1] + b[x] * b[r.x])
    s = m.RDom([(0, 6)])
    loss = m.Func("loss")
    loss[()] = _zero(m, inp)
    loss[()] += f[s.x][0] * f[s.x][1] + g[s.x][0] * g[s.x][1]
    return loss, {"b": b}, {"b": [inp.shape[0]]}


# More shapes of definitions, compared with real Halide the same way: a histogram-like scatter update, updates
# scaling f by itself (self-adjoints 2, 1 and 3) and overwriting one point, mirror/constant boundary conditions read
# at offsets, a Func read by several consumers (through a float64 cast), the one-argument form of a 2-D output
# (Halide's adjoint at the point (0, 0)), an RDom with a where() predicate, an inline hl.sum, downsampling and
# upsampling reads.
A = RNG.uniform(0.1, 1.0, 13).astype(np.float32)
A2 = RNG.uniform(0.1, 1.0, (5, 7)).astype(np.float32)
IDX = RNG.integers(0, 6, 9).astype(np.uint8)


def p_hist(m):
    x = m.Var("x")
    b = m.Buffer(A)
    ib = m.Buffer(IDX)
    f = m.Func("f")
    f[x] = b[x] * 0.5
    r = m.RDom([(0, 9)])
    f[m.clamp(m.cast(m.Int(32), ib[r.x]), 0, 7)] += b[r.x] * b[r.x + 1]
    l = m.Func("l")
    s = m.RDom([(0, 8)])
    l[()] = 0.0
    l[()] += f[s.x] * f[s.x]
    return l, {"b": b, "f": f, "ib": ib}, {"b": [13], "f": [8]}


def p_selfscale(m):
    x = m.Var("x")
    b = m.Buffer(A)
    f = m.Func("f")
    f[x] = b[x]
    f[x] = 2.0 * f[x] + b[x + 1]
    f[x] += 1.0
    f[2] = f[2] * 3.0
    l = m.Func("l")
    s = m.RDom([(0, 8)])
    l[()] = 0.0
    l[()] += f[s.x] * f[s.x]
    return l, {"b": b, "f": f}, {"b": [13], "f": [8]}


def p_bc(m):
    x, y = m.Var("x"), m.Var("y")
    b = m.Buffer(A2)
    c = m.BoundaryConditions.mirror_image(b)
    e = m.BoundaryConditions.constant_exterior(b, 0.25)
    g = m.Func("g")
    g[x, y] = c[x - 2, y + 1] * e[x + 1, y - 1] + c[x + 3, y]
    l = m.Func("l")
    s = m.RDom([(0, 7), (0, 5)])
    l[()] = 0.0
    l[()] += g[s.x, s.y]
    return l, {"b": b, "g": g}, {"b": [7, 5], "g": [7, 5]}


def p_multi(m):
    x = m.Var("x")
    b = m.Buffer(A)
    f = m.Func("f")
    f[x] = m.sin(b[x])
    g = m.Func("g")
    g[x] = f[x] * f[x + 1] + m.cast(m.Float(32), m.f64(f[x]) * 2.0)
    h = m.Func("h")
    h[x] = g[x] + f[x + 2] * g[x + 1]
    l = m.Func("l")
    s = m.RDom([(0, 9)])
    l[()] = 0.0
    l[()] += h[s.x]
    return l, {"b": b, "f": f, "g": g}, {"b": [13], "f": [11], "g": [10]}


def p_scalar_nd(m):
    x, y = m.Var("x"), m.Var("y")
    b = m.Buffer(A2)
    f = m.Func("f")
    f[x, y] = b[x, y] * b[x + 1, y] + b[x, y + 1]
    return f, {"b": b}, {"b": [7, 5]}


def p_2d_rdom_pred(m):
    x, y = m.Var("x"), m.Var("y")
    b = m.Buffer(A2)
    r = m.RDom([(0, 3), (0, 3)])
    r.where(r.x + r.y < 3)
    g = m.Func("g")
    g[x, y] = 0.0
    g[x, y] += b[x + r.x, y + r.y] * m.cast(m.Float(32), r.x + 1)
    l = m.Func("l")
    s = m.RDom([(0, 5), (0, 3)])
    l[()] = 0.0
    l[()] += m.exp(g[s.x, s.y])
    return l, {"b": b, "g": g}, {"b": [7, 5], "g": [5, 3]}


def p_sum(m):
    x = m.Var("x")
    b = m.Buffer(A)
    r = m.RDom([(0, 3)])
    f = m.Func("f")
    f[x] = m.sum(b[x + r.x] * b[x + r.x])
    l = m.Func("l")
    s = m.RDom([(0, 9)])
    l[()] = 0.0
    l[()] += f[s.x]
    return l, {"b": b, "f": f}, {"b": [13], "f": [9]}


def p_down_up(m):
    x = m.Var("x")
    b = m.Buffer(A)
    d = m.Func("d")
    d[x] = b[2 * x] + b[2 * x + 1] * 3.0
    u = m.Func("u")
    u[x] = d[x // 2] + d[(x + 1) // 2]
    l = m.Func("l")
    s = m.RDom([(0, 9)])
    l[()] = 0.0
    l[()] += u[s.x] * u[s.x]
    return l, {"b": b, "d": d}, {"b": [13], "d": [6]}


PIPELINES = {
    "blur_1d": lambda m: _blur_1d(m, IN1),
    "stencil_2d": lambda m: _stencil_2d(m, IN2, W2),
    "pointwise": lambda m: _pointwise(m, IN1),
    "params": lambda m: _params(m, IN1),
    "rdom_loss": lambda m: _rdom_loss(m, IN2),
    "gathers": lambda m: _gathers(m, IN1),
    "more_math": lambda m: _more_math(m, IN1),
    "tuples": lambda m: _tuples(m, IN1, mix=False),
    **{n[2:]: f for n, f in list(globals().items()) if n.startswith("p_")},
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_matches_halide(name):
    ours_loss, ours, sizes = PIPELINES[name](hl)
    ref_loss, ref, _ = PIPELINES[name](halide)
    d, dr = hl.propagate_adjoints(ours_loss), halide.propagate_adjoints(ref_loss)
    if ours_loss.dimensions() == 0:
        np.testing.assert_allclose(_arr(ours_loss.realize([])), _arr(ref_loss.realize([])), rtol=1e-5)
    for key, size in sizes.items():
        got, want = _arr(d[ours[key]].realize(size)), _arr(dr[ref[key]].realize(size))
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-5, err_msg=f"{name}: d[{key}]")


def _finite_differences(build, arr, eps=1e-5):
    """Central differences of the loss, realized by our compiled pipeline, in each element of ``arr``."""
    grad = np.zeros(arr.shape, np.float64)
    for idx in np.ndindex(arr.shape):
        vals = []
        for s in (1, -1):
            a = arr.astype(np.float64).copy()
            a[idx] += s * eps
            loss, _, _ = build(a)
            vals.append(float(_arr(loss.realize([]))))
        grad[idx] = (vals[0] - vals[1]) / (2 * eps)
    return grad


@pytest.mark.parametrize(
    "name,build,key,arr",
    [
        ("blur_1d", lambda a: _blur_1d(hl, a), "b", IN1),
        ("pointwise", lambda a: _pointwise(hl, a), "b", IN1),
        ("gathers", lambda a: _gathers(hl, a), "b", IN1),
        ("stencil_2d_w", lambda a: _stencil_2d(hl, IN2.astype(np.float64), a), "w", W2),
        ("rdom_loss", lambda a: _rdom_loss(hl, a), "b", IN2[:5, :5]),
        ("unused_rvar", lambda a: _unused_rvar(hl, a), "b", IN1),
        ("predicate_on_pure_var", lambda a: _predicate_on_pure_var(hl, a), "b", IN1),
        ("tuples", lambda a: _tuples(hl, a), "b", IN1),
        ("scan_cumsum", lambda a: _scan(hl, a, "cumsum"), "b", IN1),
        ("scan_nonlinear", lambda a: _scan(hl, a, "nonlinear"), "b", IN1),
        ("scan_iir_2d", lambda a: _scan(hl, a, "iir_2d"), "b", IN2[:5, :3]),
        ("scan_second_order", lambda a: _scan(hl, a, "second_order"), "b", IN1),
        ("scan_predicate", lambda a: _scan(hl, a, "predicate"), "b", IN1),
    ],
)
def test_finite_differences(name, build, key, arr):
    # float64 pipelines: the differences are then accurate to ~1e-6
    loss, things, sizes = build(arr.astype(np.float64))
    got = _arr(hl.propagate_adjoints(loss)[things[key]].realize(sizes[key]))
    np.testing.assert_allclose(got, _finite_differences(build, arr), rtol=1e-4, atol=1e-5)


def test_adjoint_forms():
    """The three-argument form (Halide's output box is [min, min + extent]) and the Buffer form (0 outside)."""
    for m in (hl, halide):
        x = m.Var("x")
        b = m.Buffer(IN1)
        f = m.Func("f")
        f[x] = b[x] * b[x + 1]
        adj = m.Func("adj")
        adj[x] = m.cast(m.Float(32), x) + 1.0
        d = m.propagate_adjoints(f, adj, [m.Range(0, 5)])
        got = _arr(d[b].realize([11]))
        if m is hl:
            ours = got
        else:
            np.testing.assert_allclose(ours, got, rtol=1e-6)
    # Buffer form (not reachable from real Halide's Python bindings): the adjoint of b[x] * b[x + 1] in b
    x = hl.Var("x")
    b = hl.Buffer(IN1)
    f = hl.Func("f")
    f[x] = b[x] * b[x + 1]
    ones = np.arange(1, 6, dtype=np.float32)
    got = _arr(hl.propagate_adjoints(f, hl.Buffer(ones))[b].realize([11]))
    want = np.zeros(11)
    want[:5] += ones * IN1[1:6]
    want[1:6] += ones * IN1[:5]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_derivative_lookup():
    x = hl.Var("x")
    b = hl.Buffer(IN1)
    ip = hl.ImageParam(hl.Float(32), 1, "ip")
    ip.set(hl.Buffer(IN1))
    f, g, unused = hl.Func("f"), hl.Func("g"), hl.Func("unused")
    f[x] = b[x] + ip[x]
    f[x] += 1.0
    g[()] = f[2] * 3.0
    unused[x] = x * 2.0
    d = hl.propagate_adjoints(g)
    assert d[f, 0].defined() and d[f].defined() and d[g].defined()
    assert not d[unused].defined() and not d[f, 4].defined()
    assert d[ip].name() == "ip_im_0_d_def__"
    np.testing.assert_allclose(_arr(d[ip].realize([11])), _arr(d[hl.Func(ip)].realize([11])))
    np.testing.assert_allclose(_arr(d[b].realize([5])), [0, 0, 3, 0, 0])


def test_refused_scan():
    """A scan reading points later iterations write (the values it read are gone) is refused."""
    x = hl.Var("x")
    b = hl.Buffer(IN1)
    f = hl.Func("f")
    f[x] = b[x]
    r = hl.RDom([(0, 10)])
    f[r.x] = f[r.x + 1] * 0.5 + b[r.x]
    loss = hl.Func("loss")
    loss[()] = f[3]
    with pytest.raises(hl.HalideError, match=r"test_autodiff.py:\d+.*Func 'f'.*not where it writes"):
        hl.propagate_adjoints(loss)


def test_refused_scan_changed_later():
    """A scan whose adjoint reads f's values, which a later update changes, is refused."""
    x = hl.Var("x")
    b = hl.Buffer(IN1)
    f = hl.Func("f")
    f[x] = b[x]
    r = hl.RDom([(1, 9)])
    f[r.x] = f[r.x - 1] * b[r.x]
    f[x] = f[x] * 2.0
    loss = hl.Func("loss")
    loss[()] = f[3]
    with pytest.raises(hl.HalideError, match=r"test_autodiff.py:\d+.*gradients of f, which depend on intermediate"):
        hl.propagate_adjoints(loss)


def test_refused_intermediate_values():
    x = hl.Var("x")
    b = hl.Buffer(IN1)
    f = hl.Func("f")
    f[x] = b[x]
    f[x] = f[x] * f[x]
    loss = hl.Func("loss")
    loss[()] = f[1]
    with pytest.raises(hl.HalideError, match=r"test_autodiff.py:\d+.*gradients of f, which depend on intermediate"):
        hl.propagate_adjoints(loss)


def test_refused_tuple_output():
    x = hl.Var("x")
    b = hl.Buffer(IN1)
    f = hl.Func("f")
    f[x] = (b[x], b[x] * 2.0)
    with pytest.raises(hl.HalideError, match=r"test_autodiff.py:\d+.*output Func 'f' returns a Tuple"):
        hl.propagate_adjoints(f, hl.Buffer(np.ones(3, np.float32)))


def test_tuple_adjoints():
    """The adjoint of a Tuple-valued Func is a Tuple-valued Func, as in Halide: its elements by hand."""
    x = hl.Var("x")
    b = hl.Buffer(IN1)
    f = hl.Func("f")
    f[x] = (b[x] * 2.0, hl.sin(b[x + 1]))
    f[x] = (f[x][0] + f[x][1] * 0.5, f[x][1] * 3.0)
    s = hl.RDom([(0, 6)])
    loss = hl.Func("loss")
    loss[()] = 0.0
    loss[()] += f[s.x][0] * f[s.x][1]
    d = hl.propagate_adjoints(loss)
    f0 = IN1[:6].astype(np.float64) * 2.0 + 0.5 * np.sin(IN1[1:7].astype(np.float64))
    f1 = 3.0 * np.sin(IN1[1:7].astype(np.float64))
    final, before = d[f, 0].realize([6]), d[f].realize([6])
    np.testing.assert_allclose(_arr(final[0]), f1, rtol=1e-5)
    np.testing.assert_allclose(_arr(final[1]), f0, rtol=1e-5)
    np.testing.assert_allclose(_arr(before[0]), f1, rtol=1e-5)
    np.testing.assert_allclose(_arr(before[1]), 0.5 * f1 + 3.0 * f0, rtol=1e-5)


def test_bounds_follow_params_and_image_sizes():
    """The adjoints' RDoms and clamps are Exprs of the Params and image sizes they come from: realized again
    after those change, they give the gradient of the pipeline as it is then."""
    x = hl.Var("x")
    n = hl.Param(hl.Int(32), "n", 5)
    ip = hl.ImageParam(hl.Float(32), 1, "ip")
    ip.set(hl.Buffer(IN1[:7].copy()))
    f = hl.Func("f")
    f[x] = ip[x] * ip[x + 1]
    r = hl.RDom([(0, n)])
    s = hl.RDom([(0, ip.width() - 1)])
    loss = hl.Func("loss")
    loss[()] = 0.0
    loss[()] += f[r.x] * 2.0
    loss[()] += f[s.x]
    d = hl.propagate_adjoints(loss)

    def want(a, count):
        g = np.zeros(len(a))
        for i in range(count):
            g[i] += 2.0 * a[i + 1]
            g[i + 1] += 2.0 * a[i]
        for i in range(len(a) - 1):
            g[i] += a[i + 1]
            g[i + 1] += a[i]
        return g

    for size, count in ((7, 5), (11, 9), (9, 3)):
        a = IN1[:size].copy()
        ip.set(hl.Buffer(a))
        n.set(count)
        np.testing.assert_allclose(_arr(d[ip].realize([size])), want(a.astype(np.float64), count), rtol=1e-5)
