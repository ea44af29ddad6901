"""Auto-vectorization (analysis/vectorize.py): Funcs the user did not vectorize are vectorized along x with a
width chosen per kernel. Values must stay Halide's (the unscheduled Halide pipeline is the oracle), at every
size (edge tiles are masked), and the code must really be vector code."""
import re

import numpy as np
import pytest

from oracle import run_both

RNG = np.random.default_rng(7)
U8 = RNG.integers(0, 256, (23, 131), dtype=np.uint8)
F32 = RNG.random((23, 131), dtype=np.float32)
LUT = RNG.integers(-1000, 1000, 256, dtype=np.int32)


def blur_u8(hl):
    inp = hl.Buffer(U8, "input")
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("blur_u8")
    f[x, y] = hl.u8((hl.u16(inp[x, y]) + hl.u16(inp[x + 1, y]) * 2 + hl.u16(inp[x + 2, y])) // 4)
    return f


def select_with_param(hl):
    inp = hl.Buffer(F32, "input")
    gain = hl.Param(hl.Float(32), "gain", 1.5)
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("select_gain")
    f[x, y] = hl.select(inp[x, y] > 0.5, inp[x, y] * (gain * gain + 1.0), -inp[x, y])
    return f


def lut_gather(hl):
    inp = hl.Buffer(U8, "input")
    lut = hl.Buffer(LUT, "lut")
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("gather")
    f[x, y] = lut[hl.i32(inp[x, y])] * 3 + y
    return f


def chain_with_roots(hl):
    inp = hl.Buffer(F32, "input")
    x, y = hl.Var("x"), hl.Var("y")
    a, b, out = hl.Func("a"), hl.Func("b"), hl.Func("out")
    a[x, y] = hl.f64(inp[x, y]) * 2.0
    b[x, y] = hl.i16(a[x, y] * 100.0) + hl.i16(x)
    out[x, y] = b[x, y] + b[x + 1, y]
    a.compute_root()
    b.compute_root()
    return out


def uniform_rows(hl):
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("rows")
    f[x, y] = y * 7 - 3
    return f


def tuple_output(hl):
    inp = hl.Buffer(F32, "input")
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("pair")
    f[x, y] = (inp[x, y] + 1.0, hl.i32(inp[x, y] * 10.0) + x)
    return f


def tiled_not_vectorized(hl):
    inp = hl.Buffer(F32, "input")
    x, y, xo, yo, xi, yi = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))
    f = hl.Func("tiled")
    f[x, y] = inp[x, y] * inp[x + 1, y]
    f.tile(x, y, xo, yo, xi, yi, 8, 4).parallel(yo)
    return f


PIPELINES = [blur_u8, select_with_param, lut_gather, chain_with_roots, uniform_rows, tuple_output,
             tiled_not_vectorized]


@pytest.mark.parametrize("width", [1, 3, 16, 63, 64, 65, 129])
@pytest.mark.parametrize("build", PIPELINES, ids=lambda b: b.__name__)
def test_auto_vectorized_equals_halide(build, width):
    if build is tiled_not_vectorized and width < 8:
        pytest.skip("an 8-wide tile over a narrower image: Halide's ShiftInwards reads before the input")
    run_both(build, [width, 5])


@pytest.mark.parametrize("build, lanes", [(blur_u8, 64), (select_with_param, 16), (chain_with_roots, 32),
                                          (tuple_output, 16), (tiled_not_vectorized, 8)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_width_is_chosen_per_kernel(build, lanes):
    import halide_mlir as hl
    script = build(hl).transform_script([129, 5])
    sizes = [int(m.split(",")[-1]) for m in re.findall(r"vector_sizes \[([0-9, ]+)\]", script)]
    assert sizes and max(sizes) == lanes, script


def test_natural_lanes():
    import halide_mlir as hl
    from halide_mlir.analysis.vectorize import natural_lanes
    x = hl.Var("x")
    u8, f32 = hl.Buffer(np.zeros(4, np.uint8)), hl.Buffer(np.zeros(4, np.float32))
    assert natural_lanes([hl.u16(u8[x]) + 1], [hl.UInt(8)], "x") == 64        # u8 fills a register
    assert natural_lanes([f32[x] * 2.0], [hl.Float(32)], "x") == 16
    assert natural_lanes([hl.f64(u8[x])], [hl.Float(64)], "x") == 32           # f64 gets 4 registers
    # uniform values (no x) do not occupy lanes: the u8 Param does not narrow an f32 kernel
    p = hl.Param(hl.UInt(8), "p", 3)
    assert natural_lanes([f32[x] * hl.f32(p)], [hl.Float(32)], "x") == 16


def test_off_switch_gives_scalar_code(monkeypatch):
    import halide_mlir as hl
    monkeypatch.setenv("HALIDE_MLIR_AUTO_VECTORIZE", "0")
    assert "vectorize" not in blur_u8(hl).transform_script([129, 5]).split("__transform_main")[1]
    run_both(blur_u8, [129, 5])
    run_both(tiled_not_vectorized_but_producer_is, [129, 23])   # explicit vectors stay vectors in scalar mode


def tiled_not_vectorized_but_producer_is(hl):
    f = tiled_not_vectorized(hl)
    x, y = hl.Var("x"), hl.Var("y")
    g = hl.Func("consumer")
    g[x, y] = f[x, y] * 2 + f[x + 1, y]
    f.compute_root().vectorize(hl.Var("xi"))
    return g


def test_user_schedule_wins():
    """A Func the user vectorized, unrolled or reordered keeps exactly that schedule."""
    import halide_mlir as hl
    f = blur_u8(hl)
    x, y = hl.Var("x"), hl.Var("y")
    f.vectorize(x, 8)
    assert re.findall(r"vector_sizes \[[0-9, ]+\]", f.transform_script([129, 5])) == ["vector_sizes [1, 8]"]
    g = blur_u8(hl)
    g.reorder(y, x)
    assert "vector_sizes" not in g.transform_script([129, 5]).split("__transform_main")[1]


def test_mlir_failure_falls_back_to_scalar_with_a_warning(monkeypatch):
    """If MLIR cannot vectorize what the user did not ask to vectorize, the pipeline still runs (as Halide
    would), scalar, and says so."""
    import halide_mlir as hl
    from halide_mlir import driver as realize_mod
    real = realize_mod.build_transform

    def broken(plan):  # (the scalar retry has no vector sizes left to break)
        return re.sub(r"vector_sizes \[[^\]]*\]", "vector_sizes [1]", real(plan))

    monkeypatch.setattr(realize_mod, "build_transform", broken)
    f = blur_u8(hl)
    with pytest.warns(hl.AutoVectorizeWarning, match="blur_u8 runs without it"):
        out = f.realize([129, 5])
    ref = ((U8[:5, :129].astype(np.uint16) + U8[:5, 1:130].astype(np.uint16) * 2 + U8[:5, 2:131]) // 4)
    np.testing.assert_array_equal(np.asarray(out), ref.astype(np.uint8))


A = RNG.random((19, 23), dtype=np.float32)
B = RNG.random((23, 37), dtype=np.float32)


def matmul_x_inner(hl):
    a, b = hl.Buffer(A, "a"), hl.Buffer(B, "b")
    x, y = hl.Var("x"), hl.Var("y")
    k = hl.RDom([(0, 23)], "k")
    c = hl.Func("c")
    c[x, y] = hl.f32(0)
    c[x, y] += a[k.x, y] * b[x, k.x]
    c.update().reorder(x, k.x, y)       # x innermost: the update is vectorized along it
    return c


def row_sums_x_inner(hl):
    inp = hl.Buffer(F32, "input")
    x, y = hl.Var("x"), hl.Var("y")
    r = hl.RDom([(0, 3)], "r")
    f = hl.Func("sums")
    f[x, y] = hl.f32(0)
    f[x, y] += inp[x + r.x, y] * hl.f32(r.x + 1)   # compound read x + r.x
    f.update().reorder(x, r.x)
    return f


def pure_update(hl):
    inp = hl.Buffer(U8, "input")
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("twice")
    f[x, y] = hl.u16(inp[x, y])
    f[x, y] = f[x, y] * 3 + hl.u16(y)
    return f


@pytest.mark.parametrize("width", [1, 15, 16, 17, 36])
@pytest.mark.parametrize("build", [matmul_x_inner, row_sums_x_inner, pure_update], ids=lambda b: b.__name__)
def test_auto_vectorized_updates_equal_halide(build, width):
    run_both(build, [width, 5])


def test_update_with_x_innermost_is_vectorized():
    import halide_mlir as hl
    script = matmul_x_inner(hl).transform_script([37, 19])
    main = script.split("__transform_main")[1]
    assert 'hl.update_of = "c"' in main and "vector_sizes [16]" in main, main


@pytest.mark.parametrize("vectorized", [False, True])
def test_single_iteration_loop_outside_a_vectorized_update(vectorized):
    """Fuzzer find: yo (step 2) inside yi (step 1) runs once per row; tiling the 1-row tile by 2 made its shape
    dynamic and the vectorizer failed (auto-vectorization fell back to scalar; a user's vectorize errored)."""
    def build(hl):
        x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
        inp = hl.Buffer(U8, "input")
        edge = hl.BoundaryConditions.repeat_edge(inp)
        r = hl.RDom([(0, 1)], "r")
        f = hl.Func("f")
        f[x, y] = hl.i32(0)
        f[x, y] += hl.i32(edge[x + r.x, y])
        f.update(0).split(y, yo, yi, 2).reorder(x, r.x, yo, yi)
        if vectorized:
            f.update(0).vectorize(x, 16)
        return f

    run_both(build, [37, 23])


WIDE = RNG.integers(0, 256, (60, 150), dtype=np.uint8)


@pytest.mark.parametrize("vectorized", [False, True])
def test_update_reading_a_sum_of_dims_plus_a_constant(vectorized):
    """Fuzzer find: in[x + r.x + 100, y] kept its +100 in the indexing map, which the vectorizer refuses;
    the constant now goes into the slice's offset."""
    def build(hl):
        x, y = hl.Var("x"), hl.Var("y")
        inp = hl.Buffer(WIDE, "input")
        r = hl.RDom([(0, 3)], "r")
        f = hl.Func("f")
        f[x, y] = hl.i32(0)
        f[x, y] += hl.i32(inp[x + r.x + 100, y + 7]) * (r.x + 1)
        f.update(0).reorder(x, r.x, y)
        if vectorized:
            f.update(0).vectorize(x, 16)
        return f

    run_both(build, [37, 23])


def test_only_the_func_mlir_fails_on_loses_auto_vectorization(monkeypatch):
    """The diagnostic's line names the Func: that one runs scalar, the others stay vectorized."""
    import halide_mlir as hl
    from halide_mlir.codegen import transform
    real = transform.schedule_stage

    def schedule_stage(sb, schedule, *args, **kw):
        if schedule.name == "a":   # vector sizes the op does not have: the interpreter fails on a's line
            vectorize = sb.vectorize
            sb.vectorize = lambda op, sizes: vectorize(op, [1])
            try:
                return real(sb, schedule, *args, **kw)
            finally:
                sb.vectorize = vectorize
        return real(sb, schedule, *args, **kw)

    monkeypatch.setattr(transform, "schedule_stage", schedule_stage)
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.Buffer(F32, "input")
    a, b = hl.Func("a"), hl.Func("b")
    a[x, y] = inp[x, y] * 2
    b[x, y] = a[x, y] + a[x + 1, y]
    a.compute_root()
    with pytest.warns(hl.AutoVectorizeWarning, match="; a runs without it"):
        out = b.realize([100, 7])
    ref = F32[:7, :100] * 2 + F32[:7, 1:101] * 2
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-6)
    main = b.transform_script([100, 7]).split("__transform_main")[1]
    assert 'hl.func = "b"' in main and "vector_sizes [1, 16]" in main   # b stays vectorized
