"""Func.define_extern: C functions as pipeline stages with Halide's C ABI (halide_buffer_t per buffer argument,
the outputs last, the bounds query before the call, a nonzero result is the error), against Halide 21's JIT."""

import ctypes
import importlib
import os
import shutil
import subprocess

import numpy as np
import pytest

import halide_mlir as hl

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")
BOTH = pytest.mark.parametrize("mod", ["halide", "halide_mlir"])

SOURCE = r"""
#include <stdint.h>
#include <stddef.h>
typedef struct { int32_t min, extent, stride; uint32_t flags; } dim_t;
typedef struct { uint8_t code, bits; uint16_t lanes; } type_t;
typedef struct { uint64_t device; void *device_interface; uint8_t *host; uint64_t flags; type_t type;
                 int32_t dimensions; dim_t *dim; void *padding; } buf_t;
#define AT(b, T, x, y) ((T *)(b)->host)[((x) - (b)->dim[0].min) * (b)->dim[0].stride + \
                                        ((y) - (b)->dim[1].min) * (b)->dim[1].stride]

int hlx_calls;

/* out(x, y) = in(x + 1, y) * k: asks for in over the output region shifted by one in x; -7 when k < 0 */
int hlx_shift_scale(buf_t *in, int32_t k, buf_t *out) {
    if (in->host == NULL) {
        for (int d = 0; d < 2; d++) {
            in->dim[d].min = out->dim[d].min + (d == 0);
            in->dim[d].extent = out->dim[d].extent;
        }
        return 0;
    }
    if (k < 0) return -7;
    hlx_calls++;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++)
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            AT(out, float, x, y) = AT(in, float, x + 1, y) * k;
    return 0;
}

/* two outputs from a uint8 buffer input: (int32 x + y + in(x, y), float in(x, y) / 2) */
int hlx_two(buf_t *in, float scale, buf_t *a, buf_t *b) {
    if (a->host == NULL) return 0;
    if (in->type.code != 1 || in->type.bits != 8 || a->type.code != 0 || b->type.bits != 32) return -3;
    for (int y = a->dim[1].min; y < a->dim[1].min + a->dim[1].extent; y++)
        for (int x = a->dim[0].min; x < a->dim[0].min + a->dim[0].extent; x++) {
            AT(a, int32_t, x, y) = x + y + AT(in, uint8_t, x, y);
            AT(b, float, x, y) = AT(in, uint8_t, x, y) * scale;
        }
    return 0;
}

/* 1-D: out(x) = sum of in over [x - 1, x + 1] (asks for in over the output region grown by one). Halide passes
   a Buffer or ImageParam argument as itself in the bounds query: the output's null host says which call it is. */
int hlx_box(buf_t *in, buf_t *out) {
    if (out->host == NULL) {
        if (in->host == NULL) {
            in->dim[0].min = out->dim[0].min - 1;
            in->dim[0].extent = out->dim[0].extent + 2;
        }
        return 0;
    }
    for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++) {
        int32_t s = 0;
        for (int i = -1; i <= 1; i++) s += ((int32_t *)in->host)[(x + i - in->dim[0].min) * in->dim[0].stride];
        ((int32_t *)out->host)[(x - out->dim[0].min) * out->dim[0].stride] = s;
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("extern")
    src, so = d / "hlx.c", d / "libhlx.so"
    src.write_text(SOURCE)
    subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O1", str(src), "-o", str(so)], check=True)
    return ctypes.CDLL(str(so), mode=ctypes.RTLD_GLOBAL)


def shift_scale(m):
    x, y = m.Var("x"), m.Var("y")
    f = m.Func("f")
    f[x, y] = m.f32(x + 10 * y)
    f.compute_root()
    k = m.Param(m.Int(32), "k", 3)
    e = m.Func("e")
    e.define_extern("hlx_shift_scale", [f, k], m.Float(32), 2)
    g = m.Func("g")
    g[x, y] = e[x, y] + e[x + 1, y]
    return g, e, k


@BOTH
def test_func_argument_bounds_query_and_scalar(mod, lib):
    m = importlib.import_module(mod)
    g, e, k = shift_scale(m)
    assert e.is_extern() and e.extern_function_name() == "hlx_shift_scale"
    assert e.dimensions() == 2 and e.outputs() == 1 and e.type() == m.Float(32)
    e.compute_root()
    want = [[(x + 1 + 10 * y) * 3 + (x + 2 + 10 * y) * 3 for x in range(4)] for y in range(3)]
    np.testing.assert_array_equal(np.asarray(g.realize([4, 3])), want)
    k.set(2)  # a Param read at each call
    np.testing.assert_array_equal(np.asarray(g.realize([4, 3])), np.asarray(want) * 2 // 3)


@BOTH
def test_extern_as_the_output_over_an_offset_region(mod, lib):
    m = importlib.import_module(mod)
    _, e, _ = shift_scale(m)
    out = m.Buffer(m.Float(32), [3, 2])
    out.set_min([5, 1])
    e.realize(out)
    np.testing.assert_array_equal(np.asarray(out), [[(x + 1 + 10 * y) * 3 for x in range(5, 8)] for y in (1, 2)])


@BOTH
def test_nonzero_result_is_halides_error(mod, lib):
    m = importlib.import_module(mod)
    g, e, k = shift_scale(m)
    e.compute_root()
    k.set(-1)
    with pytest.raises(m.HalideError, match="Call to external stage hlx_shift_scale returned non-zero value: -7"):
        g.realize([4, 3])


@BOTH
def test_buffer_argument_and_two_outputs(mod, lib):
    m = importlib.import_module(mod)
    a = (np.arange(20, dtype=np.uint8).reshape(4, 5) * 3).astype(np.uint8)
    buf = m.Buffer(a)
    x, y = m.Var("x"), m.Var("y")
    e = m.Func("e")
    e.define_extern("hlx_two", [buf, m.Expr(0.5)], [m.Int(32), m.Float(32)], [x, y])
    e.compute_root()
    assert e.outputs() == 2 and e.args()[0].name() == "x"
    g = m.Func("g")
    g[x, y] = m.f32(e[x, y][0]) + e[x, y][1]
    ys, xs = np.mgrid[0:4, 0:5]
    np.testing.assert_allclose(np.asarray(g.realize([5, 4])), xs + ys + a * 1.5)
    r = e.realize([5, 4])
    np.testing.assert_array_equal(np.asarray(r[0]), xs + ys + a)


@BOTH
def test_image_param_argument_and_extern_of_extern(mod, lib):
    m = importlib.import_module(mod)
    im = m.ImageParam(m.Int(32), 1, "im")
    data = (np.arange(16, dtype=np.int32) ** 2).astype(np.int32)
    b = m.Buffer(data)
    im.set(b)
    x = m.Var("x")
    inner = m.Func("inner")
    inner.define_extern("hlx_box", [im], m.Int(32), 1)
    inner.compute_root()
    outer = m.Func("outer")
    outer.define_extern("hlx_box", [inner], m.Int(32), 1)
    outer.compute_root()
    h = m.Func("h")
    h[x] = outer[x + 2]
    box = np.convolve(data, np.ones(3, np.int32), "valid")  # box[i] = sum over [i, i + 2]
    want = np.convolve(box, np.ones(3, np.int32), "valid")  # over [i, i + 4]
    np.testing.assert_array_equal(np.asarray(h.realize([10])), want[:10])


@BOTH
def test_inline_func_argument_refused(mod, lib):
    m = importlib.import_module(mod)
    x = m.Var("x")
    f = m.Func("f")
    f[x] = x
    e = m.Func("e")
    e.define_extern("hlx_box", [f], m.Int(32), 1)
    with pytest.raises(m.HalideError, match=r"Func f\S* cannot be scheduled to be computed inline, because it is "
                       "used in the externally-computed function e"):
        e.realize([4])


@BOTH
def test_plain_number_parameter_is_a_type_error(mod, lib):
    m = importlib.import_module(mod)
    e = m.Func("e")
    with pytest.raises(TypeError):
        e.define_extern("hlx_box", [3], m.Int(32), 1)


@BOTH
def test_extern_func_argument_predicates(mod):
    m = importlib.import_module(mod)
    f = m.Func("f")
    f[m.Var("x")] = 1
    im = m.ImageParam(m.Int(32), 1, "im")
    cases = [
        m.ExternFuncArgument(),
        m.ExternFuncArgument(f),
        m.ExternFuncArgument(m.Buffer(m.Int(32), [2])),
        m.ExternFuncArgument(im),
        m.ExternFuncArgument(m.Expr(3)),
        m.ExternFuncArgument(3),
        m.ExternFuncArgument(2.5),
        m.ExternFuncArgument(m.Param(m.Int(32), "p", 1)),
    ]
    got = [(a.defined(), a.is_func(), a.is_buffer(), a.is_image_param(), a.is_expr()) for a in cases]
    assert got == [
        (False, False, False, False, False),
        (True, True, False, False, False),
        (True, False, True, False, False),
        (True, False, False, True, False),
        (True, False, False, False, True),
        (True, False, False, False, True),
        (True, False, False, False, True),
        (True, False, False, False, True),
    ]


def test_missing_symbol_names_it(lib):
    e = hl.Func("e")
    e.define_extern("hlx_not_loaded_anywhere", [hl.Expr(1)], hl.Int(32), 1)
    with pytest.raises(hl.HalideError, match="hlx_not_loaded_anywhere.*RTLD_GLOBAL"):
        e.realize([4])


def test_compute_at_refused(lib):
    g, e, _ = shift_scale(hl)
    e.compute_at(g, g.args()[1])
    with pytest.raises(hl.HalideError, match="compute_at.*extern stages at the root only"):
        g.realize([4, 3])


def test_repeated_realize_calls_the_extern_each_time(lib):
    g, e, k = shift_scale(hl)
    calls = ctypes.c_int.in_dll(lib, "hlx_calls")
    before = calls.value
    for _ in range(3):
        g.realize([4, 3])
    assert calls.value == before + 3


def test_callable_runs_the_extern_each_call(lib):
    g, e, k = shift_scale(hl)
    call = g.compile_to_callable([k])
    out = np.zeros((3, 4), np.float32)
    for kv in (3, 5, 3):
        call(kv, out)
        np.testing.assert_array_equal(out, [[(2 * x + 3 + 20 * y) * kv for x in range(4)] for y in range(3)])


AOT_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "blurx.h"
static int errors;
static void on_error(void *uc, const char *msg) { (void)uc; errors++; fprintf(stderr, "error: %s\n", msg); }
int main(void) {
    static int32_t in[16], out[10], out2[10];
    halide_dimension_t din = {0, 16, 1, 0}, dout = {0, 10, 1, 0};
    struct halide_buffer_t bin = {0}, bout = {0};
    bin.host = (uint8_t *)in; bin.type.code = halide_type_int; bin.type.bits = 32; bin.type.lanes = 1;
    bin.dimensions = 1; bin.dim = &din;
    bout = bin; bout.host = (uint8_t *)out; bout.dim = &dout;
    for (int i = 0; i < 16; i++) in[i] = i * i;
    halide_set_error_handler(on_error);
    if (blurx(&bin, 5, &bout) != 0) return 1;
    for (int i = 0; i < 10; i++) printf("%d ", out[i]);
    printf("\n");
    bout.host = (uint8_t *)out2;
    int r = blurx(&bin, -1, &bout);  /* hlx_scale refuses a negative factor */
    printf("rc=%d errors=%d\n", r, errors);
    return 0;
}
"""

SCALE_C = r"""
#include <stdint.h>
#include <stddef.h>
typedef struct { int32_t min, extent, stride; uint32_t flags; } dim_t;
typedef struct { uint64_t device; void *device_interface; uint8_t *host; uint64_t flags; uint32_t type;
                 int32_t dimensions; dim_t *dim; void *padding; } buf_t;
/* out(x) = in(x + 1) * k (-5 for a negative k); the input is the function's own: the query asks nothing */
int hlx_scale(buf_t *in, int32_t k, buf_t *out) {
    if (out->host == NULL) return 0;
    if (k < 0) return -5;
    for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
        ((int32_t *)out->host)[(x - out->dim[0].min) * out->dim[0].stride] =
            ((int32_t *)in->host)[(x + 1 - in->dim[0].min) * in->dim[0].stride] * k;
    return 0;
}
"""


def test_aot_calls_the_extern_symbol(tmp_path):
    x = hl.Var("x")
    im = hl.ImageParam(hl.Int(32), 1, "im")
    k = hl.Param(hl.Int(32), "k")
    e = hl.Func("e")
    e.define_extern("hlx_scale", [im, k], hl.Int(32), 1)
    e.compute_root()
    g = hl.Func("blurx")
    g[x] = e[x] + e[x + 2]
    g.set_estimates([(0, 10)])
    im.set_estimates([(0, 16)])
    g.compile_to_static_library(str(tmp_path / "blurx"), [im, k], "blurx")
    (tmp_path / "main.c").write_text(AOT_MAIN)
    (tmp_path / "scale.c").write_text(SCALE_C)
    exe = tmp_path / "main"
    cc = os.environ.get("CC", "cc")
    r = subprocess.run(
        [cc, "-I", str(tmp_path), str(tmp_path / "main.c"), str(tmp_path / "scale.c"), str(tmp_path / "blurx.a"),
         "-lm", "-lpthread", "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    sq = np.arange(16) ** 2
    assert [int(v) for v in lines[0].split()] == [int(5 * sq[i + 1] + 5 * sq[i + 3]) for i in range(10)]
    assert lines[1] == "rc=-5 errors=1"
    assert "Call to external stage hlx_scale returned non-zero value: -5" in run.stderr


@BOTH
def test_defined_func_and_update_refused(mod):
    m = importlib.import_module(mod)
    x = m.Var("x")
    f = m.Func("f")
    f[x] = x
    with pytest.raises(m.HalideError, match="Func with a pure definition cannot have an extern definition"):
        f.define_extern("hlx_box", [m.Expr(1)], m.Int(32), 1)


def test_update_of_an_extern_refused():
    x = hl.Var("x")
    e = hl.Func("e")
    e.define_extern("hlx_box", [hl.Expr(1)], hl.Int(32), [x])
    with pytest.raises(hl.HalideError, match="defined by define_extern and can't be updated"):
        e[x] = e[x] + 1
