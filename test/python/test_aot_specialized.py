"""An any-size AOT function of a pipeline with specialize() (lesson 16's brighten_specialized): one kernel per
specialization path, the conditions decided at run time from the buffers' strides and extents and the Params."""

import ctypes

import numpy as np

import halide_mlir as hl
from test_aot import halide_buffer, shared_library


def test_specializations_decided_at_run_time(tmp_path):
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    inp = hl.ImageParam(hl.UInt(8), 3, "input")
    offset = hl.Param(hl.UInt(8), "offset")
    out = hl.Func("brighter")
    out[x, y, c] = inp[x, y, c] + offset
    out.vectorize(x, 16)
    inp.dim(0).set_stride(hl.Expr())
    out.output_buffer().dim(0).set_stride(hl.Expr())
    interleaved = ((inp.dim(0).stride() == 3) & (inp.dim(2).stride() == 1) & (inp.dim(2).extent() == 3)
                   & (out.output_buffer().dim(0).stride() == 3) & (out.output_buffer().dim(2).extent() == 3))
    out.specialize((inp.dim(0).stride() == 1) & (out.output_buffer().dim(0).stride() == 1))
    out.specialize(interleaved).reorder(c, x, y).unroll(c)
    out.specialize(offset == 0)
    lib = shared_library(tmp_path, out, [inp, offset], "brighten")
    rng = np.random.default_rng(3)
    planar = rng.integers(0, 200, (3, 20, 37), dtype=np.uint8)
    inter = np.ascontiguousarray(planar.transpose(1, 2, 0)).transpose(2, 0, 1)  # strides (1, 3 * 37, 3)
    for src in (planar, inter):
        for off in (0, 7):
            res = np.zeros((3, 20, 37), np.uint8) if src is planar else (
                np.zeros((20, 37, 3), np.uint8).transpose(2, 0, 1))
            assert lib.brighten(ctypes.byref(halide_buffer(src)), ctypes.c_uint8(off),
                                ctypes.byref(halide_buffer(res))) == 0
            np.testing.assert_array_equal(res, planar + np.uint8(off))
    header = tmp_path / "brighten.h"
    out.compile_to_header(str(header), [inp, offset], "brighten")
    assert "int brighten(" in header.read_text()
