"""Func.debug_to_file: the files Halide 21's runtime writes (.npy, .tiff, .mat, its raw format), byte for byte
against real Halide (the TIFF header's SHORT entries leave two bytes uninitialized in Halide: masked)."""

import importlib
import struct

import numpy as np
import pytest

import halide_mlir as hl

EXTS = ["npy", "tiff", "mat", "tmp"]


def _mask_tiff(data: bytes) -> bytes:
    b = bytearray(data)
    for i in range(struct.unpack_from("<h", b, 8)[0]):
        off = 10 + 12 * i
        if struct.unpack_from("<h", b, off + 2)[0] == 3:
            b[off + 10 : off + 12] = b"\0\0"
    return bytes(b)


def _files(tmp_path, mod, build, ext, size):
    m = importlib.import_module(mod)
    d = tmp_path / mod
    d.mkdir(exist_ok=True)
    path = d / f"dump.{ext}"
    out, dumped = build(m)
    dumped.debug_to_file(str(path))
    out.realize(size)
    data = path.read_bytes()
    return _mask_tiff(data) if ext == "tiff" else data


def producer_f32(m):
    x, y = m.Var("x"), m.Var("y")
    g = m.Func("g")
    g[x, y] = m.f32(x + 10 * y) / 4
    g.compute_root()
    f = m.Func("f")
    f[x, y] = g[x, y] + g[x + 1, y]
    return f, g


def output_u8_3d(m):
    x, y, c = m.Var("x"), m.Var("y"), m.Var("c")
    h = m.Func("h")
    h[x, y, c] = m.u8(x * 3 + y * 5 + c * 7)
    return h, h


def output_i16_1d_update(m):
    x = m.Var("x")
    g = m.Func("g")
    g[x] = m.i16(x) - 3
    g[x] += m.i16(2 * x)
    g.compute_root()
    f = m.Func("f")
    f[x] = g[x + 2] * 2
    return f, g


def output_u16_4d(m):
    x, y, z, w = m.Var("x"), m.Var("y"), m.Var("z"), m.Var("w")
    h = m.Func("h")
    h[x, y, z, w] = m.u16(x + 2 * y + 5 * z + 11 * w)
    return h, h


CASES = [(producer_f32, [3, 2]), (output_u8_3d, [4, 3, 2]), (output_i16_1d_update, [5]), (output_u16_4d, [2, 3, 6, 2])]


@pytest.mark.parametrize("ext", EXTS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_same_bytes_as_halide(tmp_path, case, ext):
    build, size = CASES[case]
    theirs = _files(tmp_path, "halide", build, ext, size)
    ours = _files(tmp_path, "halide_mlir", build, ext, size)
    assert ours == theirs


@pytest.mark.filterwarnings("ignore:Reading `.npy`")  # (numpy on Halide's header padding)
def test_npy_round_trip_of_an_offset_output(tmp_path):
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = x * 100 + y
    f.debug_to_file(str(tmp_path / "f.npy"))
    out = hl.Buffer(hl.Int(32), [3, 2])
    out.set_min([5, 7])
    f.realize(out)
    a = np.load(tmp_path / "f.npy")  # Halide's shape (x, y) over C order: the flat data is dim 0 fastest
    assert a.shape == (3, 2)
    np.testing.assert_array_equal(a.reshape(-1), [x * 100 + y for y in (7, 8) for x in (5, 6, 7)])


@pytest.mark.parametrize("mod", ["halide", "halide_mlir"])
def test_inline_func_writes_nothing(tmp_path, mod):
    m = importlib.import_module(mod)
    x = m.Var("x")
    g = m.Func("g")
    g[x] = x
    f = m.Func("f")
    f[x] = g[x] + 1
    g.debug_to_file(str(tmp_path / "g.npy"))
    f.realize([4])
    assert not (tmp_path / "g.npy").exists()


def test_compute_at_refused(tmp_path):
    x, y = hl.Var("x"), hl.Var("y")
    g = hl.Func("g")
    g[x, y] = x + y
    f = hl.Func("f")
    f[x, y] = g[x, y] * 2
    g.compute_at(f, y).debug_to_file(str(tmp_path / "g.npy"))
    with pytest.raises(hl.HalideError, match="debug_to_file of a Func computed at f.y"):
        f.realize([4, 4])


def test_aot_refused(tmp_path):
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = x
    f.set_estimates([(0, 8)])
    f.debug_to_file(str(tmp_path / "f.npy"))
    with pytest.raises(hl.HalideError, match="debug_to_file"):
        f.compile_to_static_library(str(tmp_path / "f"), [], "f")
