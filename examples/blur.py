"""3×3 box blur, Halide style: a horizontal pass ``blur_x`` (compute_root) then a vertical pass ``blur_y``.

    python examples/blur.py [IN.png [OUT.png]] [--small]

Without IN.png a synthetic 2048×3072 (rows×columns) image is made (smooth gradients + noise, fixed seed;
``--small``: 256×384, 3 timed runs). The image is converted to float32 in [0, 1] with numpy first. Grayscale
images use 2-D Funcs ``f[x, y]``; colour images (RGB, or RGBA with the alpha dropped) are blurred per channel with
3-D Funcs ``f[x, y, c]``: the numpy array is made planar (channel, row, column) so that Halide's dimension 0 is x,
then 1 is y, then 2 is c. No boundary condition: the output is 2 pixels smaller than the input in x and y, as in
Halide's blur app.

The same ``blur(hl, image)`` function builds the pipeline for ``halide_mlir`` and for the real ``halide`` 21
package (if installed: it comes with the test extra), so the two run the same algorithm and schedule. The result
is checked against numpy, the three are timed (best of N after a warm-up), and the result is written to OUT.png
(default ``blur_out.png``).

``pipeline()`` is the entry point of the ``halide-mlir`` command, e.g. ``halide-mlir payload examples/blur.py``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import halide_mlir
from _timing import best_of

ROWS, COLS = 2048, 3072


def synthetic_image(rows: int = ROWS, cols: int = COLS, seed: int = 0) -> np.ndarray:
    """Smooth gradients and rings plus noise, float32 in [0, 1], shape (rows, cols)."""
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float32)
    u, v = xx / cols, yy / rows
    img = 0.35 * u + 0.25 * v + 0.2 * np.sin(40 * np.hypot(u - 0.5, v - 0.5)) ** 2
    img += 0.2 * np.random.default_rng(seed).random((rows, cols), dtype=np.float32)
    return np.clip(img, 0, 1).astype(np.float32)


def load_png(path: str) -> np.ndarray:
    """float32 in [0, 1]: (rows, cols) for grayscale, planar (channels, rows, cols) for colour."""
    from PIL import Image

    im = Image.open(path)
    if im.mode in ("1", "L", "LA", "I", "I;16", "F"):
        a = np.asarray(im.convert("F"), dtype=np.float32)
        scale = 65535.0 if im.mode.startswith("I") and a.max() > 255 else 255.0
        return np.ascontiguousarray(a / scale)
    a = np.asarray(im.convert("RGB"), dtype=np.float32) / 255.0
    return np.ascontiguousarray(a.transpose(2, 0, 1))


def save_png(path: str, result: np.ndarray) -> None:
    from PIL import Image

    a = result if result.ndim == 2 else result.transpose(1, 2, 0)
    Image.fromarray((np.clip(a, 0, 1) * 255 + 0.5).astype(np.uint8)).save(path)


def blur(hl, image: np.ndarray):
    """The pipeline for module ``hl`` (halide_mlir or halide) on a float32 numpy image; returns (blur_y, sizes)."""
    inp = hl.Buffer(image, "input")
    x, y = hl.Var("x"), hl.Var("y")
    rest = (hl.Var("c"),) if image.ndim == 3 else ()
    blur_x, blur_y = hl.Func("blur_x"), hl.Func("blur_y")
    blur_x[(x, y) + rest] = (inp[(x, y) + rest] + inp[(x + 1, y) + rest] + inp[(x + 2, y) + rest]) / 3
    blur_y[(x, y) + rest] = (blur_x[(x, y) + rest] + blur_x[(x, y + 1) + rest] + blur_x[(x, y + 2) + rest]) / 3

    # The schedule: the horizontal pass over the whole image first, then the vertical pass; both vectorized
    # 16 wide (one AVX-512 register of f32) along x, rows spread over the cores.
    blur_x.compute_root().vectorize(x, 16).parallel(y)
    blur_y.vectorize(x, 16).parallel(y)

    rows, cols = image.shape[-2:]
    sizes = [cols - 2, rows - 2] + ([image.shape[0]] if image.ndim == 3 else [])
    return blur_y, sizes


def blur_numpy(a: np.ndarray) -> np.ndarray:
    bx = (a[..., :, :-2] + a[..., :, 1:-1] + a[..., :, 2:]) / np.float32(3)
    return (bx[..., :-2, :] + bx[..., 1:-1, :] + bx[..., 2:, :]) / np.float32(3)


def pipeline():
    """For the halide-mlir command: the blur of the synthetic image."""
    return blur(halide_mlir, synthetic_image())


def main(argv: list[str]) -> None:
    small = "--small" in argv
    argv = [a for a in argv if a != "--small"]
    image = load_png(argv[1]) if len(argv) > 1 else synthetic_image(256, 384) if small else synthetic_image()
    out_path = argv[2] if len(argv) > 2 else "blur_out.png"
    kind = f"{image.shape[0]} channels of " if image.ndim == 3 else ""
    src = argv[1] if len(argv) > 1 else "synthetic image"
    print(f"blur 3x3: {src}, {kind}{image.shape[-2]}x{image.shape[-1]} (rows x cols) float32")

    f, sizes = blur(halide_mlir, image)
    t = time.perf_counter()
    result = np.asarray(f.realize(sizes))
    compile_s = time.perf_counter() - t
    ref = blur_numpy(image)
    err = float(np.abs(result - ref).max())
    print(f"  max |halide_mlir - numpy| = {err:.2e}   (first realize incl. compilation: {compile_s:.2f} s)")
    assert result.shape == ref.shape, (result.shape, ref.shape)
    assert err < 1e-4, f"halide_mlir result differs from numpy by {err}"

    n = 3 if small else 20
    out = halide_mlir.Buffer(halide_mlir.Float(32), sizes, "out")
    times = {"halide_mlir": best_of(lambda: f.realize(out), n), "numpy": best_of(lambda: blur_numpy(image), n)}
    try:
        import halide
    except ImportError:
        halide = None
    if halide is not None:
        hf, _ = blur(halide, image)
        hf.compile_jit()
        hout = halide.Buffer(halide.Float(32), sizes, "out")
        hf.realize(hout)
        herr = float(np.abs(np.asarray(hout) - result).max())
        times["Halide 21"] = best_of(lambda: hf.realize(hout), n)
    print(f"  best of {n}: " + "   ".join(f"{k} {v * 1e3:.2f} ms" for k, v in times.items()))
    if halide is not None:
        print(f"  max |halide_mlir - Halide 21| = {herr:.2e}")
    save_png(out_path, result)
    print(f"  wrote {out_path}")


if __name__ == "__main__":
    main(sys.argv)
