"""``compile_to_multitarget_static_library`` / ``compile_to_multitarget_object_files``: one function per target
and Halide's wrapper choosing among them at run time by the CPU's features.

Each target's function is compiled as usual (without the runtime, which is added once) and its symbols renamed to
Halide's names (``fn-<target string>`` or ``fn-<suffix>``, with ``_argv``; llvm-objcopy). The wrapper ``fn`` (and
``fn_argv``) calls the first target whose x86 features the CPU has (``__builtin_cpu_supports``); the last target is
Halide's baseline, called when no other can run. The header is the single-target one. x86-64 Linux targets only.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace

from ..error import HalideError
from ..lang.source import user_site
from .arguments import BufferArg
from .wrapper import argv_entry, c_name, prototype

# Halide's x86 feature -> what __builtin_cpu_supports checks (AVX2 as Halide's: with FMA)
_CPU_CHECKS = {
    "sse41": ["sse4.1"],
    "avx": ["avx"],
    "avx2": ["avx2", "fma"],
    "fma": ["fma"],
    "f16c": ["avx"],  # (f16c has no __builtin_cpu_supports name; every F16C CPU has AVX)
    "avx512": ["avx512f", "avx512cd"],
    "avx512_knl": ["avx512f", "avx512cd", "avx512er", "avx512pf"],
    "avx512_skylake": ["avx512f", "avx512cd", "avx512vl", "avx512bw", "avx512dq"],
    "avx512_cannonlake": ["avx512f", "avx512cd", "avx512vl", "avx512bw", "avx512dq", "avx512ifma", "avx512vbmi"],
    "avx512_sapphirerapids": ["avx512f", "avx512cd", "avx512vl", "avx512bw", "avx512dq", "avx512bf16"],
}


def _targets(targets) -> list[str]:
    from ..lang.target import Target

    if not isinstance(targets, (list, tuple)) or not targets:
        raise HalideError(f"{user_site()}: Must specify at least one target.")
    out = []
    for t in targets:
        text = str(t if isinstance(t, Target) else Target(t))
        parts = text.split("-")
        if parts[:3] != ["x86", "64", "linux"]:
            raise HalideError(
                f"{user_site()}: compile_to_multitarget_*: target '{text}' is not supported by halide_mlir "
                f"(x86-64-linux targets only; compile other targets one at a time)"
            )
        if "jit" in parts:
            raise HalideError(f"{user_site()}: JIT not allowed for compile_multitarget.")
        out.append(text)
    return out


def _checks(target: str) -> list[str]:
    return sorted({c for f in target.split("-")[3:] for c in _CPU_CHECKS.get(f, [])})


def compile_multitarget(f, prefix: str, args, targets, suffixes=None, library: bool = True) -> None:
    from . import build, compile_to, default_fn_name
    from ..runtime.tools import llvm_tool

    texts = _targets(targets)
    if suffixes is not None and suffixes and len(suffixes) != len(texts):
        raise HalideError(f"{user_site()}: The suffixes list must be empty or the same length as the targets list.")
    fn = default_fn_name(f)
    if len(texts) == 1:  # (as Halide: one target, no wrapper, the files unsuffixed)
        from . import OutputFileType

        kind = OutputFileType.static_library if library else OutputFileType.object
        path = f"{prefix}.a" if library else f"{prefix}.o"
        compile_to(f, {kind: path, OutputFileType.c_header: f"{prefix}.h"}, args, fn, texts[0])
        return
    names = [f"{fn}-{s}" for s in (suffixes or texts)]
    kernels = []
    for i, t in enumerate(texts):
        from . import compile_kernel

        kernels.append(compile_kernel(f, args, f"__hl_mt{i}_{fn}", f"{t}-no_runtime"))
    spec = replace(kernels[-1].spec, fn_name=fn)
    cc = build._cc()
    with build.temp_dir() as d:
        objects = []
        for i, (k, name) in enumerate(zip(kernels, names)):
            sub = os.path.join(d, f"t{i}")
            os.makedirs(sub)
            obj = build.build_object(k, sub)
            inner = k.spec.fn_name
            renamed = os.path.join(d, f"part{i}.o")
            build._run(
                [
                    llvm_tool("llvm-objcopy"),
                    f"--redefine-sym={inner}={name}",
                    f"--redefine-sym={inner}_argv={name}_argv",
                    obj,
                    renamed,
                ],
                "llvm-objcopy",
            )
            objects.append(renamed)
        with open(os.path.join(d, f"{fn}.h"), "w") as h:
            h.write(build.header(spec, build.runtime_header()))
        src = os.path.join(d, f"{fn}_wrapper.c")
        with open(src, "w") as w:
            w.write(wrapper_source(spec, names, texts))
        wrapper_obj = os.path.join(d, f"{fn}_wrapper.o")
        build._run([cc, "-c", "-O2", "-fPIC", "-I", d, "-o", wrapper_obj, src], "compiling the wrapper")
        runtime_obj = build._runtime_object(d, cc)
        shutil.copyfile(os.path.join(d, f"{fn}.h"), f"{prefix}.h")
        if library:
            joined = os.path.join(d, f"{fn}.o")
            build._run([cc, "-r", "-nostdlib", "-o", joined, *objects, wrapper_obj, runtime_obj], "joining the objects")
            lib = os.path.join(d, f"{fn}.a")
            build._run([llvm_tool("llvm-ar"), "rcs", lib, joined], "llvm-ar")
            build.check_link(lib, fn, d)
            shutil.copyfile(lib, f"{prefix}.a")
        else:
            for obj, s in zip(objects, suffixes or texts):
                shutil.copyfile(obj, f"{prefix}-{s}.o")
            shutil.copyfile(wrapper_obj, f"{prefix}_wrapper.o")
            shutil.copyfile(runtime_obj, f"{prefix}_runtime.o")


def wrapper_source(spec, names: list[str], texts: list[str]) -> str:
    """``fn``: the first target the CPU can run (the last one, the baseline, otherwise)."""
    fn = spec.fn_name
    params = prototype(spec)[4 + len(fn) :]  # "(struct halide_buffer_t *_a_buffer, ...)"
    call_args = ", ".join(
        f"_{c_name(a.name)}" + ("_buffer" if isinstance(a, BufferArg) else "") for a in spec.arguments
    )
    lines = [f'#include "{fn}.h"', ""]
    for i, name in enumerate(names):
        lines.append(f'extern int __hl_mt_part{i}{params} __asm__("\\"{name}\\"");  /* (quoted: not a C name) */')
    lines += ["", f"{prototype(spec)} {{", "    __builtin_cpu_init();"]
    for i, t in enumerate(texts[:-1]):
        checks = _checks(t)
        cond = " && ".join(f'__builtin_cpu_supports("{c}")' for c in checks) or "1"
        lines.append(f"    if ({cond}) return __hl_mt_part{i}({call_args});  /* {t} */")
    lines += [f"    return __hl_mt_part{len(names) - 1}({call_args});  /* {texts[-1]} */", "}", ""]
    lines += argv_entry(fn, spec.arguments)
    return "\n".join(lines)
