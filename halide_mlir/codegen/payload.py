"""The payload: one ``func.func`` with a ``linalg.generic`` on tensors per stage.

Calls whose coordinates are a stage's Vars plus constants (stencil taps, transposes, fixed rows) are
read through ``tensor.extract_slice``s with projected-permutation indexing maps, so the vectorizer sees
plain loads (offset maps leave the op scalar: DESIGN.md note 1). Any other call (data-dependent or
computed coordinates) is a ``tensor.extract`` inside the body; bounds inference has proved it in range.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..analysis.bounds import Bounded
from ..lang.traversal import walk
from ..lang.func import Func
from .body import BodyEmitter
from .updates import emit_loops, emit_reduction, is_reduction
from .mlir_text import affine_map, memref_type, mlir_string, storage, tensor_type

ENTRY = "pipeline"


@dataclass(frozen=True)
class SliceAccess:
    """A call read as a slice of the callee's tensor: ``dims[j]`` is the consumer dim feeding callee dim j
    (None where the coordinate is a constant and the slice drops that dim)."""
    callee: object
    offsets: tuple   # per callee tensor dim (numpy order)
    sizes: tuple
    dims: tuple      # per callee Halide dim: consumer Halide dim or None


def linear_form(e):
    """``e`` as (var name or None, integer constant) if it is ``var + c`` / ``c`` after folding."""
    k = e.kind
    if k == "const" and not e.type.is_float():
        return None, int(e.value)
    if k == "param" and not e.type.is_float():
        return None, int(e.value.get())  # index Params are compile-time values (see realize's cache key)
    if k == "var":
        return e.value.name(), 0
    if k in ("add", "sub") and not e.type.is_float():
        a, b = linear_form(e.args[0]), linear_form(e.args[1])
        if a is None or b is None:
            return None
        if k == "sub":
            if b[0] is not None:
                return None
            return a[0], a[1] - b[1]
        if a[0] is not None and b[0] is not None:
            return None
        return a[0] or b[0], a[1] + b[1]
    if k == "cast" and e.type.bits >= 32 and e.args[0].type.bits <= 32 and e.args[0].type.is_int():
        return linear_form(e.args[0])
    return None


class PayloadBuilder:
    def __init__(self, bounded: Bounded):
        self.b = bounded
        self.p = bounded.pipeline
        self.counter = itertools.count()
        self.lines: list[str] = []
        self.tensor_of: dict[int, str] = {}    # id(callee) -> SSA name of its full tensor
        self.shape_of: dict[int, tuple] = {}   # id(callee) -> numpy-order shape
        self.min_of: dict[int, tuple] = {}     # id(callee) -> Halide-order mins
        self.stage_names = _unique_names([s.name for s in self.p.stages])

    def fresh(self, prefix: str) -> str:
        return f"%{prefix}{next(self.counter)}"

    def build(self) -> str:
        p, b = self.p, self.b
        args = []
        for i, (holder, buf) in enumerate(zip(p.inputs, b.input_buffers)):
            shape = tuple(reversed(buf.extents()))
            args.append((f"%in{i}", memref_type(shape, buf.type())))
            self.shape_of[id(holder)] = shape
            self.min_of[id(holder)] = tuple(buf.mins())
        for i, prm in enumerate(p.params):
            args.append((f"%p{i}", "i8" if prm.type().is_bool() else prm.type().mlir))
        out_region = b.region(p.output)
        out_shape = tuple(reversed(out_region.extents))
        args.append(("%out", memref_type(out_shape, p.output.output_type())))
        sig = ", ".join(f"{n}: {t}" for n, t in args)
        head = [f"func.func @{ENTRY}({sig}) attributes {{llvm.emit_c_interface}} {{"]
        for i, holder in enumerate(p.inputs):
            name = f"%input{i}"
            shape = self.shape_of[id(holder)]
            ty = b.input_buffers[i].type()
            self.lines.append(f"{name} = bufferization.to_tensor %in{i} restrict : {memref_type(shape, ty)} "
                              f"to {tensor_type(shape, ty)}")
            self.tensor_of[id(holder)] = name
        for index, stage in enumerate(p.stages):
            self.emit_stage(index, stage)
        final = self.tensor_of[id(p.output)]
        ty = p.output.output_type()
        self.lines.append(f"bufferization.materialize_in_destination {final} in restrict writable %out : "
                          f"({tensor_type(out_shape, ty)}, {memref_type(out_shape, ty)}) -> ()")
        self.lines.append("return")
        body = "\n".join("    " + l for l in self.lines)
        return "module {\n  " + head[0] + "\n" + body + "\n  }\n}\n"

    # --- one stage -----------------------------------------------------------------------------
    def emit_stage(self, index: int, stage) -> None:
        b = self.b
        func = stage.func
        region = b.region(func)
        n = len(stage.vars)
        shape = tuple(reversed(region.extents))
        body_expr = b.bodies[id(func)]
        out_t = func.output_type()
        loc = func._definition().site.mlir_loc() if func._definition().site else "loc(unknown)"

        operands: list[tuple[str, str, str, object]] = []  # (value, tensor type, map, element Type)
        slot: dict = {}          # SliceAccess -> operand index
        access_of: dict[int, object] = {}  # id(call Expr) -> operand index or "extract"
        for node in walk(body_expr):
            if node.kind != "call" or id(node) in access_of:
                continue
            acc = self.slice_access(node, stage, region)
            if acc is None:
                access_of[id(node)] = "extract"
                continue
            if acc not in slot:
                slot[acc] = len(operands)
                operands.append(self.emit_slice(acc, node.type, n, loc))
            access_of[id(node)] = slot[acc]

        init = self.fresh("init")
        self.lines.append(f"{init} = tensor.empty() : {tensor_type(shape, out_t)} {loc}")
        block_args = [f"%a{i}" for i in range(len(operands))]
        body_lines: list[str] = []
        index_cache: dict[int, str] = {}

        def leaf(e) -> str:
            if e.kind == "param":
                return self.param_value(em, e)
            if e.kind == "var":
                d = stage.vars.index(e.value.name())
                if d not in index_cache:
                    idx = em.op(f"linalg.index {n - 1 - d} : index", "i")
                    v = em.op(f"arith.index_cast {idx} : index to i32", "x")
                    if region.mins[d] != 0:
                        v = em.op(f"arith.addi {v}, {em.const(region.mins[d], e.type)} : i32", "x")
                    index_cache[d] = v
                return index_cache[d]
            acc = access_of[id(e)]
            if acc != "extract":
                return em.from_storage(block_args[acc], e.type)
            return self.emit_extract(em, e)

        em = BodyEmitter(body_lines, self.fresh, loc, leaf)
        result = em.to_storage(em.emit(body_expr), out_t)

        maps = [o[2] for o in operands] + [affine_map(n, [f"d{i}" for i in range(n)])]
        iterators = ", ".join(['"parallel"'] * n)
        name = self.fresh("t")
        ins = ""
        if operands:
            ins = (f" ins({', '.join(o[0] for o in operands)} : {', '.join(o[1] for o in operands)})")
        attrs = f"hl.func = {mlir_string(self.stage_names[index])}, hl.stage = {index} : i64"
        bb_args = ", ".join(f"{a}: {o[3]}" for a, o in zip(block_args, operands))
        bb_args = (bb_args + ", " if bb_args else "") + f"%o: {storage(out_t)}"
        self.lines.append(
            f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iterators}]}}"
            f"{ins} outs({init} : {tensor_type(shape, out_t)}) attrs = {{{attrs}}} {{")
        self.lines.append(f"^bb0({bb_args}):")
        self.lines.extend("  " + l for l in body_lines)
        self.lines.append(f"  linalg.yield {result} : {storage(out_t)} {loc}")
        self.lines.append(f"}} -> {tensor_type(shape, out_t)} {loc}")
        self.tensor_of[id(func)] = name
        self.shape_of[id(func)] = shape
        self.min_of[id(func)] = region.mins
        for u in b.updates[id(func)]:
            emit = emit_reduction if is_reduction(stage, u) else emit_loops
            self.tensor_of[id(func)] = emit(self, stage, u, self.tensor_of[id(func)])

    def param_value(self, em: BodyEmitter, e) -> str:
        i = next(i for i, q in enumerate(self.p.params) if q is e.value)
        return em.from_storage(f"%p{i}", e.type)

    def name_of(self, func) -> str:
        return self.stage_names[next(i for i, s in enumerate(self.p.stages) if s.func is func)]

    def slice_access(self, call, stage, region):
        """The slice that feeds this call, if its coordinates are distinct Vars of the stage plus constants."""
        if any(m.kind == "call" for a in call.args for m in walk(a)):
            return None
        forms = [linear_form(a) for a in call.args]
        if any(f is None for f in forms):
            return None
        used = [v for v, _ in forms if v is not None]
        if len(set(used)) != len(used):
            return None
        mins = self.min_of[id(call.value)]
        m = len(call.args)
        dims, offsets, sizes = [], [0] * m, [0] * m
        for j, (v, c) in enumerate(forms):
            t = m - 1 - j  # tensor dim of callee Halide dim j
            if v is None:
                dims.append(None)
                offsets[t], sizes[t] = c - mins[j], 1
            else:
                d = stage.vars.index(v)
                dims.append(d)
                offsets[t], sizes[t] = region.mins[d] + c - mins[j], region.extents[d]
        return SliceAccess(call.value, tuple(offsets), tuple(sizes), tuple(dims))

    def emit_slice(self, acc: SliceAccess, elem_t, n: int, loc: str):
        src = self.tensor_of[id(acc.callee)]
        full = self.shape_of[id(acc.callee)]
        m = len(acc.dims)
        kept = [t for t in range(m) if acc.dims[m - 1 - t] is not None]
        result_shape = tuple(acc.sizes[t] for t in kept)
        results = [f"d{n - 1 - acc.dims[m - 1 - t]}" for t in kept]
        if tuple(acc.sizes) == full and not any(acc.offsets):
            value = src
        else:
            value = self.fresh("s")
            self.lines.append(
                f"{value} = tensor.extract_slice {src}[{', '.join(map(str, acc.offsets))}] "
                f"[{', '.join(map(str, acc.sizes))}] [{', '.join(['1'] * m)}] : {tensor_type(full, elem_t)} "
                f"to {tensor_type(result_shape, elem_t)} {loc}")
        return value, tensor_type(result_shape, elem_t), affine_map(n, results), storage(elem_t)

    def emit_extract(self, em: BodyEmitter, call, tensor=None, mins=None, shape=None) -> str:
        """``tensor.extract`` of a call's element (from ``tensor`` if given: a loop-carried value)."""
        holder = call.value
        mins = self.min_of[id(holder)] if mins is None else mins
        m = len(call.args)
        idx = [None] * m
        for j, a in enumerate(call.args):
            v = em.emit(a)
            if mins[j] != 0:
                v = em.op(f"arith.subi {v}, {em.const(mins[j], a.type)} : i32", "x")
            idx[m - 1 - j] = em.op(f"arith.index_cast {v} : i32 to index", "i")
        shape = self.shape_of[id(holder)] if shape is None else shape
        loc = call.site.mlir_loc() if call.site is not None else em.loc
        name = self.fresh("g")
        tensor = self.tensor_of[id(holder)] if tensor is None else tensor
        em.lines.append(f"{name} = tensor.extract {tensor}[{', '.join(idx)}] : "
                        f"{tensor_type(shape, call.type)} {loc}")
        return em.from_storage(name, call.type)


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(n if k == 0 else f"{n}${k}")
    return out


def build_payload(bounded: Bounded) -> str:
    return PayloadBuilder(bounded).build()


def is_func(x) -> bool:
    return isinstance(x, Func)
