"""Halide's apps of other shapes (issue 20's broader suite): a 3-D grid with a scatter, a pyramid with upsampling,
a many-stage camera pipeline with LUTs, scans, a large max filter, non-local means and a long stencil chain.

Each is written once against the ``hl`` module from the algorithm of the Halide app of the same name, with the
app's CPU schedule (AVX-512 vector widths: 16 f32 lanes, 32 u16 lanes). Where halide_mlir refuses a directive
the published schedule uses, the nearest schedule it supports is used by *both* implementations and the
benchmark's docstring says what was changed. Scalar parameters of the apps (``r_sigma``, ``alpha``, ...) are
Python constants. Sizes are the apps' own (1536x2560) or smaller where a 2-core run would take too long.
"""

from __future__ import annotations

import math

import numpy as np

from .suite import Benchmark, _rng, _vars, dim

F32_VEC, U16_VEC = 16, 32


# ---------------------------------------------------------------- bilateral grid ------------------------------


def bilateral_grid_inputs(scale):
    h, w = dim(2560, scale), dim(1536, scale)
    return {"input": _rng().random((h, w), dtype=np.float32)}


def bilateral_grid_build(hl, ins):
    """apps/bilateral_grid (s_sigma = 8, r_sigma = 0.1): a 3-D histogram built by a scatter over an 8x8 RDom, three
    5-tap blurs of the grid, a trilinear gather per output pixel. The app's CPU schedule, unchanged."""
    s_sigma, r_sigma = 8, 0.1
    inp = hl.Buffer(ins["input"], "input")
    x, y, z, c = _vars(hl, "x y z c")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    r = hl.RDom([hl.Range(0, s_sigma), hl.Range(0, s_sigma)])
    val = clamped[x * s_sigma + r.x - s_sigma // 2, y * s_sigma + r.y - s_sigma // 2]
    val = hl.clamp(val, 0.0, 1.0)
    zi = hl.i32(val * (1.0 / r_sigma) + 0.5)
    histogram = hl.Func("histogram")
    histogram[x, y, z, c] = hl.f32(0)
    histogram[x, y, zi, c] += hl.mux(c, [val, hl.f32(1)])
    blurz, blurx, blury = hl.Func("blurz"), hl.Func("blurx"), hl.Func("blury")
    blurz[x, y, z, c] = (
        histogram[x, y, z - 2, c]
        + histogram[x, y, z - 1, c] * 4
        + histogram[x, y, z, c] * 6
        + histogram[x, y, z + 1, c] * 4
        + histogram[x, y, z + 2, c]
    )
    blurx[x, y, z, c] = (
        blurz[x - 2, y, z, c]
        + blurz[x - 1, y, z, c] * 4
        + blurz[x, y, z, c] * 6
        + blurz[x + 1, y, z, c] * 4
        + blurz[x + 2, y, z, c]
    )
    blury[x, y, z, c] = (
        blurx[x, y - 2, z, c]
        + blurx[x, y - 1, z, c] * 4
        + blurx[x, y, z, c] * 6
        + blurx[x, y + 1, z, c] * 4
        + blurx[x, y + 2, z, c]
    )
    v = hl.clamp(clamped[x, y], 0.0, 1.0)
    zv = v * (1.0 / r_sigma)
    zi2 = hl.i32(zv)
    zf = zv - zi2
    xf = hl.f32(x % s_sigma) / s_sigma
    yf = hl.f32(y % s_sigma) / s_sigma
    xi, yi = x // s_sigma, y // s_sigma
    interpolated, out = hl.Func("interpolated"), hl.Func("bilateral_grid")
    interpolated[x, y, c] = hl.lerp(
        hl.lerp(
            hl.lerp(blury[xi, yi, zi2, c], blury[xi + 1, yi, zi2, c], xf),
            hl.lerp(blury[xi, yi + 1, zi2, c], blury[xi + 1, yi + 1, zi2, c], xf),
            yf,
        ),
        hl.lerp(
            hl.lerp(blury[xi, yi, zi2 + 1, c], blury[xi + 1, yi, zi2 + 1, c], xf),
            hl.lerp(blury[xi, yi + 1, zi2 + 1, c], blury[xi + 1, yi + 1, zi2 + 1, c], xf),
            yf,
        ),
        zf,
    )
    out[x, y] = interpolated[x, y, 0] / interpolated[x, y, 1]

    blurz.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, 8).unroll(c)
    histogram.compute_at(blurz, y)
    histogram.update().reorder(c, r.x, r.y, x, y).unroll(c)
    blurx.compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 8).unroll(c)
    blury.compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 8).unroll(c)
    out.compute_root().parallel(y).vectorize(x, 8)
    h, w = ins["input"].shape
    return out, [w, h]


def bilateral_grid_flops(ins, sizes):
    return 40.0 * sizes[0] * sizes[1]


# ---------------------------------------------------------------- interpolate ---------------------------------


def interpolate_inputs(scale):
    h, w = dim(2560, scale), dim(1536, scale)
    r = _rng()
    rgba = r.random((4, h, w), dtype=np.float32)
    rgba[3] = np.where(r.random((h, w)) < 0.9, 0.0, rgba[3] + 0.05).astype(np.float32)  # sparse known pixels
    return {"input": rgba}


def interpolate_build(hl, ins):
    """apps/interpolate (10 levels): premultiplied RGBA downsampled to a pyramid, then upsampled and blended back
    (the clamp at level 4 as in the app). The app's CPU schedule, unchanged (downsampled[0] cloned into downx[1]
    as a sliding window, every interpolated level a sliding window in the output's strips)."""
    levels, vec = 10, F32_VEC
    inp = hl.Buffer(ins["input"], "input")
    x, y, c, xo, xi, yo, yi = _vars(hl, "x y c xo xi yo yi")
    downsampled = [hl.Func(f"downsampled_{i}") for i in range(levels)]
    downx = [hl.Func(f"downx_{i}") for i in range(levels)]
    interpolated = [hl.Func(f"interpolated_{i}") for i in range(levels)]
    upsampled = [hl.Func(f"upsampled_{i}") for i in range(levels)]
    upsampledx = [hl.Func(f"upsampledx_{i}") for i in range(levels)]
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    downsampled[0][x, y, c] = hl.select(c < 3, clamped[x, y, c] * clamped[x, y, 3], clamped[x, y, 3])
    for lv in range(1, levels):
        prev = downsampled[lv - 1]
        if lv == 4:
            w = inp.width() // (1 << (lv - 1))
            h = inp.height() // (1 << (lv - 1))
            prev = hl.lambda_func(x, y, c, prev[hl.clamp(x, 0, w), hl.clamp(y, 0, h), c])
        downx[lv][x, y, c] = (prev[x * 2 - 1, y, c] + 2 * prev[x * 2, y, c] + prev[x * 2 + 1, y, c]) * 0.25
        downsampled[lv][x, y, c] = (
            downx[lv][x, y * 2 - 1, c] + 2 * downx[lv][x, y * 2, c] + downx[lv][x, y * 2 + 1, c]
        ) * 0.25
    interpolated[levels - 1][x, y, c] = downsampled[levels - 1][x, y, c]
    for lv in range(levels - 2, -1, -1):
        upsampledx[lv][x, y, c] = (interpolated[lv + 1][x // 2, y, c] + interpolated[lv + 1][(x + 1) // 2, y, c]) / 2
        upsampled[lv][x, y, c] = (upsampledx[lv][x, y // 2, c] + upsampledx[lv][x, (y + 1) // 2, c]) / 2
        alpha = 1.0 - downsampled[lv][x, y, 3]
        interpolated[lv][x, y, c] = downsampled[lv][x, y, c] + alpha * upsampled[lv][x, y, c]
    out = hl.Func("interpolate")
    out[x, y, c] = interpolated[0][x, y, c] / interpolated[0][x, y, 3]

    for lv in range(1, levels - 1):
        downsampled[lv].compute_root().reorder(x, c, y).split(y, yo, yi, 8).parallel(yo).vectorize(x, vec)
    (
        downsampled[0]
        .clone_in(downx[1])
        .store_at(downsampled[1], yo)
        .compute_at(downsampled[1], yi)
        .reorder(c, x, y)
        .unroll(c)
        .vectorize(x, vec)
    )
    _, hh, ww = ins["input"].shape
    (
        out.bound(x, 0, ww)
        .bound(y, 0, hh)
        .bound(c, 0, 3)
        .split(x, xo, xi, vec)
        .split(y, yo, yi, 32)
        .reorder(xi, c, xo, yi, yo)
        .unroll(c)
        .vectorize(xi)
        .parallel(yo)
    )
    for lv in range(1, levels):
        interpolated[lv].store_at(out, yo).compute_at(out, yi).vectorize(x, vec)
    return out, [ww, hh, 3]


# ---------------------------------------------------------------- camera pipe ---------------------------------


def camera_pipe_inputs(scale):
    h, w = dim(1920, scale, 32) + 24, dim(2560, scale) + 32
    r = _rng()
    m3200 = np.array(
        [
            [1.6697, -0.2693, -0.4004, -42.4346],
            [-0.3576, 1.0615, 1.5949, -37.1158],
            [-0.2175, -1.8751, 6.9640, -26.6970],
        ],
        dtype=np.float32,
    )
    m7000 = np.array(
        [
            [2.2997, -0.4478, 0.1706, -39.0923],
            [-0.3826, 1.5906, -0.2080, -25.4311],
            [-0.0888, -0.7344, 2.2832, -20.0826],
        ],
        dtype=np.float32,
    )
    return {"input": r.integers(0, 1024, (h, w), dtype=np.uint16), "matrix_3200": m3200, "matrix_7000": m7000}


def camera_pipe_build(hl, ins):
    """apps/camera_pipe: hot-pixel suppression, deinterleave, demosaic (edge-directed green, corrected red/blue),
    a 3x4 colour matrix interpolated by colour temperature, a tone-curve LUT (gamma, contrast) and a sharpen, u16
    raw in, u8 RGB out. The app's CPU schedule with three directives halide_mlir refuses left out (for both):
    ``prefetch`` of the input, ``compute_with`` of the two green intermediates, ``TailStrategy.RoundUp`` (the
    output's bounds are multiples of the vector and strip sizes, so no tail is needed); ``fold_storage`` is kept
    (halide_mlir accepts it with a warning and keeps the whole window). ``corrected`` and the demosaic's output
    are ``reorder(x, c, y)`` where the app has ``reorder(c, x, y)``: halide_mlir vectorizes only an innermost loop
    (c is unrolled in both, so the code is the same but for the order of its statements)."""
    color_temp, gamma, contrast, sharpen_strength, black_level, white_level = 3700.0, 2.0, 50.0, 1.0, 25, 1023
    vec = U16_VEC
    raw = hl.Buffer(ins["input"], "input")
    m3200, m7000 = hl.Buffer(ins["matrix_3200"], "matrix_3200"), hl.Buffer(ins["matrix_7000"], "matrix_7000")
    x, y, c, yi, yo, yii, xi = _vars(hl, "x y c yi yo yii xi")

    def avg(a, b, narrow, wide):
        return narrow((wide(a) + wide(b) + 1) // 2)

    def avg16(a, b):
        return avg(a, b, hl.u16, hl.u32)

    def avg8(a, b):
        return avg(a, b, hl.u8, hl.u16)

    def interleave_x(a, b):
        f = hl.Func()
        f[x, y] = hl.select(x % 2 == 0, a[x // 2, y], b[x // 2, y])
        return f

    def interleave_y(a, b):
        f = hl.Func()
        f[x, y] = hl.select(y % 2 == 0, a[x, y // 2], b[x, y // 2])
        return f

    shifted, denoised, deinterleaved = hl.Func("shifted"), hl.Func("denoised"), hl.Func("deinterleaved")
    shifted[x, y] = raw[x + 16, y + 12]
    a = hl.max(hl.max(shifted[x - 2, y], shifted[x + 2, y]), hl.max(shifted[x, y - 2], shifted[x, y + 2]))
    denoised[x, y] = hl.clamp(shifted[x, y], hl.u16(0), a)
    deinterleaved[x, y, c] = hl.mux(
        c,
        [
            denoised[2 * x, 2 * y],
            denoised[2 * x + 1, 2 * y],
            denoised[2 * x, 2 * y + 1],
            denoised[2 * x + 1, 2 * y + 1],
        ],
    )

    # demosaic
    g_gr, r_r, b_b, g_gb = (hl.Func(n) for n in ("g_gr", "r_r", "b_b", "g_gb"))
    g_gr[x, y] = deinterleaved[x, y, 0]
    r_r[x, y] = deinterleaved[x, y, 1]
    b_b[x, y] = deinterleaved[x, y, 2]
    g_gb[x, y] = deinterleaved[x, y, 3]
    g_r, g_b = hl.Func("g_r"), hl.Func("g_b")
    gv_r, gvd_r = avg16(g_gb[x, y - 1], g_gb[x, y]), hl.absd(g_gb[x, y - 1], g_gb[x, y])
    gh_r, ghd_r = avg16(g_gr[x + 1, y], g_gr[x, y]), hl.absd(g_gr[x + 1, y], g_gr[x, y])
    g_r[x, y] = hl.select(ghd_r < gvd_r, gh_r, gv_r)
    gv_b, gvd_b = avg16(g_gr[x, y + 1], g_gr[x, y]), hl.absd(g_gr[x, y + 1], g_gr[x, y])
    gh_b, ghd_b = avg16(g_gb[x - 1, y], g_gb[x, y]), hl.absd(g_gb[x - 1, y], g_gb[x, y])
    g_b[x, y] = hl.select(ghd_b < gvd_b, gh_b, gv_b)
    r_gr, b_gr, r_gb, b_gb, r_b, b_r = (hl.Func(n) for n in ("r_gr", "b_gr", "r_gb", "b_gb", "r_b", "b_r"))
    r_gr[x, y] = g_gr[x, y] - avg16(g_r[x, y], g_r[x - 1, y]) + avg16(r_r[x - 1, y], r_r[x, y])
    b_gr[x, y] = g_gr[x, y] - avg16(g_b[x, y], g_b[x, y - 1]) + avg16(b_b[x, y], b_b[x, y - 1])
    r_gb[x, y] = g_gb[x, y] - avg16(g_r[x, y], g_r[x, y + 1]) + avg16(r_r[x, y], r_r[x, y + 1])
    b_gb[x, y] = g_gb[x, y] - avg16(g_b[x, y], g_b[x + 1, y]) + avg16(b_b[x, y], b_b[x + 1, y])
    rp_b = g_b[x, y] - avg16(g_r[x, y], g_r[x - 1, y + 1]) + avg16(r_r[x, y], r_r[x - 1, y + 1])
    rpd_b = hl.absd(r_r[x, y], r_r[x - 1, y + 1])
    rn_b = g_b[x, y] - avg16(g_r[x - 1, y], g_r[x, y + 1]) + avg16(r_r[x - 1, y], r_r[x, y + 1])
    rnd_b = hl.absd(r_r[x - 1, y], r_r[x, y + 1])
    r_b[x, y] = hl.select(rpd_b < rnd_b, rp_b, rn_b)
    bp_r = g_r[x, y] - avg16(g_b[x, y], g_b[x + 1, y - 1]) + avg16(b_b[x, y], b_b[x + 1, y - 1])
    bpd_r = hl.absd(b_b[x, y], b_b[x + 1, y - 1])
    bn_r = g_r[x, y] - avg16(g_b[x + 1, y], g_b[x, y - 1]) + avg16(b_b[x + 1, y], b_b[x, y - 1])
    bnd_r = hl.absd(b_b[x + 1, y], b_b[x, y - 1])
    b_r[x, y] = hl.select(bpd_r < bnd_r, bp_r, bn_r)
    red = interleave_y(interleave_x(r_gr, r_r), interleave_x(r_b, r_gb))
    green = interleave_y(interleave_x(g_gr, g_r), interleave_x(g_b, g_gb))
    blue = interleave_y(interleave_x(b_gr, b_r), interleave_x(b_b, b_gb))
    demosaiced = hl.Func("demosaiced")
    demosaiced[x, y, c] = hl.i16(hl.mux(c, [red[x, y], green[x, y], blue[x, y]]))

    # colour correction
    matrix, corrected = hl.Func("matrix"), hl.Func("corrected")
    alpha = (1.0 / color_temp - 1.0 / 3200) / (1.0 / 7000 - 1.0 / 3200)
    matrix[x, y] = hl.i16((m3200[x, y] * alpha + m7000[x, y] * (1 - alpha)) * 256.0)
    ir, ig, ib = (hl.i32(demosaiced[x, y, k]) for k in range(3))
    rgb = [hl.i16((matrix[3, k] + matrix[0, k] * ir + matrix[1, k] * ig + matrix[2, k] * ib) // 256) for k in range(3)]
    corrected[x, y, c] = hl.mux(c, rgb)

    # tone curve
    curve, curved = hl.Func("curve"), hl.Func("curved")
    inv_range = 1.0 / (white_level - black_level)
    b = 2.0 - math.pow(2.0, contrast / 100.0)
    a2 = 2.0 - 2.0 * b
    xf = hl.clamp(hl.f32(x - black_level) * inv_range, 0.0, 1.0)
    g = hl.pow(xf, 1.0 / gamma)
    zc = hl.select(g > 0.5, 1.0 - (a2 * (1.0 - g) * (1.0 - g) + b * (1.0 - g)), a2 * g * g + b * g)
    cval = hl.u8(hl.clamp(zc * 255.0 + 0.5, 0.0, 255.0))
    curve[x] = hl.select(x <= black_level, hl.u8(0), hl.select(x > white_level, hl.u8(255), cval))
    curved[x, y, c] = curve[hl.clamp(corrected[x, y, c], 0, 1023)]

    # sharpen (sharpen_strength * 32 is a constant here)
    strength_x32 = hl.u8(int(min(255, max(0, sharpen_strength * 32))))
    unsharp_y, unsharp, mask, processed = (hl.Func(n) for n in ("unsharp_y", "unsharp", "mask", "camera_pipe"))
    unsharp_y[x, y, c] = avg8(avg8(curved[x, y - 1, c], curved[x, y + 1, c]), curved[x, y, c])
    unsharp[x, y, c] = avg8(avg8(unsharp_y[x - 1, y, c], unsharp_y[x + 1, y, c]), unsharp_y[x, y, c])
    mask[x, y, c] = hl.i16(curved[x, y, c]) - hl.i16(unsharp[x, y, c])
    processed[x, y, c] = hl.saturating_cast(
        hl.UInt(8), hl.i16(curved[x, y, c]) + (mask[x, y, c] * hl.i16(strength_x32)) // 32
    )

    # the app's CPU schedule
    strip = 32
    matrix.compute_root()
    curve.compute_root()
    processed.compute_root().reorder(c, x, y).split(y, yi, yii, 2).split(yi, yo, yi, strip // 2)
    processed.vectorize(x, 2 * vec).unroll(c).parallel(yo)
    denoised.compute_at(processed, yi).store_at(processed, yo).fold_storage(y, 4)
    denoised.tile(x, y, x, y, xi, yi, 2 * vec, 2).vectorize(xi).unroll(yi)
    deinterleaved.compute_at(processed, yi).store_at(processed, yo).fold_storage(y, 4)
    deinterleaved.reorder(c, x, y).vectorize(x, 2 * vec).unroll(c)
    curved.compute_at(processed, yi).store_at(processed, yo).reorder(c, x, y)
    curved.tile(x, y, x, y, xi, yi, 2 * vec, 2).vectorize(xi).unroll(yi).unroll(c)
    corrected.compute_at(curved, x).reorder(x, c, y).vectorize(x).unroll(c)
    for f in (g_r, g_b):
        f.compute_at(processed, yi).store_at(processed, yo).vectorize(x, 2 * vec).fold_storage(y, 4)
    demosaiced.compute_at(curved, x).vectorize(x).unroll(y).reorder(x, c, y).unroll(c)
    h, w = ins["input"].shape
    ow, oh = ((w - 32) // (2 * vec)) * (2 * vec), ((h - 24) // strip) * strip
    processed.bound(c, 0, 3).bound(x, 0, ow).bound(y, 0, oh)
    return processed, [ow, oh, 3]


# ---------------------------------------------------------------- IIR blur ------------------------------------


def iir_blur_inputs(scale):
    h, w = dim(2560, scale), dim(1536, scale)
    return {"input": _rng().random((3, h, w), dtype=np.float32)}


def _blur_cols_transpose(hl, inp, height, alpha, x, y, c, name):
    vec = F32_VEC
    blur, transpose = hl.Func(f"blur_{name}"), hl.Func(f"transpose_{name}")
    blur[x, y, c] = inp[x, y, c]
    ry = hl.RDom([hl.Range(1, height - 1)])
    blur[x, ry.x, c] = (1 - alpha) * blur[x, ry.x - 1, c] + alpha * inp[x, ry.x, c]
    flip = height - ry.x - 1
    blur[x, flip, c] = (1 - alpha) * blur[x, flip + 1, c] + alpha * blur[x, flip, c]
    transpose[x, y, c] = blur[y, x, c]
    xo, yo, t, yi = _vars(hl, "xo yo t yi")
    (
        transpose.compute_root()
        .tile(x, y, xo, yo, x, y, vec, vec * 4)
        .split(y, y, yi, vec)
        .vectorize(yi)
        .unroll(x)
        .fuse(yo, c, t)
        .parallel(t)
    )
    blur.compute_at(transpose, t)
    blur.update(0).reorder(x, ry.x).vectorize(x, vec)
    blur.update(1).reorder(x, ry.x).vectorize(x, vec)
    return transpose


def iir_blur_build(hl, ins):
    """apps/iir_blur: a first-order IIR filter down the columns, forwards then backwards (two scans), transposed,
    twice (so rows, then columns). Differences from the app, for both implementations: the scan's pure definition
    is the input instead of ``undef`` (halide_mlir has no ``undef``) and the app's first update
    (``blur(x, 0, c) = input(x, 0, c)``) is then implied; the transpose's tile vectorizes ``yi`` and unrolls
    ``x`` instead of vectorizing both (halide_mlir vectorizes one loop per stage)."""
    alpha = 0.1
    inp = hl.Buffer(ins["input"], "input")
    x, y, c = _vars(hl, "x y c")
    _, h, w = ins["input"].shape
    blury_t = _blur_cols_transpose(hl, inp, h, alpha, x, y, c, "cols")
    out = _blur_cols_transpose(hl, blury_t, w, alpha, x, y, c, "rows")
    return out, [w, h, 3]


def iir_blur_flops(ins, sizes):
    return 12.0 * sizes[0] * sizes[1] * sizes[2]


# ---------------------------------------------------------------- max filter ----------------------------------


def max_filter_inputs(scale):
    h, w = dim(1280, scale), dim(768, scale, 256)  # x is split by 256
    return {"input": _rng().random((3, h, w), dtype=np.float32)}


def max_filter_build(hl, ins):
    """apps/max_filter (radius 26): a circular max filter from a log-stepped vertical max pyramid (a scan over
    slices), a per-row slice choice and a 53-tap horizontal maximum. The app's CPU schedule, unchanged."""
    radius = 26
    inp = hl.Buffer(ins["input"], "input")
    _, h, w = ins["input"].shape
    x, y, c, t, tx = _vars(hl, "x y c t tx")
    clamped = hl.BoundaryConditions.repeat_edge(inp, [hl.Range(0, w), hl.Range(0, h)])
    slices = int(math.ceil(math.log(radius) / math.log(2))) + 1
    vert_log = hl.Func("vert_log")
    vert_log[x, y, c, t] = clamped[x, y, c]
    r = hl.RDom([hl.Range(-radius, h + radius), hl.Range(1, slices - 1)])
    vert_log[x, r.x, c, r.y] = hl.max(
        vert_log[x, r.x, c, r.y - 1], vert_log[x, r.x + hl.clamp(1 << (r.y - 1), 0, radius * 2), c, r.y - 1]
    )
    slice_for_radius = hl.Func("slice_for_radius")
    slice_for_radius[t] = hl.i32(hl.floor(hl.log(2 * t + 1) / math.log(2)))
    vert = hl.Func("vert")
    sl = hl.clamp(slice_for_radius[t], 0, slices)
    vert[x, y, c, t] = hl.max(
        vert_log[x, y - t, c, sl], vert_log[x, y + t + 1 - hl.clamp(1 << sl, 0, 2 * radius), c, sl]
    )
    filter_height = hl.Func("filter_height")
    dy = hl.RDom([hl.Range(0, radius + 1)])
    filter_height[x] = hl.sum(hl.select(x * x + dy.x * dy.x < (radius + 0.25) * (radius + 0.25), 1, 0))
    dx = hl.RDom([hl.Range(-radius, 2 * radius + 1)])
    out = hl.Func("max_filter")
    out[x, y, c] = hl.maximum(vert[x + dx.x, y, c, hl.clamp(filter_height[dx.x], 0, radius + 1)])

    slice_for_radius.compute_root()
    filter_height.compute_root()
    out.compute_root().split(x, tx, x, 256).reorder(x, y, c, tx).fuse(c, tx, t).parallel(t).vectorize(x, 8)
    vert_log.compute_at(out, t).vectorize(x, 8)
    vert_log.update().reorder(x, r.x, r.y, c).vectorize(x, 8)
    vert.compute_at(out, y).vectorize(x, 8)
    return out, [w, h, 3]


# ---------------------------------------------------------------- non-local means -----------------------------


def nl_means_inputs(scale):
    h, w = dim(640, scale), dim(384, scale)
    return {"input": _rng().random((3, h, w), dtype=np.float32)}


def nl_means_build(hl, ins):
    """apps/nl_means (7x7 patches, 7x7 search area, sigma 0.12): patch distances for every offset, box-blurred,
    weights ``exp(-d / sigma^2 / patch^2)``, a weighted sum over the search area. The app's CPU schedule without
    ``hoist_storage`` (halide_mlir refuses it: ``d`` and ``blur_d_y`` are allocated per tile, where the app hoists
    them to the row of tiles); ``exp`` instead of ``fast_exp`` (halide_mlir has none); the sum's zero pure
    definition is written out."""
    patch, search, sigma, vec = 7, 7, 0.12, F32_VEC
    inp = hl.Buffer(ins["input"], "input")
    x, y, c, dx, dy, tx, ty = _vars(hl, "x y c dx dy tx ty")
    inv_sigma_sq = -1.0 / (sigma * sigma * patch * patch)
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    dc, d, blur_d_y, blur_d, wgt = (hl.Func(n) for n in ("dc", "d", "blur_d_y", "blur_d", "w"))
    dc[x, y, dx, dy, c] = hl.pow(clamped[x, y, c] - clamped[x + dx, y + dy, c], 2)
    channels = hl.RDom([hl.Range(0, 3)])
    d[x, y, dx, dy] = hl.sum(dc[x, y, dx, dy, channels.x])
    pd = hl.RDom([hl.Range(-(patch // 2), patch)])
    blur_d_y[x, y, dx, dy] = hl.sum(d[x, y + pd.x, dx, dy])
    blur_d[x, y, dx, dy] = hl.sum(blur_d_y[x + pd.x, y, dx, dy])
    wgt[x, y, dx, dy] = hl.exp(blur_d[x, y, dx, dy] * inv_sigma_sq)
    cwa = hl.Func("clamped_with_alpha")
    cwa[x, y, c] = hl.mux(c, [clamped[x, y, 0], clamped[x, y, 1], clamped[x, y, 2], hl.f32(1)])
    s = hl.RDom([hl.Range(-(search // 2), search), hl.Range(-(search // 2), search)])
    nls, out = hl.Func("non_local_means_sum"), hl.Func("nl_means")
    nls[x, y, c] = hl.f32(0)
    nls[x, y, c] += wgt[x, y, s.x, s.y] * cwa[x + s.x, y + s.y, c]
    out[x, y, c] = hl.clamp(nls[x, y, c] / nls[x, y, 3], 0.0, 1.0)

    out.compute_root().reorder(c, x, y).tile(x, y, tx, ty, x, y, 16, 8).parallel(ty).vectorize(x, vec)
    blur_d_y.compute_at(out, tx).reorder(y, x).vectorize(x, vec)
    d.compute_at(out, tx).vectorize(x, vec)
    nls.compute_at(out, x).reorder(c, x, y).bound(c, 0, 4).unroll(c).vectorize(x, vec)
    nls.update(0).reorder(c, x, y, s.x, s.y).unroll(c).vectorize(x, vec)
    blur_d.compute_at(nls, x).vectorize(x, vec)
    _, h, w = ins["input"].shape
    return out, [w, h, 3]


def nl_means_flops(ins, sizes):
    return 49.0 * 26 * sizes[0] * sizes[1]


# ---------------------------------------------------------------- stencil chain -------------------------------


def stencil_chain_inputs(scale):
    h, w = dim(1280, scale), dim(768, scale, 256)  # a quarter of the width holds a vector
    return {"input": _rng().integers(0, 65536, (h, w), dtype=np.uint16)}


def stencil_chain_build(hl, ins):
    """apps/stencil_chain (32 5x5 stencils, u16, wrapping): the app's CPU schedule, unchanged: groups of 11
    stages, each group's last stage computed at the root in 4x4 tiles (fused, parallel), the others sliding
    windows in the tile (store_at the tile, compute_at its rows). Tile sizes follow the image size as the app's
    follow 1536x2560."""
    stencils, group = 32, 11
    vec = U16_VEC
    inp = hl.Buffer(ins["input"], "input")
    h, w = ins["input"].shape
    x, y = _vars(hl, "x y")
    stages = [hl.BoundaryConditions.repeat_edge(inp)]
    for s in range(stencils):
        f = hl.Func(f"stage_{s}")
        e = hl.u16(0)
        for i in range(-2, 3):
            for j in range(-2, 3):
                e = e + hl.u16((i + 3) * (j + 3)) * stages[-1][x + i, y + j]
        f[x, y] = e
        stages.append(f)
    out = hl.Func("stencil_chain")
    out[x, y] = stages[-1][x, y]

    yi, yo, xo, xi, t = _vars(hl, "yi yo xo xi t")
    last = len(stages) - 1
    for j in range(last, 0, -group):
        o = out if j == last else stages[j]
        expansion = 4 * (last - j)
        tw, th = (w + expansion) // 4, (h + expansion) // 4
        o.compute_root().tile(x, y, xo, yo, xi, yi, tw, th).fuse(xo, yo, t).parallel(t).vectorize(xi, vec)
        for i in range(max(0, j - group + 1), j):
            if i == 0:
                continue  # the boundary condition: inlined (the app's stages[0] is the repeat_edge Func)
            stages[i].store_at(o, t).compute_at(o, yi).vectorize(x, vec)
    return out, [w, h]


APP_BENCHMARKS = [
    Benchmark(
        "bilateral_grid",
        "bilateral grid, s_sigma 8, f32 1536x2560",
        bilateral_grid_inputs,
        bilateral_grid_build,
        bilateral_grid_flops,
        atol_rel=1e-4,
    ),
    Benchmark(
        "interpolate",
        "pyramid interpolation, 10 levels, RGBA f32",
        interpolate_inputs,
        interpolate_build,
        atol_rel=1e-4,
    ),
    Benchmark(
        "camera_pipe",
        "camera pipe, u16 raw -> u8 RGB 2560x1920",
        camera_pipe_inputs,
        camera_pipe_build,
        float_output=False,
        int_atol=1,
        int_outliers=1e-3,
    ),
    Benchmark(
        "iir_blur",
        "IIR blur (scans + transposes), RGB f32",
        iir_blur_inputs,
        iir_blur_build,
        iir_blur_flops,
        atol_rel=1e-4,
    ),
    Benchmark("max_filter", "max filter radius 26, RGB f32", max_filter_inputs, max_filter_build),
    Benchmark(
        "nl_means", "non-local means 7x7 / 7x7, RGB f32", nl_means_inputs, nl_means_build, nl_means_flops, atol_rel=1e-4
    ),
    Benchmark(
        "stencil_chain", "32 chained 5x5 stencils, u16", stencil_chain_inputs, stencil_chain_build, float_output=False
    ),
]
for _b in APP_BENCHMARKS:
    _b.group = "apps"
