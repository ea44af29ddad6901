"""Ahead-of-time compilation with Halide's C ABI: ``Func.compile_to_*`` and ``Pipeline.compile_to_*``.

A compiled function takes ``struct halide_buffer_t *`` for each buffer and plain C scalars for Params, in Halide's
order (the arguments as given, then the outputs), and returns 0 or a Halide error code after reporting through
``halide_error``. Static libraries link with Halide's line, ``cc main.c lib.a -lpthread -ldl -lm``: the runtime
(errors, memory, the thread pool of parallel loops) is inside. See docs/aot.md.
"""

from __future__ import annotations

import enum
import os
import re
import shutil

from ..error import HalideError
from ..lang.source import user_site
from .arguments import Argument, ArgumentKind, infer_arguments

__all__ = [
    "OutputFileType",
    "StmtOutputFormat",
    "Argument",
    "ArgumentKind",
    "infer_arguments",
    "compile_to",
    "build_python_extension",
]

from .pyext import build_python_extension  # noqa: E402


class OutputFileType(enum.Enum):
    """Halide's ``hl.OutputFileType`` (the kinds halide_mlir writes; others are refused by compile_to)."""

    assembly = "assembly"
    bitcode = "bitcode"
    c_header = "c_header"
    llvm_assembly = "llvm_assembly"
    object = "object"
    static_library = "static_library"
    stmt = "stmt"
    stmt_html = "stmt_html"
    c_source = "c_source"
    compiler_log = "compiler_log"
    conceptual_stmt = "conceptual_stmt"
    conceptual_stmt_html = "conceptual_stmt_html"
    cpp_stub = "cpp_stub"
    featurization = "featurization"
    function_info_header = "function_info_header"
    hlpipe = "hlpipe"
    python_extension = "python_extension"
    pytorch_wrapper = "pytorch_wrapper"
    registration = "registration"
    schedule = "schedule"
    device_code = "device_code"


class StmtOutputFormat(enum.Enum):
    """Halide's names are ``Text`` and ``HTML``; the lower-case ones stay as aliases."""

    Text = "text"
    HTML = "html"
    text = "text"
    html = "html"


SUPPORTED = (
    OutputFileType.assembly,
    OutputFileType.bitcode,
    OutputFileType.c_header,
    OutputFileType.llvm_assembly,
    OutputFileType.object,
    OutputFileType.static_library,
    OutputFileType.stmt,
    OutputFileType.stmt_html,
    OutputFileType.conceptual_stmt,
    OutputFileType.conceptual_stmt_html,
    OutputFileType.python_extension,
    OutputFileType.c_source,
)


def _output_func(f):
    from ..lang.pipeline import Pipeline

    return f._output() if isinstance(f, Pipeline) else f


def output_kinds(outputs: dict) -> dict:
    """``{OutputFileType: path}`` from what the user gave (enum members or their names); unsupported kinds refused."""
    kinds = {}
    for kind, path in dict(outputs).items():
        kind = kind if isinstance(kind, OutputFileType) else OutputFileType(str(kind).split(".")[-1])
        if kind not in SUPPORTED:
            raise HalideError(f"{user_site()}: halide_mlir can't write a {kind.name} output yet")
        kinds[kind] = os.fspath(path)
    return kinds


def default_fn_name(f) -> str:
    from ..lang.pipeline import Pipeline

    func = _output_func(f) if not (isinstance(f, Pipeline) and len(f.outputs()) > 1) else f.outputs()[0]
    return re.sub(r"\W", "_", func.name())  # (a Func named twice is f$1: not a C name)


def compile_kernel(f, args, fn_name: str, target=None, _schedule_part=None):
    """``f`` (a Func or a Pipeline) compiled as the C function ``fn_name`` taking ``args``: a build.Kernel, or a
    multi.MultiKernel for a Pipeline of several outputs."""
    from . import build
    from ..lang.pipeline import Pipeline
    from .requirements import in_definitions, requirements_of

    funcs = f.outputs() if isinstance(f, Pipeline) else [f]
    if len(funcs) > 1:  # several outputs: one part per output Func (aot/multi.py)
        from .multi import compile_multi

        kernel = compile_multi(funcs, list(args), fn_name, target, _schedule_part)
        kernel.parts[0].spec.requirements = requirements_of(f) + in_definitions(funcs)
    else:
        from .. import driver
        from ..driver_extern import standins

        from ..driver_debug import debug_funcs

        from ..analysis.specialize import forcing

        with forcing({}):  # (the stages only: no specialize() condition evaluated on buffers not bound in AOT)
            probe = driver.front_end(_output_func(f))
        held, debug = standins(probe), debug_funcs(probe)
        if debug:  # (the JIT writes them: driver_debug.py; AOT code has no file writer)
            raise HalideError(
                f"{user_site()}: Func '{debug[0].name}' has debug_to_file, which halide_mlir's ahead-of-time code "
                f"does not write (realize it in the JIT, or remove debug_to_file)"
            )
        if held:  # extern stages: called by the function before the compiled pipeline (aot/extern.py)
            from .extern import compile_extern

            kernel = compile_extern(_output_func(f), list(args), fn_name, target, held)
        else:
            kernel = build.compile_kernel(_output_func(f), list(args), fn_name, target)
        kernel.spec.requirements = requirements_of(f) + in_definitions(funcs)
    return kernel


def compile_to(f, outputs: dict, args, fn_name: str = "", target=None, *, _schedule_part=None) -> None:
    """Writes each requested output (``{hl.OutputFileType.static_library: "x.a", ...}``) of ``f`` (a Func or a
    Pipeline) compiled as the C function ``fn_name`` taking ``args``."""
    fn_name = fn_name or default_fn_name(f)
    kinds = output_kinds(outputs)
    if kinds:
        write_outputs(compile_kernel(f, args, fn_name, target, _schedule_part), kinds, fn_name)


def write_outputs(kernel, kinds: dict, fn_name: str) -> None:
    """Writes ``kinds`` (``{OutputFileType: path}``) of a compiled kernel."""
    from . import build

    with build.temp_dir() as d:
        if OutputFileType.static_library in kinds:
            shutil.copyfile(build.build_library(kernel, d), kinds[OutputFileType.static_library])
        if OutputFileType.object in kinds:
            shutil.copyfile(build.build_object(kernel, d), kinds[OutputFileType.object])
        if OutputFileType.c_header in kinds:
            from .wrapper import header

            _write(kinds[OutputFileType.c_header], header(kernel.spec, build.runtime_header()))
        if OutputFileType.python_extension in kinds:
            from .pyext import python_extension_source

            _write(kinds[OutputFileType.python_extension], python_extension_source(kernel.spec, build.runtime_header()))
        if OutputFileType.c_source in kinds:
            from .c_source import c_source

            _write(kinds[OutputFileType.c_source], c_source(kernel))
        if OutputFileType.assembly in kinds:
            _write(kinds[OutputFileType.assembly], build.assembly(kernel, d))
        if OutputFileType.llvm_assembly in kinds:
            _write(kinds[OutputFileType.llvm_assembly], kernel.llvm_ir)
        if OutputFileType.bitcode in kinds:
            build.bitcode(kernel, kinds[OutputFileType.bitcode])
        for kind in (OutputFileType.stmt, OutputFileType.conceptual_stmt):
            if kind in kinds:
                _write(kinds[kind], kernel.stmt())
        for kind in (OutputFileType.stmt_html, OutputFileType.conceptual_stmt_html):
            if kind in kinds:
                from .stmt_html import page

                _write(kinds[kind], page(kernel, fn_name))


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


# Halide's compile_to_* conveniences, with Halide's file names


def compile_to_static_library(f, filename_prefix, args, fn_name="", target=None) -> None:
    from .cross import library_suffix

    compile_to(
        f,
        {
            OutputFileType.static_library: f"{filename_prefix}{library_suffix(target)}",
            OutputFileType.c_header: f"{filename_prefix}.h",
        },
        args,
        fn_name,
        target,
    )


def compile_to_file(f, filename_prefix, args, fn_name="", target=None) -> None:
    from .cross import object_suffix

    compile_to(
        f,
        {
            OutputFileType.object: f"{filename_prefix}{object_suffix(target)}",
            OutputFileType.c_header: f"{filename_prefix}.h",
        },
        args,
        fn_name,
        target,
    )


def compile_to_one(kind: OutputFileType):
    def method(f, filename, args, fn_name="", target=None) -> None:
        compile_to(f, {kind: filename}, args, fn_name, target)

    return method


compile_to_object = compile_to_one(OutputFileType.object)
compile_to_header = compile_to_one(OutputFileType.c_header)
compile_to_assembly = compile_to_one(OutputFileType.assembly)
compile_to_llvm_assembly = compile_to_one(OutputFileType.llvm_assembly)
compile_to_bitcode = compile_to_one(OutputFileType.bitcode)
compile_to_c = compile_to_one(OutputFileType.c_source)


def compile_to_lowered_stmt(f, filename, args, fmt=StmtOutputFormat.text, target=None) -> None:
    html_fmt = str(getattr(fmt, "name", fmt)).split(".")[-1].lower() == "html"
    compile_to(f, {OutputFileType.stmt_html if html_fmt else OutputFileType.stmt: filename}, args, "", target)
