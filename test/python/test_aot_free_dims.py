"""A fixed-size AOT function whose algorithm reads an input's bounds only to clamp coordinates that stay inside
the compiled region (the channel of ``repeat_edge(input)[x, y, c]`` in Halide's local_laplacian app) takes a
bigger buffer in that dim, as Halide's code does (the 4-channel rgba.png for 3 compiled channels); in a dim where
the clamp matters (x, y) another size takes the any-size function."""

import ctypes

import numpy as np

import halide_mlir as hl
from test_aot import halide_buffer, shared_library


def pipeline():
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    inp = hl.ImageParam(hl.UInt(16), 3, "input")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    gray = hl.Func("gray")
    gray[x, y] = 0.25 * clamped[x, y, 0] + 0.5 * clamped[x, y, 1] + 0.25 * clamped[x, y, 2]
    out = hl.Func("out")
    out[x, y, c] = hl.u16(hl.min(65535.0, gray[x - 1, y + 1] + clamped[x + 1, y - 1, c] / 2))
    out.set_estimates([(0, 16), (0, 8), (0, 3)])
    inp.set_estimates([(0, 16), (0, 8), (0, 3)])
    return inp, out


def test_a_bigger_buffer_in_a_dim_the_clamps_do_not_reach(tmp_path):
    inp, out = pipeline()
    lib = shared_library(tmp_path, out, [inp], "free_dims")
    rng = np.random.default_rng(1)
    a = rng.integers(0, 60000, (4, 8, 16), dtype=np.uint16)  # 4 channels; compiled for 3
    res = np.zeros((3, 8, 16), np.uint16)
    assert lib.free_dims(ctypes.byref(halide_buffer(a)), ctypes.byref(halide_buffer(res))) == 0
    inp.set(hl.Buffer(a))
    np.testing.assert_array_equal(res, np.asarray(out.realize([16, 8, 3])))
    # x: its clamp reads the width, so a wider input goes to the any-size function (same values as the JIT)
    wide = rng.integers(0, 60000, (3, 8, 17), dtype=np.uint16)
    assert lib.free_dims(ctypes.byref(halide_buffer(wide)), ctypes.byref(halide_buffer(res))) == 0
    inp.set(hl.Buffer(wide))
    np.testing.assert_array_equal(res, np.asarray(out.realize([16, 8, 3])))
    header = (tmp_path / "free_dims.h")
    out.compile_to_header(str(header), [inp], "free_dims")
    assert "[0, 2] (or more)" in header.read_text()
