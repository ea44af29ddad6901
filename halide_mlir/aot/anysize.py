"""Ahead-of-time functions that accept buffers of any size (docs/aot.md, "Sizes: any size, or the estimates").

For the pipelines analysis/symbolic_bounds.py plans (others: a HalideError saying what is outside the class and
that estimates give a fixed-size function), the kernel takes dynamically shaped strided memrefs and the mins
(codegen/dynamic_payload.py). The wrapper written here passes each buffer as it is (a crop of a bigger buffer
included: its strides become the descriptor's) unless its innermost stride is not 1, or its elements are read
through gathers (boundary conditions, transposes, flips: the vectorizer's gather indices assume dense rows), then a
dense copy. It checks what Halide's code checks, from the output's runtime region: each input covers the region it
is read over (``access_out_of_bounds``, -4), and answers bounds queries with that region.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.param import ImageParam
from ..lang.source import user_site
from .arguments import BufferArg, ScalarArg, Spec, argument_of
from .wrapper import (
    argv_entry,
    ACCESS_OUT_OF_BOUNDS,
    CONSTRAINT_VIOLATED,
    OUT_OF_MEMORY,
    RUNTIME_EXTERNS,
    _requirement_checks,
    buffer_checks,
    c_name,
    c_scalar,
    prototype,
)


@dataclass
class AnySizeKernel:
    spec: Spec
    target: object
    plan: object  # analysis/symbolic_bounds.py DynPlan
    payload: str
    transform: str
    threads: int
    llvm_ir: str
    symbol: str

    @property
    def compilation(self):
        return self

    def stmt(self) -> str:
        from .. import driver
        from ..runtime import jit

        return str(driver.lower_to_llvm(jit.new_context(), self.payload, self.transform, self.threads, "bufferized"))

    def wrapper_c(self) -> str:
        return wrapper(self)


def any_size_spec(func, args, fn_name: str, pipeline) -> Spec:
    """The arguments in Halide's order, checked as arguments.specialize checks them; buffers have no region."""
    given = [argument_of(a) for a in args]
    names = [a.name for a in given]
    for n in names:
        if names.count(n) > 1:
            raise HalideError(f"{user_site()}: the argument name '{n}' is used twice in the arguments of '{fn_name}'")
    by_source = {id(a._source): a for a in given if a._source is not None}
    for h in [*pipeline.inputs, *pipeline.params]:
        if id(h) not in by_source and not isinstance(h, Buffer):
            kind = "buffer" if isinstance(h, ImageParam) else "parameter"
            raise HalideError(
                f"{user_site()}: Generated code refers to {kind} {h.name()}, which was not found in "
                f"the argument list of '{fn_name}'"
            )
    arguments, buffers = [], {}
    for a in given:
        if a.is_output():
            raise HalideError(f"{user_site()}: '{a.name}' is an output; compile_to's arguments are the inputs")
        if a.is_buffer():
            if isinstance(a._source, Buffer):
                raise HalideError(
                    f"{user_site()}: a Buffer as an argument of '{fn_name}' is not supported; use an ImageParam"
                )
            b = BufferArg(a.name, a.type, (0,) * a.dimensions, (0,) * a.dimensions, False, False, a._source)
            buffers[id(a._source)] = b
            arguments.append(b)
        else:
            arguments.append(ScalarArg(a.name, a.type))
    kernel_inputs = [buffers[id(h)] for h in pipeline.inputs if not isinstance(h, Buffer)]  # (Buffers: refused)
    scalars = {id(a._source): s for a, s in zip(given, arguments) if isinstance(s, ScalarArg)}
    kernel_params = [scalars[id(q)] for q in pipeline.params]
    types = func.output_types()
    dims = func.dimensions()
    outputs = [
        BufferArg(func.name() if len(types) == 1 else f"{func.name()}_{k}", t, (0,) * dims, (0,) * dims, True, False)
        for k, t in enumerate(types)
    ]
    spec = Spec(func, fn_name, arguments + outputs, kernel_inputs, kernel_params, outputs, None)
    spec.any_size = True
    return spec


def compile_any_size(func, args, fn_name: str, tgt, symbol: str = "", extents=None) -> AnySizeKernel:
    """``symbol``/``extents``: one variant of a specialized function (aot/specialized.py): its kernel's name and
    the output extents its conditions fix."""
    from .. import driver
    from ..analysis.symbolic_bounds import plan_any_size
    from ..codegen.dynamic_payload import build_payload, build_transform
    from ..runtime import jit
    from .build import _threads, kernel_ir

    from ..analysis.specialize import forced

    if not symbol and not forced():
        from .specialized import compile_specialized

        kernel = compile_specialized(func, args, fn_name, tgt)
        if kernel is not None:
            return kernel
    pipeline = driver.front_end(func)
    spec = any_size_spec(func, args, fn_name, pipeline)  # (the arguments' errors first, as Halide's)
    from ..analysis.memoize import warn_uncached
    from ..analysis.vectorize import target_registers

    warn_uncached(func, "ahead-of-time code")  # (as build.compile_kernel: no memoization cache in AOT code)
    threads = _threads()
    with target_registers(tgt.register_bits):  # (vector widths of the target's registers, as build.compile_kernel)
        plan = plan_any_size(pipeline, func, extents)
        payload, transform = build_payload(plan), build_transform(plan)
        module = driver.lower_to_llvm(jit.new_context(), payload, transform, threads)
    ir, symbol = kernel_ir(module, symbol or f"__hl_{fn_name}_any_kernel", tgt)
    return AnySizeKernel(spec, tgt, plan, payload, transform, threads, ir, symbol)


def _region(plan, need, out: str) -> list:
    """Per dim of an input: (min, max) C expressions of the region it is read over, or None (clamped reads)."""
    region = []
    for span in need.span:
        if span is None:
            region.append(None)
            continue
        mins, maxs = [], []
        for (od, sign), (lo, hi) in sorted(span.items(), key=lambda kv: (kv[0][0] is None, kv[0])):
            omin = f"{out}->dim[{od}].min"
            omax = f"{out}->dim[{od}].min + {out}->dim[{od}].extent - 1"
            if sign == 1:  # (symbolic_bounds.InputNeed: read at var + c)
                mins.append(f"({omin} + ({lo}))")
                maxs.append(f"({omax} + ({hi}))")
            elif sign == -1:  # read at c - var: a flip swaps the output's min and max
                mins.append(f"(({lo}) - ({omax}))")
                maxs.append(f"(({hi}) - {omin})")
            else:
                mins.append(f"({lo})")
                maxs.append(f"({hi})")
        region.append((_fold("<", mins), _fold(">", maxs)))
    return region


def _fold(op: str, exprs: list) -> str:
    """The C min (``<``) or max (``>``) of int32 expressions."""
    e = exprs[0]
    for x in exprs[1:]:
        e = f"(({e}) {op} ({x}) ? ({e}) : ({x}))"
    return e


def kernel_parameters(kernel: AnySizeKernel) -> list:
    """The C types of the kernel's parameters (its ``_mlir_ciface_`` entry): per input a memref descriptor and its
    mins, the Params, the output's descriptor and mins."""
    spec = kernel.spec
    types = []
    for h in kernel.plan.inputs:
        types += ["int64_t *"] + ["int64_t"] * h.dimensions()
    types += ["uint8_t" if q.type.is_bool() else c_scalar(q.type) for q in spec.kernel_params]
    return types + ["int64_t *"] + ["int64_t"] * len(spec.outputs[0].mins)


def wrapper(kernel: AnySizeKernel, name: str | None = None) -> str:
    """The C function (``name``, default the spec's): checks, bounds query, descriptors, the kernel call."""
    spec, plan = kernel.spec, kernel.plan
    fn = name or spec.fn_name
    out_arg = spec.outputs[0]
    out = f"_{c_name(out_arg.name)}_buffer"
    buffers = [a for a in spec.arguments if isinstance(a, BufferArg)]
    ins = [(a, plan.needs[id(a.source)], h) for a, h in zip(spec.kernel_inputs, plan.inputs)]
    kernel_params = kernel_parameters(kernel)
    lines = [
        f'#include "{spec.fn_name}.h"',
        "#include <string.h>",
        "",
        *RUNTIME_EXTERNS,
        f"extern void {kernel.symbol}({', '.join(kernel_params)});",
        "",
        "/* A buffer as a strided memref descriptor: its own memory when the innermost stride is 1 (and dense rows are",
        " * not required), else a dense copy of the whole buffer. */",
        f"static int __hl_{fn}_desc(struct halide_buffer_t *b, int output, int dense, int64_t *desc, void **temp,",
        "                          int32_t *mins, int32_t *extents) {",
        "    int r = b->dimensions, d, is_dense = 1;",
        "    int64_t size = 1;",
        "    for (d = 0; d < r; d++) {",
        "        mins[d] = b->dim[d].min; extents[d] = b->dim[d].extent;",
        "        if (extents[d] > 1 && b->dim[d].stride != size) is_dense = 0;",
        "        size *= extents[d];",
        "    }",
        "    *temp = NULL;",
        "    if ((dense && !is_dense) || (r > 0 && b->dim[0].stride != 1 && b->dim[0].extent > 1))",
        "        return __hl_aot_view(b, mins, extents, output, desc, temp);",
        "    desc[0] = desc[1] = (int64_t)(intptr_t)b->host;",
        "    desc[2] = 0;",
        "    for (d = 0; d < r; d++) {",
        "        desc[3 + d] = b->dim[r - 1 - d].extent;",
        "        desc[3 + r + d] = b->dim[r - 1 - d].stride;",
        "    }",
        "    return 0;",
        "}",
        "",
        f"{prototype(spec)[:4]}{fn}{prototype(spec)[4 + len(spec.fn_name) :]} {{",
    ]
    lines += buffer_checks(buffers)
    # bounds query: inputs get the region the output's region reads (dense strides); clamped dims stay
    lines.append("    int query = 0;")
    for a in buffers:
        v = f"_{c_name(a.name)}_buffer"
        lines.append(f"    if ({v}->host == NULL && {v}->device == 0) {{")
        lines.append("        query = 1;")
        if not a.output and id(a.source) in plan.needs:
            need = plan.needs[id(a.source)]
            region = _region(plan, need, out)
            for d, r in enumerate(region):
                if r is not None:
                    lines.append(f"        {v}->dim[{d}].min = {r[0]}; {v}->dim[{d}].extent = {r[1]} - {r[0]} + 1;")
            for d in range(len(region)):
                stride = " * ".join(f"{v}->dim[{k}].extent" for k in range(d)) or "1"
                lines.append(f"        {v}->dim[{d}].stride = {stride};")
        lines.append("    }")
    lines.append("    if (query) return 0;")
    for d in range(len(out_arg.mins)):
        lines.append(f"    if ({out}->dim[{d}].extent <= 0) return 0;")
    for a, need, _h in ins:
        v = f"_{c_name(a.name)}_buffer"
        what = f"Input buffer {a.name}"
        for d, r in enumerate(_region(plan, need, out)):
            if r is None:
                lines += [
                    f"    if ({v}->dim[{d}].extent <= 0)",
                    f'        return __hl_aot_fail({ACCESS_OUT_OF_BOUNDS}, "{what} is accessed at %d, which is '
                    f'beyond the max (%d) in dimension {d}", {v}->dim[{d}].min, {v}->dim[{d}].min - 1);',
                ]
                continue
            lines += [
                f"    if ({v}->dim[{d}].min > {r[0]})",
                f'        return __hl_aot_fail({ACCESS_OUT_OF_BOUNDS}, "{what} is accessed at %d, which is before '
                f'the min (%d) in dimension {d}", {r[0]}, {v}->dim[{d}].min);',
                f"    if ({v}->dim[{d}].min + {v}->dim[{d}].extent - 1 < {r[1]})",
                f'        return __hl_aot_fail({ACCESS_OUT_OF_BOUNDS}, "{what} is accessed at %d, which is beyond '
                f'the max (%d) in dimension {d}", {r[1]}, {v}->dim[{d}].min + {v}->dim[{d}].extent - 1);',
            ]
    lines += _constraint_checks(buffers, plan)
    lines += _requirement_checks(spec)
    views = [(a, need is not None and (need.clamped or need.gathered)) for a, need, _ in ins] + [(out_arg, False)]
    for k, (a, _) in enumerate(views):
        r = max(1, len(a.mins))
        lines.append(f"    int64_t desc{k}[{3 + 2 * r}]; int32_t mins{k}[{r}], extents{k}[{r}];")
    lines.append(f"    void *temp[{len(views)}] = {{0}};")
    for k, (a, dense) in enumerate(views):
        v = f"_{c_name(a.name)}_buffer"
        lines += [
            f"    if (__hl_{fn}_desc({v}, {int(a.output)}, {int(dense)}, desc{k}, &temp[{k}], mins{k}, extents{k})) {{",
            *[
                f"        __hl_aot_finish(_{c_name(b.name)}_buffer, mins{j}, extents{j}, 0, temp[{j}]);"
                for j, (b, _) in enumerate(views[:k])
            ],
            f'        return __hl_aot_fail({OUT_OF_MEMORY}, "Out of memory copying buffer {a.name}");',
            "    }",
        ]
    call = []
    for k, (a, _) in enumerate(views[:-1]):
        call += [f"desc{k}"] + [f"(int64_t){f'_{c_name(a.name)}_buffer'}->dim[{d}].min" for d in range(len(a.mins))]
    for q in spec.kernel_params:
        call.append(f"_{c_name(q.name)}")
    k = len(views) - 1
    call += [f"desc{k}"] + [f"(int64_t){out}->dim[{d}].min" for d in range(len(out_arg.mins))]
    lines.append(f"    {kernel.symbol}({', '.join(call)});")
    for k, (a, _) in enumerate(views):
        lines.append(f"    __hl_aot_finish(_{c_name(a.name)}_buffer, mins{k}, extents{k}, {int(a.output)}, temp[{k}]);")
    lines += ["    return 0;", "}", ""]
    if name is None:
        lines += argv_entry(fn, spec.arguments)
    return "\n".join(lines)


def _constraint_checks(buffers, plan) -> list:
    """Halide's checks of the buffers' constant constraints (``dim(d).set_bounds/set_extent/set_stride``), with its
    error (-8, "Constraint violated: name.stride.0 (1) == 3 (3)"): the plan relies on them (a constant extent
    unrolled, symbolic_bounds._fixed_extents)."""
    from ..lang.constraints import constraints

    lines = []
    for a in buffers:
        holders = plan.output.__dict__.get("_output_params") or () if a.output else (a.source,)
        c = constraints(holders[0]) if holders and holders[0] is not None else {}
        v = f"_{c_name(a.name)}_buffer"
        for (d, what), e in sorted(c.items(), key=lambda kv: kv[0]):
            if e.kind != "const" or d >= len(a.mins):
                continue
            lines += [
                f"    if ({v}->dim[{d}].{what} != {int(e.value)})",
                f'        return __hl_aot_fail({CONSTRAINT_VIOLATED}, "Constraint violated: {a.name}.{what}.{d} (%d) '
                f'== {int(e.value)} ({int(e.value)})", {v}->dim[{d}].{what});',
            ]
    return lines


def fallback_kernel(func, args, fn_name: str, tgt):
    """The any-size kernel a fixed-size function falls back to for other sizes, or None outside the class."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the fixed-size kernel is the one the user asked about)
            return compile_any_size(func, args, fn_name, tgt)
    except HalideError:
        return None


def dispatch_wrapper(fixed, anysize: AnySizeKernel) -> str:
    """The function the header declares for a fixed-size kernel with an any-size fallback: the fixed-size one
    when the outputs (and the inputs whose size the algorithm reads) are the region it was compiled for, else the
    any-size one (instead of Halide's constraint_violated)."""
    from .wrapper import wrapper as fixed_wrapper

    spec = fixed.spec
    fn = spec.fn_name
    lines = [
        fixed_wrapper(spec, fixed.symbol, f"__hl_{fn}_fixed"),
        wrapper(anysize, f"__hl_{fn}_any"),
        f"{prototype(spec)} {{",
    ]
    conds = []
    for a in spec.outputs + [b for b in spec.kernel_inputs if isinstance(b, BufferArg) and b.exact]:
        v = f"_{c_name(a.name)}_buffer"
        conds.append(f"{v} != NULL && {v}->dimensions == {len(a.mins)}")
        conds += [
            f"{v}->dim[{d}].min <= {m} && {v}->dim[{d}].min + {v}->dim[{d}].extent >= {m + e}"
            if d in a.free_dims
            else f"{v}->dim[{d}].min == {m} && {v}->dim[{d}].extent == {e}"
            for d, (m, e) in enumerate(zip(a.mins, a.extents))
        ]
    names = [f"_{c_name(a.name)}" + ("_buffer" if isinstance(a, BufferArg) else "") for a in spec.arguments]
    lines += [
        f"    if ({' && '.join(conds) or '1'})",
        f"        return __hl_{fn}_fixed({', '.join(names)});",
        f"    return __hl_{fn}_any({', '.join(names)});",
        "}",
        "",
    ]
    lines += argv_entry(fn, spec.arguments)
    return "\n".join(lines)
