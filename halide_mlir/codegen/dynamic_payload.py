"""The payload and transform script of a pipeline compiled for any size (analysis/symbolic_bounds.py's plan).

The entry point takes each input as a strided memref of dynamic shape (``memref<?x?xT, strided<[?, 1], offset:
?>>``: a crop of a bigger buffer is passed as it is, not copied) followed by its mins (``index``, Halide dim 0
first), the Params, then the output's memref and mins. Each stage is one ``linalg.generic`` on
``tensor<?x?xT>`` over its region, computed from the output's with index arithmetic; reads at ``var + c`` are
``tensor.extract_slice``s at dynamic offsets (dense vector loads once vectorized), reads at clamped coordinates
(boundary conditions) ``tensor.extract`` in the body (gathers). Element bodies come from codegen/body.py.

The script tiles each loop of the nest (outermost first) with ``tile_using_for`` / ``tile_using_forall`` by its
stride, and vectorizes the innermost op with explicit vector sizes: the tails of a runtime size are masked.
"""

from __future__ import annotations

from ..analysis.affine import slice_forms
from ..analysis.symbolic_bounds import DynPlan, linear_terms
from ..error import InternalError
from ..lang.param import ImageParam
from ..lang.types import Int
from .body import BodyEmitter
from .mlir_text import affine_map, mlir_string, storage
from .transform import ScriptBuilder

I32 = Int(32)


def memref_type(rank: int, t) -> str:
    strides = ", ".join(["?"] * (rank - 1) + ["1"])
    return f"memref<{'?x' * rank}{storage(t)}, strided<[{strides}], offset: ?>>"


def tensor_type(rank: int, t) -> str:
    return f"tensor<{'?x' * rank}{storage(t)}>"


class _Emitter(BodyEmitter):
    """codegen/body.py's emitter, plus an input's runtime min/extent (``input.width()``, boundary conditions)."""

    def _emit(self, e) -> str:
        if e.kind == "buffer_dim":
            return self.leaf(e)
        return super()._emit(e)


class _Printer:
    def __init__(self, plan: DynPlan):
        self.plan = plan
        self.lines: list[str] = []
        self.n = 0

    def fresh(self, prefix: str = "v") -> str:
        self.n += 1
        return f"%{prefix}{self.n}"

    def op(self, text: str, prefix: str = "v") -> str:
        name = self.fresh(prefix)
        self.lines.append(f"    {name} = {text}")
        return name

    def const(self, v: int) -> str:
        return self.op(f"arith.constant {v} : index", "c")

    def add(self, a: str, k: int) -> str:
        return a if k == 0 else self.op(f"arith.addi {a}, {self.const(k)} : index", "i")


def _gather_calls(st) -> list:
    """(call, offsets inside its clamps) of each gather of a partitioned stage."""
    from ..lang.traversal import walk

    seen, out = set(), []
    for n in walk(st.value):
        if n.kind == "call" and id(n) in st.gathers and id(n) not in seen:
            seen.add(id(n))
            out.append((n, st.gathers[id(n)]))
    return out


def _pieces(p, st, mins, exts, inputs) -> list:
    """The boxes of a partitioned stage (Halide's loop partitioning of its clamps): per dim, outermost first, the
    rows before and after the interior (where every clamp(var + c) is var + c) are border pieces (gathers),
    then the interior itself. Each box is (mins, extents, kind); empty boxes are fine (no iterations). The
    pieces before and after the interior in x ("edge": a few columns per row) are computed scalar (a vector of
    one active lane per row costs more than the row's scalar loads); the rows above and below ("border") as the
    schedule says."""
    rank = len(mins)
    lo, hi = [], []  # the interior, [lo, hi) per dim, inside the region
    for d in range(rank):
        end = p.op(f"arith.addi {mins[d]}, {exts[d]} : index", "i")
        a, b = mins[d], end
        for hid, c in sorted(st.clamps.get(d, ())):
            _, hmins, memref, _ = inputs[hid]
            hext = p.op(f"memref.dim {memref}, {p.const(len(hmins) - 1 - d)} : {inputs[hid][3]}", "i")
            first = p.op(f"arith.subi {hmins[d]}, {p.const(c)} : index", "i")  # the first x with min <= x + c
            last = p.op(f"arith.addi {first}, {hext} : index", "i")  # one past the last x with x + c <= max
            a = p.op(f"arith.maxsi {a}, {first} : index", "i")
            b = p.op(f"arith.minsi {b}, {last} : index", "i")
        a = p.op(f"arith.minsi {a}, {end} : index", "i")
        b = p.op(f"arith.maxsi {b}, {a} : index", "i")
        lo.append(a)
        hi.append(b)
    pieces = []
    box_min, box_ext = list(mins), list(exts)
    for d in reversed(range(rank)):
        end = p.op(f"arith.addi {box_min[d]}, {box_ext[d]} : index", "i")
        before = list(box_ext)
        before[d] = p.op(f"arith.subi {lo[d]}, {box_min[d]} : index", "i")
        kind = "edge" if d == 0 else "border"
        pieces.append((list(box_min), before, kind))
        after_min, after = list(box_min), list(box_ext)
        after_min[d] = hi[d]
        after[d] = p.op(f"arith.subi {end}, {hi[d]} : index", "i")
        pieces.append((after_min, after, kind))
        box_min[d] = lo[d]
        box_ext[d] = p.op(f"arith.subi {hi[d]}, {lo[d]} : index", "i")
    pieces.append((box_min, box_ext, "interior"))
    return pieces


def _print_generic(p, rank: int, t, operands, block_args, body, result: str, outs: str, attrs: str) -> str:
    """One elementwise ``linalg.generic`` over dynamically shaped tensors (identity maps), its body ``body``
    yielding ``result`` into ``outs``; returns its result."""
    maps = [affine_map(rank, [f"d{i}" for i in range(rank)])] * (len(operands) + 1)
    ins = ""
    if operands:
        ins = f"ins({', '.join(o for o, _ in operands)} : {', '.join(ty for _, ty in operands)}) "
    res = p.fresh("t")
    iterators = ", ".join(['"parallel"'] * rank)
    p.lines.append(
        f"    {res} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = "
        f"[{iterators}]}} {ins}outs({outs} : {tensor_type(rank, t)}) attrs = {{{attrs}}} {{"
    )
    p.lines.append(f"    ^bb0({', '.join(block_args + [f'%o: {storage(t)}'])}):")
    p.lines += ["      " + b.strip() for b in body]
    p.lines.append(f"      linalg.yield {result} : {storage(t)}")
    p.lines.append(f"    }} -> {tensor_type(rank, t)}")
    return res


def build_payload(plan: DynPlan) -> str:
    p = _Printer(plan)
    pipe = plan.pipeline
    out = plan.output
    rank = out.dimensions()
    args = []
    inputs = {}  # id(ImageParam) -> (tensor, [min per Halide dim], memref)
    for k, h in enumerate(plan.inputs):
        args.append(f"%in{k}: {memref_type(h.dimensions(), h.type())}")
        args += [f"%in{k}_min{d}: index" for d in range(h.dimensions())]
    for i, q in enumerate(pipe.params):
        args.append(f"%p{i}: {storage(q.type())}")
    ot = out.output_types()[0]
    args.append(f"%out: {memref_type(rank, ot)}")
    args += [f"%out_min{d}: index" for d in range(rank)]
    for k, h in enumerate(plan.inputs):
        r = h.dimensions()
        t = p.op(
            f"bufferization.to_tensor %in{k} restrict : {memref_type(r, h.type())} to {tensor_type(r, h.type())}",
            "input",
        )
        inputs[id(h)] = (t, [f"%in{k}_min{d}" for d in range(r)], f"%in{k}", memref_type(r, h.type()))
    dims32 = {}  # id(ImageParam) -> {"min": [i32 per dim], "extent": [...]}
    for k, h in enumerate(plan.inputs):
        r = h.dimensions()
        t, tt = inputs[id(h)][0], tensor_type(r, h.type())
        dims32[id(h)] = {
            "min": [p.op(f"arith.index_cast %in{k}_min{d} : index to i32", "x") for d in range(r)],
            "extent": [
                p.op(f"arith.index_cast {p.op(f'tensor.dim {t}, {p.const(r - 1 - d)} : {tt}', 'i')} : index to i32")
                for d in range(r)
            ],
        }
    oext = []
    for d in range(rank):
        oext.append(p.op(f"memref.dim %out, {p.const(rank - 1 - d)} : {memref_type(rank, ot)}", "oext"))
    computed = {}  # id(Func) -> (tensor, mins)
    result = None

    def generic(st, mins, exts, outs, kind: str = "all") -> str:
        """One linalg.generic of stage ``st`` over the box (mins, exts) (index values, Halide dim order) into
        ``outs``; ``interior``: no clamp changes a coordinate there, so clamped reads are slices too."""
        t = st.func.output_types()[0]
        interior = kind == "interior"
        operands, block_args, by_key = [], [], {}
        reads = list(st.slices)
        if interior:
            reads += [(n.value, list(offs)) for n, offs in _gather_calls(st)]
        for src, offs in reads:
            key = (id(src), tuple(offs))
            if key in by_key:
                continue
            base, bmins = inputs[id(src)][:2] if isinstance(src, ImageParam) else computed[id(src)]
            st_t = src.type() if isinstance(src, ImageParam) else src.output_types()[0]
            offsets = [p.op(f"arith.subi {p.add(mins[d], offs[d])}, {bmins[d]} : index", "off") for d in range(rank)]
            sl = p.op(
                f"tensor.extract_slice {base}[{', '.join(reversed(offsets))}] [{', '.join(reversed(exts))}] "
                f"[{', '.join(['1'] * rank)}] : {tensor_type(rank, st_t)} to {tensor_type(rank, st_t)}",
                "slice",
            )
            by_key[key] = f"%a{len(operands)}"
            block_args.append(f"%a{len(operands)}: {storage(st_t)}")
            operands.append((sl, tensor_type(rank, st_t)))
        body: list[str] = []
        index_cache: dict = {}

        def leaf(e):
            if e.kind == "param":
                i = next(i for i, q in enumerate(pipe.params) if q is e.value)
                return em.from_storage(f"%p{i}", e.type)
            if e.kind == "var":
                return coord(st.vars.index(e.value.name()))
            if e.kind == "buffer_dim":  # (i32 values computed before the generic: the vectorizer keeps them scalar)
                h, d, what = e.value
                return dims32[id(h)][what][d]
            if e.kind == "call":
                offs = st.gathers.get(id(e)) if interior else None
                if offs is None:
                    forms = slice_forms(e)
                    same = forms is not None and len(forms) == rank  # (else a transpose, flip or constant)
                    if same and all(v == st.vars[d] for d, (v, _) in enumerate(forms)):
                        offs = tuple(c for _, c in forms)
                key = (id(e.value), tuple(offs)) if offs is not None else None
                if key in by_key:
                    return em.from_storage(by_key[key], e.type)
                # a gather: an ImageParam at clamped, transposed or flipped coordinates, or a computed Func
                # transposed or flipped (analysis/symbolic_bounds.py)
                if isinstance(e.value, ImageParam):
                    tensor, mins32, et = inputs[id(e.value)][0], dims32[id(e.value)]["min"], e.value.type()
                else:
                    tensor, fmins = computed[id(e.value)]
                    mins32 = [p.op(f"arith.index_cast {m} : index to i32", "x") for m in fmins]
                    et = e.value.output_types()[0]
                idx = []
                for d, a in enumerate(e.args):
                    rel = em.op(f"arith.subi {em.emit(a)}, {mins32[d]} : i32", "x")
                    idx.append(em.op(f"arith.index_cast {rel} : i32 to index", "i"))
                v = em.op(f"tensor.extract {tensor}[{', '.join(reversed(idx))}] : {tensor_type(len(e.args), et)}", "g")
                return em.from_storage(v, e.type)
            raise InternalError(f"any-size payload: no leaf for '{e}'", stage="payload")

        def coord(d: int) -> str:
            if d not in index_cache:
                i = em.op(f"linalg.index {rank - 1 - d} : index", "i")
                i = em.op(f"arith.addi {i}, {mins[d]} : index", "i")
                index_cache[d] = em.op(f"arith.index_cast {i} : index to i32", "x")
            return index_cache[d]

        em = _Emitter(body, p.fresh, "", leaf)
        r = em.to_storage(em.emit(st.value), t)
        attrs = f"hl.{'func_edge' if kind == 'edge' else 'func'} = {mlir_string(st.name)}, hl.any_size"
        return _print_generic(p, rank, t, operands, block_args, body, r, outs, attrs)

    def update_generic(st, up, mins, exts, current) -> str:
        """Update ``up`` of ``st``: one elementwise generic over the region whose body applies the update at each
        point of its RDom in Halide's loop order (the first RVar innermost): ``f(x, y)`` on the right is the value so
        far (the output's block argument at the first point), RVars are constants, and each read is a slice at its
        offset for that point."""
        import itertools

        t = st.func.output_types()[0]
        ranges = [range(lo, lo + ext) for _, lo, ext in up.rvars]
        points = [tuple(reversed(q)) for q in itertools.product(*reversed(ranges))]  # first RVar fastest
        operands, block_args, by_key = [], [], {}
        for point in points:
            for src, dims in up.reads:
                offs = tuple(c + (point[j] if j is not None else 0) for c, j in dims)
                if (id(src), offs) in by_key:
                    continue
                base, bmins = inputs[id(src)][:2] if isinstance(src, ImageParam) else computed[id(src)]
                st_t = src.type() if isinstance(src, ImageParam) else src.output_types()[0]
                offsets = [
                    p.op(f"arith.subi {p.add(mins[d], offs[d])}, {bmins[d]} : index", "off") for d in range(rank)
                ]
                sl = p.op(
                    f"tensor.extract_slice {base}[{', '.join(reversed(offsets))}] [{', '.join(reversed(exts))}] "
                    f"[{', '.join(['1'] * rank)}] : {tensor_type(rank, st_t)} to {tensor_type(rank, st_t)}",
                    "slice",
                )
                by_key[(id(src), offs)] = f"%a{len(operands)}"
                block_args.append(f"%a{len(operands)}: {storage(st_t)}")
                operands.append((sl, tensor_type(rank, st_t)))
        body: list[str] = []
        index_cache: dict = {}
        rnames = [r[0] for r in up.rvars]
        state = {"point": (), "value": None}

        def leaf(e):
            if e.kind == "param":
                i = next(i for i, q in enumerate(pipe.params) if q is e.value)
                return em.from_storage(f"%p{i}", e.type)
            if e.kind == "var":
                d = st.vars.index(e.value.name())
                if d not in index_cache:
                    i = em.op(f"linalg.index {rank - 1 - d} : index", "i")
                    i = em.op(f"arith.addi {i}, {mins[d]} : index", "i")
                    index_cache[d] = em.op(f"arith.index_cast {i} : index to i32", "x")
                return index_cache[d]
            if e.kind == "rvar":
                return em.const(state["point"][rnames.index(e.value.name())], e.type)
            if e.kind == "buffer_dim":
                h, d, what = e.value
                return dims32[id(h)][what][d]
            if e.kind == "call":
                if e.value is st.func:
                    return state["value"]
                offs = []
                for a in e.args:
                    terms, c = linear_terms(a)
                    at = state["point"]
                    offs.append(c + sum(at[rnames.index(k_)] * v for k_, v in terms.items() if k_ in rnames))
                return em.from_storage(by_key[(id(e.value), tuple(offs))], e.type)
            raise InternalError(f"any-size payload: no leaf for '{e}'", stage="payload")

        first = _Emitter(body, p.fresh, "", leaf)
        state["value"] = first.from_storage("%o", t)
        for point in points or [()]:
            state["point"] = point
            em = _Emitter(body, p.fresh, "", leaf)  # (a fresh memo per point: the same Exprs, other values)
            state["value"] = em.emit(up.value)
        r = em.to_storage(state["value"], t)
        attrs = f"hl.update_of = {mlir_string(st.name)}, hl.update = {up.index} : i64, hl.any_size"
        return _print_generic(p, rank, t, operands, block_args, body, r, current, attrs)

    def bounds(forms: dict, d: int) -> tuple:
        """The (min, extent) index values of a stage's dim ``d`` from its region's forms (symbolic_bounds.InputNeed):
        the union of ``out.min_od + lo .. out.max_od + hi`` and, flipped, ``lo - out.max_od .. hi - out.min_od``."""
        if list(forms) == [(d, 1)]:  # (the common case: the output's dim d widened by its taps)
            lo, hi = forms[(d, 1)]
            return p.add(f"%out_min{d}", lo), p.add(oext[d], hi - lo)
        lows, highs = [], []
        for (od, sign), (lo, hi) in sorted(forms.items(), key=lambda kv: (kv[0][0] is None, kv[0])):
            if sign == 0:
                lows.append(p.const(lo))
                highs.append(p.const(hi))
                continue
            omax = p.op(f"arith.addi %out_min{od}, {oext[od]} : index", "i")
            omax = p.add(omax, -1)
            if sign == 1:
                lows.append(p.add(f"%out_min{od}", lo))
                highs.append(p.add(omax, hi))
            else:
                lows.append(p.op(f"arith.subi {p.const(lo)}, {omax} : index", "i"))
                highs.append(p.op(f"arith.subi {p.const(hi)}, %out_min{od} : index", "i"))
        lo, hi = lows[0], highs[0]
        for x in lows[1:]:
            lo = p.op(f"arith.minsi {lo}, {x} : index", "i")
        for x in highs[1:]:
            hi = p.op(f"arith.maxsi {hi}, {x} : index", "i")
        ext = p.add(p.op(f"arith.subi {hi}, {lo} : index", "i"), 1)
        return lo, ext

    for st in plan.stages:
        mins, exts = (list(v) for v in zip(*(bounds(st.region[d], d) for d in range(rank))))
        tt = tensor_type(rank, st.func.output_types()[0])
        init = p.op(f"tensor.empty({', '.join(reversed(exts))}) : {tt}", "init")
        if not st.partitioned():
            res = generic(st, mins, exts, init)
        else:
            res = init
            for pmins, pexts, kind in _pieces(p, st, mins, exts, inputs):
                offs = [p.op(f"arith.subi {pmins[d]}, {mins[d]} : index", "off") for d in range(rank)]
                box = f"[{', '.join(reversed(offs))}] [{', '.join(reversed(pexts))}] [{', '.join(['1'] * rank)}]"
                dst = p.op(f"tensor.extract_slice {res}{box} : {tt} to {tt}", "dst")
                piece = generic(st, pmins, pexts, dst, kind)
                res = p.op(f"tensor.insert_slice {piece} into {res}{box} : {tt} into {tt}", "acc")
        for up in st.updates:
            res = update_generic(st, up, mins, exts, res)
        computed[id(st.func)] = (res, mins)
        result = res
    p.lines.append(
        f"    bufferization.materialize_in_destination {result} in restrict writable %out : "
        f"({tensor_type(rank, ot)}, {memref_type(rank, ot)}) -> ()"
    )
    return (
        "module {\n"
        f"  func.func @pipeline({', '.join(args)}) attributes {{llvm.emit_c_interface}} {{\n"
        + "\n".join(p.lines)
        + "\n    return\n  }\n}\n"
    )


def build_transform(plan: DynPlan) -> str:
    sb = ScriptBuilder()
    for st in reversed(plan.stages):  # consumers first: a producer's handle stays valid (no fusion here)
        for up in st.updates:
            attrs = f"hl.update_of = {mlir_string(st.name)}, hl.update = {up.index} : i64"
            _schedule(sb, st, up.loops, sb.match_stage(st.name, up.index), attrs, up)
        _schedule(sb, st, st.loops, sb.match_stage(st.name), f"hl.func = {mlir_string(st.name)}")
    sb.cleanup()
    sb.flush_unrolls()
    return sb.text()


def _schedule(sb, st, stage_loops, op, attrs: str, update=None) -> None:
    """Tile each loop of the nest (outermost first) by its stride, peel the loop of vectors, vectorize; ``attrs``:
    the generic's attributes (matched again after peeling)."""
    rank = n = len(st.vars)

    def pos(dim: int) -> int:
        return rank - 1 - dim if dim < rank else dim

    loops = list(reversed(stage_loops))  # outermost first
    vec = stage_loops[0] if stage_loops[0].kind == "vectorized" else None
    tiled = [lp for lp in loops if lp is not vec]
    unrolls, handle = [], None
    for lp in tiled:
        sizes = [0] * n
        sizes[pos(lp.dim)] = lp.stride
        op, handle = sb.tile(op, sizes, lp.kind == "parallel")
        if lp.kind == "unrolled":
            unrolls.append((handle, lp))
    if vec is not None:
        sizes = [1] * n
        sizes[pos(vec.dim)] = vec.extent
        if tiled and tiled[-1].dim == vec.dim and tiled[-1].kind == "serial":
            # the loop of vectors peeled: full vectors unmasked, the runtime tail one masked vector
            cast, main, rest = sb.fresh("for"), sb.fresh("main"), sb.fresh("rest")
            sb.emit(f'{cast} = transform.cast {handle} : !transform.any_op to !transform.op<"scf.for">')
            sb.emit(
                f"{main}, {rest} = transform.loop.peel {cast} : "
                f'(!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)'
            )
            op = sb.fresh("peeled")
            sb.emit(
                f'{op} = transform.structured.match ops{{["linalg.generic"]}} attributes '
                f"{{{attrs}}} in %root : (!transform.any_op) -> !transform.any_op"
            )
        sb.vectorize(op, sizes)
    for h, lp in unrolls:
        sb.unroll(h, lp.extent, f"loop '{lp.name}' of Func '{st.name}'")
    if update is None and st.partitioned():  # the edge columns of the partitioned stage: scalar (see _pieces)
        edge = sb.fresh("edge")
        sb.emit(
            f'{edge} = transform.structured.match ops{{["linalg.generic"]}} attributes '
            f"{{hl.func_edge = {mlir_string(st.name)}}} in %root : (!transform.any_op) -> !transform.any_op"
        )
        sb.tile(edge, [1] * rank, False)
