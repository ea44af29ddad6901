"""A pipeline with several outputs (a Generator's Outputs) as one AOT function.

Each output Func is compiled as its own kernel and wrapper (``__hl_<fn>_output<i>``, taking every argument and
that output), as the JIT realizes such a Pipeline (shared producers are computed once per output). The function
the header declares takes the arguments then every output; it answers a bounds query itself (the regions are
static: an input's is the union of what the outputs read) and otherwise calls each part in order, returning the
first error code.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .arguments import BufferArg, Spec
from .wrapper import argv_entry, c_name, prototype


@dataclass
class MultiKernel:
    spec: Spec  # the function the header declares: the arguments, then each part's outputs
    parts: list  # build.Kernel per output Func
    target: object

    @property
    def llvm_ir(self) -> str:
        """The parts' kernels as one LLVM module (llvm-link), for llvm_assembly, bitcode and assembly."""
        import os
        from ..runtime.tools import llvm_tool
        from .build import _run, temp_dir

        with temp_dir() as d:
            paths = []
            for k in self.parts:
                paths.append(os.path.join(d, f"{k.spec.fn_name}.ll"))
                with open(paths[-1], "w") as f:
                    f.write(k.llvm_ir)
            return _run([llvm_tool("llvm-link"), "-S", *paths], "llvm-link")

    def stmt(self) -> str:
        return "\n".join(f"// --- {k.spec.fn_name}\n{k.stmt()}" for k in self.parts)


def part_name(fn_name: str, i: int) -> str:
    return f"__hl_{fn_name}_output{i}"


def compile_multi(funcs, args, fn_name: str, target, schedule_part=None) -> MultiKernel:
    """``schedule_part(func)``, when given, schedules each output's pipeline just before it is compiled (a
    Generator's autoscheduler: the autoscheduler takes one output, and shared producers get each part's schedule)."""
    from .build import compile_kernel

    parts = []
    for i, f in enumerate(funcs):
        if schedule_part is not None:
            schedule_part(f)
        parts.append(compile_kernel(f, list(args), part_name(fn_name, i), target))
    n_args = len(parts[0].spec.arguments) - len(parts[0].spec.outputs)
    arguments, used = [], []
    for k, a in enumerate(parts[0].spec.arguments[:n_args]):
        if isinstance(a, BufferArg):
            regions = [p.spec.arguments[k] for p in parts if p.spec.arguments[k] in p.spec.kernel_inputs]
            if regions:
                lo = tuple(min(r.mins[d] for r in regions) for d in range(len(a.mins)))
                hi = tuple(max(r.mins[d] + r.extents[d] for r in regions) for d in range(len(a.mins)))
                a = replace(
                    a, mins=lo, extents=tuple(h - m for m, h in zip(lo, hi)), exact=any(r.exact for r in regions)
                )
                used.append(a)
        arguments.append(a)
    outputs = [o for p in parts for o in p.spec.outputs]
    spec = Spec(funcs[0], fn_name, arguments + outputs, used, [], outputs, None)
    return MultiKernel(spec, parts, parts[0].target)


def top_wrapper(multi: MultiKernel) -> str:
    spec = multi.spec
    fn = spec.fn_name
    n_args = len(spec.arguments) - len(spec.outputs)
    lines = [f'#include "{fn}.h"', "#include <string.h>", ""]
    for p in multi.parts:
        lines.append(f"extern int {prototype(p.spec)[4:]};")
    lines += ["", f"{prototype(spec)} {{", "    int query = 0, r;"]
    # a bounds query (a well-formed buffer with no memory): the static regions, nothing run (parts compiled for
    # any size: any_size_query)
    static = not any(getattr(p.spec, "any_size", False) for p in multi.parts)
    if not static:
        lines += any_size_query(multi)
    for a in (spec.kernel_inputs + spec.outputs) if static else []:
        v = f"_{c_name(a.name)}_buffer"
        lines.append(
            f"    if ({v} != NULL && {v}->dimensions == {len(a.mins)} && {v}->host == NULL && {v}->device == 0) {{"
        )
        lines.append("        query = 1;")
        stride = 1
        for d, (m, e) in enumerate(zip(a.mins, a.extents)):
            lines.append(
                f"        {v}->dim[{d}].min = {m}; {v}->dim[{d}].extent = {e}; {v}->dim[{d}].stride = {stride};"
            )
            stride *= e
        lines.append("    }")
    lines.append("    if (query) return 0;")
    names = [f"_{c_name(a.name)}" + ("_buffer" if isinstance(a, BufferArg) else "") for a in spec.arguments[:n_args]]
    k = 0
    for p in multi.parts:
        outs = [f"_{c_name(o.name)}_buffer" for o in p.spec.outputs]
        k += len(outs)
        lines.append(f"    if ((r = {p.spec.fn_name}({', '.join(names + outs)})) != 0) return r;")
    lines += ["    return 0;", "}", ""]
    lines += argv_entry(fn, spec.arguments)
    return "\n".join(lines)


def any_size_query(multi: MultiKernel) -> list:
    """A bounds query of parts compiled for any size: each part answers it on copies of the input buffers, and each
    queried input gets the union of their regions (dense strides), as Halide's pipeline would."""
    spec = multi.spec
    n_args = len(spec.arguments) - len(spec.outputs)
    ins = [(i, a) for i, a in enumerate(spec.arguments[:n_args]) if isinstance(a, BufferArg)]
    bufs = [f"_{c_name(a.name)}_buffer" for _, a in ins] + [f"_{c_name(o.name)}_buffer" for o in spec.outputs]
    lines = [f"    if ({v} != NULL && {v}->host == NULL && {v}->device == 0) query = 1;" for v in bufs]
    lines.append("    if (query) {")
    for k, (_, a) in enumerate(ins):
        r = max(1, len(a.mins))
        v = f"_{c_name(a.name)}_buffer"
        lines += [
            f"        struct halide_buffer_t q{k}; halide_dimension_t qd{k}[{r}]; int32_t lo{k}[{r}], hi{k}[{r}];",
            f"        int is_q{k} = {v} != NULL && {v}->host == NULL && {v}->device == 0, have{k} = 0;",
        ]
    names = []
    for a in spec.arguments[:n_args]:
        k = next((k for k, (_, b) in enumerate(ins) if b is a), None)
        names.append(f"({f'_{c_name(a.name)}_buffer'} ? &q{k} : NULL)" if k is not None else f"_{c_name(a.name)}")
    for p in multi.parts:
        outs = [f"_{c_name(o.name)}_buffer" for o in p.spec.outputs]
        for k, (_, a) in enumerate(ins):
            v = f"_{c_name(a.name)}_buffer"
            lines.append(
                f"        if ({v}) {{ q{k} = *{v}; if ({v}->dimensions <= {max(1, len(a.mins))}) "
                f"memcpy(qd{k}, {v}->dim, sizeof(halide_dimension_t) * {v}->dimensions); q{k}.dim = qd{k}; }}"
            )
        lines.append(f"        if ((r = {p.spec.fn_name}({', '.join(names + outs)})) != 0) return r;")
        for k, (_, a) in enumerate(ins):
            lines.append(f"        if (is_q{k}) {{")
            lines.append(f"            for (int d = 0; d < {len(a.mins)}; d++) {{")
            lines.append(f"                int32_t lo = qd{k}[d].min, hi = qd{k}[d].min + qd{k}[d].extent - 1;")
            lines.append(f"                if (!have{k} || lo < lo{k}[d]) lo{k}[d] = lo;")
            lines.append(f"                if (!have{k} || hi > hi{k}[d]) hi{k}[d] = hi;")
            lines.append("            }")
            lines.append(f"            have{k} = 1;")
            lines.append("        }")
    for k, (_, a) in enumerate(ins):
        v = f"_{c_name(a.name)}_buffer"
        lines += [
            f"        if (is_q{k} && have{k}) {{",
            "            int32_t stride = 1;",
            f"            for (int d = 0; d < {len(a.mins)}; d++) {{",
            f"                {v}->dim[d].min = lo{k}[d]; {v}->dim[d].extent = hi{k}[d] - lo{k}[d] + 1;",
            f"                {v}->dim[d].stride = stride; stride *= {v}->dim[d].extent;",
            "            }",
            "        }",
        ]
    lines += ["        return 0;", "    }"]
    return lines
