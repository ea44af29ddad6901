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

from ..analysis.symbolic_bounds import DynPlan
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
        inputs[id(h)] = (t, [f"%in{k}_min{d}" for d in range(r)], f"%in{k}")
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
    for st in plan.stages:
        mins = [p.add(f"%out_min{d}", st.lo[d]) for d in range(rank)]
        exts = [p.add(oext[d], st.hi[d] - st.lo[d]) for d in range(rank)]
        t = st.func.output_types()[0]
        init = p.op(f"tensor.empty({', '.join(reversed(exts))}) : {tensor_type(rank, t)}", "init")
        operands, block_args, by_key = [], [], {}
        for src, offs in st.slices:
            base, bmins = inputs[id(src)][:2] if isinstance(src, ImageParam) else computed[id(src)]
            st_t = src.type() if isinstance(src, ImageParam) else src.output_types()[0]
            offsets = []
            for d in range(rank):
                o = p.op(f"arith.subi {p.add(mins[d], offs[d])}, {bmins[d]} : index", "off")
                offsets.append(o)
            sl = p.op(
                f"tensor.extract_slice {base}[{', '.join(reversed(offsets))}] [{', '.join(reversed(exts))}] "
                f"[{', '.join(['1'] * rank)}] : {tensor_type(rank, st_t)} to {tensor_type(rank, st_t)}",
                "slice",
            )
            by_key[(id(src), tuple(offs))] = f"%a{len(operands)}"
            block_args.append(f"%a{len(operands)}: {storage(st_t)}")
            operands.append((sl, tensor_type(rank, st_t)))
        body: list[str] = []
        index_cache: dict = {}

        def bfresh(prefix: str = "v") -> str:
            return p.fresh(prefix)

        def leaf(e, st=st, mins=mins, by_key=by_key, index_cache=index_cache):
            if e.kind == "param":
                i = next(i for i, q in enumerate(pipe.params) if q is e.value)
                return em.from_storage(f"%p{i}", e.type)
            if e.kind == "var":
                return coord(st.vars.index(e.value.name()), mins, index_cache)
            if e.kind == "buffer_dim":  # (i32 values computed before the generic: the vectorizer keeps them scalar)
                h, d, what = e.value
                return dims32[id(h)][what][d]
            if e.kind == "call":
                from ..analysis.affine import slice_forms

                forms = slice_forms(e)
                key = (id(e.value), tuple(c for _, c in forms)) if forms is not None else None
                if key in by_key and all(v == st.vars[d] for d, (v, _) in enumerate(forms)):
                    return em.from_storage(by_key[key], e.type)
                # a gather of an ImageParam (clamped coordinates, analysis/symbolic_bounds.py)
                tensor, hmins, _ = inputs[id(e.value)]
                idx = []
                for d, a in enumerate(e.args):
                    c = em.emit(a)
                    rel = em.op(f"arith.subi {c}, {dims32[id(e.value)]['min'][d]} : i32", "x")
                    idx.append(em.op(f"arith.index_cast {rel} : i32 to index", "i"))
                v = em.op(
                    f"tensor.extract {tensor}[{', '.join(reversed(idx))}] : {tensor_type(len(e.args), e.value.type())}",
                    "g",
                )
                return em.from_storage(v, e.type)
            raise NotImplementedError(e.kind)

        def coord(d: int, mins, cache) -> str:
            if d not in cache:
                i = em.op(f"linalg.index {rank - 1 - d} : index", "i")
                i = em.op(f"arith.addi {i}, {mins[d]} : index", "i")
                cache[d] = em.op(f"arith.index_cast {i} : index to i32", "x")
            return cache[d]

        em = _Emitter(body, bfresh, "", leaf)
        r = em.to_storage(em.emit(st.value), t)
        maps = [affine_map(rank, [f"d{i}" for i in range(rank)])] * (len(operands) + 1)
        ins = ""
        if operands:
            ins = f"ins({', '.join(o for o, _ in operands)} : {', '.join(ty for _, ty in operands)}) "
        res = p.fresh("t")
        iterators = ", ".join(['"parallel"'] * rank)
        p.lines.append(
            f"    {res} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = "
            f"[{iterators}]}} {ins}outs({init} : {tensor_type(rank, t)}) "
            f"attrs = {{hl.func = {mlir_string(st.name)}, hl.any_size}} {{"
        )
        p.lines.append(f"    ^bb0({', '.join(block_args + [f'%o: {storage(t)}'])}):")
        p.lines += ["      " + b.strip() for b in body]
        p.lines.append(f"      linalg.yield {r} : {storage(t)}")
        p.lines.append(f"    }} -> {tensor_type(rank, t)}")
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
        rank = len(st.vars)
        op = sb.match_stage(st.name)
        loops = list(reversed(st.loops))  # outermost first
        vec = st.loops[0] if st.loops[0].kind == "vectorized" else None
        tiled = [lp for lp in loops if lp is not vec]
        unrolls = []
        for lp in tiled:
            sizes = [0] * rank
            sizes[rank - 1 - lp.dim] = lp.stride
            op, handle = sb.tile(op, sizes, lp.kind == "parallel")
            if lp.kind == "unrolled":
                unrolls.append((handle, lp))
        if vec is not None:
            sizes = [1] * rank
            sizes[rank - 1 - vec.dim] = vec.extent
            sb.vectorize(op, sizes)
        for handle, lp in unrolls:
            sb.unroll(handle, lp.extent, f"loop '{lp.name}' of Func '{st.name}'")
    sb.cleanup()
    sb.flush_unrolls()
    return sb.text()
