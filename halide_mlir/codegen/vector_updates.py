"""A scatter's or scan's loop over a pure Var, vectorized: one vector of lanes per iteration of the other loops.

Halide's update rule makes the iterations of a pure Var's loop independent: the Var appears in the LHS at its own
position and in every self-reference at that same position, so lane ``u`` reads and writes only points whose
coordinate is ``u`` (lesson 18's ``hist_rfactor_vec``: one histogram per column; a scan down the columns,
``blur[x, r] = a * blur[x, r - 1] + ...``). The loop's body is therefore evaluated for all lanes at once: every
value a vector (uniform ones broadcast). A read or the store whose lanes are consecutive in memory (analysis/
scan_lanes.py decides which) is one ``vector.transfer_read``/``transfer_write`` of a row; any other is a
``vector.gather``/``vector.scatter`` (coordinates linearized over the static shape, as linalg's vectorizer does).
The Func is a tensor the serial loops carry or, with a parallel loop, a buffer each iteration stores into. The
lanes a split's guard or an ``RDom.where`` turns off are masked (no read, no write), so tails need no scalar
epilogue. A vectorized loop with loops inside it runs them once per vector, which is the same order per lane.

The body is built by hand rather than as a linalg op the vectorizer handles: its reads of the Func itself at
shifted or data-dependent coordinates (the loop-carried dependence) are not expressible as a linalg.generic.
"""

from __future__ import annotations

import re

from ..analysis.scan_lanes import STORE
from ..lang.types import Int
from . import relocatable
from .body import BOOL as _BOOL, BodyEmitter
from .mlir_text import memref_type, storage, tensor_type

_SCALAR = re.compile(r"(?<![%\w.<x])(i1|i8|i16|i32|i64|f16|bf16|f32|f64|index)(?![\w>])")


class VectorEmitter(BodyEmitter):
    """A BodyEmitter whose values are ``vector<N x T>``: its ops' types are rewritten to vectors, constants are
    broadcast; ``scalar`` emits the uniform values (loop coordinates, Params) it broadcasts."""

    def __init__(self, lines, fresh, loc, leaf, n: int, scalar: BodyEmitter):
        super().__init__(lines, fresh, loc, leaf)
        self.n, self.scalar = n, scalar
        self.mask: str | None = None  # the lanes a gather may read (None: all)

    def vtype(self, t: str) -> str:
        return f"vector<{self.n}x{t}>"

    def op(self, text: str, prefix: str = "v") -> str:
        head, sep, types = text.partition(" : ")
        if sep:
            if head.startswith("arith.select"):  # a vector condition is spelled with its own type
                types = f"{self.vtype('i1')}, {_SCALAR.sub(lambda m: self.vtype(m.group(1)), types)}"
            else:
                types = _SCALAR.sub(lambda m: self.vtype(m.group(1)), types)
        return super().op(head + sep + types, prefix)

    def const(self, value, t) -> str:
        key = ("v", value, t.mlir)
        if key not in self.consts:
            self.consts[key] = self.splat(self.scalar.const(value, t), t.mlir)
        return self.consts[key]

    def splat(self, v: str, t: str) -> str:
        return BodyEmitter.op(self, f"vector.broadcast {v} : {t} to {self.vtype(t)}", "b")

    def all_true(self) -> str:
        return self.const(True, _BOOL)


def emit_vector_body(
    pb, body: list, loc: str, u, nest, lanes, span, over, dim_of, ivs, selfs, region, func, memref=False, shifts=None
):
    """The update for all lanes of the loop ``lanes`` (analysis/scan_lanes.py ScanLanes) at the current
    iterations of the other loops ``nest`` (``ivs``). ``selfs``: the Func's tensors (one per Tuple element), or
    with ``memref`` its buffers. Returns the new tensors (none for buffers: the stores are in place).
    ``shifts``: dim -> i32 value, where the loops run over a tile of a consumer's payload loops (codegen/tiled.py):
    the tile's start minus ``span``'s (static) min, added to the coordinates but not to the guards."""
    shifts = shifts or {}
    n, vdim, vstride = lanes.lanes, lanes.dim, lanes.stride
    scalar = BodyEmitter(body, pb.fresh, loc, lambda e: _scalar_leaf(pb, scalar, e))
    shape_f = tuple(reversed(region.extents))
    self_types = [(memref_type if memref else tensor_type)(shape_f, t) for t in func.output_types()]
    rels: dict = {}
    coords: dict = {}

    def rel(dim, shifted=True) -> str | None:
        """The dim's coordinate relative to its min at lane 0, a scalar i32 (None: 0)."""
        if (dim, shifted) not in rels:
            v = scalar.index_sum([(ivs[name], st) for name, _, _, d, st in nest if d == dim])
            if shifted and dim in shifts:
                v = shifts[dim] if v is None else scalar.op(f"arith.addi {v}, {shifts[dim]} : i32", "x")
            rels[(dim, shifted)] = v
        return rels[(dim, shifted)]

    def coord(dim, shifted=True) -> str:
        """The dim's coordinate relative to its min, as a vector of i32."""
        if (dim, shifted) not in coords:
            v = rel(dim, shifted)
            vec = em.splat(v, "i32") if v is not None else em.const(0, Int(32))
            if dim == vdim:
                steps = ", ".join(str(i * vstride) for i in range(n))
                iota = BodyEmitter.op(em, f"arith.constant dense<[{steps}]> : {em.vtype('i32')}", "c")
                vec = em.op(f"arith.addi {vec}, {iota} : i32", "x")
            coords[(dim, shifted)] = vec
        return coords[(dim, shifted)]

    def linear(args, mins, shape) -> str:
        """The element offset of a point in a static row-major tensor (Halide's first dim innermost)."""
        m = len(args)
        lin, stride = None, 1
        for j, a in enumerate(args):
            v = em.emit(a)
            if isinstance(mins[j], str):  # a slice's dynamic min (codegen/updates.py)
                v = em.op(f"arith.subi {v}, {em.splat(mins[j], 'i32')} : i32", "x")
            elif mins[j]:
                v = em.op(f"arith.subi {v}, {em.const(mins[j], a.type)} : i32", "x")
            if stride != 1:
                v = em.op(f"arith.muli {v}, {em.const(stride, Int(32))} : i32", "x")
            lin = v if lin is None else em.op(f"arith.addi {lin}, {v} : i32", "x")
            stride *= shape[m - 1 - j]
        return em.op(f"arith.index_cast {lin} : i32 to index", "i")

    def starts(forms, mins) -> str:
        """The indices (numpy order) of lane 0's point of a dense access, from its affine forms."""
        idx = []
        for (coef, c), lo in zip(forms, mins):
            v = None
            for d, k in sorted(coef.items()):
                r = rel(d) if k else None
                if r is None:
                    continue
                t = r if k == 1 else scalar.op(f"arith.muli {r}, {scalar.const(k, Int(32))} : i32", "x")
                v = t if v is None else scalar.op(f"arith.addi {v}, {t} : i32", "x")
            if isinstance(lo, str):  # a slice's dynamic min (codegen/updates.py)
                v = (
                    scalar.const(c, Int(32))
                    if v is None
                    else scalar.op(f"arith.addi {v}, {scalar.const(c, Int(32))} : i32", "x")
                )
                v = scalar.op(f"arith.subi {v}, {lo} : i32", "x")
            elif v is None:
                idx.append(scalar.op(f"arith.constant {c - lo} : index", "c"))
                continue
            elif c - lo:
                v = scalar.op(f"arith.addi {v}, {scalar.const(c - lo, Int(32))} : i32", "x")
            idx.append(scalar.op(f"arith.index_cast {v} : i32 to index", "i"))
        return ", ".join(reversed(idx))

    zeros = scalar.op("arith.constant 0 : index", "c")

    def zero(t) -> str:
        return scalar.const(0, t) if not t.is_bool() else scalar.op("arith.constant 0 : i8", "c")

    def read(src, stype, shape, mins, e) -> str:
        t, st = e.type, storage(e.type)
        forms = lanes.dense.get(id(e))
        if forms is not None:  # consecutive lanes: one (masked) vector load of a row
            mask = f", {em.mask}" if em.mask else ""
            v = BodyEmitter.op(
                em,
                f"vector.transfer_read {src}[{starts(forms, mins)}], {zero(t)}{mask} {{in_bounds = [true]}} : "
                f"{stype}, {em.vtype(st)}",
                "r",
            )
            return em.from_storage(v, t)
        base = ", ".join([zeros] * len(shape))
        idx = linear(e.args, mins, shape)
        mask = em.mask or em.all_true()
        g = BodyEmitter.op(
            em,
            f"vector.gather {src}[{base}] [{idx}], {mask}, {em.splat(zero(t), st)} : "
            f"{stype}, {em.vtype('index')}, {em.vtype('i1')}, {em.vtype(st)} into {em.vtype(st)}",
            "g",
        )
        return em.from_storage(g, t)

    def leaf(e) -> str:
        if e.kind == "param":
            return em.splat(pb.param_value(scalar, e), e.type.mlir)
        if e.kind in ("var", "rvar"):
            dim = dim_of[e.value.name()]
            lo = span[dim][0]
            return coord(dim) if not lo else em.op(f"arith.addi {coord(dim)}, {em.const(lo, Int(32))} : i32", "x")
        if e.value is func:
            return read(selfs[e.index], self_types[e.index], shape_f, region.mins, e)
        holder = e.value
        relocatable.gathered(pb.origins, holder)
        shape = pb.shape_of[holder]
        return read(pb.tensor_of[holder][e.index], tensor_type(shape, e.type), shape, pb.min_of[holder], e)

    em = VectorEmitter(body, pb.fresh, loc, leaf, n, scalar)
    guard = None
    for dim in sorted(over):
        c = em.op(f"arith.cmpi slt, {coord(dim, False)}, {em.const(span[dim][1], Int(32))} : i32")
        guard = c if guard is None else em.op(f"arith.andi {guard}, {c} : i1")
    em.mask = guard
    cond = guard
    for p in u.predicates:  # RDom.where: evaluated only on the lanes in the guard
        c = em.emit(p)
        cond = c if cond is None else em.op(f"arith.andi {cond}, {c} : i1")
    em.mask = cond
    values = [em.to_storage(em.emit(v), v.type) for v in u.values]  # all read before any is stored
    dense = lanes.dense.get(STORE)
    if dense is not None:
        at = starts(dense, region.mins)
    else:
        where = linear(u.args, region.mins, shape_f)
        base = ", ".join([zeros] * len(shape_f))
    out = []
    for v, dst, stype, e in zip(values, selfs, self_types, u.values):
        vt = em.vtype(storage(e.type))
        if dense is not None:
            mask = f", {cond}" if cond else ""
            op = f"vector.transfer_write {v}, {dst}[{at}]{mask} {{in_bounds = [true]}} : {vt}, {stype}"
        else:
            mask = cond or em.all_true()
            op = f"vector.scatter {dst}[{base}] [{where}], {mask}, {v} : {stype}, {em.vtype('index')}, "
            op += f"{em.vtype('i1')}, {vt}" + ("" if memref else f" -> {stype}")
        if memref:
            body.append(f"{op} {loc}")
        else:
            name = pb.fresh("t")
            body.append(f"{name} = {op} {loc}")
            out.append(name)
    return out


def _scalar_leaf(pb, em, e):
    if e.kind == "param":
        return pb.param_value(em, e)
    raise AssertionError(f"uniform leaf {e.kind}")  # only loop coordinates and Params are emitted as scalars
