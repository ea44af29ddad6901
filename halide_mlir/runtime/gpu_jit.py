"""The GPU half of the MLIR steps: transform script → bufferized → GPU launches → PTX, and the launches read back.

The host function is not compiled: after outlining it holds only constants, allocations of the intermediates and
``gpu.launch_func`` ops, which runtime/cuda.py replays through the driver API (anything else there is a compiler bug
and raises InternalError rather than be skipped).
"""

from __future__ import annotations

import math
import re

from ..codegen.gpu import MAP_SEQUENCE, OUTLINE_PREPARE, TO_PTX, ptx_version
from ..codegen.lowering import BUFFERIZE
from ..error import InternalError
from . import jit
from mlir import ir
from .cuda import GpuProgram, Launch, Param

_HOST_OPS = {"arith.constant", "memref.alloc", "memref.dealloc", "gpu.launch_func", "func.return"}
_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "index": 8}


def lower(ctx, payload: str, transform: str, kernel_names: list[str], capability: int, until: str | None = None):
    """The module after each step; ``until`` ("scheduled", "bufferized", "outlined") stops there. Returns the
    module (with the PTX in its gpu.binary)."""
    from mlir.dialects.transform import interpreter

    module, script = jit.apply_schedule(ctx, payload, transform)
    if until == "scheduled":
        return module
    jit.run_passes(ctx, module, BUFFERIZE, "bufferization failed", "bufferize")
    with ctx, jit.mlir_errors("mapping to GPU blocks and threads failed", "schedule"):
        interpreter.apply_named_sequence(module.operation, jit._sequence(script, MAP_SEQUENCE), script)
    module = _attributions(ctx, _copies_as_linalg(ctx, module))
    if until == "bufferized":
        return module
    jit.run_passes(ctx, module, OUTLINE_PREPARE, "outlining the GPU kernels failed", "lower")
    # a kernel whose result nothing reads (``g = f - f`` of integers reads no f) is gone by now: the launches
    # left, by the name codegen/gpu.py tagged them with
    live = re.findall(r'^ *\} \{hl\.kernel = "([\w$.]+)"\}$', str(module), re.M)
    if [n for n in kernel_names if n in live] != live:
        raise InternalError(f"GPU launches {live} are not among the planned kernels {kernel_names}", stage="lower")
    jit.run_passes(ctx, module, "gpu-kernel-outlining", "outlining the GPU kernels failed", "lower")
    module = _rename_kernels(ctx, module, live)
    if until == "outlined":
        return module
    to_ptx(ctx, module, capability)
    return module


_LAUNCH = re.compile(r"^( *)gpu\.launch .*\{$")
_ALLOC = re.compile(
    r"^ *(%[\w$.]+) = memref\.alloc\(\)(?: \{[^}]*\})? : "
    r"(memref<.*#gpu\.address_space<(workgroup|private)>>)$"
)


_COPY = re.compile(r"^( *)memref\.copy (%[\w$.#]+), (%[\w$.#]+) : (memref<.*>) to (memref<.*>)$", re.M)


def _copies_as_linalg(ctx, module):
    """A tile whose generic only copies its input is folded away (an identity generic) and bufferizes to a
    memref.copy of strided views, which NVVM lowers to a call to the host runtime's memrefCopy: no such symbol in
    a kernel. As linalg.copy it becomes the thread's loops (convert-linalg-to-loops). This MLIR's one-shot-bufferize
    has no memcpy-op option to ask for linalg.copy."""
    text = str(module)
    if "memref.copy" not in text:
        return module
    text = _COPY.sub(r"\1linalg.copy ins(\2 : \4) outs(\3 : \5)", text)
    with ctx, jit.mlir_errors("rewriting copies in the GPU kernels failed", "lower"):
        return ir.Module.parse(text)


def _attributions(ctx, module):
    """A producer computed inside a kernel (codegen/gpu_tiled.py) bufferizes into a memref.alloc in the
    workgroup (shared memory) or private (registers) address space inside the gpu.launch; only the launch's
    attributions become shared memory and per-thread storage in NVVM (an alloc there would be a per-thread
    malloc), so move each alloc there. The barrier after a kernel's last thread forall guards nothing: drop it."""
    text = str(module)
    if "#gpu.address_space<" not in text:
        return module
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        m = _LAUNCH.match(lines[i])
        if m is None:
            if _ALLOC.match(lines[i]):
                raise InternalError(f"shared or private memory outside a GPU kernel: {lines[i].strip()}", stage="lower")
            out.append(lines[i])
            i += 1
            continue
        close = re.compile(re.escape(m.group(1)) + r"\}(?: \{.*\})?")  # the launch's attributes follow its body
        end = next(j for j in range(i + 1, len(lines)) if close.fullmatch(lines[j]))
        body, attrs = [], {"workgroup": [], "private": []}
        for line in lines[i + 1 : end]:
            a = _ALLOC.match(line)
            if a:
                attrs[a.group(3)].append(f"{a.group(1)} : {a.group(2)}")
            else:
                body.append(line)
        if (
            len(body) >= 2
            and body[-2].strip() == "gpu.barrier"
            and body[-1].strip() == "gpu.terminator"
            and len(body[-2]) - len(body[-2].lstrip()) == len(m.group(1)) + 2
        ):
            del body[-2]
        head = lines[i][:-1] + "".join(f"{kind}({', '.join(a)}) " for kind, a in attrs.items() if a) + "{"
        out += [head, *body, lines[end]]
        i = end + 1
    with ctx, jit.mlir_errors("moving shared and private memory into the GPU launches failed", "lower"):
        return ir.Module.parse("\n".join(out))


def to_ptx(ctx, module, capability: int) -> None:
    jit.run_passes(
        ctx,
        module,
        TO_PTX % {"cap": capability, "ptx": ptx_version(capability)},
        "lowering the GPU kernels to PTX failed",
        "lower",
    )


def _rename_kernels(ctx, module, names: list[str]):
    """Outlining names each kernel's gpu.module after the host function (pipeline_kernel, pipeline_kernel_0 ...)
    and the kernel in it pipeline_kernel; name both after the Func, in launch order (one kernel per GPU stage,
    launched in realization order)."""
    from mlir import ir

    text = str(module)
    outlined = list(dict.fromkeys(re.findall(r"gpu\.launch_func\s+@([\w$.]+)::@([\w$.]+)", text)))
    if len(outlined) != len(names):
        raise InternalError(f"expected {len(names)} GPU kernels, outlining made {len(outlined)}", stage="lower")
    for (mod, fn), new in zip(outlined, names):
        text = text.replace(f"@{mod}::@{fn} ", f"@{new}::@{new} ")
        start = text.index(f"gpu.module @{mod} ")
        text = text[:start] + text[start:].replace(f"gpu.module @{mod} ", f"gpu.module @{new} ", 1).replace(
            f"gpu.func @{fn}(", f"gpu.func @{new}(", 1
        )
    with ctx, jit.mlir_errors("renaming the GPU kernels failed", "lower"):
        return ir.Module.parse(text)


def launches(module) -> tuple[list, list]:
    """The host function's launches (in order) and the bytes of each intermediate buffer."""
    text = str(module)
    m = re.search(r"func\.func @pipeline\((.*?)\)(?: attributes \{[^}]*\})? \{(.*?)\n  \}", text, re.S)
    if m is None:
        raise InternalError("the GPU pipeline has no host function", stage="lower")
    args = {name: i for i, name in enumerate(re.findall(r"(%[\w$.]+):", m.group(1)))}
    body = m.group(2)
    consts, allocs, out = {}, {}, []
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        op = re.match(r"(?:(%[\w$.]+) = )?\"?([\w.]+)", line)
        if op is None or op.group(2) not in _HOST_OPS | {"return"}:
            raise InternalError(f"host code besides the GPU launches is not supported: {line}", stage="lower")
        result, name = op.groups()
        if name == "arith.constant":
            c = re.match(r"%\S+ = arith\.constant (-?\d+) : (\w+)", line)
            if c:
                consts[result] = (int(c.group(1)), c.group(2))
        elif name == "memref.alloc":
            shape = re.search(r"memref<([\dx]+)x(\w+)", line) or re.search(r"memref<(\w+)>", line)
            if shape is None:
                raise InternalError(f"a dynamically sized intermediate buffer: {line}", stage="lower")
            dims, elt = (shape.group(1), shape.group(2)) if shape.re.groups == 2 else ("", shape.group(1))
            allocs[result] = len(allocs), math.prod(int(d) for d in dims.split("x") if d) * _BYTES[elt]
        elif name == "gpu.launch_func":
            k = re.search(r"@[\w$.]+::@([\w$.]+) blocks in \(([^)]*)\) threads in \(([^)]*)\)", line)
            a = re.search(r"args\((.*)\)\s*$", line)

            def value(v):
                return consts[v.strip()][0]

            grid = tuple(value(v) for v in k.group(2).split(","))
            block = tuple(value(v) for v in k.group(3).split(","))
            params = []
            for operand, type_ in re.findall(r"(%[\w$.]+) : (\w+)", a.group(1)) if a else []:
                if operand in args:
                    params.append(Param("arg", args[operand], ctype=type_))
                elif operand in allocs:
                    params.append(Param("temp", allocs[operand][0]))
                elif operand in consts:
                    params.append(Param("const", value=consts[operand][0], ctype=consts[operand][1]))
                else:
                    raise InternalError(
                        f"a kernel parameter the runtime can't pass: {operand} in {line}", stage="lower"
                    )
            out.append(Launch(k.group(1), grid, block, tuple(params)))
    return out, [n for _, n in sorted(allocs.values())]


_ESCAPE = re.compile(r'\\([0-9A-Fa-f]{2}|\\|")')


def ptx_modules(module) -> list[str]:
    """The PTX that gpu-module-to-binary{format=isa} put in the module's gpu.binary ops (one per kernel)."""
    found = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', str(module))
    if not found:
        raise InternalError("no PTX in the lowered GPU module", stage="lower")

    def unescape(s):
        return _ESCAPE.sub(lambda m: m.group(1) if len(m.group(1)) == 1 else chr(int(m.group(1), 16)), s)

    return [unescape(s) for s in found]


def ptx_text(module) -> str:
    return "\n".join(ptx_modules(module))


_programs: dict = {}


def compile_program(
    payload: str, transform: str, kernel_names: list[str], capability: int, outputs: tuple
) -> GpuProgram:
    """PTX and launches for a payload + script, cached in the process (the driver loads the module once)."""
    key = (payload, transform, tuple(kernel_names), capability, outputs)
    program = _programs.get(key)
    if program is None:
        with jit.compile_lock:
            ctx = jit.new_context()
            module = lower(ctx, payload, transform, kernel_names, capability, until="outlined")
            found, temps = launches(module)
            to_ptx(ctx, module, capability)
            program = GpuProgram(ptx_modules(module), found, temps, outputs)
            _programs[key] = program
    return program
