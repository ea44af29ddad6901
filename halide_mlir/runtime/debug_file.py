"""``Func.debug_to_file``: a realization written as Halide 21's runtime writes it, chosen by the file's extension:
``.npy`` (numpy's format, C order over Halide's reversed shape: dim 0 fastest), ``.tiff``/``.tif`` (uncompressed,
one plane per channel; Halide's extra tag 32997 holds the depth of 4-D data), ``.mat`` (a MATLAB level 5 array named
after the file), anything else Halide's raw format (five int32: the four extents and a type code, then the data).
At most four dimensions; the elements in order, dim 0 fastest, over the buffer's region."""

from __future__ import annotations

import os
import struct

import numpy as np

from ..error import HalideError

# (npy descr, (mat class, mat type), tmp code, tiff sample format) per (type code, bits); None: not writable there
_FORMATS = {
    (2, 32): ("<f4", (7, 7), 0, 3),
    (2, 64): ("<f8", (6, 9), 1, 3),
    (1, 8): ("|u1", (9, 2), 2, 1),
    (1, 1): ("|u1", (9, 2), 2, 1),
    (0, 8): ("|i1", (8, 1), 3, 2),
    (1, 16): ("<u2", (11, 4), 4, 1),
    (0, 16): ("<i2", (10, 3), 5, 2),
    (1, 32): ("<u4", (13, 6), 6, 1),
    (0, 32): ("<i4", (12, 5), 7, 2),
    (1, 64): ("<u8", (15, 13), 8, 1),
    (0, 64): ("<i8", (14, 12), 9, 2),
    (2, 16): ("<f2", None, None, None),
}


def write(filename: str, buf, func_name: str) -> None:
    """Write hl.Buffer ``buf`` (the realization of Func ``func_name``) to ``filename``."""
    t = buf.type()
    n = buf.dimensions()
    if n > 4:
        raise HalideError(f"Func '{func_name}': Can't debug_to_file a Func with more than four dimensions")
    fmt = _FORMATS.get((int(t.code()), t.bits()))
    extents = [buf.dim(i).extent() for i in range(n)]
    shape = extents + [1] * (4 - n)
    data = np.ascontiguousarray(buf.array).tobytes()  # (axes reversed: dim 0 fastest)
    bpe = max(1, t.bits() // 8)
    kind = (
        "npy"
        if filename.endswith(".npy")
        else "tiff"
        if filename.endswith((".tiff", ".tif"))
        else "mat"
        if filename.endswith(".mat")
        else "tmp"
    )
    index = {"npy": 0, "mat": 1, "tmp": 2, "tiff": 3}[kind]
    if fmt is None or fmt[index] is None:
        raise HalideError(f"Func '{func_name}': debug_to_file can't write a buffer of type {t} as .{kind}")
    if kind == "npy":
        dims = ",".join(str(e) for e in extents) + ("," if n == 1 else "")
        head = f"{{'descr': '{fmt[0]}', 'fortran_order': False, 'shape': ({dims})}}\n".encode()
        head += b" " * (-(10 + len(head)) % 64)
        out = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head + data
    elif kind == "tmp":
        out = struct.pack("<5i", *shape, fmt[2]) + data
    elif kind == "mat":
        out = _mat(filename, fmt[1], n, shape, data)
    else:
        out = _tiff(fmt[3], shape, bpe, len(data) // bpe) + data
    try:
        with open(filename, "wb") as f:
            f.write(out)
    except OSError as e:
        raise HalideError(f"Func '{func_name}': debug_to_file could not write {filename}: {e}") from None


def _mat(filename: str, codes, n: int, shape: list, data: bytes) -> bytes:
    name = os.path.basename(filename[: filename.rindex(".")]).encode()
    padded_name = -(-len(name) // 8) * 8
    payload = len(data)
    final_padding = 7 - ((payload - 1) & 7)
    dims = max(2, n)
    padded_dims = (dims + 1) & ~1
    head = b"MATLAB 5.0 MAT-file, produced by Halide".ljust(124) + b"\x00\x01IM"
    tags = struct.pack(
        "<8I", 14, 40 + padded_dims * 4 + padded_name + payload + final_padding, 6, 8, codes[0], 1, 5, dims * 4
    )
    body = struct.pack(f"<{padded_dims}i", *shape[:padded_dims])
    body += struct.pack("<2I", 1, len(name)) + name.ljust(padded_name, b"\x00")
    body += struct.pack("<2I", codes[1], payload)
    return head + tags + body + data + b"\x00" * final_padding


_TIFF_HEADER = 210  # Halide's packed header: 10 bytes, 15 entries of 12, the IFD's end and two resolutions


def _tiff(sample_format: int, shape: list, bpe: int, elts: int) -> bytes:
    if shape[3] in (0, 1) and shape[2] < 5:
        channels, depth = shape[2], 1
    else:
        channels, depth = shape[3], shape[2]

    def tag(code, kind, count, value):
        # (a SHORT's value in the low half of its 4 bytes, the rest zero)
        return (
            struct.pack("<HhiH2x", code, kind, count, value)
            if kind == 3
            else struct.pack("<Hhii", code, kind, count, value)
        )

    entries = [
        tag(256, 4, 1, shape[0]),
        tag(257, 4, 1, shape[1]),
        tag(258, 3, 1, bpe * 8),
        tag(259, 3, 1, 1),
        tag(262, 3, 1, 2 if channels >= 3 else 1),
        tag(273, 4, channels, _TIFF_HEADER),
        tag(277, 3, 1, channels),
        tag(278, 4, 1, shape[1]),
        tag(279, 4, channels, elts * bpe if channels == 1 else _TIFF_HEADER + channels * 4),
        tag(282, 5, 1, 194),
        tag(283, 5, 1, 202),
        tag(284, 3, 1, 2),
        tag(296, 3, 1, 1),
        tag(339, 3, 1, sample_format),
        tag(32997, 4, 1, depth),
    ]
    out = struct.pack("<hhih", 0x4949, 42, 8, len(entries)) + b"".join(entries) + struct.pack("<5i", 0, 1, 1, 1, 1)
    if channels > 1:
        plane = shape[0] * shape[1] * depth * bpe
        first = _TIFF_HEADER + channels * 8
        out += struct.pack(f"<{channels}i", *(first + i * plane for i in range(channels)))
        out += struct.pack(f"<{channels}i", *([plane] * channels))
    return out
