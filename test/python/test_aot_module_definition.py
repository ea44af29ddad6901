"""``hl.main()``'s ``-r`` (Halide's GenRT): a standalone runtime object and the module definition that binds
several ``.py.cpp`` functions into one extension module, built as Halide's CMake builds one
(add_halide_python_extension_library: ``HALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION``, ``..._FUNCTIONS``)."""

import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import halide_mlir as hl

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="needs the system c++")


def test_two_functions_one_module(tmp_path):
    x, y = hl.Var("x"), hl.Var("y")
    inp = hl.ImageParam(hl.UInt(8), 2, "input")
    add = hl.Func("add_one")
    add[x, y] = inp[x, y] + 1
    twice = hl.Func("twice")
    twice[x, y] = hl.u16(inp[x, y]) * 2
    objs, srcs = [], []
    for f, fn in ((add, "add_one"), (twice, "twice")):
        base = str(tmp_path / fn)
        f.compile_to({hl.OutputFileType.object: base + ".o", hl.OutputFileType.python_extension:
                          base + ".py.cpp"}, [inp], fn, "host-no_runtime")
        objs.append(base + ".o")
        srcs.append(base + ".py.cpp")
    hl.main(["gen", "-r", "rt", "-o", str(tmp_path), "-e", "object", "target=host"])
    hl.main(["gen", "-r", "mdef", "-o", str(tmp_path), "-e", "python_extension", "target=host"])
    so = str(tmp_path / ("both" + sysconfig.get_config_var("EXT_SUFFIX")))
    subprocess.run(["c++", "-std=c++17", "-O1", "-fPIC", "-shared", "-I", sysconfig.get_paths()["include"],
                    "-DHALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION", "-DHALIDE_PYTHON_EXTENSION_MODULE_NAME=both",
                    "-DHALIDE_PYTHON_EXTENSION_FUNCTIONS= X(add_one) X(twice)", *srcs, str(tmp_path / "mdef.py.cpp"),
                    *objs, str(tmp_path / "rt.o"), "-lpthread", "-ldl", "-o", so], check=True)
    code = ("import numpy as np, both; a = np.arange(12, dtype=np.uint8).reshape(3, 4)\n"
            "o1 = np.zeros((3, 4), np.uint8); o2 = np.zeros((3, 4), np.uint16)\n"
            "both.add_one(a, o1); both.twice(a, o2); print(o1.sum(), o2.sum())")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    a = np.arange(12)
    assert r.stdout.split() == [str((a + 1).sum()), str((a * 2).sum())]
