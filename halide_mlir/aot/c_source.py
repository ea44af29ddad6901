"""``OutputFileType.c_source`` / ``compile_to_c``: the pipeline as C source, through upstream MLIR's EmitC.

The pipeline is planned as for the JIT but without vectors (EmitC has no vector types: ``vectorize()`` directives
are dropped, auto-vectorization is off, with a CSourceWarning), bufferized by the same steps, then lowered to
scalar C: the foralls become serial ``scf.for``s (EmitC has no threads: parallel loops run serially, also
warned), allocations are hoisted out of the loops (small ones on the stack, as the JIT does), linalg becomes
loops, subviews are folded into the loads' indices, and ``convert-to-emitc`` (arith, func, memref, scf, math) plus
``mlir-translate --mlir-to-cpp`` print C. The heap buffers left at the top of the function become parameters
that the adapter allocates with ``halide_malloc``.

The file is self-contained: the header (halide_buffer_t & co), the runtime (aot/runtime.c: error handler,
malloc hooks; its symbols weak), the EmitC kernel, an adapter taking the wrapper's memref descriptors, and the
wrapper of aot/wrapper.py with Halide's C ABI. ``cc main.c f.c -lpthread -lm`` builds a program (it also
compiles as C++: a ``.cpp`` name, as in Halide's compile_to.py, works with ``c++``).
"""

from __future__ import annotations

import re
import warnings

from ..codegen.lowering import STACK_LIMIT
from ..error import CSourceWarning, HalideError, InternalError
from ..lang.source import user_site

# bufferized module -> scalar loops on memrefs EmitC can express
_TO_LOOPS = ",".join(
    [
        "scf-forall-to-parallel",
        "func.func(scf-parallel-for-to-nested-fors)",
        "func.func(buffer-loop-hoisting)",
        "func.func(promote-buffers-to-stack{max-alloc-size-in-bytes=%d max-rank-of-allocated-memref=16})",
        "convert-linalg-to-loops",
        "fold-memref-alias-ops",
        "lower-affine",
        "canonicalize",
        "cse",
    ]
)
_COPY = re.compile(r"memref\.copy (%[\w.]+), (%[\w.]+) : (memref<[^>]*(?:<[^>]*>[^>]*)*>) to (memref<.*>)$", re.M)
_TO_EMITC = "arith-expand,convert-to-emitc,reconcile-unrealized-casts,canonicalize,cse,form-expressions"


def _warn_schedule(func) -> None:
    """EmitC's C has no vectors and no threads: say so for the directives that asked for them."""
    from ..lang.schedule import DirectiveKind

    kinds = set()
    for stage in _stages(func):
        for d in stage.directives:
            kinds.add(d.kind)
        for u in stage.updates:
            kinds |= {d.kind for d in u.schedule.directives}
    lost = [w for k, w in ((DirectiveKind.VECTORIZE, "vectorize"), (DirectiveKind.PARALLEL, "parallel")) if k in kinds]
    if lost:
        warnings.warn(
            CSourceWarning(
                f"{user_site()}: the C source of Func '{func.name()}' runs {' and '.join(lost)} loops as serial "
                f"scalar loops (MLIR's EmitC has no vector types and no threads); the object and static library "
                f"outputs keep them"
            ),
            stacklevel=4,
        )


def _stages(func):
    from .. import driver

    return driver.front_end(func).stages


def _kernel_module(kernel):
    """The scalar bufferized module of ``kernel``'s Func at its compiled region (or for any size), lowered to the
    EmitC dialect; with its scratch buffers and its arguments (_memrefs_to_pointers)."""
    from .. import driver
    from ..analysis.vectorize import scalar_code
    from ..runtime import jit
    from .build import _bound

    spec = kernel.spec
    if getattr(spec, "any_size", False):
        module = _any_size_bufferized(kernel)
    else:
        with _bound(_bind(spec)), scalar_code():
            compilation = driver.compile_pipeline(spec.func, spec.region, auto_vector=False)
        module = driver.lower_to_llvm(
            jit.new_context(), compilation.payload, compilation.transform, kernel.threads, until="bufferized"
        )
    # memref.copy (a boundary condition's pieces, copies into a tile) has no EmitC conversion: as linalg.copy it
    # becomes loops of loads and stores with the rest
    text = _COPY.sub(r"linalg.copy ins(\1 : \3) outs(\2 : \4)", str(module))
    ctx = jit.new_context()
    from mlir import ir

    with ctx:
        module = ir.Module.parse(text)
    passes = _TO_LOOPS % STACK_LIMIT
    if getattr(spec, "any_size", False):
        # a loop of run-time extent stepping by a split factor: full steps, then one partial one, so the inner
        # loops of the full steps have constant extents (which C compilers unroll and vectorize)
        passes = passes.replace("convert-linalg-to-loops,", "convert-linalg-to-loops,scf-for-loop-peeling,")
    jit.run_passes(ctx, module, passes, "lowering to scalar loops failed", "c_source")
    arguments = _memrefs_to_pointers(ctx, module)
    scratch = _heap_to_parameters(ctx, module)
    left = sorted({op for op in _op_names(module) if op.split(".")[0] in ("vector", "omp", "async", "linalg")})
    if left:
        raise HalideError(
            f"{user_site()}: the C source of '{spec.fn_name}' can't be written: MLIR's EmitC has no conversion for "
            f"{', '.join(left)}"
        )
    _math_to_libm_calls(ctx, module)
    try:
        jit.run_passes(ctx, module, _TO_EMITC, "converting to EmitC failed", "c_source")
    except Exception as e:
        raise HalideError(f"{user_site()}: the C source of '{spec.fn_name}' can't be written (EmitC): {e}") from None
    left = sorted(op for op in _op_names(module) if op.split(".")[0] not in ("emitc", "builtin"))
    if left:
        raise HalideError(
            f"{user_site()}: the C source of '{spec.fn_name}' can't be written: MLIR's EmitC has no conversion for "
            f"{', '.join(left)}"
        )
    return ctx, module, scratch, arguments


def _any_size_bufferized(kernel):
    """The any-size kernel's module (aot/anysize.py), planned again without vectors: auto-vectorization off, and
    the vectorized loops serial (their constant extents kept: the values are the same), bufferized."""
    import warnings as w

    from .. import driver
    from .. import settings
    from ..analysis.symbolic_bounds import AnySizeComputeAtWarning, plan_any_size
    from ..codegen.dynamic_payload import build_payload, build_transform
    from ..runtime import jit

    func = kernel.spec.func
    old = settings._auto_vectorize_override[0]  # (the user's choice, or None: the environment's)
    settings.set_auto_vectorize(False)
    try:
        with w.catch_warnings():
            w.simplefilter("ignore", AnySizeComputeAtWarning)  # (the object's compile warned already)
            plan = plan_any_size(driver.front_end(func), func)
    finally:
        settings.set_auto_vectorize(old)
    for st in plan.stages:
        for lp in [*st.loops, *(lp for up in st.updates for lp in up.loops)]:
            if lp.kind == "vectorized":
                lp.kind = "serial"
    return driver.lower_to_llvm(
        jit.new_context(), build_payload(plan), build_transform(plan), kernel.threads, until="bufferized"
    )


# math ops -> C99's <math.h> (the float version is the name + "f"); convert-math-to-emitc has only some of them
_LIBM = {
    "absf": "fabs", "acos": "acos", "acosh": "acosh", "asin": "asin", "asinh": "asinh", "atan": "atan",
    "atan2": "atan2", "atanh": "atanh", "cbrt": "cbrt", "ceil": "ceil", "copysign": "copysign", "cos": "cos",
    "cosh": "cosh", "erf": "erf", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "floor": "floor", "fma": "fma",
    "log": "log", "log10": "log10", "log1p": "log1p", "log2": "log2", "powf": "pow", "round": "round",
    "roundeven": "nearbyint", "sin": "sin", "sinh": "sinh", "sqrt": "sqrt", "tan": "tan", "tanh": "tanh",
    "trunc": "trunc",
}  # fmt: skip


def _math_to_libm_calls(ctx, module) -> None:
    """Scalar float math ops become calls of <math.h> (``logf``, ``pow``), ``math.rsqrt`` ``1 / sqrtf``."""
    from mlir import ir
    from mlir.dialects import arith, emitc

    ops = []

    def visit(op):
        if op.name.startswith("math.") and (op.name[5:] in _LIBM or op.name == "math.rsqrt"):
            ops.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    with ctx:
        for op in ops:
            t = op.results[0].type
            if str(t) not in ("f32", "f64"):
                continue  # (vectors can't reach here; f16 has no libm function: EmitC's error names the op)
            f = "f" if str(t) == "f32" else ""
            with ir.InsertionPoint(op), op.location:
                if op.name == "math.rsqrt":
                    root = emitc.CallOpaqueOp([t], f"sqrt{f}", list(op.operands)).result
                    new = arith.DivFOp(arith.ConstantOp(t, 1.0).result, root).result
                else:
                    new = emitc.CallOpaqueOp([t], _LIBM[op.name[5:]] + f, list(op.operands)).result
            op.results[0].replace_all_uses_with(new)
            op.erase()


def _bind(spec) -> list:
    """Buffers of the compiled regions for the ImageParams, as build.compile_kernel binds them."""
    import numpy as np

    from ..lang.buffer import Buffer
    from .arguments import BufferArg

    bind = []
    for a in spec.kernel_inputs:
        if isinstance(a, BufferArg) and a.source is not None:
            b = Buffer(np.zeros(tuple(reversed(a.extents)), a.type.numpy), name=a.name)
            b.set_min(*a.mins)
            bind.append((a.source, b))
    return bind


def _op_names(module) -> set:
    from mlir import ir

    names = set()

    def visit(op):
        names.add(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


def _memrefs_to_pointers(ctx, module) -> list:
    """Memrefs of run-time shape (the any-size kernel's arguments and temporaries), which EmitC can't express,
    become plain pointers: each such argument of the function becomes (pointer, offset, sizes, strides) at the end
    of its arguments, each load or store a subscript at the linear index, ``memref.dim`` the size, an allocation of
    run-time size ``halide_malloc`` freed at the end of its block (nothing escapes a block here). Returns the
    arguments afterwards as (argument number before, piece): piece None (the argument as it was), "ptr",
    "offset", ("size", d) or ("stride", d)."""
    from mlir import ir
    from mlir.dialects import arith, builtin, emitc

    dyn = ir.ShapedType.get_dynamic_size()

    def dynamic(t) -> bool:
        if not isinstance(t, ir.MemRefType):
            return False
        strides, offset = ir.MemRefType(t).get_strides_and_offset()
        return not ir.MemRefType(t).has_static_shape or dyn in strides or offset == dyn

    order = None
    with ctx, ir.Location.unknown():
        index = ir.IndexType.get()
        loc = ir.Location.unknown()

        def size_t(v):  # (convert-to-emitc makes the index value a size_t: reconcile-unrealized-casts joins them)
            return builtin.unrealized_conversion_cast([ir.Type.parse("!emitc.size_t")], [v])

        def pointer(t):
            return ir.Type.parse(f"!emitc.ptr<{t}>")

        for fn in module.body.operations:
            if fn.operation.name != "func.func":
                continue
            if order is not None:
                raise InternalError("the C source: more than one function in the kernel module")
            entry = fn.regions[0].blocks[0]
            inputs = list(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).inputs)
            order = [(i, None) for i, t in enumerate(inputs) if not dynamic(t)]
            views = []  # (memref value, pointer, offset or None, sizes, strides: index values, or 1)
            for i, t in enumerate(inputs):
                if not dynamic(t):
                    continue
                mt = ir.MemRefType(t)
                ptr = entry.add_argument(pointer(mt.element_type), loc)
                offset = entry.add_argument(index, loc)
                sizes = [entry.add_argument(index, loc) for _ in range(mt.rank)]
                strides = [entry.add_argument(index, loc) for _ in range(mt.rank)]
                strides = [1 if s == 1 else v for s, v in zip(mt.get_strides_and_offset()[0], strides)]
                order += [(i, "ptr"), (i, "offset"), *((i, ("size", d)) for d in range(mt.rank))]
                order += [(i, ("stride", d)) for d in range(mt.rank)]
                views.append((entry.arguments[i], ptr, offset, sizes, strides))

            def view_of(v):
                for view in views:
                    if view[0] == v:
                        return view
                raise InternalError(f"the C source: a memref of run-time shape from {v.owner}")

            ops = []
            fn.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE)
            erase = []
            for op in ops:
                name = op.name
                if name == "memref.alloc" and dynamic(op.results[0].type):
                    mt = ir.MemRefType(op.results[0].type)
                    if mt.get_strides_and_offset()[1] == dyn or not isinstance(mt.layout, ir.AffineMapAttr):
                        raise InternalError(f"the C source: an allocation of layout {mt.layout}")
                    with ir.InsertionPoint(op):
                        given = iter(op.operands)
                        sizes = [next(given) if n == dyn else arith.ConstantOp(index, n).result for n in mt.shape]
                        strides, count = [], None
                        for s in reversed(sizes):  # (row-major: the identity layout)
                            strides.insert(0, 1 if count is None else count)
                            count = s if count is None else arith.MulIOp(count, s).result
                        nbytes = arith.MulIOp(count, arith.ConstantOp(index, _element_bytes(mt)).result).result
                        raw = emitc.CallOpaqueOp(
                            [ir.Type.parse('!emitc.ptr<!emitc.opaque<"void">>')], _MALLOC, [size_t(nbytes)]
                        ).result
                        ptr = emitc.CastOp(pointer(mt.element_type), raw).result
                    freed = [u.owner for u in op.results[0].uses if u.owner.name == "memref.dealloc"]
                    block = op.operation.block
                    for at in freed or [block.operations[len(block.operations) - 1]]:
                        with ir.InsertionPoint(at):
                            emitc.CallOpaqueOp(
                                [], "halide_free", [ptr], args=ir.ArrayAttr.parse('[#emitc.opaque<"NULL">, 0 : index]')
                            )
                    views.append((op.results[0], ptr, None, sizes, strides))
                elif name in ("memref.cast", "memref.dealloc") and dynamic(op.operands[0].type):
                    if name == "memref.cast":
                        if not dynamic(op.results[0].type):
                            raise InternalError(f"the C source: {op} to a static shape")
                        views.append((op.results[0], *view_of(op.operands[0])[1:]))
                elif name == "memref.dim" and dynamic(op.operands[0].type):
                    d = op.operands[1].owner
                    if d.name != "arith.constant":
                        raise InternalError(f"the C source: {op} of a dimension known at run time")
                    d = ir.IntegerAttr(d.attributes["value"]).value
                    op.results[0].replace_all_uses_with(view_of(op.operands[0])[3][d])
                elif name in ("memref.load", "memref.store") and dynamic(op.operands[name == "memref.store"].type):
                    ref = op.operands[name == "memref.store"]
                    _, ptr, offset, _, strides = view_of(ref)
                    element = ir.MemRefType(ref.type).element_type
                    with ir.InsertionPoint(op):
                        linear = offset
                        for i, s in zip(list(op.operands)[1 + (name == "memref.store") :], strides):
                            term = i if s == 1 else arith.MulIOp(i, s).result
                            linear = term if linear is None else arith.AddIOp(linear, term).result
                        if linear is None:  # (a 0-d memref)
                            linear = arith.ConstantOp(index, 0).result
                        # (signed: a buffer's strides may be negative)
                        linear = emitc.CastOp(ir.Type.parse("!emitc.ptrdiff_t"), size_t(linear)).result
                        lvalue = emitc.SubscriptOp(ir.Type.parse(f"!emitc.lvalue<{element}>"), ptr, [linear]).result
                        if name == "memref.load":
                            op.results[0].replace_all_uses_with(emitc.LoadOp(element, lvalue).result)
                        else:
                            emitc.AssignOp(lvalue, op.operands[0])
                else:
                    if any(dynamic(v.type) for v in [*op.operands, *op.results]):
                        raise InternalError(f"the C source: {name} on a memref of run-time shape")
                    continue
                erase.append(op)
            for op in reversed(erase):
                op.erase()
            for i in reversed([i for i, t in enumerate(inputs) if dynamic(t)]):
                entry.erase_argument(i)
            fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get([a.type for a in entry.arguments], []))
    return order or []


_MALLOC = "__hl_c_source_malloc"  # (halide_malloc, or abort: the wrapper has no error path after its checks)


def _element_bytes(t) -> int:
    return (t.element_type.width + 7) // 8


def _heap_to_parameters(ctx, module) -> list:
    """Each ``memref.alloc`` left (top of the function: the serial loops were hoisted out of) becomes a parameter
    of the kernel, allocated by the adapter; returns their (element bytes, element count)."""
    from mlir import ir

    scratch = []
    with ctx, ir.Location.unknown():
        for fn in module.body.operations:
            if fn.operation.name != "func.func":
                continue
            entry = fn.regions[0].blocks[0]
            allocs = [op for op in entry.operations if op.operation.name == "memref.alloc"]
            deallocs = []

            def visit(op):
                if op.name == "memref.alloc" and op.parent.name != "func.func":
                    raise HalideError(f"{user_site()}: the C source: a heap allocation inside a loop ({op})")
                if op.name == "memref.dealloc":
                    deallocs.append(op)
                if op.name == "memref.alloca" and "alignment" in op.attributes:
                    del op.attributes["alignment"]  # (EmitC's conversion refuses it; scalar code needs none)
                return ir.WalkResult.ADVANCE

            fn.operation.walk(visit)
            for op in deallocs:
                op.erase()
            inputs = list(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).inputs)
            for op in allocs:
                t = ir.MemRefType(op.result.type)
                if not t.has_static_shape:
                    raise HalideError(f"{user_site()}: the C source: an allocation of run-time size ({op})")
                arg = entry.add_argument(t, ir.Location.unknown())
                op.result.replace_all_uses_with(arg)
                op.operation.erase()
                inputs.append(t)
                count = 1
                for n in t.shape:
                    count *= n
                scratch.append(((t.element_type.width + 7) // 8, count))
            fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, []))
    return scratch


def c_kernel(kernel) -> tuple:
    """(C text of the kernel function ``static void __hl_<fn>[_any]_scalar(...)``, its name, its scratch buffers,
    the casts its parameters need, its arguments as _memrefs_to_pointers returns them)."""
    from ..runtime.tools import mlir_tool, run_tool

    _, module, scratch, arguments = _kernel_module(kernel)
    text = run_tool([mlir_tool("mlir-translate"), "--mlir-to-cpp"], str(module))
    name = kernel.symbol.replace("_kernel_ciface", "_scalar")
    text = re.sub(r"^#include <stdlib.h>\n", "", text, flags=re.M)
    text = re.sub(r"^void pipeline\(", f"static void {name}(", text, flags=re.M)
    signature = re.search(rf"static void {name}\((.*)\) {{", text).group(1)
    casts = [_pointer_cast(p) for p in signature.split(", ")] if signature else []
    if signature:
        # the buffers don't alias: Halide's own code assumes so (its buffer arguments are noalias), and without it a
        # C compiler vectorizes each row behind a run-time overlap check, or not at all (gcc -O2). Pointers
        # (_memrefs_to_pointers) get __restrict; so do arrays, as pointers to their rows (C++ has no
        # ``T v[restrict 48][64]``)
        restricted = re.sub(r"\* (v\d+)(?=, |$)", r"* __restrict \1", signature)
        restricted = re.sub(r"(\w+) (v\d+)\[\d+\]((?:\[\d+\])*)(?=, |$)", r"\1 (*__restrict \2)\3", restricted)
        text = text.replace(f"static void {name}({signature})", f"static void {name}({restricted})")
    return text, name, scratch, casts, arguments


def _pointer_cast(param: str) -> str:
    """The cast from ``void *`` to a parameter's type (``int8_t v1[32][65]`` -> ``(int8_t (*)[65])``,
    ``int16_t* v2`` -> ``(int16_t*)``), which C++ needs; empty for a scalar."""
    m = re.fullmatch(r"(.+\*) v\d+", param)
    if m is not None:
        return f"({m.group(1)})"
    m = re.fullmatch(r"(.+) v\d+((?:\[\d+\])+)", param)
    if m is None:
        return ""
    dims = re.findall(r"\[\d+\]", m.group(2))
    return f"({m.group(1)} (*){''.join(dims[1:])})" if len(dims) > 1 else f"({m.group(1)} *)"


def _adapter(kernel, name: str, scratch: list, casts: list, arguments: list) -> str:
    """``__hl_<fn>[_any]_kernel_ciface``, as the wrapper calls the JIT's kernel (memref descriptors: allocated and
    aligned pointers, offset, sizes, strides), calling the EmitC function with plain pointers (and, for any size,
    the descriptors' other fields) and its scratch buffers."""
    from .wrapper import c_scalar

    spec = kernel.spec
    params, call = [], []
    if getattr(spec, "any_size", False):
        from .anysize import kernel_parameters

        params = [f"{t.rstrip()}{'' if t.endswith('*') else ' '}a{i}" for i, t in enumerate(kernel_parameters(kernel))]
        rank = {
            i: sum(1 for j, p in arguments if j == i and isinstance(p, tuple) and p[0] == "size") for i, _ in arguments
        }
        for i, piece in arguments:
            if piece is None:
                call.append(f"a{i}")
            elif piece == "ptr":
                call.append(f"(intptr_t)a{i}[1]")
            elif piece == "offset":
                call.append(f"a{i}[2]")
            else:
                call.append(f"a{i}[{3 + (piece[0] == 'stride') * rank[i] + piece[1]}]")
    else:
        for k in range(len(spec.kernel_inputs)):
            params.append(f"void *in{k}")
            call.append(f"((void **)in{k})[1]")
        for k, q in enumerate(spec.kernel_params):
            params.append(f"{c_scalar(q.type)} p{k}")
            call.append(f"p{k}")
        for k in range(len(spec.outputs)):
            params.append(f"void *out{k}")
            call.append(f"((void **)out{k})[1]")
    lines = [f"void {kernel.symbol}({', '.join(params)}) {{"]
    for k, (size, count) in enumerate(scratch):
        lines.append(f"    void *s{k} = halide_malloc(NULL, (size_t){size * count});")
        call.append(f"s{k}")
    if scratch:  # (out of memory: nothing to run on; the wrapper has no error path after its checks)
        lines.append(f"    if ({' || '.join(f's{k} == NULL' for k in range(len(scratch)))}) abort();")
    call = [c + a for c, a in zip(casts, call)] if len(casts) == len(call) else call
    lines.append(f"    {name}({', '.join(call)});")
    lines += [f"    halide_free(NULL, s{k});" for k in range(len(scratch))]
    lines.append("}")
    return "\n".join(lines)


# the allocations of run-time size (_memrefs_to_pointers)
_MALLOC_C = f"""static void *{_MALLOC}(size_t bytes) {{
    void *p = halide_malloc(NULL, bytes ? bytes : 1);
    if (p == NULL) abort(); /* (out of memory: the wrapper has no error path after its checks) */
    return p;
}}"""


def c_source(kernel) -> str:
    """The whole ``.c`` of a build.Kernel (one output Func), an any-size kernel (anysize.AnySizeKernel), or a
    fixed-size one with its any-size fallback (both kernels, and the wrapper choosing between them)."""
    from .build import RUNTIME_C, runtime_header, wrapper_source
    from .wrapper import header

    if getattr(kernel, "parts", None):
        raise HalideError(f"{user_site()}: c_source of a pipeline with several outputs is not supported yet")
    fn = kernel.spec.fn_name
    _warn_schedule(kernel.spec.func)
    kernels = []
    for k in [kernel, getattr(kernel, "fallback", None)]:
        if k is not None:
            body, name, scratch, casts, arguments = c_kernel(k)
            kernels += [body, _adapter(k, name, scratch, casts, arguments)]
    if any(_MALLOC in text for text in kernels):
        kernels.insert(0, _MALLOC_C)
    with open(RUNTIME_C) as f:
        runtime = f.read()
    wrap = wrapper_source(kernel).replace(f'#include "{fn}.h"\n', "")
    # the runtime above defines these (with void * buffers), the adapters the kernels: the wrapper's declarations
    # would conflict
    wrap = re.sub(r"extern [\w *]+ \*?(__hl_aot_\w+|__hl_\w+_kernel_ciface)\([^;]*\);\n", "", wrap)
    return "\n".join(
        [
            f"/* Generated by halide_mlir: the C source of '{fn}' (MLIR's EmitC; scalar, serial loops). */",
            header(kernel.spec, runtime_header()),
            "/* --- the runtime (halide_mlir/aot/runtime.c) --- */",
            runtime,
            "#ifdef __cplusplus",
            'extern "C" {',
            "#endif",
            "/* --- the kernel (mlir-translate --mlir-to-cpp) --- */",
            "#include <math.h>",
            *kernels,
            "/* --- the function (Halide's C ABI) --- */",
            wrap,
            "#ifdef __cplusplus",
            "}",
            "#endif",
            "",
        ]
    )
