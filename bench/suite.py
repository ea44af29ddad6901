"""The benchmarks: each written once as a function of the ``hl`` module (``halide`` or ``halide_mlir``).

A benchmark is

* ``inputs(scale) -> dict[str, np.ndarray]``: the numpy inputs; ``scale`` multiplies the linear sizes (1.0 is the
  size of issue 5, the smoke mode uses a small fraction). Inputs are made once and shared by both implementations.
* ``build(hl, inputs) -> (output_func, sizes)``: the algorithm *and* its schedule, in Halide's Python API only;
  ``sizes`` is what ``output_func.realize(sizes)`` is called with.
* ``flops(inputs, sizes)``: arithmetic operations per realize (float ops; ``0`` for integer pipelines, whose
  roofline is then the memory bound alone), and ``bytes`` moved: every input read once and the output written once.
* ``requires``: names that must exist in the ``hl`` module (e.g. ``RDom``); when halide_mlir lacks one, the
  benchmark is listed as skipped with ``skip_reason`` and its Halide version still defines what will be run.

No benchmark uses boundary conditions unless it ``requires`` them: inputs carry a margin instead, as in Halide's
blur app (the output is smaller than the input by the stencil's reach).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass
class Benchmark:
    name: str
    description: str
    inputs: Callable[[float], dict]
    build: Callable
    flops: Callable[[dict, list], float] = lambda ins, sizes: 0.0
    requires: tuple = ()
    skip_reason: str = ""
    float_output: bool = True
    rtol: float = 1e-4
    atol_rel: float = 1e-5  # absolute tolerance as a fraction of max |Halide output| (cancellation, e.g. Harris)
    int_atol: int = 0  # integer outputs computed from floats may differ by a rounding step
    # fraction of integer outputs allowed beyond int_atol: where a float is cast to an index (a LUT, a level),
    # a last-bit difference moves the index (Halide's simplifier reassociates float constants, x*c0*c1 ->
    # x*(c0*c1), and reorders sums; ours evaluates as written)
    int_outliers: float = 0.0

    def missing(self, hl) -> list[str]:
        return [name for name in self.requires if not hasattr(hl, name)]


def dim(n: int, scale: float, multiple: int = 64) -> int:
    """``n * scale`` rounded to a multiple of ``multiple`` (so schedules' splits divide it), at least one multiple."""
    return max(multiple, int(round(n * scale / multiple)) * multiple)


def _rng():
    return np.random.default_rng(1234)


def _vars(hl, names: str):
    return [hl.Var(n) for n in names.split()]


# ---------------------------------------------------------------- blur 3x3 f32 (tiled fusion) -----------------


def blur_f32_inputs(scale):
    h, w = dim(2048, scale), dim(3072, scale, 256)
    return {"input": _rng().random((h + 2, w + 2), dtype=np.float32)}


def blur_f32_build(hl, ins):
    inp = hl.Buffer(ins["input"], "input")
    x, y, xo, yo, xi, yi = _vars(hl, "x y xo yo xi yi")
    bx, out = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    out.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 16).parallel(yo)
    bx.compute_at(out, xo).vectorize(x, 16)
    h, w = ins["input"].shape
    return out, [w - 2, h - 2]


def blur_flops(ins, sizes):
    return 6.0 * sizes[0] * sizes[1]  # 2 adds + 1 divide per pass, two passes (recompute of the halo ignored)


# ---------------------------------------------------------------- blur u8 -> u16 -> u8 ------------------------


def blur_u8_inputs(scale):
    h, w = dim(2048, scale), dim(3072, scale, 256)
    return {"input": _rng().integers(0, 256, (h + 2, w + 2), dtype=np.uint8)}


def blur_u8_build(hl, ins):
    inp = hl.Buffer(ins["input"], "input")
    x, y, xo, yo, xi, yi = _vars(hl, "x y xo yo xi yi")
    bx, out = hl.Func("blur_x_u16"), hl.Func("blur_y_u8")
    bx[x, y] = hl.u16(inp[x, y]) + hl.u16(inp[x + 1, y]) + hl.u16(inp[x + 2, y])
    out[x, y] = hl.u8((bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 9)
    out.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 32).parallel(yo)
    bx.compute_at(out, xo).vectorize(x, 32)
    h, w = ins["input"].shape
    return out, [w - 2, h - 2]


# ---------------------------------------------------------------- unsharp mask --------------------------------


def unsharp_inputs(scale):
    h, w = dim(1536, scale, 32), dim(2560, scale)
    return {"input": (0.05 + 0.95 * _rng().random((3, h + 4, w + 4), dtype=np.float32)).astype(np.float32)}


def _gaussian_taps(sigma: float = 1.5, radius: int = 2) -> list[float]:
    return [math.exp(-i * i / (2 * sigma * sigma)) / (math.sqrt(2 * math.pi) * sigma) for i in range(radius + 1)]


def unsharp_build(hl, ins):
    """Halide's apps/unsharp (float RGB, gray → separable gaussian → sharpen → ratio → scale each channel) with a
    5-tap kernel; the input has a 2-pixel margin instead of repeat_edge. Schedule: the app's CPU schedule without
    the sliding window (gray is computed per strip of 32 rows, ``compute_at(output, yo)``, instead of
    ``store_at(output, yo).compute_at(output, yi)``)."""
    inp = hl.Buffer(ins["input"], "input")  # x, y, c
    x, y, c, yo, yi = _vars(hl, "x y c yo yi")
    k0, k1, k2 = _gaussian_taps()
    gray, blur_y, blur_x = hl.Func("gray"), hl.Func("blur_y"), hl.Func("blur_x")
    sharpen, ratio, out = hl.Func("sharpen"), hl.Func("ratio"), hl.Func("unsharp")
    gray[x, y] = 0.299 * inp[x, y, 0] + 0.587 * inp[x, y, 1] + 0.114 * inp[x, y, 2]
    blur_y[x, y] = k0 * gray[x, y + 2] + k1 * (gray[x, y + 1] + gray[x, y + 3]) + k2 * (gray[x, y] + gray[x, y + 4])
    blur_x[x, y] = (
        k0 * blur_y[x + 2, y] + k1 * (blur_y[x + 1, y] + blur_y[x + 3, y]) + k2 * (blur_y[x, y] + blur_y[x + 4, y])
    )
    sharpen[x, y] = 2 * gray[x + 2, y + 2] - blur_x[x, y]
    ratio[x, y] = sharpen[x, y] / gray[x + 2, y + 2]
    out[x, y, c] = ratio[x, y] * inp[x + 2, y + 2, c]

    out.split(y, yo, yi, 32).vectorize(x, 16).parallel(yo).reorder(x, c, yi, yo)
    gray.compute_at(out, yo).vectorize(x, 16)
    blur_y.compute_at(out, yi).vectorize(x, 16)
    ratio.compute_at(out, yi).vectorize(x, 16)
    _, h, w = ins["input"].shape
    return out, [w - 4, h - 4, 3]


def unsharp_flops(ins, sizes):
    return 27.0 * sizes[0] * sizes[1]


# ---------------------------------------------------------------- Harris corners ------------------------------


def harris_inputs(scale):
    h, w = dim(1536, scale, 32), dim(2560, scale)
    return {"input": _rng().random((3, h + 4, w + 4), dtype=np.float32)}


def harris_build(hl, ins):
    """Halide's apps/harris: gray, Ix/Iy (3x3 Sobel / 12), Ixx/Iyy/Ixy, 3x3 box sums, det - 0.04 trace^2. The input
    has a 2-pixel margin instead of repeat_edge; the 3x3 sums are written out (pure) instead of with an RDom.
    Schedule: the app's CPU schedule with compute_at(output, yo) (per strip of 32 rows) in place of its sliding
    windows ``store_at(output, y).compute_at(output, yi)``; no compute_with."""
    inp = hl.Buffer(ins["input"], "input")
    x, y, yo, yi = _vars(hl, "x y yo yi")
    gray, ix, iy = hl.Func("gray"), hl.Func("Ix"), hl.Func("Iy")
    ixx, iyy, ixy = hl.Func("Ixx"), hl.Func("Iyy"), hl.Func("Ixy")
    sxx, syy, sxy = hl.Func("Sxx"), hl.Func("Syy"), hl.Func("Sxy")
    det, trace, out = hl.Func("det"), hl.Func("trace"), hl.Func("harris")
    gray[x, y] = 0.299 * inp[x, y, 0] + 0.587 * inp[x, y, 1] + 0.114 * inp[x, y, 2]
    # Ix, Iy at (x, y) are centred on gray (x + 1, y + 1)
    iy[x, y] = (
        gray[x, y] * (-1.0 / 12)
        + gray[x, y + 2] * (1.0 / 12)
        + gray[x + 1, y] * (-2.0 / 12)
        + gray[x + 1, y + 2] * (2.0 / 12)
        + gray[x + 2, y] * (-1.0 / 12)
        + gray[x + 2, y + 2] * (1.0 / 12)
    )
    ix[x, y] = (
        gray[x, y] * (-1.0 / 12)
        + gray[x + 2, y] * (1.0 / 12)
        + gray[x, y + 1] * (-2.0 / 12)
        + gray[x + 2, y + 1] * (2.0 / 12)
        + gray[x, y + 2] * (-1.0 / 12)
        + gray[x + 2, y + 2] * (1.0 / 12)
    )
    ixx[x, y] = ix[x, y] * ix[x, y]
    iyy[x, y] = iy[x, y] * iy[x, y]
    ixy[x, y] = ix[x, y] * iy[x, y]

    def box(f):
        e = f[x, y]
        for j in range(3):
            for i in range(3):
                if i or j:
                    e = e + f[x + i, y + j]
        return e

    sxx[x, y] = box(ixx)
    syy[x, y] = box(iyy)
    sxy[x, y] = box(ixy)
    det[x, y] = sxx[x, y] * syy[x, y] - sxy[x, y] * sxy[x, y]
    trace[x, y] = sxx[x, y] + syy[x, y]
    out[x, y] = det[x, y] - 0.04 * trace[x, y] * trace[x, y]

    out.split(y, yo, yi, 32).parallel(yo).vectorize(x, 16)
    gray.compute_at(out, yo).vectorize(x, 16)
    ix.compute_at(out, yo).vectorize(x, 16)
    iy.compute_at(out, yo).vectorize(x, 16)
    _, h, w = ins["input"].shape
    return out, [w - 4, h - 4]


def harris_flops(ins, sizes):
    return 61.0 * sizes[0] * sizes[1]


# ---------------------------------------------------------------- lesson 8 --------------------------------------


def lesson8_inputs(scale):
    return {"size": np.array([dim(2048, scale), dim(2048, scale)])}


def _lesson8_algorithm(hl):
    x, y = hl.Var("x"), hl.Var("y")
    producer, consumer = hl.Func("producer"), hl.Func("consumer")
    producer[x, y] = hl.sqrt(x * y)
    consumer[x, y] = producer[x, y] + producer[x, y + 1] + producer[x + 1, y] + producer[x + 1, y + 1]
    return producer, consumer, x, y


def lesson8_mixed_build(hl, ins):
    """Tutorial lesson 8's "mixed" schedule, verbatim (sliding window: store_at yo, compute_at yi)."""
    producer, consumer, x, y = _lesson8_algorithm(hl)
    yo, yi = hl.Var("yo"), hl.Var("yi")
    consumer.split(y, yo, yi, 16)
    consumer.parallel(yo)
    consumer.vectorize(x, 4)
    producer.store_at(consumer, yo)
    producer.compute_at(consumer, yi)
    producer.vectorize(x, 4)
    return consumer, [int(v) for v in ins["size"]]


def lesson8_compute_at_build(hl, ins):
    """Lesson 8's mixed schedule without the sliding window (producer recomputed per row, no store_at), 16 wide."""
    producer, consumer, x, y = _lesson8_algorithm(hl)
    yo, yi = hl.Var("yo"), hl.Var("yi")
    consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 16)
    producer.compute_at(consumer, yi).vectorize(x, 16)
    return consumer, [int(v) for v in ins["size"]]


def lesson8_flops(ins, sizes):
    return 5.0 * sizes[0] * sizes[1]


# ---------------------------------------------------------------- colour conversion -------------------------


def rgb_to_gray_inputs(scale):
    h, w = dim(4096, scale, 32), dim(4096, scale)
    return {"input": _rng().integers(0, 256, (3, h, w), dtype=np.uint8)}


def rgb_to_gray_build(hl, ins):
    """u8 planar RGB → u8 gray, fixed point (77 R + 150 G + 29 B + 128) >> 8 in u16."""
    inp = hl.Buffer(ins["input"], "input")
    x, y, yo, yi = _vars(hl, "x y yo yi")
    gray = hl.Func("gray")
    gray[x, y] = hl.u8((hl.u16(inp[x, y, 0]) * 77 + hl.u16(inp[x, y, 1]) * 150 + hl.u16(inp[x, y, 2]) * 29 + 128) >> 8)
    gray.split(y, yo, yi, 32).parallel(yo).vectorize(x, 64)
    _, h, w = ins["input"].shape
    return gray, [w, h]


# ---------------------------------------------------------------- reductions (need RDom) --------------------


def matmul_inputs(scale):
    n = dim(1024, scale, 64)
    r = _rng()
    return {"A": r.random((n, n), dtype=np.float32) - 0.5, "B": r.random((n, n), dtype=np.float32) - 0.5}


def matmul_build(hl, ins):
    """C = A B (numpy a[row, k]); Halide's test/performance/matrix_multiplication.cpp schedule, 16 lanes."""
    a, b = hl.Buffer(ins["A"], "A"), hl.Buffer(ins["B"], "B")  # A(k, y), B(x, k)
    n = ins["A"].shape[0]
    x, y, xi, yi, yii, t = _vars(hl, "x y xi yi yii t")
    r = hl.RDom([hl.Range(0, n)])
    prod, out = hl.Func("prod"), hl.Func("matmul")
    prod[x, y] = hl.f32(0)
    prod[x, y] += a[r.x, y] * b[x, r.x]
    out[x, y] = prod[x, y]
    out.tile(x, y, xi, yi, 32, 32).fuse(x, y, t).parallel(t)
    out.split(yi, yi, yii, 4).vectorize(xi, 16).unroll(xi).unroll(yii)
    prod.compute_at(out, yi).vectorize(x, 16).unroll(y)
    prod.update().reorder(x, y, r.x).vectorize(x, 16).unroll(x).unroll(y)
    return out, [n, n]


def matmul_flops(ins, sizes):
    return 2.0 * ins["A"].shape[0] * sizes[0] * sizes[1]


def hist_eq_inputs(scale):
    h, w = dim(2048, scale), dim(3072, scale)
    r = _rng()
    # a low-contrast image so equalization does something
    return {"input": (r.normal(100, 20, (h, w)).clip(0, 255)).astype(np.uint8)}


def hist_eq_build(hl, ins):
    """Histogram (scatter reduction), cumulative sum (scan), then a per-pixel lookup."""
    inp = hl.Buffer(ins["input"], "input")
    h, w = ins["input"].shape
    x, y, i, yo, yi = _vars(hl, "x y i yo yi")
    r = hl.RDom([hl.Range(0, w), hl.Range(0, h)])
    hist, cdf, out = hl.Func("hist"), hl.Func("cdf"), hl.Func("equalized")
    hist[i] = 0
    hist[hl.i32(inp[r.x, r.y])] += 1
    rc = hl.RDom([hl.Range(1, 255)])
    cdf[i] = hist[i]
    cdf[rc.x] = cdf[rc.x - 1] + hist[rc.x]
    out[x, y] = hl.u8(hl.clamp(cdf[hl.i32(inp[x, y])] * 255 / (w * h), 0, 255))
    hist.compute_root()
    cdf.compute_root()
    out.split(y, yo, yi, 32).parallel(yo).vectorize(x, 16)
    return out, [w, h]


CONV = dict(N=5, CI=128, CO=128, W=100, H=80)


def conv_inputs(scale):
    c = CONV
    n = max(1, int(round(c["N"] * scale)))
    r = _rng()
    return {
        "input": r.random((n, c["H"] + 2, c["W"] + 2, c["CI"]), dtype=np.float32) - 0.5,  # (c, x, y, n)
        "filter": r.random((c["CI"], 3, 3, c["CO"]), dtype=np.float32) - 0.5,  # (co, kx, ky, ci)
        "bias": r.random((c["CO"],), dtype=np.float32),
    }


def conv_build(hl, ins):
    """Halide's apps/conv_layer (3x3, ReLU) at MLIR's transform tutorial (Chapter H) sizes, with the app's AVX-512
    schedule (4x5 register tile of 16-lane accumulators); the ``filter.in()``/``input.in()`` wrappers are left out."""
    inp, filt, bias = (hl.Buffer(ins[k], k) for k in ("input", "filter", "bias"))
    ci_n = ins["input"].shape[3]
    c, x, y, n, co, ci, xo, xi = _vars(hl, "c x y n co ci xo xi")
    r = hl.RDom([hl.Range(0, ci_n), hl.Range(0, 3), hl.Range(0, 3)])
    conv, relu = hl.Func("conv"), hl.Func("relu")
    conv[c, x, y, n] = bias[c]
    conv[c, x, y, n] += filt[c, r.y, r.z, r.x] * inp[r.x, x + r.y, y + r.z, n]
    relu[c, x, y, n] = hl.max(0, conv[c, x, y, n])
    vec, tile_w, tile_h = 16, 4, 5
    relu.split(c, co, ci, vec * tile_w).split(x, xo, xi, tile_h).reorder(ci, xi, xo, y, n, co)
    relu.vectorize(ci, vec).unroll(ci).unroll(xi).parallel(y).parallel(n).parallel(co)
    conv.compute_at(relu, xo).vectorize(c, vec).unroll(c).unroll(x).unroll(y)
    conv.update().reorder(c, x, y, r.x, r.y, r.z, n).vectorize(c, vec).unroll(c).unroll(x).unroll(y).unroll(r.x, 2)
    nb, hh, ww, _ = ins["input"].shape
    return relu, [ins["filter"].shape[3], ww - 2, hh - 2, nb]


def conv_flops(ins, sizes):
    co, w, h, n = sizes
    return 2.0 * co * w * h * n * ins["input"].shape[3] * 9


def local_laplacian_inputs(scale):
    h, w = dim(1536, scale, 128), dim(2560, scale, 128)
    return {"input": _rng().integers(0, 65536, (3, h, w), dtype=np.uint16)}


def local_laplacian_build(hl, ins):
    """Halide's apps/local_laplacian (J = 8 pyramid levels, 8 intensity levels, alpha = beta = 1), with the app's
    CPU schedule (sliding windows: outGPyramid[j] store_at(output, yo).compute_at(output, y).fold_storage(y, 4))."""
    J, levels, alpha, beta = 8, 8, 1.0, 1.0
    inp = hl.Buffer(ins["input"], "input")
    x, y, c, k, yo = _vars(hl, "x y c k yo")

    def downsample(f):
        dx, dy = hl.Func(), hl.Func()
        dx[x, y, k] = (f[2 * x - 1, y, k] + 3.0 * (f[2 * x, y, k] + f[2 * x + 1, y, k]) + f[2 * x + 2, y, k]) / 8.0
        dy[x, y, k] = (dx[x, 2 * y - 1, k] + 3.0 * (dx[x, 2 * y, k] + dx[x, 2 * y + 1, k]) + dx[x, 2 * y + 2, k]) / 8.0
        return dy

    def upsample(f):
        ux, uy = hl.Func(), hl.Func()
        ux[x, y, k] = 0.25 * f[(x // 2) - 1 + 2 * (x % 2), y, k] + 0.75 * f[x // 2, y, k]
        uy[x, y, k] = 0.25 * ux[x, (y // 2) - 1 + 2 * (y % 2), k] + 0.75 * ux[x, y // 2, k]
        return uy

    def downsample2(f):
        dx, dy = hl.Func(), hl.Func()
        dx[x, y] = (f[2 * x - 1, y] + 3.0 * (f[2 * x, y] + f[2 * x + 1, y]) + f[2 * x + 2, y]) / 8.0
        dy[x, y] = (dx[x, 2 * y - 1] + 3.0 * (dx[x, 2 * y] + dx[x, 2 * y + 1]) + dx[x, 2 * y + 2]) / 8.0
        return dy

    def upsample2(f):
        ux, uy = hl.Func(), hl.Func()
        ux[x, y] = 0.25 * f[(x // 2) - 1 + 2 * (x % 2), y] + 0.75 * f[x // 2, y]
        uy[x, y] = 0.25 * ux[x, (y // 2) - 1 + 2 * (y % 2)] + 0.75 * ux[x, y // 2]
        return uy

    floating = hl.Func("floating")
    floating[x, y, c] = hl.f32(inp[x, y, c]) / 65535.0
    clamped = hl.BoundaryConditions.repeat_edge(
        floating, [hl.Range(0, inp.width()), hl.Range(0, inp.height()), hl.Range(0, 3)]
    )
    gray = hl.Func("gray")
    gray[x, y] = 0.299 * clamped[x, y, 0] + 0.587 * clamped[x, y, 1] + 0.114 * clamped[x, y, 2]
    remap = hl.Func("remap")
    fx = hl.f32(x) / 256.0
    remap[x] = alpha * fx * hl.exp(-fx * fx / 2.0)

    g_pyr = [hl.Func(f"gPyramid{j}") for j in range(J)]
    level = k * (1.0 / (levels - 1))
    idx = hl.clamp(hl.i32(gray[x, y] * float(levels - 1) * 256.0), 0, (levels - 1) * 256)
    g_pyr[0][x, y, k] = beta * (gray[x, y] - level) + level + remap[idx - 256 * k]
    for j in range(1, J):
        g_pyr[j][x, y, k] = downsample(g_pyr[j - 1])[x, y, k]
    l_pyr = [hl.Func(f"lPyramid{j}") for j in range(J)]
    l_pyr[J - 1][x, y, k] = g_pyr[J - 1][x, y, k]
    for j in range(J - 2, -1, -1):
        l_pyr[j][x, y, k] = g_pyr[j][x, y, k] - upsample(g_pyr[j + 1])[x, y, k]
    in_g = [hl.Func(f"inGPyramid{j}") for j in range(J)]
    in_g[0][x, y] = gray[x, y]
    for j in range(1, J):
        in_g[j][x, y] = downsample2(in_g[j - 1])[x, y]
    out_l = [hl.Func(f"outLPyramid{j}") for j in range(J)]
    for j in range(J):
        lv = in_g[j][x, y] * float(levels - 1)
        li = hl.clamp(hl.i32(lv), 0, levels - 2)
        lf = lv - hl.f32(li)
        out_l[j][x, y] = (1.0 - lf) * l_pyr[j][x, y, li] + lf * l_pyr[j][x, y, li + 1]
    out_g = [hl.Func(f"outGPyramid{j}") for j in range(J)]
    out_g[J - 1][x, y] = out_l[J - 1][x, y]
    for j in range(J - 2, -1, -1):
        out_g[j][x, y] = upsample2(out_g[j + 1])[x, y] + out_l[j][x, y]
    color, out = hl.Func("color"), hl.Func("local_laplacian")
    eps = 0.01
    color[x, y, c] = out_g[0][x, y] * (clamped[x, y, c] + eps) / (gray[x, y] + eps)
    out[x, y, c] = hl.u16(hl.clamp(color[x, y, c], 0.0, 1.0) * 65535.0)

    remap.compute_root()
    out.reorder(c, x, y).split(y, yo, y, 64).parallel(yo).vectorize(x, 8)
    gray.compute_root().parallel(y, 32).vectorize(x, 8)
    for j in range(1, 5):
        in_g[j].compute_root().parallel(y, 32).vectorize(x, 8)
        g_pyr[j].compute_root().reorder_storage(x, k, y).reorder(k, y).parallel(y, 8).vectorize(x, 8)
        out_g[j].store_at(out, yo).compute_at(out, y).fold_storage(y, 4).vectorize(x, 8)
    out_g[0].compute_at(out, y).vectorize(x, 8)
    for j in range(5, J):
        in_g[j].compute_root()
        g_pyr[j].compute_root().parallel(k)
        out_g[j].compute_root()
    _, h, w = ins["input"].shape
    return out, [w, h, 3]


RDOM = ("RDom", "Range")
RDOM_REASON = "needs RDom (issue 4)"

BENCHMARKS = [
    Benchmark("blur_f32", "blur 3x3 f32, tiled fusion 256x32", blur_f32_inputs, blur_f32_build, blur_flops),
    Benchmark(
        "blur_u8", "blur 3x3 u8->u16->u8, tiled fusion 256x32", blur_u8_inputs, blur_u8_build, float_output=False
    ),
    Benchmark("unsharp", "unsharp mask, RGB f32, 5-tap gaussian", unsharp_inputs, unsharp_build, unsharp_flops),
    Benchmark("harris", "Harris corners, RGB f32", harris_inputs, harris_build, harris_flops, atol_rel=1e-4),
    Benchmark(
        "lesson8_mixed",
        "lesson 8 mixed (store_at yo, compute_at yi)",
        lesson8_inputs,
        lesson8_mixed_build,
        lesson8_flops,
    ),
    Benchmark(
        "lesson8_compute_at",
        "lesson 8 mixed without store_at, 16 wide",
        lesson8_inputs,
        lesson8_compute_at_build,
        lesson8_flops,
    ),
    Benchmark(
        "rgb_to_gray", "u8 planar RGB -> gray 4096x4096", rgb_to_gray_inputs, rgb_to_gray_build, float_output=False
    ),
    Benchmark(
        "matmul",
        "matmul 1024^3 f32",
        matmul_inputs,
        matmul_build,
        matmul_flops,
        requires=RDOM,
        skip_reason=RDOM_REASON,
        atol_rel=1e-4,
    ),
    Benchmark(
        "hist_eq",
        "histogram equalization u8",
        hist_eq_inputs,
        hist_eq_build,
        requires=RDOM,
        skip_reason=RDOM_REASON,
        float_output=False,
    ),
    Benchmark(
        "conv_layer",
        "conv 3x3 + ReLU, N5 CI=CO=128 100x80",
        conv_inputs,
        conv_build,
        conv_flops,
        requires=RDOM,
        skip_reason=RDOM_REASON,
        atol_rel=1e-4,
    ),
    Benchmark(
        "local_laplacian",
        "local laplacian, 8 levels, u16 RGB",
        local_laplacian_inputs,
        local_laplacian_build,
        requires=("BoundaryConditions", "Range"),
        skip_reason="needs BoundaryConditions.repeat_edge (no RDom needed)",
        float_output=False,
        int_atol=1,
        int_outliers=1e-3,
    ),
]

BY_NAME = {b.name: b for b in BENCHMARKS}
