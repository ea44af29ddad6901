"""``hl.Pipeline(f).apply_autoscheduler(target, params)``: the built-in cost-model autoscheduler
(autotune/autoschedule.py). The autoscheduled pipeline must give the values of Halide's unscheduled one."""
import numpy as np
import pytest

from helpers import box_blur
from oracle import run_both

RNG = np.random.default_rng(11)
F32 = RNG.random((3, 41, 67), dtype=np.float32)
U8 = RNG.integers(0, 256, (41, 67), dtype=np.uint8)
A = RNG.random((29, 31), dtype=np.float32)
B = RNG.random((31, 45), dtype=np.float32)
BIG = RNG.random((75, 305), dtype=np.float32)   # several 256x32 tiles, with partial ones


def autoschedule(hl, f):
    if hl.__name__ == "halide_mlir":   # real Halide's wheel has no autoscheduler plugin: its side stays unscheduled
        result = hl.Pipeline(f).apply_autoscheduler(hl.get_host_target(),
                                                    hl.AutoschedulerParams("Mullapudi2016", {"parallelism": 2}))
        assert result.schedule_source
    return f


def blur(hl):
    _, by, _, _ = box_blur(hl, hl.Buffer(BIG, "input"))
    return autoschedule(hl, by)


def unsharp_like(hl):
    inp = hl.Buffer(F32, "rgb")
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    gray, blur_y, blur_x, sharp = hl.Func("gray"), hl.Func("blur_y"), hl.Func("blur_x"), hl.Func("sharp")
    gray[x, y] = 0.299 * clamped[x, y, 0] + 0.587 * clamped[x, y, 1] + 0.114 * clamped[x, y, 2]
    blur_y[x, y] = (gray[x, y - 1] + 2 * gray[x, y] + gray[x, y + 1]) / 4
    blur_x[x, y] = (blur_y[x - 1, y] + 2 * blur_y[x, y] + blur_y[x + 1, y]) / 4
    sharp[x, y, c] = clamped[x, y, c] * (2 * gray[x, y] - blur_x[x, y]) / (gray[x, y] + 0.01)
    return autoschedule(hl, sharp)


def matmul(hl):
    a, b = hl.Buffer(A, "a"), hl.Buffer(B, "b")
    x, y = hl.Var("x"), hl.Var("y")
    k = hl.RDom([(0, 31)], "k")
    c = hl.Func("c")
    c[x, y] = hl.f32(0)
    c[x, y] += a[k.x, y] * b[x, k.x]
    out = hl.Func("out")
    out[x, y] = c[x, y] * 2
    return autoschedule(hl, out)


def histogram_equalize(hl):
    inp = hl.Buffer(U8, "input")
    x, y, i = hl.Var("x"), hl.Var("y"), hl.Var("i")
    r = hl.RDom([(0, 67), (0, 41)], "r")
    hist, cdf, out = hl.Func("hist"), hl.Func("cdf"), hl.Func("out")
    hist[i] = 0
    hist[hl.i32(inp[r.x, r.y])] += 1
    j = hl.RDom([(1, 255)], "j")
    cdf[i] = hist[0]
    cdf[j.x] = cdf[j.x - 1] + hist[j.x]
    out[x, y] = hl.u8(cdf[hl.i32(inp[x, y])] * 255 // (67 * 41))
    return autoschedule(hl, out)


def conv_rdom(hl):
    inp = hl.Buffer(F32[1], "input")
    w = hl.Buffer(np.arange(9, dtype=np.float32).reshape(3, 3) / 9, "weights")
    x, y = hl.Var("x"), hl.Var("y")
    r = hl.RDom([(0, 3), (0, 3)], "r")
    conv, relu = hl.Func("conv"), hl.Func("relu")
    conv[x, y] = hl.f32(0)
    conv[x, y] += inp[x + r.x, y + r.y] * w[r.x, r.y]
    relu[x, y] = hl.max(conv[x, y], 0.25)
    return autoschedule(hl, relu)


def tuple_and_1d(hl):
    inp = hl.Buffer(F32[2, 0], "row")
    x = hl.Var("x")
    pair, out = hl.Func("pair"), hl.Func("out")
    pair[x] = (inp[x] * 2, inp[x + 1] - inp[x])
    out[x] = pair[x][0] + pair[x][1] * pair[x + 1][1]
    return autoschedule(hl, out)


@pytest.mark.parametrize("build, sizes", [(blur, [65, 39]), (blur, [300, 70]), (unsharp_like, [67, 41, 3]),
                                         (matmul, [45, 29]),
                                          (histogram_equalize, [67, 41]), (conv_rdom, [65, 39]),
                                          (tuple_and_1d, [65])], ids=lambda v: getattr(v, "__name__", ""))
def test_autoscheduled_pipeline_equals_halide(build, sizes):
    run_both(build, sizes)


def test_schedule_source_is_the_applied_schedule():
    import halide_mlir as hl
    f = blur(hl)
    source = hl.Pipeline(f).apply_autoscheduler(hl.get_host_target(),
                                                hl.AutoschedulerParams("Adams2019")).schedule_source
    assert source.splitlines() == ["xo, yo, xi, yi = hl.Var('xo'), hl.Var('yo'), hl.Var('xi'), hl.Var('yi')",
                                   "bx.compute_at(by, xo).vectorize(x, 16)",
                                   "by.tile(x, y, xo, yo, xi, yi, 256, 32).parallel(yo).vectorize(xi, 16)"]
    m = matmul(hl)
    source = hl.Pipeline(m).apply_autoscheduler(hl.get_host_target(),
                                                hl.AutoschedulerParams("halide_mlir")).schedule_source
    assert "c.update(0).reorder(x, k.x, y).parallel(y).vectorize(x, 16)" in source, source
    assert "# inlined: out" not in source


def test_cheap_pointwise_producers_are_inlined_and_single_thread_is_serial():
    import halide_mlir as hl
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(U8, "input")
    g, f = hl.Func("g"), hl.Func("f")
    g[x, y] = hl.u16(inp[x, y]) * 3
    f[x, y] = hl.u8(g[x, y] // 4)
    source = hl.Pipeline(f).apply_autoscheduler(hl.get_host_target(),
                                                hl.AutoschedulerParams("Li2018", {"parallelism": 1})).schedule_source
    assert source.splitlines() == ["# inlined: g", "f.vectorize(x, 64)"]


def test_autoscheduler_api_errors():
    import halide_mlir as hl
    x = hl.Var("x")
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x
    g[x] = x + 1
    with pytest.raises(hl.HalideError, match="Unknown autoscheduler name 'Nope'"):
        hl.Pipeline(f).apply_autoscheduler(hl.get_host_target(), hl.AutoschedulerParams("Nope"))
    with pytest.raises(hl.HalideError, match="several outputs"):   # (realizing one is supported)
        hl.Pipeline([f, g]).apply_autoscheduler(hl.get_host_target(), hl.AutoschedulerParams("Mullapudi2016"))
    hl.load_plugin("autoschedule_mullapudi2016")   # built in: loading it is a no-op
    with pytest.raises(hl.HalideError, match="Failed to load"):
        hl.load_plugin("libsomething_else.so")
    assert "avx512" in str(hl.get_host_target())
    p = hl.Pipeline(f)
    np.testing.assert_array_equal(np.asarray(p.realize([5])), np.arange(5, dtype=np.int32))
