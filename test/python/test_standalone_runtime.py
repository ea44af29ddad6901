"""hl.compile_standalone_runtime: Halide's runtime alone, linked with pipelines compiled for a ``-no_runtime``
target (Halide's way of sharing one runtime between several libraries)."""

import ctypes

import numpy as np
import pytest

import halide_mlir as hl
from test_aot import cc, halide_buffer


def brighten(name):
    inp = hl.ImageParam(hl.UInt(8), 2, f"{name}_in")
    k = hl.Param(hl.UInt(8), f"{name}_k")
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func(name)
    f[x, y] = hl.saturating_cast(hl.UInt(8), hl.u16(inp[x, y]) + k)
    f.vectorize(x, 16)
    return f, [inp, k]


def test_two_no_runtime_objects_share_one_standalone_runtime(tmp_path):
    objs = []
    for name in ("bright_a", "bright_b"):
        f, args = brighten(name)
        f.compile_to({hl.OutputFileType.object: str(tmp_path / f"{name}.o")}, args, name,
                     hl.Target("host-no_runtime"))
        objs.append(str(tmp_path / f"{name}.o"))
    assert hl.compile_standalone_runtime(str(tmp_path / "rt.o"), hl.Target("host")) is None
    outs = hl.compile_standalone_runtime({hl.OutputFileType.static_library: str(tmp_path / "rt.a")},
                                         hl.Target("host"))
    assert list(outs.values()) == [str(tmp_path / "rt.a")] and (tmp_path / "rt.a").exists()
    cc("-shared", *objs, str(tmp_path / "rt.o"), "-o", str(tmp_path / "both.so"), "-lpthread", "-lm")
    lib = ctypes.CDLL(str(tmp_path / "both.so"))
    a = np.random.default_rng(0).integers(0, 256, (37, 53), dtype=np.uint8)
    for name, k in (("bright_a", 7), ("bright_b", 200)):
        out = np.zeros_like(a)
        fn = getattr(lib, name)
        assert fn(ctypes.byref(halide_buffer(a)), ctypes.c_uint8(k), ctypes.byref(halide_buffer(out))) == 0
        np.testing.assert_array_equal(out, np.minimum(a.astype(np.uint16) + k, 255).astype(np.uint8))


def test_standalone_runtime_refuses_other_kinds(tmp_path):
    with pytest.raises(hl.HalideError, match="object or a static_library"):
        hl.compile_standalone_runtime({hl.OutputFileType.c_header: str(tmp_path / "rt.h")}, hl.Target("host"))
