"""Call overhead of an AOT Python extension (``-e python_extension``), halide_mlir's vs Halide's, next to the JIT's
``Callable`` and ``realize``, on a 1-element output (so the time is the Python-side cost).

    PYTHONPATH=$PWD .venv/bin/python bench/aot_pyext.py

Halide's extension is built the same way (its generator, its ``.py.cpp`` and static library, the system C++
compiler); skipped when the halide wheel is missing.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import sysconfig
import tempfile
import timeit

import numpy as np


def define(hl, name):
    x = hl.Var("x")

    @hl.generator(name=name)
    class Tiny:
        input = hl.InputBuffer(hl.UInt(8), 1)
        offset = hl.InputScalar(hl.UInt(8))
        output = hl.OutputBuffer(hl.UInt(8), 1)

        def generate(self):
            self.output[x] = self.input[x] + self.offset
            self.input.set_estimates([(0, 1)])
            self.output.set_estimates([(0, 1)])

    return Tiny


def best(fn, n=20000, repeat=5) -> float:
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e6


def main() -> None:
    import halide_mlir as hl
    from halide_mlir.aot import build_python_extension
    from halide_mlir.generator import _create, compile_generator

    d = tempfile.mkdtemp(prefix="aot_pyext-")
    sys.path.insert(0, d)
    define(hl, "tiny_mlir")
    gen = _create("tiny_mlir", hl.GeneratorContext(hl.Target("host")))
    compile_generator(
        gen, {"static_library": f"{d}/tiny_mlir.a", "python_extension": f"{d}/tiny_mlir.py.cpp"}, "tiny_mlir", "host"
    )
    build_python_extension(f"{d}/tiny_mlir.py.cpp", f"{d}/tiny_mlir.a", d)
    ours = importlib.import_module("tiny_mlir").tiny_mlir
    a, out = np.array([7], np.uint8), np.zeros(1, np.uint8)
    rows = [("halide_mlir python_extension", best(lambda: ours(a, 3, out)))]
    assert out[0] == 10
    with hl.GeneratorContext(hl.Target("host")):
        c = _create("tiny_mlir", hl.GeneratorContext(hl.Target("host"))).compile_to_callable()
    bi, bo = hl.Buffer(a), hl.Buffer(out)
    rows.append(("halide_mlir Callable (JIT)", best(lambda: c(bi, 3, bo), n=2000)))
    try:
        import halide
    except ImportError:
        halide = None
    if halide is not None:
        htiny = define(halide, "tiny_halide")
        argv, sys.argv = (
            sys.argv,
            ["gen", "-g", "tiny_halide", "-o", d, "-e", "static_library,c_header,python_extension", "target=host"],
        )
        try:
            halide.main()  # (Halide 21's takes sys.argv only)
        finally:
            sys.argv = argv
        inc = os.path.join(os.path.dirname(halide.__file__), "include")
        so = os.path.join(d, "tiny_halide" + sysconfig.get_config_var("EXT_SUFFIX"))
        subprocess.run(
            [
                "c++",
                "-O2",
                "-fPIC",
                "-shared",
                "-std=c++17",
                "-I",
                inc,
                "-I",
                sysconfig.get_paths()["include"],
                "-DHALIDE_PYTHON_EXTENSION_MODULE_NAME=tiny_halide",
                "-DHALIDE_PYTHON_EXTENSION_FUNCTIONS=X(tiny_halide)",
                f"{d}/tiny_halide.py.cpp",
                f"{d}/tiny_halide.a",
                "-lpthread",
                "-ldl",
                "-o",
                so,
            ],
            check=True,
        )
        theirs = importlib.import_module("tiny_halide").tiny_halide
        out[0] = 0
        rows.append(("Halide python_extension", best(lambda: theirs(a, 3, out))))
        assert out[0] == 10
        with halide.GeneratorContext(halide.Target("host")):
            hc = htiny().compile_to_callable()
        hbi, hbo = halide.Buffer(a), halide.Buffer(out)
        rows.append(("Halide Callable (JIT)", best(lambda: hc(hbi, 3, hbo))))
    for name, us in rows:
        print(f"{name:34s} {us:8.2f} us/call")


if __name__ == "__main__":
    main()
