"""``hl.main()``'s ``-r NAME``: a standalone runtime, what Halide's CMake helpers build with ``GenRT -r`` (the
generator command with no Generator) for the libraries a ``-no_runtime`` target leaves without one: aot/runtime.c
as ``NAME.o`` / ``NAME.a``, and with ``-e python_extension`` the module definition that binds several
``.py.cpp`` functions into one extension module (``add_halide_python_extension_library``)."""

from __future__ import annotations

import os

from ..error import HalideError
from . import build
from .pyext import module_definition_source

KINDS = ("object", "static_library", "python_extension")


def compile_standalone_runtime(name: str, out_dir: str, kinds: list, target: str) -> list:
    """Writes ``out_dir/name.<suffix>`` for each kind; returns the paths."""
    tgt = build.parse_target(target)
    if tgt.cross is not None:
        raise HalideError(f"a standalone runtime for '{target}' (another machine) is not supported by halide_mlir")
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise HalideError(f"-r (a standalone runtime) emits {', '.join(KINDS)}; not {', '.join(bad)}")
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, name)
    written = []
    if "python_extension" in kinds:
        with open(base + ".py.cpp", "w") as f:
            f.write(module_definition_source(build.runtime_header()))
        written.append(base + ".py.cpp")
    if "object" in kinds or "static_library" in kinds:
        obj = base + ".o"
        build._run([build._cc(), "-c", "-O2", "-fPIC", "-o", obj, build.RUNTIME_C], "compiling the runtime")
        if "static_library" in kinds:
            from ..runtime.tools import llvm_tool

            build._run([llvm_tool("llvm-ar"), "rcs", base + ".a", obj], "llvm-ar")
            written.append(base + ".a")
            if "object" not in kinds:
                os.remove(obj)
        if "object" in kinds:
            written.append(obj)
    return written
