"""The payload: one ``func.func`` with a ``linalg.generic`` on tensors per stage.

Calls whose coordinates are a stage's Vars (times positive constants: strided reads such as downsampling's
``f[2 * x + 1]``) plus constants (stencil taps, transposes, fixed rows) are read through
``tensor.extract_slice``s with projected-permutation indexing maps, so the vectorizer sees plain loads (offset
maps leave the op scalar: docs/mlir-pitfalls.md#offset-indexing-maps). Any other call (data-dependent or
computed coordinates) is a ``tensor.extract`` inside the body; bounds inference has proved it in range.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..analysis.affine import strided_forms
from ..analysis.interval import Interval, simplify_within
from ..analysis.plan import PipelinePlan, StagePlan
from ..analysis.store_in import cpu_memory_types, tagged_loc
from ..error import InternalError
from ..lang.traversal import walk
from ..lang.types import Int
from . import relocatable, trace
from .body import BodyEmitter
from .mlir_text import affine_map, memref_type, mlir_string, out_block_arg, output_arg, storage, tensor_type
from .gpu_tiled import emit_gpu_tiled_stage
from .tiled import Tile, emit_tiled_stage
from .updates import emit_loops, emit_reduction

ENTRY = "pipeline"


@dataclass(frozen=True)
class SliceAccess:
    """A call read as a slice of the callee's tensor: ``dims[j]`` is the consumer dim feeding callee dim j
    (None where the coordinate is a constant and the slice drops that dim)."""

    callee: object
    element: int  # which Tuple element of the callee
    offsets: tuple  # per callee tensor dim (numpy order)
    sizes: tuple
    dims: tuple  # per callee Halide dim: consumer Halide dim or None
    strides: tuple  # per callee tensor dim: f[2 * x] reads every other element (see lowering.dense_strided_reads)
    mods: tuple = ()  # per callee tensor dim: the fold of a circular buffer (offset modulo it), or None


class PayloadBuilder:
    def __init__(self, plan: PipelinePlan):
        self.plan = plan
        self.b = plan.bounded
        self.p = plan.pipeline
        self.counter = itertools.count()
        self.lines: list[str] = []
        self.tensor_of: dict = {}  # callee (Func, Buffer, ImageParam) -> SSA names of its full tensors (per element)
        self.shape_of: dict = {}  # callee -> numpy-order shape
        self.min_of: dict = {}  # callee -> Halide-order mins
        self.origins = relocatable.begin()  # positions as arguments (codegen/relocatable.py), or None
        self.memory_types = cpu_memory_types(self.p)  # store_in on CPU stages, carried by locations

    def fresh(self, prefix: str) -> str:
        return f"%{prefix}{next(self.counter)}"

    def build(self) -> str:
        p, b = self.p, self.b
        args = []
        for i, (holder, buf) in enumerate(zip(p.inputs, b.input_buffers)):
            shape = tuple(reversed(buf.extents()))
            args.append((f"%in{i}", memref_type(shape, buf.type())))
            self.shape_of[holder] = shape
            self.min_of[holder] = tuple(buf.mins())
        for i, prm in enumerate(p.params):
            args.append((f"%p{i}", "i8" if prm.type().is_bool() else prm.type().mlir))
        out_region = b.region(p.output)
        out_shape = tuple(reversed(out_region.extents))
        out_types = p.output.output_types()
        for k, t in enumerate(out_types):
            args.append((output_arg(k), memref_type(out_shape, t)))
        for i, holder in enumerate(p.inputs):
            name = f"%input{i}"
            shape = self.shape_of[holder]
            ty = b.input_buffers[i].type()
            self.lines.append(
                f"{name} = bufferization.to_tensor %in{i} restrict : {args[i][1]} to {tensor_type(shape, ty)}"
            )
            self.tensor_of[holder] = [name]
        trace.begin_pipeline(self)
        for stage in self.plan.stages:
            trace.begin_stage(self, stage)
            self.emit_stage(stage)
            trace.end_stage(self, stage)
        for k, (final, ty) in enumerate(zip(self.tensor_of[p.output], out_types)):
            self.lines.append(
                f"bufferization.materialize_in_destination {final} in restrict writable "
                f"{output_arg(k)} : ({tensor_type(out_shape, ty)}, {memref_type(out_shape, ty)}) -> ()"
            )
        trace.end_pipeline(self)
        self.lines.append("return")
        if self.origins is not None:  # (known once the stages are emitted) after the Params, as a Param's
            args[len(p.inputs) + len(p.params) : len(p.inputs) + len(p.params)] = self.origins.signature()
            relocatable.view_inputs(self.origins, p.inputs, args, self.lines)
            relocatable.view_outputs(self.origins, [output_arg(k) for k in range(len(out_types))], args, self.lines)
        sig = ", ".join(f"{n}: {t}" for n, t in args)
        head = [f"func.func @{ENTRY}({sig}) attributes {{llvm.emit_c_interface}} {{"]
        body = "\n".join("    " + l for l in self.lines)
        decls = "".join(f"  {d}\n" for d in trace.declarations(self.lines))  # hl.print / tracing's callbacks
        return "module {\n" + decls + "  " + head[0] + "\n" + body + "\n  }\n}\n"

    # --- one stage -----------------------------------------------------------------------------
    def emit_stage(self, plan: StagePlan) -> None:
        func, stage, index, region = plan.func, plan.stage, plan.index, plan.region
        if plan.in_tiles:
            return
        if plan.pieces:
            names = self.emit_pieces(index, stage, region, plan.pieces)
        elif plan.tile is None:
            names = self.emit_generic(index, stage, Tile(region.mins, region.extents), self.aligned_outs(plan))
        elif plan.tile.gpu is not None:  # a GPU kernel with producers inside (analysis/gpu.py)
            names = [emit_gpu_tiled_stage(self, plan)]
        else:
            names = [emit_tiled_stage(self, plan)]
        self.tensor_of[func] = names
        self.shape_of[func] = tuple(reversed(region.extents))
        self.min_of[func] = region.mins
        for u in plan.updates:
            emit = emit_reduction if u.reduction else emit_loops
            self.tensor_of[func] = emit(self, stage, u.update if u.reduction else u, self.tensor_of[func])

    def emit_pieces(self, index: int, stage, region, pieces) -> list:
        """One generic per piece of the region (``partition``), each over its own body simplified for that
        piece (analysis/interval.py simplify_within), written into its part of one tensor."""
        func = stage.func
        (t,) = func.output_types()
        shape = tuple(reversed(region.extents))
        loc = self.def_loc(func)
        acc = self.fresh("init")
        if func is self.p.output:
            # the pieces go straight into the caller's buffer: eliminate-empty-tensors would replace a
            # tensor.empty here only after the first piece was given its own (an alloc and a copy)
            self.lines.append(
                f"{acc} = bufferization.to_tensor {output_arg(0)} restrict writable : "
                f"{memref_type(shape, t)} to {tensor_type(shape, t)} {loc}"
            )
        elif self.plan.of(func).storage is not None:  # (align_storage)
            (acc,) = self.aligned_outs(self.plan.of(func))
        else:
            self.lines.append(f"{acc} = tensor.empty() : {tensor_type(shape, t)} {loc}")
        for mins, extents in pieces:
            env = {v: Interval(lo, lo + ext - 1) for v, lo, ext in zip(stage.vars, mins, extents)}
            values = tuple(simplify_within(v, env) for v in self.b.bodies[func])
            offsets = ", ".join(str(lo - rlo) for lo, rlo in reversed(list(zip(mins, region.mins))))
            sizes = ", ".join(map(str, reversed(extents)))
            ones = ", ".join(["1"] * len(mins))
            part_type = tensor_type(tuple(reversed(extents)), t)
            # a tensor.empty per piece: eliminate-empty-tensors writes it in place of its insert_slice (an
            # extract_slice of the first, empty accumulator would fold into a new empty tensor: a copy)
            part = self.fresh("init")
            self.lines.append(f"{part} = tensor.empty() : {part_type} {loc}")
            (res,) = self.emit_generic(index, stage, Tile(mins, extents), [part], values=values)
            new = self.fresh("t")
            self.lines.append(
                f"{new} = tensor.insert_slice {res} into {acc}[{offsets}] [{sizes}] [{ones}] : "
                f"{part_type} into {tensor_type(shape, t)} {loc}"
            )
            acc = new
        return [acc]

    def aligned_outs(self, plan: StagePlan) -> list | None:
        """align_storage (plan.storage): a padded buffer per Tuple element and the region's leading part of it
        as the generic's destination. (bufferization.alloc_tensor: a slice of a tensor.empty would fold back
        into an unpadded tensor.empty.)"""
        if plan.storage is None:
            return None
        loc = self.def_loc(plan.func)
        shape, padded = tuple(reversed(plan.region.extents)), tuple(reversed(plan.storage))
        outs = []
        for t in plan.func.output_types():
            buf, out = self.fresh("padded"), self.fresh("init")
            zeros, ones = ", ".join(["0"] * len(shape)), ", ".join(["1"] * len(shape))
            self.lines.append(f"{buf} = bufferization.alloc_tensor() : {tensor_type(padded, t)} {loc}")
            self.lines.append(
                f"{out} = tensor.extract_slice {buf}[{zeros}] [{', '.join(map(str, shape))}] [{ones}] : "
                f"{tensor_type(padded, t)} to {tensor_type(shape, t)} {loc}"
            )
            outs.append(out)
        return outs

    def def_loc(self, func) -> str:
        loc = func._definition().site.mlir_loc() if func._definition().site else "loc(unknown)"
        return tagged_loc(loc, self.memory_types.get(func))

    def emit_generic(
        self, index: int, stage, tile: "Tile", outs: list | None, views: dict | None = None, values: tuple | None = None
    ) -> list:
        """The stage's pure definition (or ``values``, the same simplified for this tile) as one
        ``linalg.generic`` over ``tile`` (the whole region, or one tile inside payload loops) into ``outs``
        (None: new tensors); ``views`` gives, per producer, a tensor standing for it there. Returns one tensor
        per Tuple element."""
        func = stage.func
        n = len(stage.vars)
        shape = tuple(reversed(tile.extents))
        values = self.b.bodies[func] if values is None else values
        out_types = func.output_types()
        loc = self.def_loc(func)
        views = views or {}

        operands: list[tuple[str, str, str, object]] = []  # (value, tensor type, map, element Type)
        slot: dict = {}  # SliceAccess -> operand index
        access_of: dict[int, object] = {}  # id(call Expr) -> operand index or "extract"
        for node in (m for v in values for m in walk(v)):
            if node.kind != "call" or id(node) in access_of:
                continue
            acc = self.slice_access(node, stage, tile, views.get(node.value))
            if acc is None:
                access_of[node] = "extract"
                continue
            if acc not in slot:
                slot[acc] = len(operands)
                operands.append(self.emit_slice(acc, node.type, n, loc, views.get(node.value)))
            access_of[node] = slot[acc]
        operands, uniform = self.uniform_reads(operands, [a.callee for a in slot], views, loc)

        if outs is None:
            outs = [self.fresh("init") for _ in out_types]
            for o, t in zip(outs, out_types):
                self.lines.append(f"{o} = tensor.empty() : {tensor_type(shape, t)} {loc}")
        block_args, k = [], 0  # per operand index before uniform_reads: its block argument (None: extracted)
        for i in range(len(operands) + len(uniform)):
            block_args.append(None if i in uniform else f"%a{k}")
            k += i not in uniform
        body_lines: list[str] = []
        index_cache: dict[int, str] = {}
        tile_start = {d: f"{self.index_to_i32(dyn, loc)}" for d, dyn in enumerate(tile.dynamic) if dyn}
        gathered = {node.value for node, a in access_of.items() if a == "extract" and node.value in views}
        view_mins = {f: self.view_mins(views[f], loc) for f in gathered}  # i32 starts for emit_extract

        def leaf(e) -> str:
            if e.kind == "param":
                return self.param_value(em, e)
            if e.kind == "var":
                return coord(stage.vars.index(e.value.name()), e.type)
            acc = access_of[e]
            if acc in uniform:
                value = em.from_storage(uniform[acc], e.type)
            elif acc != "extract":
                value = em.from_storage(block_args[acc], e.type)
            elif e.value in views:  # a producer's tile read at divided coordinates (analysis/tiling.py Span), or a
                # pyramid window's folded rows (analysis/pyramid.py)
                view = views[e.value]
                value = self.emit_extract(em, e, view.tensor, view_mins[e.value], view.shape, view.fold)
            else:
                value = self.emit_extract(em, e)
            return trace.load(self, em, e, value)

        def coord(d: int, i32) -> str:
            if d not in index_cache:
                idx = em.op(f"linalg.index {n - 1 - d} : index", "i")
                v = em.op(f"arith.index_cast {idx} : index to i32", "x")
                if d in tile_start:
                    v = em.op(f"arith.addi {v}, {tile_start[d]} : i32", "x")
                at = relocatable.position(self.origins, ("coord", self.plan.stages[index].name, d), tile.mins[d], i32)
                if at is not None or tile.mins[d] != 0:
                    v = em.op(f"arith.addi {v}, {at or em.const(tile.mins[d], i32)} : i32", "x")
                index_cache[d] = v
            return index_cache[d]

        em = BodyEmitter(body_lines, self.fresh, loc, leaf)
        em.trace_lanes = self.plan.stages[index].trace_lanes
        results = [em.emit(v) for v in values]
        trace.stores(
            em, func, self.plan.stages[index].name, lambda: [coord(d, Int(32)) for d in range(n)], results, out_types
        )
        results = [em.to_storage(r, t) for r, t in zip(results, out_types)]

        block_args = [a for a in block_args if a is not None]
        maps = [o[2] for o in operands] + [affine_map(n, [f"d{i}" for i in range(n)])] * len(out_types)
        attrs = f"hl.func = {mlir_string(self.plan.stages[index].name)}, hl.stage = {index} : i64"
        return self.generic_op(
            maps, ["parallel"] * n, operands, block_args, outs, shape, out_types, attrs, body_lines, results, loc
        )

    def uniform_reads(self, operands: list, callees: list, views: dict, loc: str) -> tuple[list, dict]:
        """The 0-d operands (a read at constant coordinates: max_filter's ``filter_height[k]`` per unrolled tap, a
        kernel weight) of a Func computed at the root or an input, extracted once before the generic: a value the
        body uses from above is uniform to the vectorizer, and it stays out of the loops the script makes, where
        LLVM would otherwise load it again per vector once the loop is outlined into an OpenMP function (its
        pointers come from the context struct, so the output's stores may alias them). Returns the operands
        left and {operand index: the extracted value}."""
        kept, uniform = [], {}
        for i, (o, callee) in enumerate(zip(operands, callees)):
            stage = next((sp for sp in self.plan.stages if sp.stage.func is callee), None)
            if not o[2].endswith("-> ()>") or callee in views or (stage is not None and stage.compute.at_loop()):
                kept.append(o)
                continue
            v = self.fresh("u")
            self.lines.append(f"{v} = tensor.extract {o[0]}[] : {o[1]} {loc}")
            uniform[i] = v
        return kept, uniform

    def generic_op(
        self,
        maps,
        iterators,
        operands,
        block_args,
        outs: list,
        shape,
        out_types: list,
        attrs,
        body_lines,
        results: list,
        loc,
    ) -> list:
        """Write one ``linalg.generic`` whose region is ``body_lines`` yielding ``results`` (one per output:
        block arguments ``%o`` (first output), ``%o1``, ``%o2``... hold the outputs' current values)."""
        name = self.fresh("t")
        ins = f" ins({', '.join(o[0] for o in operands)} : {', '.join(o[1] for o in operands)})" if operands else ""
        bb_args = [f"{a}: {o[3]}" for a, o in zip(block_args, operands)]
        bb_args += [f"{out_block_arg(k)}: {storage(t)}" for k, t in enumerate(out_types)]
        kinds = ", ".join(f'"{k}"' for k in iterators)
        ttypes = [tensor_type(shape, t) for t in out_types]
        self.lines.append(
            f"{name}{f':{len(outs)}' if len(outs) > 1 else ''} = linalg.generic {{indexing_maps = "
            f"[{', '.join(maps)}], iterator_types = [{kinds}]}}{ins} outs({', '.join(outs)} : {', '.join(ttypes)}) "
            f"attrs = {{{attrs}}} {{"
        )
        self.lines.append(f"^bb0({', '.join(bb_args)}):")
        self.lines.extend("  " + l for l in body_lines)
        self.lines.append(f"  linalg.yield {', '.join(results)} : {', '.join(storage(t) for t in out_types)} {loc}")
        self.lines.append(f"}} -> {ttypes[0] if len(ttypes) == 1 else '(' + ', '.join(ttypes) + ')'} {loc}")
        return [name] if len(outs) == 1 else [f"{name}#{k}" for k in range(len(outs))]

    def view_mins(self, view, loc: str) -> list:
        """A view's start per Halide dim as i32 values (constants too: a view's min is not the holder's, which
        relocatable pipelines pass as arguments)."""
        out = []
        for lo, dyn in zip(view.mins, view.dynamic):
            if dyn is None:
                c = self.fresh("c")
                self.lines.append(f"{c} = arith.constant {lo} : i32 {loc}")
                out.append(c)
            else:
                out.append(self.index_to_i32(self.index_sum([(1, dyn)], lo, loc), loc))
        return out

    def index_to_i32(self, value: str, loc: str) -> str:
        v = self.fresh("x")
        self.lines.append(f"{v} = arith.index_cast {value} : index to i32 {loc}")
        return v

    def index_sum(self, terms: list[tuple[int, str]], const: int, loc: str):
        """``const + sum(coefficient * ssa)`` as an index value: an int when nothing is dynamic."""
        for t in list(terms):  # x - x: the same SSA value added and subtracted cancels
            if t in terms and (-t[0], t[1]) in terms:
                terms.remove(t)
                terms.remove((-t[0], t[1]))
        if not terms:
            return const
        acc = None
        for coef, v in terms:
            if abs(coef) != 1:
                scaled = self.fresh("o")
                self.lines.append(f"{scaled} = arith.muli {v}, {self.index_const(abs(coef), loc)} : index {loc}")
                coef, v = (1 if coef > 0 else -1), scaled
            if acc is None and coef > 0:
                acc = v
                continue
            if acc is None:
                acc = self.index_const(0, loc)
            r = self.fresh("o")
            self.lines.append(f"{r} = arith.{'addi' if coef > 0 else 'subi'} {acc}, {v} : index {loc}")
            acc = r
        if const:
            r = self.fresh("o")
            self.lines.append(f"{r} = arith.addi {acc}, {self.index_const(const, loc)} : index {loc}")
            acc = r
        return acc

    def index_mod(self, value, factor: int, loc: str):
        """``value`` (an int or a non-negative index SSA value) modulo ``factor``: a row of a folded buffer."""
        if isinstance(value, int):
            return value % factor
        r = self.fresh("o")
        self.lines.append(f"{r} = arith.remui {value}, {self.index_const(factor, loc)} : index {loc}")
        return r

    def index_const(self, value: int, loc: str) -> str:
        c = self.fresh("c")
        self.lines.append(f"{c} = arith.constant {value} : index {loc}")
        return c

    def param_value(self, em: BodyEmitter, e) -> str:
        i = next(i for i, q in enumerate(self.p.params) if q is e.value)
        return em.from_storage(f"%p{i}", e.type)

    def name_of(self, func) -> str:
        return self.plan.of(func).name

    def slice_access(self, call, stage, tile: "Tile", view=None):
        """The slice that feeds this call, if its coordinates are distinct Vars of the stage times positive
        constants plus constants. Offsets are (dynamic terms, constant) pairs: a tile's start and a view's start
        may be SSA values."""
        forms = strided_forms(call)
        if view is not None and view.gather:
            return None
        if forms is None or (view is not None and view.fold is not None and any(a > 1 for _, a, _ in forms)):
            return None  # a folded buffer is only ever read at unit stride (analysis/folding.py)
        mins = self.min_of[call.value] if view is None else view.mins
        vdyn = [None] * len(call.args) if view is None else view.dynamic
        m = len(call.args)
        dims, offsets, sizes, strides, mods = [], [0] * m, [0] * m, [1] * m, [None] * m
        if view is not None and view.fold is not None:
            mods[m - 1 - view.fold[0]] = view.fold[1]
        for j, (v, a, c) in enumerate(forms):
            t = m - 1 - j  # tensor dim of callee Halide dim j
            neg = ((-1, vdyn[j]),) if vdyn[j] else ()
            if v is None:
                dims.append(None)
                offsets[t], sizes[t] = (neg, c - mins[j]), 1
            else:
                d = stage.vars.index(v)
                dims.append(d)
                pos = ((a, tile.dynamic[d]),) if tile.dynamic[d] else ()
                offsets[t], sizes[t] = (pos + neg, a * tile.mins[d] + c - mins[j]), tile.extents[d]
                strides[t] = a
        return SliceAccess(
            call.value, call.index, tuple(offsets), tuple(sizes), tuple(dims), tuple(strides), tuple(mods)
        )

    def emit_slice(self, acc: SliceAccess, elem_t, n: int, loc: str, view=None):
        src = self.tensor_of[acc.callee][acc.element] if view is None else view.tensor
        full = self.shape_of[acc.callee] if view is None else view.shape
        m = len(acc.dims)
        kept = [t for t in range(m) if acc.dims[m - 1 - t] is not None]
        result_shape = tuple(acc.sizes[t] for t in kept)
        results = [f"d{n - 1 - acc.dims[m - 1 - t]}" for t in kept]
        offsets = [self.index_sum(list(terms), const, loc) for terms, const in acc.offsets]
        for t, f in enumerate(acc.mods):
            if f is None:
                continue
            # a slice of a folded buffer must not cross its end: one row, or rows at a static offset that fit
            # (a warm-up reading the warm-up rows of the window it reads)
            if acc.sizes[t] != 1 and not (isinstance(offsets[t], int) and offsets[t] % f + acc.sizes[t] <= f):
                raise InternalError(
                    f"a read of {acc.callee.name()} would cross the end of its folded buffer "
                    "(analysis/folding.py folds only windows read one row at a time)"
                )
            offsets[t] = self.index_mod(offsets[t], f, loc)
        if tuple(acc.sizes) == full and not any(o != 0 for o in offsets) and set(acc.strides) == {1} and len(kept) == m:
            value = src
        else:
            value = self.fresh("s")
            self.lines.append(
                f"{value} = tensor.extract_slice {src}[{', '.join(map(str, offsets))}] "
                f"[{', '.join(map(str, acc.sizes))}] [{', '.join(map(str, acc.strides))}] : "
                f"{tensor_type(full, elem_t)} "
                f"to {tensor_type(result_shape, elem_t)} {loc}"
            )
        return value, tensor_type(result_shape, elem_t), affine_map(n, results), storage(elem_t)

    def emit_extract(self, em: BodyEmitter, call, tensor=None, mins=None, shape=None, fold=None) -> str:
        """``tensor.extract`` of a call's element (from ``tensor`` if given: a loop-carried value, or a pyramid
        window's circular buffer, ``fold`` = (Halide dim, rows): that coordinate modulo the rows)."""
        holder = call.value
        relocatable.gathered(self.origins, holder)
        mins = self.min_of[holder] if mins is None else mins
        m = len(call.args)
        idx = [None] * m
        for j, a in enumerate(call.args):
            v = em.emit(a)
            if isinstance(mins[j], str):  # a slice's dynamic min (an i32 value: codegen/updates.py)
                v = em.op(f"arith.subi {v}, {mins[j]} : i32", "x")
            else:
                at = relocatable.position(self.origins, ("min", id(holder), j), mins[j], a.type)
                if at is not None or mins[j] != 0:
                    v = em.op(f"arith.subi {v}, {at or em.const(mins[j], a.type)} : i32", "x")
            if fold is not None and fold[0] == j:
                v = em.op(f"arith.remui {v}, {em.const(fold[1], a.type)} : i32", "x")
            idx[m - 1 - j] = em.op(f"arith.index_cast {v} : i32 to index", "i")
        shape = self.shape_of[holder] if shape is None else shape
        loc = call.site.mlir_loc() if call.site is not None else em.loc
        name = self.fresh("g")
        tensor = self.tensor_of[holder][call.index] if tensor is None else tensor
        em.lines.append(f"{name} = tensor.extract {tensor}[{', '.join(idx)}] : {tensor_type(shape, call.type)} {loc}")
        return em.from_storage(name, call.type)


def build_payload(plan: PipelinePlan) -> str:
    return PayloadBuilder(plan).build()
