"""``compile_to_c`` of pipelines without estimates (halide_mlir/aot/c_source.py on aot/anysize.py's kernels): C
source that accepts buffers of any size, as the object does. Each file is compiled by cc and by c++, called through
ctypes at several sizes (odd ones, 1x1, other mins, a crop of a bigger buffer) and checked against real Halide 21;
a pipeline with estimates writes both kernels and dispatches on the sizes."""
import ctypes
import os
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import halide_mlir as hl
from test_aot_any_size import (ERRORS, _HANDLER, blur3, brighten, exterior, hbuf, mirrors, ramp, rdom_updates,
                               reference, stencil, volume)

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="needs a C compiler")

COMPILERS = ["cc", "c++"]


def c_library(tmp_path, f, args, fn_name, compiler):
    """``f``'s C source (a ``.cpp`` for c++, as Halide's compile_to.py names it), compiled by ``compiler`` into a
    shared library loaded with ctypes."""
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    src = tmp_path / (f"{fn_name}.cpp" if compiler == "c++" else f"{fn_name}.c")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hl.CSourceWarning)
        f.compile_to_c(str(src), args, fn_name)
    so = tmp_path / f"{fn_name}_{compiler}.so"
    r = subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-Wall", "-Werror=implicit-function-declaration",
                        str(src), "-o", str(so), "-lpthread", "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    lib = ctypes.CDLL(str(so))
    lib.halide_set_error_handler(_HANDLER)  # (the default handler aborts)
    return getattr(lib, fn_name), src.read_text()


CASES = [(1, 1, (0, 0), False), (13, 17, (0, 0), False), (7, 130, (0, 0), False), (9, 21, (-3, 5), False),
         (33, 40, (2, -1), True)]


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("make,dtype,halo", [(brighten, np.uint8, (0, 0, 0, 0)), (blur3, np.uint16, None),
                                             (stencil, np.float32, (1, 1, 1, 3)), (exterior, np.int16, None),
                                             (mirrors, np.float32, None)])
def test_c_source_any_size_matches_halide(tmp_path, make, dtype, halo, compiler):
    """brighten: a Param, vectorize + parallel; blur3: repeat_edge, compute_root, split; stencil: tile, reorder,
    vectorize, unroll, a float Param, no boundary condition; exterior: constant_exterior, input.width(); mirrors:
    mirror_image / mirror_interior / repeat_image."""
    f, args = make(hl)
    fn, text = c_library(tmp_path, f, args, f"c_{make.__name__}", compiler)
    assert "__hl_c_" + make.__name__ + "_any_scalar(" in text
    rng = np.random.default_rng(1)
    params = {brighten: [23], stencil: [1.5]}.get(make, [])
    cparams = {brighten: [ctypes.c_uint8(23)], stencil: [ctypes.c_float(1.5)]}.get(make, [])
    lo_y, hi_y, lo_x, hi_x = halo or (0, 0, 0, 0)
    for h, w, (mx, my), crop in CASES:
        ih, iw = h + lo_y + hi_y, w + lo_x + hi_x
        if crop:  # a crop of a bigger buffer: its strides as they are
            big = rng.integers(-500, 500, (ih + 9, iw + 13)).astype(dtype)
            a = big[4:4 + ih, 5:5 + iw]
        else:
            a = rng.integers(-500, 500, (ih, iw)).astype(dtype)
        in_mins = (mx - lo_x, my - lo_y)
        out = np.zeros((h, w), dtype)
        assert fn(ctypes.byref(hbuf(a, in_mins)), *cparams, ctypes.byref(hbuf(out, (mx, my)))) == 0
        want = reference(make, [a], params, (h, w), (mx, my), [in_mins], dtype)
        np.testing.assert_array_equal(out, want, err_msg=f"{make.__name__} {h}x{w} at {mx},{my}")
    if make is brighten:  # an input and an output whose dim 0 stride is not 1: copied by the wrapper
        a = (np.arange(20 * 30) % 251).astype(np.uint8).reshape(20, 30)
        view = a[:, ::2]
        out_t = np.zeros((15, 20), np.uint8).T
        assert fn(ctypes.byref(hbuf(view)), ctypes.c_uint8(9), ctypes.byref(hbuf(out_t))) == 0
        np.testing.assert_array_equal(out_t, view + 9)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_c_source_no_inputs_3d_updates_and_errors(tmp_path, compiler):
    """Halide's compile_to.py Func (no arguments), a 3-D pipeline, updates over a constant RDom (a compute_root
    producer: a temporary of run-time size, halide_malloc), a bounds query and a too-small input (-4)."""
    fn, text = c_library(tmp_path, *ramp(hl), "c_ramp", compiler)
    for n, m in [(1, 0), (37, -5), (1000, 3)]:
        out = np.zeros(n, np.int32)
        assert fn(ctypes.byref(hbuf(out, (m,)))) == 0
        np.testing.assert_array_equal(out, 100 * np.arange(m, m + n))
    fn, _ = c_library(tmp_path, *volume(hl), "c_vol", compiler)
    a = np.random.default_rng(2).integers(-100, 100, (3, 5, 19)).astype(np.int8)
    out = np.zeros((3, 5, 19), np.int8)
    assert fn(ctypes.byref(hbuf(a)), ctypes.c_int8(-4), ctypes.byref(hbuf(out))) == 0
    np.testing.assert_array_equal(out, reference(volume, [a], [-4], a.shape, (0, 0, 0), [(0, 0, 0)], np.int8))

    fn, text = c_library(tmp_path, *rdom_updates(hl), "c_upd", compiler)
    assert "__hl_c_source_malloc(" in text and "halide_free(NULL, " in text
    rng = np.random.default_rng(5)
    for h, w, crop in [(1, 1, False), (13, 17, False), (40, 70, True)]:
        # (small integers: every sum exact, so the C compiler's choice to contract a * b + c into an fma, as Halide's
        # LLVM does, can't change a value)
        big = rng.integers(-50, 50, (h + 4, w + 6)).astype(np.float32)
        a = big[1:h + 2, 3:w + 5] if crop else big[:h + 1, :w + 2]  # x in [-1, w], y in [0, h]
        out = np.zeros((h, w), np.float32)
        assert fn(ctypes.byref(hbuf(a, (-1, 0))), ctypes.c_float(1.5), ctypes.byref(hbuf(out))) == 0
        want = reference(rdom_updates, [a], [1.5], (h, w), (0, 0), [(-1, 0)], np.float32)
        np.testing.assert_array_equal(out, want)
    out = np.zeros((10, 20), np.float32)
    q = hbuf(np.zeros((1, 1), np.float32))
    q.host = None
    assert fn(ctypes.byref(q), ctypes.c_float(1), ctypes.byref(hbuf(out, (3, 4)))) == 0
    assert [(q.dim[d].min, q.dim[d].extent, q.dim[d].stride) for d in range(2)] == [(2, 22, 1), (4, 11, 22)]
    ERRORS.clear()
    small = np.zeros((4, 5), np.float32)
    assert fn(ctypes.byref(hbuf(small, (-1, 0))), ctypes.c_float(1.5), ctypes.byref(hbuf(np.zeros((4, 4),
                                                                                            np.float32)))) == -4
    assert ERRORS == ["Input buffer input is accessed at 4, which is beyond the max (3) in dimension 0"]


@pytest.mark.parametrize("compiler", COMPILERS)
def test_c_source_with_estimates_dispatches(tmp_path, compiler):
    """Estimates: the fixed-size kernel (arrays of static shape) for the compiled region, the any-size one
    (pointers) for other sizes, chosen as the object chooses."""
    f, args = blur3(hl)
    f.set_estimates([(0, 64), (0, 48)])
    args[0].set_estimates([(0, 64), (0, 48)])
    fn, text = c_library(tmp_path, f, args, "c_disp", compiler)
    assert re.search(r"static void __hl_c_disp_scalar\(int16_t \(\*__restrict v\d+\)\[64\]", text)
    assert re.search(r"static void __hl_c_disp_any_scalar\(.*int16_t\* __restrict v\d+", text)
    assert "return __hl_c_disp_fixed(" in text and "return __hl_c_disp_any(" in text
    rng = np.random.default_rng(4)
    for h, w in [(48, 64), (30, 101), (1, 1)]:
        a = rng.integers(0, 60000, (h, w)).astype(np.uint16)
        out = np.zeros((h, w), np.uint16)
        assert fn(ctypes.byref(hbuf(a)), ctypes.byref(hbuf(out))) == 0
        np.testing.assert_array_equal(out, reference(blur3, [a], [], (h, w), (0, 0), [(0, 0)], np.uint16))


def test_c_source_any_size_is_scalar_emitc_code(tmp_path):
    """The vectorize() and parallel() of the schedule run as serial scalar loops (a CSourceWarning); the kernel
    takes pointers, offsets, sizes and strides; no vector types, no OpenMP."""
    f, args = blur3(hl)
    with pytest.warns(hl.CSourceWarning, match="vectorize and parallel"):
        f.compile_to_c(str(tmp_path / "b.c"), args, "b")
    text = (tmp_path / "b.c").read_text()
    kernel = text[text.index("/* --- the kernel"):text.index("/* --- the function")]
    assert re.search(r"static void __hl_b_any_scalar\(size_t v\d+, .*int16_t\* __restrict v\d+, size_t v\d+", kernel)
    assert "for (size_t" in kernel and "__m" not in kernel and "__kmpc" not in kernel
    assert "int b(struct halide_buffer_t *_input_buffer, struct halide_buffer_t *_by_buffer)" in text
