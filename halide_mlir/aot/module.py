"""``hl.Module``: compiled functions held for later output (Halide's ``compile_to_module`` / ``link_modules``).

Halide's Module holds lowered code, not runnable: ``compile(outputs)`` writes files from it. Here a Module holds
one entry per C function: the pipeline, its arguments and target, and the compiled kernel (aot/build.py). The
kernel is built by ``compile_to_module`` when the output's size is known (estimates), so the Module keeps the
schedule of that moment, as Halide's does; without estimates (halide_mlir compiles for fixed sizes) the arguments
are checked then and the kernel is built by the first ``compile``, which asks for the estimates if they are still
missing. Several functions (``link_modules``, ``append``) go into one object / library / header.
"""

from __future__ import annotations

import enum
import os
import re
import shutil
from dataclasses import dataclass

from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.param import ImageParam
from ..lang.source import user_site
from .arguments import argument_of


class LinkageType(enum.IntEnum):
    """Halide's ``hl.LinkageType``. halide_mlir's functions are external, with ``<fn>_argv`` (no metadata)."""

    External = 0
    ExternalPlusMetadata = 1
    ExternalPlusArgv = 2
    Internal = 3


@dataclass
class _Function:
    f: object  # Func or Pipeline
    args: list
    fn_name: str
    target: object
    kernel: object = None

    def compiled(self):
        if self.kernel is None:
            from . import compile_kernel

            self.kernel = compile_kernel(self.f, self.args, self.fn_name, self.target)
        return self.kernel


def _target(target):
    """Halide's default ``Target()`` (arch_unknown) means the environment's target."""
    from ..lang.target import Target, as_target, get_target_from_environment

    if target is None:
        return get_target_from_environment()
    t = target if isinstance(target, Target) else as_target(target)
    return get_target_from_environment() if "unknown" in str(t) else t


def _aot_target(t):
    """What aot/build.py parses: the host for a target that is this machine's."""
    from ..lang.target import get_host_target, get_target_from_environment

    return "host" if t in (get_host_target(), get_target_from_environment()) else t


class Module:
    def __init__(self, name: str, target=None):
        if not isinstance(name, str):
            raise HalideError(f"{user_site()}: Module(name, target) takes a string name, got {name!r}")
        self._name = name
        self._target = _target(target)
        self._functions: list[_Function] = []
        self._buffers: list = []
        self._submodules: list = []
        self._metadata_names: dict = {}
        self._autoscheduler_results = None

    def name(self) -> str:
        return self._name

    def target(self):
        return self._target

    def buffers(self) -> list:
        """The Buffers compiled into the functions (those the pipelines read), then those appended."""
        from .. import driver
        from ..lang.pipeline import Pipeline

        out = []
        for fn in self._functions:
            for func in fn.f.outputs() if isinstance(fn.f, Pipeline) else [fn.f]:
                out += [h for h in driver.front_end(func).inputs if isinstance(h, Buffer) and h not in out]
        return out + self._buffers

    def submodules(self) -> list:
        return list(self._submodules)

    def append(self, x) -> None:
        if isinstance(x, Module):
            self._submodules.append(x)
        elif isinstance(x, Buffer):
            self._buffers.append(x)
        else:
            raise HalideError(f"{user_site()}: Module.append takes a Buffer or a Module, got {x!r}")

    def resolve_submodules(self) -> "Module":
        if not self._submodules:
            return self
        # Halide compiles each submodule to a buffer of object code for its device runtime to load; the CPU-only
        # AOT here has no such loader, so a Module with submodules is refused rather than written without them.
        raise HalideError(
            f"{user_site()}: Module '{self._name}' has submodules ({', '.join(m.name() for m in self._submodules)}): "
            f"halide_mlir can't compile submodules into a module; use link_modules to put functions in one module"
        )

    def get_metadata_name_map(self) -> dict:
        return dict(self._metadata_names)

    def remap_metadata_name(self, from_name: str, to_name: str) -> None:
        # halide_mlir writes no metadata (fn_metadata); the map is kept for callers that read it back
        self._metadata_names[from_name] = to_name

    def get_auto_scheduler_results(self):
        return self._autoscheduler_results

    def set_auto_scheduler_results(self, results) -> None:
        self._autoscheduler_results = results

    def compile(self, outputs) -> None:
        """Writes each ``{hl.OutputFileType: path}`` output of the module's functions."""
        from . import OutputFileType, output_kinds, write_outputs

        kinds = output_kinds(outputs)
        if set(kinds) - {OutputFileType.c_header}:
            self.resolve_submodules()  # (a header only declares the functions: Halide ignores submodules there)
        if not kinds:
            return
        if not self._functions:
            raise HalideError(f"{user_site()}: Module '{self._name}' has no functions to compile")
        if len(self._functions) == 1:
            fn = self._functions[0]
            write_outputs(fn.compiled(), kinds, fn.fn_name)
            return
        _write_several(self, [fn.compiled() for fn in self._functions], kinds)

    def compile_to_buffer(self) -> Buffer:
        """The module's object code (what ``compile({object: ...})`` writes) as a 1-D uint8 Buffer."""
        import tempfile

        import numpy as np

        from . import OutputFileType

        with tempfile.TemporaryDirectory(prefix="halide_mlir_module-") as d:
            path = os.path.join(d, f"{self._name}.o")
            self.compile({OutputFileType.object: path})
            with open(path, "rb") as f:
                data = np.frombuffer(f.read(), dtype=np.uint8).copy()
        return Buffer(data, name=self._name)

    def __repr__(self) -> str:
        return f"<halide.Module '{self._name}'>"


def _write_several(module: Module, kernels: list, kinds: dict) -> None:
    """Several functions in one output: each object built on its own and joined (``cc -r``; the runtime's symbols
    are weak, so its copies merge), the headers one after the other (each behind its own include guard)."""
    from . import OutputFileType, _write
    from . import build
    from .wrapper import header

    several = {OutputFileType.object, OutputFileType.static_library, OutputFileType.c_header}
    other = sorted(k.name for k in kinds if k not in several)
    if other:
        raise HalideError(
            f"{user_site()}: Module '{module.name()}' holds {len(kernels)} functions; halide_mlir writes "
            f"object, static_library and c_header outputs of several functions, not {', '.join(other)}"
        )
    if OutputFileType.c_header in kinds:
        _write(kinds[OutputFileType.c_header], "\n".join(header(k.spec, build.runtime_header()) for k in kernels))
    if OutputFileType.object not in kinds and OutputFileType.static_library not in kinds:
        return
    from ..runtime.tools import llvm_tool

    with build.temp_dir() as d:
        objects = []
        for i, k in enumerate(kernels):
            sub = os.path.join(d, str(i))
            os.mkdir(sub)
            objects.append(build.build_object(k, sub))
        obj = os.path.join(d, f"{module.name()}.o")
        build._run([build._cc(), "-r", "-nostdlib", "-o", obj, *objects], "joining the objects")
        if OutputFileType.object in kinds:
            shutil.copyfile(obj, kinds[OutputFileType.object])
        if OutputFileType.static_library in kinds:
            lib = os.path.join(d, f"{module.name()}.a")
            build._run([llvm_tool("llvm-ar"), "rcs", lib, obj], "llvm-ar")
            if all(k.target.runtime for k in kernels):
                for k in kernels:
                    build.check_link(lib, k.spec.fn_name, d, [e.name for e, _ in getattr(k, "externs", ())])
            shutil.copyfile(lib, kinds[OutputFileType.static_library])


def compile_to_module(f, arguments, fn_name: str = "", target=None, linkage=LinkageType.ExternalPlusMetadata) -> Module:
    """Halide's ``Func.compile_to_module`` / ``Pipeline.compile_to_module``: a Module holding ``f`` compiled as the
    C function ``fn_name`` taking ``arguments``."""
    from . import default_fn_name
    from .build import parse_target
    from .. import driver
    from ..lang.pipeline import Pipeline

    fn_name = fn_name or default_fn_name(f)
    if LinkageType(linkage) == LinkageType.Internal:
        raise HalideError(f"{user_site()}: compile_to_module: halide_mlir's functions have external linkage only")
    t = _target(target)
    aot_target = _aot_target(t)
    parse_target(aot_target)  # an unsupported target is refused now, not at compile()
    from ..lang.extern import standin_of

    args = [argument_of(a) for a in arguments]
    given = {id(a._source) for a in args}
    funcs = f.outputs() if isinstance(f, Pipeline) else [f]
    for func in funcs:
        p = driver.front_end(func)
        for h in [*p.inputs, *p.params]:
            if not isinstance(h, Buffer) and id(h) not in given and standin_of(h) is None:  # (extern stages' outputs)
                kind = "buffer" if isinstance(h, ImageParam) else "parameter"
                raise HalideError(
                    f"{user_site()}: Generated code refers to {kind} {h.name()}, which was not found in the "
                    f"argument list of '{fn_name}'"
                )
    if not re.fullmatch(r"[A-Za-z_]\w*", fn_name):
        raise HalideError(f"{user_site()}: '{fn_name}' is not a valid C function name")
    module = Module(fn_name, t)
    fn = _Function(f, list(arguments), fn_name, aot_target)
    if all(func._estimates.get(v.name()) is not None for func in funcs for v in func.args()):
        try:
            fn.compiled()  # the sizes are known: compile now, keeping this schedule
        except HalideError:
            pass  # (an input's size not known yet, say): compile() builds it, and raises this again if it must
    module._functions.append(fn)
    return module


def link_modules(name: str, modules) -> Module:
    """Halide's ``hl.link_modules``: one Module holding every function of ``modules`` (same target)."""
    modules = list(modules)
    if not modules:
        raise HalideError(f"{user_site()}: link_modules needs at least one module")
    out = Module(name, modules[0].target())
    for m in modules:
        if m.target() != out.target():
            raise HalideError(
                f"{user_site()}: link_modules: module '{m.name()}' has target {m.target()}, not {out.target()}"
            )
        out._functions += m._functions
        out._buffers += m._buffers
        out._submodules += m._submodules
    names = [fn.fn_name for fn in out._functions]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise HalideError(f"{user_site()}: link_modules: the function {dup[0]} is defined in more than one module")
    return out
