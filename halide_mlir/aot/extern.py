"""Extern stages (``Func.define_extern``) in ahead-of-time code: the pipeline is compiled as an inner function
that takes each extern stage's output as one more input buffer (its stand-in ImageParam, lang/extern.py), and the
function the header declares calls the C functions first, as the JIT does (driver_extern.py): the output of each
over the static region bounds inference gives (the output's estimates), the bounds query (a null-host output),
then the real call (a nonzero result is Halide's ``Call to external stage`` error, returned), then the inner
function. The object references each C symbol; the program that links the library provides it.

Fixed sizes only (the output's estimates: the extern's region is compiled in), and an extern stage's arguments
must be the function's ImageParams, its Params or constants: a Func argument (a pipeline of its own, run over a
region the bounds query decides at run time) or a Buffer is refused with a HalideError.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..error import HalideError
from ..lang.source import user_site
from .arguments import BufferArg, Spec
from .wrapper import CONSTRAINT_VIOLATED, argv_entry, c_name, c_scalar, prototype


@dataclass
class ExternKernel:
    spec: Spec  # the function the header declares
    parts: list  # [the inner build.Kernel]
    target: object
    externs: list  # (ExternDefinition, [BufferArg of each stand-in in the inner spec])

    @property
    def llvm_ir(self) -> str:
        return self.parts[0].llvm_ir

    def stmt(self) -> str:
        return self.parts[0].stmt()

    def top_wrapper(self) -> str:
        return top_wrapper(self)


def compile_extern(func, args, fn_name: str, target, standins: list) -> ExternKernel:
    from .. import driver
    from ..analysis.bounds import Region, infer_bounds
    from ..lang.buffer import Buffer
    from ..lang.extern import extern_of, standin_of
    from . import build

    if any(func._estimates.get(v.name()) is None for v in func.args()):
        raise HalideError(
            f"{user_site()}: ahead-of-time compilation of '{fn_name}', which calls extern stages, needs the output's "
            f"size: give it estimates ({func.name()}.set_estimates(...)); the extern stages' regions are compiled in"
        )
    given = {id(getattr(a, "_source", a)) for a in args}
    externs = []
    for f in dict.fromkeys(standin_of(h)[0] for h in standins):
        ext = extern_of(f)
        for a in ext.args:
            src = a.image_param if a.is_image_param() else a.func if a.is_func() else a.buffer
            if a.is_func() or a.is_buffer():
                raise HalideError(
                    f"{ext.site}: ahead-of-time compilation of extern Func '{f.name()}': its argument "
                    f"{'Func ' + a.func.name() if a.is_func() else 'Buffer ' + a.buffer.name()} is not supported in "
                    f"AOT code by halide_mlir (ImageParams, Params and constants are; the JIT takes all)"
                )
            if a.is_image_param() and id(src) not in given:
                raise HalideError(
                    f"{ext.site}: Generated code refers to buffer {src.name()}, which was not found in the argument "
                    f"list of '{fn_name}'"
                )
            if a.is_expr():
                _c_expr(a.expr, given, ext, f)
        externs.append(ext)
    # the static region of each stand-in: bounds inference over the output's estimates
    p = driver.front_end(func)
    region = Region(*zip(*(func._estimates[v.name()] for v in func.args())))
    saved = [(h, h._buffer) for h in standins]
    try:
        for h in standins:
            h._buffer = Buffer(h.type(), [1] * h.dimensions())
        bound = [(h, h._buffer) for h in p.inputs if h not in standins and getattr(h, "_buffer", 1) is None]
        for h, _ in bound:  # (ImageParams without buffers: their estimates, as arguments.specialize)
            est = getattr(h, "_estimates", None)
            if not est or any(e is None for e in est):
                raise HalideError(f"{user_site()}: ImageParam '{h.name()}' needs estimates for '{fn_name}'")
            b = Buffer(h.type(), [e for _, e in est])
            b.set_min([m for m, _ in est])
            h._buffer = b
        whole = infer_bounds(p, region, check_inputs=False)
        for h, old in bound:
            h._buffer = old
    finally:
        for h, old in saved:
            h._buffer = old
    for ext in externs:
        regs = [whole.input_regions[s] for s in ext.standins if s in whole.input_regions]
        lo = [min(r.mins[d] for r in regs) for d in range(len(regs[0].mins))]
        hi = [max(r.mins[d] + r.extents[d] for r in regs) for d in range(len(lo))]
        for s in ext.standins:
            s._estimates = [(a, b - a) for a, b in zip(lo, hi)]
    inner = build.compile_kernel(func, [*args, *standins], f"__hl_{fn_name}_inner", target)
    inner.fallback = None  # (the stand-ins' regions are compiled in: other sizes are refused by the top function)
    n_user = len(inner.spec.arguments) - len(standins) - len(inner.spec.outputs)
    user_args = inner.spec.arguments[:n_user]
    standin_args = inner.spec.arguments[n_user : n_user + len(standins)]
    by_standin = {id(s): a for s, a in zip(standins, standin_args)}
    spec = Spec(func, fn_name, [*user_args, *inner.spec.outputs], [], [], inner.spec.outputs, inner.spec.region)
    return ExternKernel(spec, [inner], inner.target, [(e, [by_standin[id(s)] for s in e.standins]) for e in externs])


def _c_expr(e, given: set, ext, f) -> str:
    """A scalar argument as C: a constant, or a Param that is an argument of the function."""
    if e.kind == "const":
        return repr(float(e.value)) if e.type.is_float() else str(int(e.value))
    if e.kind == "param" and id(e.value) in given:
        return f"_{c_name(e.value.name())}"
    raise HalideError(
        f"{ext.site}: ahead-of-time compilation of extern Func '{f.name()}': its argument {e} must be a constant or "
        f"a Param among the function's arguments"
    )


def top_wrapper(k: ExternKernel) -> str:
    spec, inner = k.spec, k.parts[0].spec
    fn = spec.fn_name
    lines = [f'#include "{fn}.h"', "#include <stdlib.h>", "", f"extern int {prototype(inner)[4:]};"]
    lines.append("extern int __hl_aot_fail(int code, const char *fmt, ...);")
    for ext, _ in k.externs:
        ps = []
        for a in ext.args:
            ps.append("struct halide_buffer_t *" if not a.is_expr() else c_scalar(a.expr.type))
        ps += ["struct halide_buffer_t *"] * len(ext.types)
        lines.append(f"extern int {ext.name}({', '.join(ps)});")
    lines += ["", f"{prototype(spec)} {{", "    int r = 0, query = 0;"]
    bufs = [f"_{c_name(a.name)}_buffer" for a in spec.arguments if isinstance(a, BufferArg)]
    lines += [f"    if ({v} != NULL && {v}->host == NULL && {v}->device == 0) query = 1;" for v in bufs]
    for o in spec.outputs:
        v = f"_{c_name(o.name)}_buffer"
        checks = " || ".join(
            f"{v}->dim[{d}].min != {m} || {v}->dim[{d}].extent != {e}"
            for d, (m, e) in enumerate(zip(o.mins, o.extents))
        )
        lines += [
            f"    if (!query && {v} != NULL && ({checks}))",
            f'        return __hl_aot_fail({CONSTRAINT_VIOLATED}, "{fn}: the output {o.name} must be the region '
            f"compiled in (the extern stages' regions are fixed)\");",
        ]
    # one halide_buffer_t per stand-in, dense over its static region (no memory for a bounds query)
    names = []
    for i, (_, standin_args) in enumerate(k.externs):
        for j, a in enumerate(standin_args):
            v = f"x{i}_{j}"
            names.append(v)
            n = len(a.mins)
            dims, stride = [], 1
            for m, e in zip(a.mins, a.extents):
                dims.append(f"{{{m}, {e}, {stride}, 0}}")
                stride *= e
            size = stride * max(1, a.type.bits() // 8)
            lines += [
                f"    halide_dimension_t {v}_dim[{max(1, n)}] = {{{', '.join(dims)}}};",
                f"    struct halide_buffer_t {v} = {{0}};",
                f"    {v}.type.code = {int(a.type.code())}; {v}.type.bits = {a.type.bits()}; {v}.type.lanes = 1;",
                f"    {v}.dimensions = {n}; {v}.dim = {v}_dim;",
                f"    if (!query && ({v}.host = (uint8_t *)malloc({size} + 1)) == NULL) r = -11;",
            ]
    lines.append("    if (!query && r == 0) {")
    for i, (ext, _) in enumerate(k.externs):
        call_args = []
        for a in ext.args:
            if a.is_expr():
                e = a.expr  # (checked by compile_extern: a constant or an argument Param)
                call_args.append(f"_{c_name(e.value.name())}" if e.kind == "param" else _c_expr(e, set(), ext, None))
            else:
                call_args.append(f"_{c_name(a.image_param.name())}_buffer")
        outs = [f"x{i}_{j}" for j in range(len(ext.types))]
        query = [f"q{i}_{j}" for j in range(len(ext.types))]
        for q, o in zip(query, outs):
            lines.append(f"        struct halide_buffer_t {q} = {o}; {q}.host = NULL;")
        lines += [
            f"        if (r == 0) r = {ext.name}({', '.join(call_args + ['&' + q for q in query])});",
            f"        if (r == 0) r = {ext.name}({', '.join(call_args + ['&' + o for o in outs])});",
            f'        if (r != 0) r = __hl_aot_fail(r, "Call to external stage {ext.name} returned non-zero value: '
            f'%d", r);',
        ]
    lines.append("    }")
    inner_args = [f"_{c_name(a.name)}" + ("_buffer" if isinstance(a, BufferArg) else "") for a in spec.arguments]
    n_user = len(spec.arguments) - len(spec.outputs)
    call = inner_args[:n_user] + ["&" + v for v in names] + inner_args[n_user:]
    lines.append(f"    if (r == 0) r = {inner.fn_name}({', '.join(call)});")
    for v in names:
        lines.append(f"    free({v}.host);")
    lines += ["    return r;", "}", ""]
    lines += argv_entry(fn, spec.arguments)
    return "\n".join(lines)
