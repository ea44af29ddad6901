"""``halide_mlir.imageio``: image files as Halide's ``halide.imageio`` reads and writes them.

Files hold colour images interleaved (rows, columns, channels); Halide programs index them planar,
``img[x, y, c]``, which ``hl.Buffer`` gives for a numpy array in (channels, rows, columns) order. ``imread``
returns that planar order, ``imwrite`` takes it; 2-D (gray) images pass through unchanged. The file formats are
the ``imageio`` package's (an optional dependency: ``pip install imageio``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["copy_to_interleaved", "copy_to_planar", "imread", "imwrite", "is_interleaved"]


def _imageio():
    try:
        import imageio.v2 as iio
    except ImportError:
        try:
            import imageio as iio
        except ImportError:
            raise ImportError("halide_mlir.imageio needs the imageio package (pip install imageio)") from None
    return iio


def _array(im) -> np.ndarray:
    from .lang.buffer import Buffer

    return im.array if isinstance(im, Buffer) else np.asarray(im)


def is_interleaved(im: np.ndarray) -> bool:
    """A 3-D array whose last axis (of at most 4) is the densest. As in Halide, the test is a last-axis stride
    of one *byte*, so only 8-bit images count as interleaved (a 16-bit image read from a file stays as read)."""
    a = _array(im)
    return a.ndim == 3 and a.strides[2] == 1 and a.shape[2] in (1, 2, 3, 4)


def copy_to_interleaved(im: np.ndarray) -> np.ndarray:
    """A (rows, columns, channels) copy of a planar 3-D image; anything else is returned as it is."""
    a = _array(im)
    if a.ndim == 3 and not is_interleaved(a):
        return np.copy(np.moveaxis(a, 0, 2), order="F")
    return im


def copy_to_planar(im: np.ndarray) -> np.ndarray:
    """A (channels, rows, columns) copy of an interleaved 3-D image; anything else is returned as it is."""
    a = _array(im)
    if is_interleaved(a):
        return np.copy(np.moveaxis(a, 2, 0), order="C")
    return im


def imread(uri: str, format: str | None = None, **kwargs) -> np.ndarray:  # noqa: A002 - imageio's (and Halide's) parameter name
    """The image at ``uri``, planar if it is an interleaved colour image."""
    return copy_to_planar(_imageio().imread(uri, format, **kwargs))


def imwrite(uri: str, im: np.ndarray, format: str | None = None, **kwargs) -> None:  # noqa: A002
    """Writes ``im`` (planar colour images are interleaved first, in a temporary copy)."""
    _imageio().imwrite(uri, _array(copy_to_interleaved(im)), format, **kwargs)
