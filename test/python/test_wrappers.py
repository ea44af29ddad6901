"""Wrapper Funcs (``Func.in_``, ``ImageParam.in_``, ``Func.clone_in``) against real Halide 21: the pipelines of
Halide's lessons 19 and 20 (their CPU parts) at the lessons' sizes and odd ones, wrappers combined with tile,
vectorize, parallel and compute_at, wrappers of Tuple-valued Funcs and of Buffers, chains of wrappers, and the
errors Halide raises."""
import numpy as np
import pytest

from oracle import raises_both, run_both

IMG = np.random.default_rng(19).integers(-100, 100, (41, 53)).astype(np.int32)
IMG_F = np.random.default_rng(20).uniform(-2, 2, (29, 47)).astype(np.float32)
SIZES = [[5, 5], [8, 8], [37, 23]]


def _vars(hl):
    return [hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi")]


# --- lesson 19 ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sizes", SIZES)
def test_in_one_consumer(sizes):          # f -> f.in_(g) -> g; h still calls f
    def build(hl):
        x, y, *_ = _vars(hl)
        f, g, h = hl.Func("f"), hl.Func("g"), hl.Func("h")
        f[x, y] = x + y
        g[x, y] = 2 * f[x, y] + 3
        h[x, y] = g[x, y] - f[x, y + 1]
        f.compute_root()
        g.compute_root()
        w = f.in_(g).compute_root()
        assert hl.__name__ == "halide" or (w.name() == "f_in_g$0" and f.in_(g) is w)
        return h
    run_both(build, sizes)


@pytest.mark.parametrize("sizes", SIZES)
def test_global_wrapper(sizes):
    def build(hl):
        x, y, *_ = _vars(hl)
        f, g, h = hl.Func("f_global"), hl.Func("g_global"), hl.Func("h_global")
        f[x, y] = x + y
        g[x, y] = 2 * f[x, y]
        h[x, y] = 3 + g[x, y] - f[x, y]
        f.compute_root()
        g.compute_root()
        h.compute_root()
        f.in_().compute_root()
        return h
    run_both(build, sizes)


@pytest.mark.parametrize("sizes", SIZES)
def test_unique_wrappers_at_each_consumer(sizes):
    def build(hl):
        x, y, xo, _, xi, _ = _vars(hl)
        f, g, h = hl.Func("f_sched"), hl.Func("g_sched"), hl.Func("h_sched")
        f[x, y] = x * 3 + y
        g[x, y] = 2 * f[x, y]
        h[x, y] = 3 + g[x, y] - f[x + 93, y - 87]   # a far-away region of f
        g.compute_root()
        h.compute_root()
        f.in_(g).compute_at(g, y)
        f.in_(h).compute_at(h, y)
        f.in_(g).vectorize(x, 4)
        f.in_(h).split(x, xo, xi, 2).reorder(xo, xi)
        return h
    run_both(build, sizes)


@pytest.mark.parametrize("sizes", [[8, 8], [13, 11]])
def test_wrapper_groups_the_updates_of_a_func(sizes):
    """f (a pure step and two scans) computed at the rows of its wrapper; g reads the wrapper through a gather."""
    def build(hl):
        x, y, *_ = _vars(hl)
        f, g = hl.Func("f_group"), hl.Func("g_group")
        f[x, y] = hl.cast(hl.Float(32), x - y) * 0.25
        r = hl.RDom([(1, 7)])
        f[r, y] = (f[r, y] + f[r - 1, y]) / 2
        f[7 - r, y] = (f[7 - r, y] + f[8 - r, y]) / 2
        g[x, y] = f[(x + y) % 8, (x - y) % 8]
        f.in_(g).compute_root()
        f.compute_at(f.in_(g), y)
        f.vectorize(x, 4)
        f.in_(g).vectorize(x, 4)
        return g
    run_both(build, sizes)


@pytest.mark.parametrize("sizes", [[16, 16], [20, 12]])
def test_transposing_wrapper_at_tiles(sizes):
    def build(hl):
        x, y, xo, yo, xi, yi = _vars(hl)
        f, g = hl.Func("f_transpose"), hl.Func("g_transpose")
        f[x, y] = (x + y) * (y + 1) / 3.0
        f.compute_root()
        g[x, y] = f[y, x]
        tile = f.in_(g)
        g.tile(x, y, xo, yo, xi, yi, 4, 4).vectorize(xi).unroll(yi)
        tile.compute_at(g, xo).reorder_storage(y, x).vectorize(x).unroll(y)
        return g
    run_both(build, sizes)


@pytest.mark.parametrize("sizes", [[32, 24], [37, 23]])
@pytest.mark.parametrize("schedule", ["at_xo", "at_xo_parallel", "root_vectorized"])
def test_image_param_staged_per_tile(sizes, schedule):
    """ImageParam.in_: the input's tile (with its halo) copied into a wrapper computed per tile of the blur."""
    def build(hl):
        x, y, xo, yo, xi, yi = _vars(hl)
        img = hl.ImageParam(hl.Int(32), 2, "img")
        blur = hl.Func("blur")
        blur[x, y] = sum(img[x + i, y + j] for i in (-1, 0, 1) for j in (-1, 0, 1))
        b = hl.Buffer(IMG)
        b.set_min([-1, -1])
        img.set(b)
        w = img.in_(blur)
        assert hl.__name__ == "halide" or w.name() == "img_im_in_blur$0"   # Halide uniquifies names per process
        assert [v.name() for v in w.args()] == ["_0", "_1"]
        if schedule == "root_vectorized":
            blur.compute_root()
            w.compute_root().vectorize(hl._0, 8)
        else:
            blur.tile(x, y, xo, yo, xi, yi, 8, 8).vectorize(xi)
            if schedule == "at_xo_parallel":
                blur.parallel(yo)
            w.compute_at(blur, xo).vectorize(hl._0, 4)
        return blur
    run_both(build, sizes)


def test_image_param_global_wrapper():
    def build(hl):
        x, y, *_ = _vars(hl)
        img = hl.ImageParam(hl.Float(32), 2, "im")
        img.set(hl.Buffer(IMG_F))
        f, g = hl.Func("f"), hl.Func("g")
        f[x, y] = img[x, y] * 2.0
        g[x, y] = f[x, y] + img[x + 1, y + 2]
        f.compute_root()
        img.in_().compute_root()
        return g
    run_both(build, [40, 21])


def test_wrapper_of_a_buffer_func():
    """A Func over a Buffer (hl.Func(buffer)) wrapped for one consumer."""
    def build(hl):
        x, y, xo, yo, xi, yi = _vars(hl)
        src = hl.Func(hl.Buffer(IMG, "src"))
        g = hl.Func("g")
        g[x, y] = src[x, y] + src[x + 2, y + 1]
        g.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 8).parallel(yo)
        src.in_(g).compute_at(g, xo).vectorize(src.args()[0], 8)
        return g
    run_both(build, [49, 37])


# --- combined with the rest of the schedule -----------------------------------------------------------------
@pytest.mark.parametrize("sizes", [[64, 48], [37, 23]])
def test_blur_wrapper_tiled_vectorized_parallel(sizes):
    """bx feeds by through a wrapper computed per (parallel) tile of by, bx itself inlined into the wrapper."""
    def build(hl):
        x, y, xo, yo, xi, yi = _vars(hl)
        inp = hl.Buffer(IMG_F, "inp")
        bx, by = hl.Func("bx"), hl.Func("by")
        bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
        by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
        by.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo)
        bx.in_(by).compute_at(by, xo).vectorize(x, 8)
        return by
    run_both(build, [min(s, m) for s, m in zip(sizes, (45, 27))])


def test_in_list_of_consumers_shares_one_wrapper():
    def build(hl):
        x, y, *_ = _vars(hl)
        f, g, h, out = hl.Func("f"), hl.Func("g"), hl.Func("h"), hl.Func("out")
        f[x, y] = x - 2 * y
        g[x, y] = 2 * f[x, y]
        h[x, y] = f[x + 1, y] + 10
        out[x, y] = f[x, y] + g[x, y] + h[x, y]
        for k in (f, g, h):
            k.compute_root()
        w = f.in_([g, h]).compute_root()
        assert hl.__name__ == "halide" or f.in_([h, g]) is w
        return out
    run_both(build, [9, 7])


def test_tuple_func_wrapper():
    def build(hl):
        x, y, xo, yo, xi, yi = _vars(hl)
        f, g = hl.Func("f"), hl.Func("g")
        f[x, y] = (x + y, x * y)
        g[x, y] = f[x, y][0] - f[x + 1, y][1]
        f.compute_root()
        f.in_(g).compute_at(g, y).vectorize(x, 4)
        return g
    run_both(build, [19, 6])


def test_chain_of_wrappers():
    """f.in_(g).in_(g): g calls the second wrapper, which calls the first, which calls f."""
    def build(hl):
        x, y, *_ = _vars(hl)
        f, g = hl.Func("f"), hl.Func("g")
        f[x, y] = x * 5 + y
        g[x, y] = f[x, y] + f[x + 1, y]
        w1 = f.in_(g).compute_root()
        w1.in_(g).compute_at(g, y)
        return g
    run_both(build, [11, 5])


# --- lesson 20: clone_in ------------------------------------------------------------------------------------
@pytest.mark.parametrize("sizes", [[5, 5], [21, 9]])
def test_clone_in_one_consumer(sizes):
    def build(hl):
        x, y, *_ = _vars(hl)
        f, g, h = hl.Func("f_single"), hl.Func("g_single"), hl.Func("h_single")
        f[x, y] = x + y
        g[x, y] = 2 * f[x, y] + 3
        h[x, y] = f[x, y] + g[x, y] + 10
        for k in (f, g, h):
            k.compute_root()
        c = f.clone_in(g).compute_root()
        assert c.name() == "f_single_clone_in_g_single$0" or hl.__name__ == "halide"
        return h
    run_both(build, sizes)


def test_clone_in_list_and_disjoint_regions():
    def build(hl):
        x, y, *_ = _vars(hl)
        f, g, h, out = hl.Func("f_group"), hl.Func("g_group"), hl.Func("h_group"), hl.Func("out_group")
        f[x, y] = x + y
        g[x, y] = 2 * f[x, y]
        h[x, y] = f[x, y] + 10
        out[x, y] = f[x, y] + g[x, y] + h[x, y]
        for k in (f, g, h, out):
            k.compute_root()
        f.clone_in([g, h]).compute_root()
        return out
    run_both(build, [5, 5])

    def build1d(hl):
        x = hl.Var("x")
        f, g, h, out = hl.Func("f"), hl.Func("g"), hl.Func("h"), hl.Func("out")
        f[x] = x
        g[x] = 2 * f[0]
        h[x] = f[99] + 10
        out[x] = g[x] + h[x]
        f.compute_root()
        g.compute_root()
        f.clone_in(g).compute_root()
        return out
    run_both(build1d, [7])


def test_clone_of_a_func_with_updates_keeps_its_schedule():
    def build(hl):
        x, y, *_ = _vars(hl)
        r = hl.RDom([(0, 4)])
        f, g, h = hl.Func("f"), hl.Func("g"), hl.Func("h")
        f[x, y] = x + y
        f[x, y] += f[x, y] * r.x
        g[x, y] = f[x, y] * 2
        h[x, y] = g[x, y] - f[x + 1, y]
        f.compute_root().vectorize(x, 4)
        g.compute_root()
        f.clone_in(g).compute_at(g, y)
        return h
    run_both(build, [17, 6])


# --- errors -------------------------------------------------------------------------------------------------
def test_wrapper_of_itself_is_refused():
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = x
        f.in_(f)
    assert "Cannot create wrapper of itself" in raises_both(program)[1]


def test_wrapper_in_a_consumer_that_does_not_call_is_refused():
    def program(hl):
        x = hl.Var("x")
        f, g, k = hl.Func("f"), hl.Func("g"), hl.Func("k")
        f[x] = x
        g[x] = f[x] + 1
        k[x] = g[x] * 2
        f.in_(k).compute_root()
        k.realize([4])
    assert 'because "k" does not call "f"' in raises_both(program)[1]


def test_wrapper_in_a_func_outside_the_pipeline_is_ignored():
    def build(hl):
        x = hl.Var("x")
        f, g, k = hl.Func("f"), hl.Func("g"), hl.Func("k")
        f[x] = x
        g[x] = f[x] + 1
        k[x] = x
        f.in_(k).compute_root()
        return g
    run_both(build, [6])


def test_shared_wrapper_redefinition_is_refused():
    def program2(hl):
        x = hl.Var("x")
        f, g, h = hl.Func("f"), hl.Func("g"), hl.Func("h")
        f[x] = x
        g[x] = f[x]
        h[x] = f[x]
        f.in_([g, h])
        f.in_(g)
    assert "shares the same wrapper" in raises_both(program2)[1]


def test_empty_list_is_refused():
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = x
        f.in_([])
    assert "empty list" in raises_both(program)[1]
