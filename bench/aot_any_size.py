"""AOT functions for any size against the fixed-size kernel and Halide 21's AOT function, same run: brighten
(``input + offset``, u8, ``vectorize(x, 16).parallel(y)``) and a 3x3 blur with ``repeat_edge`` (u16, the x pass
``compute_root``, both passes ``vectorize(x, 16).parallel(y)``) at 1920x1080; the any-size one also at 1921x1079.

    PYTHONPATH=$PWD .venv/bin/python bench/aot_any_size.py [threads]

Each function is compiled to an object (``compile_to_object``; Halide's with its runtime, ours with ours), linked
into a shared library and called through ctypes with ``halide_buffer_t``s; the time is the best of 20 calls.
``threads`` (default 1) is ``HL_NUM_THREADS`` for both runtimes.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

W, H = 1920, 1080


class _Dim(ctypes.Structure):
    _fields_ = [
        ("min", ctypes.c_int32),
        ("extent", ctypes.c_int32),
        ("stride", ctypes.c_int32),
        ("flags", ctypes.c_uint32),
    ]


class _Buf(ctypes.Structure):  # struct halide_buffer_t
    _fields_ = [
        ("device", ctypes.c_uint64),
        ("device_interface", ctypes.c_void_p),
        ("host", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("code", ctypes.c_uint8),
        ("bits", ctypes.c_uint8),
        ("lanes", ctypes.c_uint16),
        ("dimensions", ctypes.c_int32),
        ("dim", ctypes.POINTER(_Dim)),
        ("padding", ctypes.c_void_p),
    ]


def hbuf(a: np.ndarray):
    dims = (_Dim * a.ndim)(*[_Dim(0, n, s // a.itemsize, 0) for n, s in zip(reversed(a.shape), reversed(a.strides))])
    b = _Buf(0, None, a.ctypes.data, 0, {"i": 0, "u": 1, "f": 2}[a.dtype.kind], a.itemsize * 8, 1, a.ndim, dims, None)
    b.keep = (a, dims)
    return ctypes.byref(b)


def brighten(m, fixed: bool):
    x, y = m.Var("x"), m.Var("y")
    inp, off = m.ImageParam(m.UInt(8), 2, "input"), m.Param(m.UInt(8), "offset")
    f = m.Func("brighten")
    f[x, y] = inp[x, y] + off
    f.vectorize(x, 16).parallel(y)
    if fixed:
        f.set_estimates([(0, W), (0, H)])
        inp.set_estimates([(0, W), (0, H)])
    return f, [inp, off], [ctypes.c_uint8(7)], np.uint8


def blur(m, fixed: bool):
    x, y = m.Var("x"), m.Var("y")
    inp = m.ImageParam(m.UInt(16), 2, "input")
    c = m.BoundaryConditions.repeat_edge(inp)
    bx, by = m.Func("bx"), m.Func("by")
    bx[x, y] = (c[x - 1, y] + c[x, y] + c[x + 1, y]) // 3
    by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) // 3
    bx.compute_root().vectorize(x, 16).parallel(y)
    by.vectorize(x, 16).parallel(y)
    if fixed:
        by.set_estimates([(0, W), (0, H)])
        inp.set_estimates([(0, W), (0, H)])
    return by, [inp], [], np.uint16


def load(d: str, m, make, fixed: bool, name: str):
    f, args, scalars, dtype = make(m, fixed)
    obj = os.path.join(d, f"{name}.o")
    if m.__name__ == "halide":
        f.compile_to_object(obj, args, name, m.Target("host"))
    else:
        f.compile_to_object(obj, args, name)
    so = os.path.join(d, f"{name}.so")
    subprocess.run(["cc", "-shared", obj, "-o", so, "-lpthread", "-ldl", "-lm"], check=True)
    return getattr(ctypes.CDLL(so), name), scalars, dtype


def best(fn, args, n=20) -> float:
    assert fn(*args) == 0
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main() -> None:
    threads = sys.argv[1] if len(sys.argv) > 1 else "1"
    os.environ["HL_NUM_THREADS"] = threads
    import halide

    import halide_mlir as hl

    rows = []
    with tempfile.TemporaryDirectory() as d:
        for make in (brighten, blur):
            fns = {
                "halide_mlir any size": load(d, hl, make, False, f"{make.__name__}_any"),
                "halide_mlir fixed size": load(d, hl, make, True, f"{make.__name__}_fixed"),
                "Halide 21": load(d, halide, make, False, f"{make.__name__}_halide"),
            }
            rng = np.random.default_rng(0)
            outs = {}
            for label, (fn, scalars, dtype) in fns.items():
                a = rng.integers(0, 1000, (H, W)).astype(dtype) if not outs else a  # noqa: F821
                out = np.zeros((H, W), dtype)
                rows.append((make.__name__, f"{W}x{H}", label, best(fn, [hbuf(a), *scalars, hbuf(out)])))
                outs[label] = out
            ref = outs["Halide 21"]
            for label, out in outs.items():
                assert (out == ref).all(), label
            fn, scalars, dtype = fns["halide_mlir any size"]
            a2 = rng.integers(0, 1000, (H - 1, W + 1)).astype(dtype)
            out2 = np.zeros((H - 1, W + 1), dtype)
            rows.append(
                (
                    make.__name__,
                    f"{W + 1}x{H - 1}",
                    "halide_mlir any size",
                    best(fn, [hbuf(a2), hbuf(out2)] if not scalars else [hbuf(a2), *scalars, hbuf(out2)]),
                )
            )
    print(f"HL_NUM_THREADS={threads}")
    print("| pipeline | size | function | ms (best of 20) |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.3f} |")


if __name__ == "__main__":
    main()
