"""Histogram equalization of an 8-bit grayscale image: histogram (scatter) -> cdf (scan) -> LUT remap (gather).

    python examples/histogram_equalize.py [IN.png [OUT.png]] [--small]

Without IN.png a synthetic low-contrast 1536×2560 (rows×columns; ``--small``: 256×384) u8 image is made
(values squeezed into [70, 150], fixed seed). A colour PNG is converted to grayscale (PIL "L") first.

The pipeline, for an image of N pixels:

    hist[i]    = 0;  hist[in[r.x, r.y]] += 1                 scatter over the whole image (scf loops)
    cdf[i]     = hist[0];  cdf[b] = cdf[b - 1] + hist[b]      scan over b = 1..255 (scf loop)
    lut[i]     = u8(clamp((cdf[i] - cdf_min) * 255 / (N - cdf_min), 0, 255))   (integer arithmetic)
    out[x, y]  = lut[in[x, y]]                               gather, vectorized 64 wide, rows in parallel

where cdf_min is the cdf at the darkest occupied bin (a third reduction, ``hl.minimum`` over a predicated RDom).
Everything is integer, so halide_mlir, Halide 21 and numpy must agree bit for bit. The same
``equalize(hl, image)`` builds the pipeline for ``halide_mlir`` and for the real ``halide`` package; the three
are timed (best of N after a warm-up) and the result is written to OUT.png (default ``histeq_out.png``).

``pipeline()`` is the entry point of the ``halide-mlir`` command, e.g.
``halide-mlir payload examples/histogram_equalize.py``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import halide_mlir
from _timing import best_of

ROWS, COLS = 1536, 2560


def synthetic_image(rows: int = ROWS, cols: int = COLS, seed: int = 0) -> np.ndarray:
    """A low-contrast u8 image: smooth shapes plus noise, squeezed into [70, 150]; shape (rows, cols)."""
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float32)
    u, v = xx / cols, yy / rows
    img = 0.45 * u + 0.25 * v + 0.2 * np.cos(18 * np.hypot(u - 0.4, v - 0.6)) ** 2
    img += 0.1 * np.random.default_rng(seed).random((rows, cols), dtype=np.float32)
    img = (img - img.min()) / (img.max() - img.min())
    return np.ascontiguousarray((70 + 80 * img).round().astype(np.uint8))


def load_png(path: str) -> np.ndarray:
    from PIL import Image

    return np.ascontiguousarray(np.asarray(Image.open(path).convert("L"), dtype=np.uint8))


def save_png(path: str, a: np.ndarray) -> None:
    from PIL import Image

    Image.fromarray(a).save(path)


def equalize(hl, image: np.ndarray):
    """The pipeline for module ``hl`` (halide_mlir or halide) on a u8 numpy image; returns (out, sizes)."""
    inp = hl.Buffer(image, "input")
    x, y, i = hl.Var("x"), hl.Var("y"), hl.Var("i")
    rows, cols = image.shape
    n = rows * cols

    hist = hl.Func("hist")
    hist[i] = 0
    r = hl.RDom([(0, cols), (0, rows)])
    hist[hl.cast(hl.Int(32), inp[r.x, r.y])] += 1

    cdf = hl.Func("cdf")
    cdf[i] = hist[0]
    b = hl.RDom([(1, 255)])
    cdf[b.x] = cdf[b.x - 1] + hist[b.x]

    # the cdf at the darkest occupied bin: the smallest cdf value over the bins that are not empty
    occupied = hl.RDom([(0, 256)])
    occupied.where(hist[occupied.x] > 0)
    cdf_min = hl.Func("cdf_min")
    cdf_min[()] = hl.minimum(cdf[occupied.x])

    lut = hl.Func("lut")
    lo = cdf_min[()]
    lut[i] = hl.cast(hl.UInt(8), hl.clamp((cdf[i] - lo) * 255 / hl.max(n - lo, 1), 0, 255))

    out = hl.Func("out")
    out[x, y] = lut[hl.cast(hl.Int(32), inp[x, y])]

    # Schedule: the three small stages once each (compute_root), the remap 64 pixels (one AVX-512 register of
    # u8) at a time with rows spread over the cores.
    hist.compute_root()
    cdf.compute_root()
    cdf_min.compute_root()
    lut.compute_root()
    out.vectorize(x, 64).parallel(y)
    return out, [cols, rows]


def equalize_numpy(a: np.ndarray) -> np.ndarray:
    hist = np.bincount(a.ravel(), minlength=256).astype(np.int64)
    cdf = np.cumsum(hist)
    lo = int(cdf[hist > 0].min())
    n = a.size
    lut = np.clip((cdf - lo) * 255 // max(n - lo, 1), 0, 255).astype(np.uint8)
    return lut[a]


def pipeline():
    """For the halide-mlir command: equalization of the synthetic image."""
    return equalize(halide_mlir, synthetic_image())


def main(argv: list[str]) -> None:
    small = "--small" in argv
    argv = [a for a in argv if a != "--small"]
    image = load_png(argv[1]) if len(argv) > 1 else synthetic_image(256, 384) if small else synthetic_image()
    out_path = argv[2] if len(argv) > 2 else "histeq_out.png"
    src = argv[1] if len(argv) > 1 else "synthetic low-contrast image"
    print(
        f"histogram equalization: {src}, {image.shape[0]}x{image.shape[1]} (rows x cols) u8, "
        f"values in [{image.min()}, {image.max()}]"
    )

    f, sizes = equalize(halide_mlir, image)
    t = time.perf_counter()
    result = np.asarray(f.realize(sizes))
    compile_s = time.perf_counter() - t
    ref = equalize_numpy(image)
    assert result.shape == ref.shape and result.dtype == ref.dtype, (result.shape, result.dtype)
    nbad = int((result != ref).sum())
    print(
        f"  halide_mlir vs numpy: {nbad} of {ref.size} pixels differ   (first realize incl. compilation: "
        f"{compile_s:.2f} s)"
    )
    assert nbad == 0, "halide_mlir result differs from numpy"
    print(f"  output values in [{result.min()}, {result.max()}]")

    n = 3 if small else 20
    out = halide_mlir.Buffer(halide_mlir.UInt(8), sizes, "out")
    times = {"halide_mlir": best_of(lambda: f.realize(out), n)}
    try:
        import halide
    except ImportError:
        halide = None
    if halide is not None:
        hf, _ = equalize(halide, image)
        hf.compile_jit()
        hout = halide.Buffer(halide.UInt(8), sizes, "out")
        hf.realize(hout)
        hbad = int((np.asarray(hout) != result).sum())
        times["Halide 21"] = best_of(lambda: hf.realize(hout), n)
    times["numpy"] = best_of(lambda: equalize_numpy(image), n)
    print(f"  best of {n}: " + "   ".join(f"{k} {v * 1e3:.2f} ms" for k, v in times.items()))
    if halide is not None:
        print(f"  halide_mlir vs Halide 21: {hbad} pixels differ")
        assert hbad == 0, "halide_mlir result differs from Halide 21"
    save_png(out_path, result)
    print(f"  wrote {out_path}")


if __name__ == "__main__":
    main(sys.argv)
