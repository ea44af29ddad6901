"""Local Laplacian filter (Paris, Hasinoff, Kautz 2011): Halide's apps/local_laplacian, ported to our API.

    python examples/local_laplacian.py [IN.png [OUT.png]] [--small]

The algorithm and the CPU schedule follow Halide's app (apps/local_laplacian, the generator and its Python
version in python_bindings/apps): a 16-bit RGB image is converted to float, its luminance ``gray`` is remapped
through ``levels`` tone curves (a lookup table ``remap`` with 256 entries per level) into a processed Gaussian
pyramid ``gPyramid`` with a level dimension k; its Laplacian pyramid ``lPyramid`` is sampled, at every pixel and
pyramid level, at the two processed levels around the input's own intensity (the Gaussian pyramid ``inGPyramid``
of ``gray``), giving the output Laplacian pyramid ``outLPyramid``; collapsing it (``outGPyramid``) gives the new
luminance, and the colour is reintroduced with the input's chroma. Pyramids use Halide's separable [1 3 3 1] / 8
downsampling and the matching 2x linear upsampling. Defaults as in the app's test run: ``levels = 8``,
``J = 8`` pyramid levels, ``alpha = 1``, ``beta = 1``.

Only difference from the app: Halide's Python version writes ``downsample``/``upsample`` once for 2-D and 3-D
Funcs with the implicit argument ``hl._``; here the extra arguments are passed explicitly (same Funcs, same
expressions).

Without IN.png a synthetic 1536×2560 (rows×columns) RGB image is made (``--small``: 384×640). The result is
checked against ``local_laplacian_numpy``, the same algorithm written independently in numpy; then the same
``local_laplacian(hl, image)`` builds the pipeline for the real ``halide`` package too (if installed), and the two
are compared and timed side by side. The pipeline is float, and rounding differs in places (Halide contracts
multiply-adds into FMAs, numpy and we do not; exp differs in the last bits): where a difference crosses an integer
step of the LUT index the remapped value moves by one LUT entry (~256 of 65535), so the checks allow about one LUT
step on < 0.1% of the values (measured at 1536x2560 against Halide: max 267, 0.45% of the values differ at all,
0.004% by more than 2). The result goes to OUT.png (default ``local_laplacian_out.png``).

``pipeline()`` is the entry point of the ``halide-mlir`` command.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import halide_mlir
from _timing import best_of

ROWS, COLS = 1536, 2560


def synthetic_image(rows: int = ROWS, cols: int = COLS, seed: int = 0) -> np.ndarray:
    """u16 RGB, planar (3, rows, cols): smooth colour gradients, rings and fine texture (the filter's target)."""
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float32)
    u, v = xx / cols, yy / rows
    rng = np.random.default_rng(seed)
    base = 0.5 + 0.3 * np.sin(9 * u + 4 * v) * np.cos(6 * v) + 0.1 * np.sin(60 * np.hypot(u - 0.5, v - 0.4))
    detail = 0.05 * np.sin(xx / 3.0) * np.sin(yy / 5.0) + 0.03 * rng.standard_normal((rows, cols)).astype(np.float32)
    chans = [base * (0.8 + 0.2 * u) + detail, base * 0.9 + detail, base * (0.7 + 0.3 * v) + detail]
    img = np.clip(np.stack(chans), 0, 1)
    return np.ascontiguousarray((img * 65535 + 0.5).astype(np.uint16))


def load_png(path: str) -> np.ndarray:
    from PIL import Image

    a = np.asarray(Image.open(path).convert("RGB"), dtype=np.uint16) * 257  # 8-bit -> 16-bit
    return np.ascontiguousarray(a.transpose(2, 0, 1))


def save_png(path: str, result: np.ndarray) -> None:
    from PIL import Image

    Image.fromarray((result.transpose(1, 2, 0) >> 8).astype(np.uint8)).save(path)


def local_laplacian(hl, image: np.ndarray, levels: int = 8, alpha: float = 1.0, beta: float = 1.0, J: int = 8):
    """The app for module ``hl`` on a planar u16 (3, rows, cols) image; returns (output Func, sizes)."""
    inp = hl.Buffer(image, "input")
    alpha_p = hl.Param(hl.Float(32), "alpha", alpha)
    beta_p = hl.Param(hl.Float(32), "beta", beta)
    x, y, c, k = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("k")
    counter = [0]

    def downsample(f, rest):
        counter[0] += 1
        downx, downy = hl.Func(f"downx{counter[0]}"), hl.Func(f"downy{counter[0]}")
        downx[(x, y) + rest] = (
            f[(2 * x - 1, y) + rest]
            + 3.0 * (f[(2 * x, y) + rest] + f[(2 * x + 1, y) + rest])
            + f[(2 * x + 2, y) + rest]
        ) / 8.0
        downy[(x, y) + rest] = (
            downx[(x, 2 * y - 1) + rest]
            + 3.0 * (downx[(x, 2 * y) + rest] + downx[(x, 2 * y + 1) + rest])
            + downx[(x, 2 * y + 2) + rest]
        ) / 8.0
        return downy

    def upsample(f, rest):
        counter[0] += 1
        upx, upy = hl.Func(f"upx{counter[0]}"), hl.Func(f"upy{counter[0]}")
        upx[(x, y) + rest] = 0.25 * f[((x // 2) - 1 + 2 * (x % 2), y) + rest] + 0.75 * f[(x // 2, y) + rest]
        upy[(x, y) + rest] = 0.25 * upx[(x, (y // 2) - 1 + 2 * (y % 2)) + rest] + 0.75 * upx[(x, y // 2) + rest]
        return upy

    # --- the algorithm ---
    # the remapping function as a lookup table
    remap = hl.Func("remap")
    fx = hl.cast(hl.Float(32), x) / 256.0
    remap[x] = alpha_p * fx * hl.exp(-fx * fx / 2.0)

    floating = hl.Func("floating")
    floating[x, y, c] = hl.cast(hl.Float(32), inp[x, y, c]) / 65535.0

    # boundary condition
    clamped = hl.Func("clamped")
    clamped[x, y, c] = floating[hl.clamp(x, 0, inp.width() - 1), hl.clamp(y, 0, inp.height() - 1), c]

    # luminance
    gray = hl.Func("gray")
    gray[x, y] = 0.299 * clamped[x, y, 0] + 0.587 * clamped[x, y, 1] + 0.114 * clamped[x, y, 2]

    # the processed Gaussian pyramid: a lookup into the LUT with 256 entries per intensity level
    gPyramid = [hl.Func(f"gPyramid{j}") for j in range(J)]
    idx = gray[x, y] * hl.cast(hl.Float(32), levels - 1) * 256.0
    idx = hl.clamp(hl.cast(hl.Int(32), idx), 0, (levels - 1) * 256)
    level = k * (1.0 / (levels - 1))
    gPyramid[0][x, y, k] = beta_p * (gray[x, y] - level) + level + remap[idx - 256 * k]
    for j in range(1, J):
        gPyramid[j][x, y, k] = downsample(gPyramid[j - 1], (k,))[x, y, k]

    # its Laplacian pyramid
    lPyramid = [hl.Func(f"lPyramid{j}") for j in range(J)]
    lPyramid[J - 1] = gPyramid[J - 1]
    for j in range(J - 1)[::-1]:
        lPyramid[j][x, y, k] = gPyramid[j][x, y, k] - upsample(gPyramid[j + 1], (k,))[x, y, k]

    # the Gaussian pyramid of the input
    inGPyramid = [hl.Func(f"inGPyramid{j}") for j in range(J)]
    inGPyramid[0] = gray
    for j in range(1, J):
        inGPyramid[j][x, y] = downsample(inGPyramid[j - 1], ())[x, y]

    # the Laplacian pyramid of the output
    outLPyramid = [hl.Func(f"outLPyramid{j}") for j in range(J)]
    for j in range(J):
        # split the input pyramid value into integer and fractional parts
        level = inGPyramid[j][x, y] * hl.cast(hl.Float(32), levels - 1)
        li = hl.clamp(hl.cast(hl.Int(32), level), 0, levels - 2)
        lf = level - hl.cast(hl.Float(32), li)
        # linearly interpolate between the nearest processed pyramid levels
        outLPyramid[j][x, y] = (1.0 - lf) * lPyramid[j][x, y, li] + lf * lPyramid[j][x, y, li + 1]

    # the Gaussian pyramid of the output
    outGPyramid = [hl.Func(f"outGPyramid{j}") for j in range(J)]
    outGPyramid[J - 1] = outLPyramid[J - 1]
    for j in range(J - 1)[::-1]:
        outGPyramid[j][x, y] = upsample(outGPyramid[j + 1], ())[x, y] + outLPyramid[j][x, y]

    # reintroduce colour (eps avoids scaling up noise)
    color = hl.Func("color")
    eps = 0.01
    color[x, y, c] = outGPyramid[0][x, y] * (clamped[x, y, c] + eps) / (gray[x, y] + eps)

    output = hl.Func("local_laplacian")
    output[x, y, c] = hl.cast(hl.UInt(16), hl.clamp(color[x, y, c], 0.0, 1.0) * 65535.0)

    # --- the schedule: the app's CPU schedule (vector width 8 there; 16 = one AVX-512 register of f32 here) ---
    vec = 16
    remap.compute_root()
    output.parallel(y, 4).vectorize(x, vec)
    gray.compute_root().parallel(y, 4).vectorize(x, vec)
    for j in range(min(4, J)):
        if j > 0:
            inGPyramid[j].compute_root().parallel(y, 4).vectorize(x, vec)
        gPyramid[j].compute_root().parallel(y, 4).vectorize(x, vec)
        outGPyramid[j].compute_root().parallel(y, 4).vectorize(x, vec)
    for j in range(4, J):
        inGPyramid[j].compute_root().parallel(y)
        gPyramid[j].compute_root().parallel(k)
        outGPyramid[j].compute_root().parallel(y)

    channels, rows, cols = image.shape
    return output, [cols, rows, channels]


# --- an independent reference: the same algorithm in numpy (float32, Halide's operation order) ---------------
# Halide's Funcs are defined everywhere; numpy arrays are not, so each pyramid level is computed over the region
# its consumers read (``need``), an array with its origin: (values [..., y, x], x0, y0).


def _down(a, b):  # x in [a, b) of a level reads [2a - 1, 2b] of the finer one
    return 2 * a - 1, 2 * b + 1


def _up(a, b):  # x in [a, b) of a level reads [a // 2 - 1, (b - 1) // 2 + 1] of the coarser one
    return a // 2 - 1, (b - 1) // 2 + 2


def _hull(r, s):
    return min(r[0], s[0]), max(r[1], s[1]), min(r[2], s[2]), max(r[3], s[3])


def _take(f, xs, ys):
    """f (values, x0, y0) at the integer arrays xs (columns) and ys (rows)."""
    v, x0, y0 = f
    xi, yi = xs - x0, ys - y0
    assert xi.min() >= 0 and yi.min() >= 0 and xi.max() < v.shape[-1] and yi.max() < v.shape[-2], "region"
    return v[..., yi[:, None], xi[None, :]]


def _downsample_np(f, r):
    x0, x1, y0, y1 = r
    xs, ys = np.arange(x0, x1), np.arange(2 * y0 - 1, 2 * y1 + 1)
    dx = (
        _take(f, 2 * xs - 1, ys) + 3.0 * (_take(f, 2 * xs, ys) + _take(f, 2 * xs + 1, ys)) + _take(f, 2 * xs + 2, ys)
    ) / 8.0
    dx = (dx, x0, 2 * y0 - 1)
    xs, ys = np.arange(x0, x1), np.arange(y0, y1)
    return (
        (
            _take(dx, xs, 2 * ys - 1)
            + 3.0 * (_take(dx, xs, 2 * ys) + _take(dx, xs, 2 * ys + 1))
            + _take(dx, xs, 2 * ys + 2)
        )
        / 8.0,
        x0,
        y0,
    )


def _upsample_np(f, r):
    x0, x1, y0, y1 = r
    xs, ys = np.arange(x0, x1), np.arange(y0 // 2 - 1, (y1 - 1) // 2 + 2)
    ux = (
        np.float32(0.25) * _take(f, xs // 2 - 1 + 2 * (xs % 2), ys) + np.float32(0.75) * _take(f, xs // 2, ys),
        x0,
        y0 // 2 - 1,
    )
    xs, ys = np.arange(x0, x1), np.arange(y0, y1)
    return (
        np.float32(0.25) * _take(ux, xs, ys // 2 - 1 + 2 * (ys % 2)) + np.float32(0.75) * _take(ux, xs, ys // 2),
        x0,
        y0,
    )


def local_laplacian_numpy(
    image: np.ndarray, levels: int = 8, alpha: float = 1.0, beta: float = 1.0, J: int = 8
) -> np.ndarray:
    """The published algorithm (Paris et al. 2011, as Halide's app computes it) in numpy, for checking."""
    f32 = np.float32
    channels, rows, cols = image.shape
    alpha, beta = f32(alpha), f32(beta)
    out_r = [(0, cols, 0, rows)]  # what each level of the output pyramids must cover
    for _ in range(1, J):
        r = out_r[-1]
        out_r.append(_up(r[0], r[1]) + _up(r[2], r[3]))
    need = [out_r[J - 1]]  # ... and each level of the input pyramids
    for j in range(J - 2, -1, -1):
        r = need[0]
        need.insert(0, _hull(out_r[j], _down(r[0], r[1]) + _down(r[2], r[3])))

    x0, x1, y0, y1 = need[0]
    xs, ys = np.clip(np.arange(x0, x1), 0, cols - 1), np.clip(np.arange(y0, y1), 0, rows - 1)
    clamped = image[:, ys[:, None], xs[None, :]].astype(f32) / f32(65535.0)
    gray = (f32(0.299) * clamped[0] + f32(0.587) * clamped[1] + f32(0.114) * clamped[2], x0, y0)

    k = np.arange(levels, dtype=np.int32)[:, None, None]
    level = k.astype(f32) * f32(1.0 / (levels - 1))
    idx = np.clip((gray[0] * f32(levels - 1) * f32(256.0)).astype(np.int32), 0, (levels - 1) * 256)
    fx = (idx[None] - 256 * k).astype(f32) / f32(256.0)
    remap = alpha * fx * np.exp(-fx * fx / f32(2.0))
    g = [(beta * (gray[0][None] - level) + level + remap, x0, y0)]
    in_g = [gray]
    for j in range(1, J):
        g.append(_downsample_np(g[j - 1], need[j]))
        in_g.append(_downsample_np(in_g[j - 1], need[j]))

    out_g = None
    for j in range(J - 1, -1, -1):
        x0, x1, y0, y1 = out_r[j]
        xs, ys = np.arange(x0, x1), np.arange(y0, y1)
        lap = _take(g[j], xs, ys)
        if j < J - 1:
            lap = lap - _upsample_np(g[j + 1], out_r[j])[0]
        lvl = _take(in_g[j], xs, ys) * f32(levels - 1)
        li = np.clip(lvl.astype(np.int32), 0, levels - 2)
        lf = lvl - li.astype(f32)
        out_l = (f32(1.0) - lf) * np.take_along_axis(lap, li[None], 0)[0] + lf * np.take_along_axis(
            lap, li[None] + 1, 0
        )[0]
        out_g = (out_l if out_g is None else _upsample_np(out_g, out_r[j])[0] + out_l, x0, y0)

    eps = f32(0.01)
    x0, x1, y0, y1 = out_r[0]
    g0 = _take(gray, np.arange(x0, x1), np.arange(y0, y1))
    color = (
        out_g[0] * (_take((clamped, need[0][0], need[0][2]), np.arange(x0, x1), np.arange(y0, y1)) + eps) / (g0 + eps)
    )
    return (np.clip(color, f32(0.0), f32(1.0)) * f32(65535.0)).astype(np.uint16)


def pipeline():
    """For the halide-mlir command: the filter on the synthetic image."""
    return local_laplacian(halide_mlir, synthetic_image())


def check(result: np.ndarray, ref: np.ndarray, name: str) -> None:
    diff = np.abs(ref.astype(np.int32) - result.astype(np.int32))
    big = int((diff > 2).sum())
    print(
        f"  |halide_mlir - {name}|: max {diff.max()} (of 65535), {int((diff > 0).sum())} of {diff.size} "
        f"values differ, {big} by more than 2, mean {diff.mean():.2e}"
    )
    # The pipeline is float, and rounding differs here and there (FMAs, exp). Where an ulp crosses an integer step
    # of the LUT index (int(gray * 7 * 256)) the remapped value moves by one LUT entry (alpha / 256 ~ 0.0039,
    # i.e. ~256 of 65535) and that difference travels through the pyramids. So: at most about one LUT step
    # anywhere, on a tiny fraction of values.
    assert result.shape == ref.shape, (result.shape, ref.shape)
    assert diff.max() <= 300 and big <= diff.size // 1000, f"halide_mlir result differs from {name}"


def main(argv: list[str]) -> None:
    import warnings

    # Halide's "float literal will be interpreted as float32" notes for 0.299 etc.: that is what we mean
    warnings.filterwarnings("ignore", category=RuntimeWarning, message="The floating-point value")
    small = "--small" in argv
    args = [a for a in argv[1:] if a != "--small"]
    image = load_png(args[0]) if args else (synthetic_image(384, 640) if small else synthetic_image())
    out_path = args[1] if len(args) > 1 else "local_laplacian_out.png"
    src = args[0] if args else "synthetic image"
    print(
        f"local laplacian (levels=8, J=8, alpha=1, beta=1): {src}, 3 channels of {image.shape[1]}x{image.shape[2]} "
        f"(rows x cols) u16"
    )

    f, sizes = local_laplacian(halide_mlir, image)
    t = time.perf_counter()
    result = np.asarray(f.realize(sizes))
    print(f"  first realize incl. compilation: {time.perf_counter() - t:.2f} s")
    check(result, local_laplacian_numpy(image), "numpy")

    n = 10
    out = halide_mlir.Buffer(halide_mlir.UInt(16), sizes, "out")
    times = {"halide_mlir": best_of(lambda: f.realize(out), n)}
    try:
        import halide
    except ImportError:
        halide = None
    if halide is not None:
        hf, _ = local_laplacian(halide, image)
        hf.compile_jit()
        hout = halide.Buffer(halide.UInt(16), sizes, "out")
        hf.realize(hout)
        ref = np.asarray(hout)
        times["Halide 21"] = best_of(lambda: hf.realize(hout), n)
    print(f"  best of {n}: " + "   ".join(f"{k} {v * 1e3:.2f} ms" for k, v in times.items()))
    if halide is not None:
        check(result, ref, "Halide 21")
    save_png(out_path, result)
    print(f"  wrote {out_path}")


if __name__ == "__main__":
    main(sys.argv)
