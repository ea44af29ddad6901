"""Ahead-of-time compilation for another machine: Halide's cross-compilation (tutorial lesson 11).

A target that is not this machine's (``arm-64-linux``, ``x86-64-osx``, ``x86-64-windows-avx-sse41``,
``arm-32-android``, ``arm-32-ios-armv7s``...) gets Halide's LLVM triple, CPU and attributes
(src/LLVM_Runtime_Linker.cpp get_triple_for_target, CodeGen_ARM/CodeGen_X86 mcpu_target and mattrs) and its SIMD
width (auto-vectorization fills 128-bit NEON/SSE registers, 256-bit AVX ones; analysis/vectorize.py).

The kernel is the JIT's MLIR lowered as usual, its LLVM IR re-targeted (the host's triple and data layout
dropped, ``opt -mtriple`` sets the target's). The C parts (the wrapper of aot/wrapper.py and aot/runtime.c)
need a C compiler for the target, which the system ``cc`` is not: the ``ziglang`` package (a clang with the libc
headers of many targets, ``python -m ziglang cc -target ...``) compiles them to LLVM bitcode, and the three
modules are joined by ``llvm-link`` and compiled by the venv's ``llc`` into ONE object of the target's format
(ELF, COFF or Mach-O): a relocatable link (``cc -r``) does not exist for COFF and Mach-O, a module link does.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass

from ..error import HalideError
from ..lang.source import user_site
from .build import X86_FEATURES

_ARM_ATTRS = {
    "arm_fp16": "+fullfp16",
    "arm_dot_prod": "+dotprod",
    "armv81a": "+v8.1a",
    "armv82a": "+v8.2a",
    "armv83a": "+v8.3a",
    "armv84a": "+v8.4a",
    "armv85a": "+v8.5a",
    "armv86a": "+v8.6a",
    "armv87a": "+v8.7a",
    "armv88a": "+v8.8a",
    "armv89a": "+v8.9a",
}
# features that change nothing in what halide_mlir generates (as aot/build.py's)
_NO_OP = {"no_asserts", "no_bounds_query", "large_buffers", "strict_float", "c_plus_plus_name_mangling", "jit"}


@dataclass(frozen=True)
class Cross:
    """How to build for one foreign target."""

    triple: str  # Halide's LLVM triple
    cc: tuple  # the zig command compiling C for it (after ``python -m ziglang``)
    fmt: str  # object format: elf, coff, macho
    os: str  # Halide's OS token (linux, windows, osx, android, ios)

    @property
    def obj_ext(self) -> str:
        return ".obj" if self.os == "windows" else ".o"

    @property
    def lib_ext(self) -> str:
        return ".lib" if self.os == "windows" else ".a"

    @property
    def ar_format(self) -> str:
        return {"elf": "gnu", "coff": "coff", "macho": "darwin"}[self.fmt]


def _zig_lib() -> str:
    spec = importlib.util.find_spec("ziglang")
    return os.path.join(list(spec.submodule_search_locations)[0], "lib") if spec else ""


def _darwin(triple: str) -> tuple:
    # zig cc knows no 32-bit Apple targets: its clang is called directly with the Darwin headers zig ships
    lib = _zig_lib()
    return ("clang", f"--target={triple}", "-nostdinc", "-isystem", os.path.join(lib, "include"), "-isystem",
            os.path.join(lib, "libc", "include", "any-darwin-any"))  # fmt: skip


def cross_target(text: str, t) -> tuple:
    """(Cross, llc flags, SIMD register bits, runtime wanted) for ``t`` (an hl.Target parsed from ``text``), or a
    HalideError for what halide_mlir can't build."""
    from ..lang.target import TargetArch, TargetOS, _FEATURE_TOKENS

    tokens = {tok for f in t._features for tok in _FEATURE_TOKENS[f]}
    runtime = "no_runtime" not in tokens
    tokens -= _NO_OP | {"no_runtime"}
    arch, bits, os_ = t.arch, t.bits, t.os
    attrs: list = []
    if arch == TargetArch.X86 and bits == 64:
        unknown = tokens - set(X86_FEATURES)
        attrs = [X86_FEATURES[f] for f in sorted(tokens & set(X86_FEATURES))]
        cpu = (
            "x86-64-v4"
            if "avx512_skylake" in tokens
            else "x86-64-v3"
            if "avx2" in tokens
            else "x86-64-v2"
            if "avx" in tokens
            else "x86-64"
        )
        register_bits = 512 if tokens & {"avx512", "avx512_skylake"} else 256 if tokens & {"avx", "avx2"} else 128
        if os_ == TargetOS.OSX:
            cross = Cross("x86_64-apple-macosx11.0.0", ("cc", "-target", "x86_64-macos"), "macho", "osx")
        elif os_ == TargetOS.Windows:
            cross = Cross("x86_64-pc-windows-msvc", ("cc", "-target", "x86_64-windows-gnu"), "coff", "windows")
        elif os_ == TargetOS.Android:
            cross = Cross("x86_64-unknown-linux-android", ("cc", "-target", "x86_64-linux-musl"), "elf", "android")
        else:
            cross = None
    elif arch == TargetArch.ARM and bits in (32, 64):
        unknown = tokens - set(_ARM_ATTRS) - {"armv7s", "no_neon", "armv8a"}
        attrs = [_ARM_ATTRS[f] for f in sorted(tokens & set(_ARM_ATTRS))]
        register_bits = 128  # NEON (Halide's natural_vector_size: 16 bytes on ARM)
        if "armv8a" in tokens:
            attrs.insert(0, "+v8" if bits == 32 else "+v8a")
        if bits == 32:
            cpu = "swift" if "armv7s" in tokens else "cortex-a32" if "armv8a" in tokens else "cortex-a9"
            attrs.append("-neon" if "no_neon" in tokens else "+neon")
            arm = "armv7s" if "armv7s" in tokens else "arm"
            if os_ == TargetOS.Android:  # Halide: EABI (soft-float calling convention, as armeabi-v7a)
                cross = Cross(f"{arm}-unknown-linux-eabi", ("cc", "-target", "arm-linux-musleabi"), "elf", "android")
            elif os_ == TargetOS.Linux:
                cross = Cross(
                    f"{arm}-unknown-linux-gnueabihf", ("cc", "-target", "arm-linux-gnueabihf"), "elf", "linux"
                )
            elif os_ == TargetOS.IOS:
                # (Halide's minimum iOS is 15; clang compiles 32-bit iOS C for at most 10: the C parts say 10)
                cross = Cross(f"{arm}-apple-ios15.0.0", _darwin(f"{arm}-apple-ios10.0"), "macho", "ios")
            else:
                cross = None
        else:
            if tokens & {"sve", "sve2"}:
                unknown |= tokens & {"sve", "sve2"}
            cpu = "apple-a7" if os_ == TargetOS.IOS else "apple-m1" if os_ == TargetOS.OSX else "generic"
            if os_ in (TargetOS.IOS, TargetOS.OSX):
                attrs.append("+reserve-x18")
            if os_ == TargetOS.Linux:
                cross = Cross("aarch64-unknown-linux-gnu", ("cc", "-target", "aarch64-linux-gnu"), "elf", "linux")
            elif os_ == TargetOS.Android:
                cross = Cross("aarch64-unknown-linux-eabi", ("cc", "-target", "aarch64-linux-musl"), "elf", "android")
            elif os_ == TargetOS.OSX:
                cross = Cross("arm64-apple-macosx11.0.0", ("cc", "-target", "aarch64-macos"), "macho", "osx")
            elif os_ == TargetOS.IOS:
                cross = Cross("arm64-apple-ios15.0.0", _darwin("arm64-apple-ios15.0.0"), "macho", "ios")
            elif os_ == TargetOS.Windows:
                cross = Cross("aarch64-pc-windows-msvc", ("cc", "-target", "aarch64-windows-gnu"), "coff", "windows")
            else:
                cross = None
    else:
        cross, unknown = None, set()
    if cross is None:
        raise HalideError(
            f"{user_site()}: target '{text}': halide_mlir compiles ahead of time for x86-64 (linux, osx, windows, "
            f"android) and ARM 32/64 (linux, android, ios; arm-64 also osx, windows), not {arch.name} "
            f"{bits}-bit {os_.name}"
        )
    if unknown:
        raise HalideError(
            f"{user_site()}: target feature{'s' if len(unknown) > 1 else ''} {', '.join(sorted(unknown))} (in "
            f"'{text}') {'are' if len(unknown) > 1 else 'is'} not supported by halide_mlir's ahead-of-time "
            f"compilation"
        )
    llc = [f"-mtriple={cross.triple}", f"-mcpu={cpu}"] + ([f"-mattr={','.join(attrs)}"] if attrs else [])
    return cross, llc, register_bits, runtime


def retarget_ir(llvm_ir: str) -> str:
    """The kernel's IR without the host's triple and data layout: ``opt -mtriple`` then sets the target's (the
    MLIR lowering itself is target-neutral: memref descriptors are {ptr, ptr, i64, [n x i64], [n x i64]},
    the same layout as the C side on 32-bit targets)."""
    return re.sub(r"(?m)^target (datalayout|triple) = .*$", "", llvm_ir)


def _zig(cross: Cross) -> list:
    if importlib.util.find_spec("ziglang") is None:
        raise HalideError(
            f"{user_site()}: compiling for {cross.triple} needs a C cross-compiler for the wrapper and the runtime: "
            f"pip install ziglang (or halide-mlir's 'aot-cross' extra)"
        )
    return [sys.executable, "-m", "ziglang", *cross.cc]


def compile_c(cross: Cross, source: str, out: str, include_dir: str) -> str:
    """C source -> LLVM bitcode for ``cross`` (the wrapper and runtime.c)."""
    argv = _zig(cross) + ["-c", "-emit-llvm", "-O2", "-fPIC", "-fno-sanitize=all", "-fno-stack-protector", "-g0"]
    argv += ["-I", include_dir, "-o", out, source]
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        from ..error import InternalError

        raise InternalError(f"compiling {os.path.basename(source)} for {cross.triple} failed:\n{r.stderr[-4000:]}")
    return out


# zig's CPU and features on the C parts' functions: removed, so llc's -mcpu/-mattr (Halide's, e.g. -neon for
# no_neon) apply to every function of the object
_CPU_ATTRS = re.compile(r' "target-(?:cpu|features)"="[^"]*"')


def runtime_bitcode(cross: Cross, source: str, d: str) -> str:
    """runtime.c compiled for ``cross``: the same for every pipeline, so kept in the compiled-code cache's directory
    (private, runtime/disk_cache.py) under a hash of the source and the command (Windows' headers alone cost ~1 s)."""
    import hashlib
    import shutil
    import tempfile

    from ..runtime import disk_cache

    out = os.path.join(d, "halide_mlir_runtime.bc")
    if not disk_cache.enabled():
        return compile_c(cross, source, out, d)
    with open(source, "rb") as f:
        h = hashlib.sha256(f.read())
    h.update("\0".join(_zig(cross) + [_zig_lib()]).encode())
    cached = os.path.join(disk_cache.cache_dir(), "cross", h.hexdigest() + ".bc")
    if os.path.exists(cached):
        shutil.copyfile(cached, out)
        return out
    compile_c(cross, source, out, d)
    tmp = None
    try:  # atomically (a temp file, then rename): another process may be storing the same entry
        os.makedirs(os.path.dirname(cached), mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(cached), prefix=".tmp-", suffix=".bc")
        with os.fdopen(fd, "wb") as f, open(out, "rb") as src:
            f.write(src.read())
        os.replace(tmp, cached)
        tmp = None
    except OSError:
        pass  # (only the cache is lost)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return out


def build_object(kernel, d: str) -> str:
    """kernel + wrapper (+ runtime) as one object of the target's format in ``d``: the C parts compiled to
    bitcode, every module joined by ``llvm-link``, then one ``llc``. ``kernel``: a build.Kernel or a
    multi.MultiKernel."""
    from ..runtime.tools import llvm_tool
    from .build import RUNTIME_C, _run, kernel_modules, runtime_header, wrapper_source
    from .wrapper import header

    tgt = kernel.target
    cross = tgt.cross
    fn = kernel.spec.fn_name
    parts = getattr(kernel, "parts", None)
    modules = []
    for k in parts or [kernel]:
        name = k.spec.fn_name
        with open(os.path.join(d, f"{name}.h"), "w") as f:
            f.write(header(k.spec, runtime_header()))
        with open(os.path.join(d, f"{name}_wrapper.c"), "w") as f:
            f.write(wrapper_source(k))
        for stem, ir in kernel_modules(k):
            modules.append(os.path.join(d, f"{stem}.ll"))
            with open(modules[-1], "w") as f:
                f.write(ir)
        modules.append(compile_c(cross, os.path.join(d, f"{name}_wrapper.c"), os.path.join(d, f"{name}_w.bc"), d))
    if parts:
        from .multi import top_wrapper

        with open(os.path.join(d, f"{fn}.h"), "w") as f:
            f.write(header(kernel.spec, runtime_header()))
        with open(os.path.join(d, f"{fn}_wrapper.c"), "w") as f:
            f.write(top_wrapper(kernel))
        modules.append(compile_c(cross, os.path.join(d, f"{fn}_wrapper.c"), os.path.join(d, f"{fn}_w.bc"), d))
    if tgt.runtime:
        modules.append(runtime_bitcode(cross, RUNTIME_C, d))
    linked = os.path.join(d, f"{fn}_linked.ll")
    # (the C parts carry zig's spelling of the triple; llc's -mtriple is Halide's for the whole module)
    text = _run([llvm_tool("llvm-link"), "--suppress-warnings", "-S", *modules], "llvm-link")
    with open(linked, "w") as f:
        f.write(_CPU_ATTRS.sub("", text))
    out = os.path.join(d, f"{fn}{cross.obj_ext}")
    _run([llvm_tool("llc"), "-O3", "-filetype=obj", "-relocation-model=pic", *tgt.llc, "-o", out, linked], "llc")
    return out


def build_library(kernel, d: str) -> str:
    from ..runtime.tools import llvm_tool
    from .build import _run

    obj = build_object(kernel, d)
    lib = os.path.join(d, f"{kernel.spec.fn_name}{kernel.target.cross.lib_ext}")
    _run([llvm_tool("llvm-ar"), "rcs", f"--format={kernel.target.cross.ar_format}", lib, obj], "llvm-ar")
    return lib


def assembly(kernel, d: str) -> str:
    """The target's assembly of the whole object (kernel, wrapper, runtime: one module here)."""
    from ..runtime.tools import llvm_tool
    from .build import _run

    build_object(kernel, d)
    linked = os.path.join(d, f"{kernel.spec.fn_name}_linked.ll")
    return _run([llvm_tool("llc"), "-O3", "-filetype=asm", *kernel.target.llc, "-o", "-", linked], "llc")


def _windows(target) -> bool:
    from ..lang.target import Target, TargetOS

    if target is None or not str(target):
        return False
    t = target if isinstance(target, Target) else Target(str(target))
    return t.os == TargetOS.Windows


def object_suffix(target) -> str:
    """Halide's compile_to_file names a Windows target's object ``.obj``."""
    return ".obj" if _windows(target) else ".o"


def library_suffix(target) -> str:
    """... and compile_to_static_library its library ``.lib``."""
    return ".lib" if _windows(target) else ".a"
