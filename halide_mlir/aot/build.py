"""Ahead-of-time compilation: a pipeline → an object file, a static library and a C header with Halide's C ABI.

The kernel is the JIT's code (driver.compile_pipeline, then lower_to_llvm: the same MLIR steps), translated to LLVM
IR, its symbols renamed after the function (two pipelines link into one program), then ``opt -O3`` and ``llc``
for the target. Around it: the C wrapper (aot/wrapper.py) that takes ``halide_buffer_t``s, and the runtime
(aot/runtime.c: Halide's error/malloc/thread-count entry points, the OpenMP entry points parallel loops call, on
a pthread pool). The system C compiler (``$CC``, else ``cc``) builds both; ``cc -r`` joins the three into one
object, and ``llvm-ar`` makes the library. Before returning, the library is linked with Halide's link line
(``cc main.c lib.a -lpthread -ldl -lm``) so a missing symbol is an error here, not in the user's build.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from ..error import HalideError, InternalError
from ..lang.source import user_site
from .arguments import BufferArg, Spec, specialize
from .wrapper import header, wrapper

RUNTIME_C = os.path.join(os.path.dirname(__file__), "runtime.c")

# Halide's x86 target features and the LLVM attributes they select (aot/cross.py uses them for x86 targets too)
X86_FEATURES = {
    "sse41": "+sse4.1",
    "avx": "+avx",
    "avx2": "+avx2,+fma,+f16c",
    "fma": "+fma",
    "f16c": "+f16c",
    "avx512": "+avx512f,+avx512cd",
    "avx512_knl": "+avx512f,+avx512cd,+avx512er,+avx512pf",
    "avx512_skylake": "+avx512f,+avx512cd,+avx512vl,+avx512bw,+avx512dq",
    "avx512_cannonlake": "+avx512f,+avx512cd,+avx512vl,+avx512bw,+avx512dq,+avx512ifma,+avx512vbmi",
    "avx512_sapphirerapids": "+avx512f,+avx512cd,+avx512vl,+avx512bw,+avx512dq,+avx512bf16,+avx512fp16",
    "avx512_zen4": "+avx512f,+avx512cd,+avx512vl,+avx512bw,+avx512dq,+avx512ifma,+avx512vbmi,+avx512vnni,"
    "+avx512bf16,+avx512vbmi2,+avx512bitalg,+avx512vpopcntdq",
    "avx512_zen5": "+avx512f,+avx512cd,+avx512vl,+avx512bw,+avx512dq,+avx512ifma,+avx512vbmi,+avx512vnni,"
    "+avx512bf16,+avx512vbmi2,+avx512bitalg,+avx512vpopcntdq,+avxvnni",
    "avxvnni": "+avxvnni",
}
# features that change nothing in what halide_mlir generates
_NO_OP = {"no_asserts", "no_bounds_query", "large_buffers", "strict_float", "no_neon", "c_plus_plus_name_mangling"}


@dataclass
class Target:
    llc: list  # -mtriple/-mcpu/-mattr
    runtime: bool  # include the runtime (Halide's -no_runtime leaves it out)
    register_bits: int = 512  # SIMD width auto-vectorization fills (analysis/vectorize.py)
    cross: object = None  # aot/cross.Cross for another machine's target, else None (built by the host's cc)


def parse_target(target) -> Target:
    text = str(target) if target is not None else "host"
    parts = [p for p in text.split("-") if p]
    host = parts[:1] == ["host"]
    if host:
        rest = parts[1:]
    else:
        if parts[:3] != ["x86", "64", "linux"]:
            from ..lang.target import Target as HlTarget
            from .cross import cross_target

            cross, llc, bits, runtime = cross_target(text, HlTarget(text))
            return Target(llc, runtime, bits, cross)
        rest = parts[3:]
    attrs, runtime = [], True
    for f in rest:
        if f == "no_runtime":
            runtime = False
        elif f in X86_FEATURES:
            attrs.append(X86_FEATURES[f])
        elif f not in _NO_OP and not f.startswith("tune_"):  # tune_<cpu>: scheduling hints, no ISA change
            raise HalideError(
                f"{user_site()}: target feature '{f}' (in '{text}') is not supported by halide_mlir's "
                f"ahead-of-time compilation"
            )
    llc = ["-mtriple=x86_64-unknown-linux-gnu", "-mcpu=native" if host else "-mcpu=x86-64"]
    if attrs:
        llc.append("-mattr=" + ",".join(attrs))
    return Target(llc, runtime, _register_bits(rest if not host else _host_tokens()))


def _register_bits(tokens) -> int:
    if any(t.startswith("avx512") for t in tokens):
        return 512
    return 256 if {"avx", "avx2"} & set(tokens) else 128


def _host_tokens() -> list:
    from ..lang.target import _FEATURE_TOKENS, get_host_target

    return [tok for f in get_host_target()._features for tok in _FEATURE_TOKENS[f]]


def _cc() -> str:
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        raise HalideError(f"{user_site()}: ahead-of-time compilation needs a C compiler ('{cc}', set $CC)")
    return cc


def _run(argv, what: str, stdin: str | None = None) -> str:
    r = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise InternalError(f"{what} failed ({' '.join(argv[:1])}):\n{r.stderr[-4000:]}", stage="aot")
    return r.stdout


def runtime_header() -> str:
    """Halide's HalideRuntime.h (from the halide wheel) when installed, so our header and Halide's own agree;
    else the few declarations the generated function needs, behind the same include guard."""
    try:
        import halide

        path = os.path.join(os.path.dirname(halide.__file__), "include", "HalideRuntime.h")
        with open(path) as f:
            return f.read()
    except (ImportError, OSError):
        return _MINIMAL_RUNTIME_H


_MINIMAL_RUNTIME_H = """#ifndef HALIDE_HALIDERUNTIME_H
#define HALIDE_HALIDERUNTIME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef enum halide_type_code_t { halide_type_int = 0, halide_type_uint = 1, halide_type_float = 2,
                                  halide_type_handle = 3, halide_type_bfloat = 4 } halide_type_code_t;
struct halide_type_t { uint8_t code; uint8_t bits; uint16_t lanes; };
typedef struct halide_dimension_t { int32_t min, extent, stride; uint32_t flags; } halide_dimension_t;
struct halide_device_interface_t;
typedef struct halide_buffer_t {
    uint64_t device;
    const struct halide_device_interface_t *device_interface;
    uint8_t *host;
    uint64_t flags;
    struct halide_type_t type;
    int32_t dimensions;
    halide_dimension_t *dim;
    void *padding;
} halide_buffer_t;
typedef void (*halide_error_handler_t)(void *, const char *);
extern halide_error_handler_t halide_set_error_handler(halide_error_handler_t handler);
extern void halide_error(void *user_context, const char *);
extern int halide_set_num_threads(int n);
extern void halide_shutdown_thread_pool(void);
extern void *halide_malloc(void *user_context, size_t x);
extern void halide_free(void *user_context, void *ptr);
enum halide_error_code_t { halide_error_code_success = 0, halide_error_code_generic_error = -1,
    halide_error_code_bad_type = -3, halide_error_code_access_out_of_bounds = -4,
    halide_error_code_constraint_violated = -8, halide_error_code_out_of_memory = -11,
    halide_error_code_buffer_argument_is_null = -12, halide_error_code_bad_dimensions = -43 };
#ifdef __cplusplus
}
#endif
#endif
"""


@dataclass
class Kernel:
    spec: Spec
    target: Target
    compilation: object  # driver.Compilation: payload and transform script
    threads: int
    llvm_ir: str  # optimized LLVM IR, symbols renamed
    symbol: str  # the kernel's C-interface entry point

    def stmt(self) -> str:
        """Halide's "stmt": our loops on memrefs (the bufferized module, before the LLVM dialect)."""
        from .. import driver
        from ..runtime import jit

        return str(
            driver.lower_to_llvm(
                jit.new_context(),
                self.compilation.payload,
                self.compilation.transform,
                self.threads,
                until="bufferized",
            )
        )


def _threads() -> int:
    """Parallel loops become OpenMP calls (runtime.c runs them); the count is decided at run time."""
    from ..settings import num_threads

    return max(2, num_threads())


@contextlib.contextmanager
def _bound(bind):
    """Buffers of the compiled sizes bound to the ImageParams (and index Params' estimates to them) while
    compiling, then the user's back."""
    slot = {id(h): "_buffer" if hasattr(h, "_buffer") else "_value" for h, _ in bind}
    old = [(h, getattr(h, slot[id(h)])) for h, _ in bind]
    for h, b in bind:
        setattr(h, slot[id(h)], b)
    try:
        yield
    finally:
        for h, b in old:
            setattr(h, slot[id(h)], b)


def _check_runtime() -> None:
    from ..settings import parallel_runtime

    if parallel_runtime(_threads()) != "openmp":
        raise HalideError(
            f"{user_site()}: ahead-of-time compilation needs HALIDE_MLIR_PARALLEL_RUNTIME=openmp (its "
            f"static libraries carry their own OpenMP entry points)"
        )


def _has_sizes(func) -> bool:
    """Does the output have estimates for every dimension and every ImageParam estimates or a Buffer? (Then the
    function is compiled for that fixed size, arguments.py.)"""
    from .. import driver
    from ..lang.param import ImageParam

    if any(func._estimates.get(v.name()) is None for v in func.args()):
        return False
    for h in driver.front_end(func).inputs:
        est = getattr(h, "_estimates", None)
        if isinstance(h, ImageParam) and (not est or any(e is None for e in est)) and h.get() is None:
            return False
    return True


def compile_kernel(func, args, fn_name: str, target) -> Kernel:
    from .. import driver
    from ..runtime import jit

    if not re.fullmatch(r"[A-Za-z_]\w*", fn_name):
        raise HalideError(f"{user_site()}: '{fn_name}' is not a valid C function name")
    tgt = parse_target(target)
    if func.dimensions() == 0:
        raise HalideError(
            f"{user_site()}: ahead-of-time compilation of a zero-dimensional Func ('{func.name()}') is not supported"
        )
    if not _has_sizes(func):  # no estimates: a function for any size (aot/anysize.py), or a HalideError
        from .anysize import compile_any_size

        _check_runtime()
        return compile_any_size(func, args, fn_name, tgt)
    spec, bind = specialize(func, args, fn_name)
    from ..analysis.memoize import warn_uncached

    warn_uncached(func, "ahead-of-time code")  # (Halide's AOT runtime has a memoization cache; ours has none)
    threads = _threads()
    _check_runtime()
    from ..analysis.vectorize import target_registers

    with _bound(bind), target_registers(tgt.register_bits):
        compilation = driver.compile_pipeline(func, spec.region)
        try:
            module = driver.lower_to_llvm(jit.new_context(), compilation.payload, compilation.transform, threads)
        except InternalError:  # as driver.compile: without auto-vectorization
            compilation = driver.compile_pipeline(func, spec.region, auto_vector=False)
            module = driver.lower_to_llvm(jit.new_context(), compilation.payload, compilation.transform, threads)
    ir, symbol = kernel_ir(module, f"__hl_{fn_name}_kernel", tgt)
    from .arguments import free_dims

    regions = {id(sp.func): sp.region for sp in compilation.plan.stages}
    for a in spec.kernel_inputs:
        if isinstance(a, BufferArg) and a.exact:
            a.free_dims = free_dims(compilation.plan.pipeline.stages, regions, a)
    kernel = Kernel(spec, tgt, compilation, threads, ir, symbol)
    if len(spec.outputs) == 1:  # other sizes: the any-size kernel, where the pipeline is in its class
        from .anysize import fallback_kernel

        kernel.fallback = fallback_kernel(func, args, fn_name, tgt)
    return kernel


def kernel_ir(module, name: str, tgt) -> tuple[str, str]:
    """(LLVM IR optimized for ``tgt``, its C-interface symbol) of a lowered module whose function is renamed
    ``name`` (the wrapper calls it; several kernels link into one program)."""
    from ..runtime import jit
    from ..runtime.tools import llvm_tool

    ir = jit.translate_to_llvm_ir(str(module))
    symbol = f"{name}_ciface"
    ir = re.sub(r"@_mlir_ciface_pipeline(?=\W)", f"@{symbol}", ir)
    ir = re.sub(r"@pipeline(?=[\W])", f"@{name}", ir)
    if tgt.cross is not None:
        from .cross import retarget_ir

        ir = retarget_ir(ir)
    return _run([llvm_tool("opt"), "-O3", "-S", *tgt.llc], "opt", ir), symbol


def _runtime_object(d: str, cc: str) -> str:
    out = os.path.join(d, "halide_mlir_runtime.o")
    _run([cc, "-c", "-O2", "-fPIC", "-o", out, RUNTIME_C], "compiling the AOT runtime")
    return out


def wrapper_source(kernel) -> str:
    """The C wrapper of one kernel: the any-size one's own, a fixed-size one dispatching to its any-size
    fallback for other sizes, or the fixed-size one alone."""
    if hasattr(kernel, "wrapper_c"):
        return kernel.wrapper_c()
    if getattr(kernel, "fallback", None) is not None:
        from .anysize import dispatch_wrapper

        return dispatch_wrapper(kernel, kernel.fallback)
    return wrapper(kernel.spec, kernel.symbol)


def kernel_modules(kernel) -> list[tuple[str, str]]:
    """(file stem, LLVM IR) of each compiled kernel the wrapper calls: the kernel, and its any-size fallback."""
    fn = kernel.spec.fn_name
    modules = [(f"{fn}_kernel", kernel.llvm_ir)]
    if getattr(kernel, "fallback", None) is not None:
        modules.append((f"{fn}_any_kernel", kernel.fallback.llvm_ir))
    return modules


def _part_objects(kernel: Kernel, d: str, cc: str) -> list:
    """The kernel (llc) and its C wrapper as objects in ``d``."""
    from ..runtime.tools import llvm_tool

    fn = kernel.spec.fn_name
    with open(os.path.join(d, f"{fn}.h"), "w") as f:
        f.write(header(kernel.spec, runtime_header()))
    with open(os.path.join(d, f"{fn}_wrapper.c"), "w") as f:
        f.write(wrapper_source(kernel))
    objects = []
    for stem, ir in kernel_modules(kernel):
        objects.append(os.path.join(d, f"{stem}.o"))
        _run(
            [llvm_tool("llc"), "-O3", "-filetype=obj", "-relocation-model=pic", *kernel.target.llc, "-o", objects[-1]],
            "llc",
            ir,
        )
    w_obj = os.path.join(d, f"{fn}_wrapper.o")
    _run([cc, "-c", "-O2", "-fPIC", "-I", d, "-o", w_obj, os.path.join(d, f"{fn}_wrapper.c")], "compiling the wrapper")
    return [*objects, w_obj]


def build_object(kernel, d: str) -> str:
    """kernel + wrapper (+ runtime) as one relocatable object in directory ``d``; returns its path. ``kernel``
    is a Kernel, or a multi.MultiKernel (one part per output, and the function calling them)."""
    if kernel.target.cross is not None:
        from . import cross

        return cross.build_object(kernel, d)
    cc = _cc()
    fn = kernel.spec.fn_name
    parts = getattr(kernel, "parts", None)
    objects = []
    for k in parts or [kernel]:
        objects += _part_objects(k, d, cc)
    if parts:
        from .multi import top_wrapper

        with open(os.path.join(d, f"{fn}.h"), "w") as f:
            f.write(header(kernel.spec, runtime_header()))
        with open(os.path.join(d, f"{fn}_wrapper.c"), "w") as f:  # (aot/extern.py's kernels write their own)
            f.write(kernel.top_wrapper() if hasattr(kernel, "top_wrapper") else top_wrapper(kernel))
        objects.append(os.path.join(d, f"{fn}_wrapper.o"))
        _run(
            [cc, "-c", "-O2", "-fPIC", "-I", d, "-o", objects[-1], os.path.join(d, f"{fn}_wrapper.c")],
            "compiling the wrapper",
        )
    if kernel.target.runtime:
        objects.append(_runtime_object(d, cc))
    out = os.path.join(d, f"{fn}.o")
    _run([cc, "-r", "-nostdlib", "-o", out, *objects], "joining the objects")
    return out


def build_library(kernel: Kernel, d: str) -> str:
    from ..runtime.tools import llvm_tool

    if kernel.target.cross is not None:
        from . import cross

        return cross.build_library(kernel, d)
    obj = build_object(kernel, d)
    lib = os.path.join(d, f"{kernel.spec.fn_name}.a")
    _run([llvm_tool("llvm-ar"), "rcs", lib, obj], "llvm-ar")
    if kernel.target.runtime:
        check_link(lib, kernel.spec.fn_name, d, [e.name for e, _ in getattr(kernel, "externs", ())])
    return lib


def check_link(lib: str, fn_name: str, d: str, provided=()) -> None:
    """Links ``lib`` as Halide's callers do: every symbol the code needs must be in it or in libc/libm, or be
    one of ``provided`` (extern stages' C functions: the caller's program has them)."""
    main = os.path.join(d, "link_check.c")
    with open(main, "w") as f:
        f.write("".join(f"int {name}(void) {{ return 0; }}\n" for name in dict.fromkeys(provided)))
        f.write(f"extern int {fn_name}(); int main(void) {{ return (int)(long)&{fn_name} == 0; }}\n")
    r = subprocess.run(
        [_cc(), main, lib, "-lpthread", "-ldl", "-lm", "-o", os.path.join(d, "link_check")],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        missing = sorted(set(re.findall(r"undefined reference to `([^']+)'", r.stderr)))
        raise HalideError(
            f"{user_site()}: the static library of '{fn_name}' needs symbols no runtime provides "
            f"({', '.join(missing) or r.stderr[-2000:]}); this schedule can't be compiled ahead of "
            f"time yet"
        )


def assembly(kernel: Kernel, d: str) -> str:
    from ..runtime.tools import llvm_tool

    if kernel.target.cross is not None:
        from . import cross

        return cross.assembly(kernel, d)
    asm = _run([llvm_tool("llc"), "-O3", "-filetype=asm", *kernel.target.llc], "llc", kernel.llvm_ir)
    build_object(kernel, d)  # writes the wrapper's source next to it
    wrapper_asm = _run(
        [_cc(), "-S", "-O2", "-fPIC", "-I", d, "-o", "-", os.path.join(d, f"{kernel.spec.fn_name}_wrapper.c")], "cc -S"
    )
    return f"# kernel\n{asm}\n# wrapper ({kernel.spec.fn_name})\n{wrapper_asm}"


def bitcode(kernel: Kernel, path: str) -> None:
    from ..runtime.tools import llvm_tool

    _run([llvm_tool("llvm-as"), "-o", path], "llvm-as", kernel.llvm_ir)


def temp_dir():
    return tempfile.TemporaryDirectory(prefix="halide_mlir_aot-")
