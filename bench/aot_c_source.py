"""C source (``compile_to_c``) against the any-size object, same run: bench/aot_any_size.py's brighten and 3x3 blur
at 1920x1080 and 1921x1079, compiled without estimates (the any-size kernel) and with estimates at 1920x1080 (the
fixed-size kernel there, the any-size one at the other size), each ``.c`` built by ``cc`` with the flags given.

    PYTHONPATH=$PWD .venv/bin/python bench/aot_c_source.py [cc flags, default -O2]

One thread (``HL_NUM_THREADS=1``); the time is the best of 10 calls through ctypes.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aot_any_size import H, W, best, blur, brighten, hbuf  # noqa: E402


def main() -> None:
    flags = sys.argv[1:] or ["-O2"]
    os.environ["HL_NUM_THREADS"] = "1"
    import halide_mlir as hl

    warnings.simplefilter("ignore", hl.CSourceWarning)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for make in (brighten, blur):
            fns = {}
            for fixed in (False, True):
                f, args, scalars, dtype = make(hl, fixed)
                name = f"{make.__name__}_{'fixed' if fixed else 'any'}"
                src, so = os.path.join(d, f"{name}.c"), os.path.join(d, f"{name}.so")
                f.compile_to_c(src, args, name)
                subprocess.run(["cc", "-shared", "-fPIC", *flags, src, "-o", so, "-lm", "-lpthread"], check=True)
                fns[f"C source, {'estimates' if fixed else 'any size'}"] = getattr(ctypes.CDLL(so), name)
            f, args, scalars, dtype = make(hl, False)
            obj, so = os.path.join(d, f"{make.__name__}.o"), os.path.join(d, f"{make.__name__}_obj.so")
            f.compile_to_object(obj, args, make.__name__)
            subprocess.run(["cc", "-shared", obj, "-o", so, "-lpthread", "-ldl", "-lm"], check=True)
            fns["object, any size"] = getattr(ctypes.CDLL(so), make.__name__)
            rng = np.random.default_rng(0)
            for w, h in ((W, H), (W + 1, H - 1)):
                a = rng.integers(0, 1000, (h, w)).astype(dtype)
                ref = None
                for label, fn in fns.items():
                    out = np.zeros((h, w), dtype)
                    ms = best(fn, [hbuf(a), *scalars, hbuf(out)], n=10)
                    ref = out if ref is None else ref
                    assert (out == ref).all(), label
                    rows.append((make.__name__, f"{w}x{h}", label, ms))
    print(f"cc {' '.join(flags)}, HL_NUM_THREADS=1")
    print("| pipeline | size | function | ms (best of 10) |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.3f} |")


if __name__ == "__main__":
    main()
