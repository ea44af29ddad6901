"""A scatter's or scan's loop over a pure Var, vectorized: one vector of lanes per iteration of the other loops.

Halide's update rule makes the iterations of a pure Var's loop independent: the Var appears in the LHS at its own
position and in every self-reference at that same position, so lane ``u`` reads and writes only points whose
coordinate is ``u`` (lesson 18's ``hist_rfactor_vec``: one histogram per column). The loop's body is therefore
evaluated for all lanes at once: every value a vector (uniform ones broadcast), every read of a Func or input a
``vector.gather`` (coordinates linearized over the static shape, as linalg's vectorizer does), the Func's new
value one ``vector.scatter`` into the tensor the other loops carry. The lanes a split's guard or an
``RDom.where`` turns off are masked (no read, no write), so tails need no scalar epilogue. A vectorized loop with
loops inside it runs them once per vector, which is the same order per lane.
"""

from __future__ import annotations

import re

from ..lang.types import Int
from ..lang.traversal import walk
from . import relocatable, trace
from .body import BOOL as _BOOL, BodyEmitter
from .mlir_text import storage, tensor_type

MAX_LANES = 1024
_SCALAR = re.compile(r"(?<![%\w.<x])(i1|i8|i16|i32|i64|f16|bf16|f32|f64|index)(?![\w>])")


def can_vectorize(update, func, n_lanes: int) -> bool:
    """Whether the vector body can express the update: no prints or traces (their events are per point)."""
    if n_lanes > MAX_LANES or trace.traced(func, "stores"):
        return False
    for e in [*update.values, *update.predicates, *update.args]:
        for node in walk(e):
            if node.kind == "print" or (node.kind == "call" and trace.traced(node.value, "loads")):
                return False
    return True


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
    pb, body: list, loc: str, u, nest, lane_loop, span, over, dim_of, ivs, acc, region, ttypes, func
) -> list:
    """The update for all lanes of ``lane_loop`` (name, lanes, kind, dim, stride) at the current iterations of
    the other loops (``ivs``); returns the new tensors (one per Tuple element)."""
    _, n, _, vdim, vstride = lane_loop
    scalar = BodyEmitter(body, pb.fresh, loc, lambda e: _scalar_leaf(pb, scalar, e))
    coords: dict = {}

    def coord(dim) -> str:
        """The dim's coordinate relative to its min, as a vector of i32."""
        if dim not in coords:
            v = scalar.index_sum([(ivs[name], st) for name, _, _, d, st in nest if d == dim])
            vec = em.splat(v, "i32") if v is not None else em.const(0, Int(32))
            if dim == vdim:
                steps = ", ".join(str(i * vstride) for i in range(n))
                iota = BodyEmitter.op(em, f"arith.constant dense<[{steps}]> : {em.vtype('i32')}", "c")
                vec = em.op(f"arith.addi {vec}, {iota} : i32", "x")
            coords[dim] = vec
        return coords[dim]

    def linear(args, mins, shape) -> str:
        """The element offset of a point in a static row-major tensor (Halide's first dim innermost)."""
        m = len(args)
        lin, stride = None, 1
        for j, a in enumerate(args):
            v = em.emit(a)
            if mins[j]:
                v = em.op(f"arith.subi {v}, {em.const(mins[j], a.type)} : i32", "x")
            if stride != 1:
                v = em.op(f"arith.muli {v}, {em.const(stride, Int(32))} : i32", "x")
            lin = v if lin is None else em.op(f"arith.addi {lin}, {v} : i32", "x")
            stride *= shape[m - 1 - j]
        return em.op(f"arith.index_cast {lin} : i32 to index", "i")

    zeros = scalar.op("arith.constant 0 : index", "c")

    def gather(tensor, shape, idx, t) -> str:
        st = storage(t)
        base = ", ".join([zeros] * len(shape))
        mask = em.mask or em.all_true()
        passthru = em.splat(scalar.const(0, t) if not t.is_bool() else scalar.op("arith.constant 0 : i8", "c"), st)
        g = BodyEmitter.op(
            em,
            f"vector.gather {tensor}[{base}] [{idx}], {mask}, {passthru} : "
            f"{tensor_type(shape, t)}, {em.vtype('index')}, {em.vtype('i1')}, {em.vtype(st)} "
            f"into {em.vtype(st)}",
            "g",
        )
        return em.from_storage(g, t)

    shape_f = tuple(reversed(region.extents))

    def leaf(e) -> str:
        if e.kind == "param":
            return em.splat(pb.param_value(scalar, e), e.type.mlir)
        if e.kind in ("var", "rvar"):
            dim = dim_of[e.value.name()]
            lo = span[dim][0]
            return coord(dim) if not lo else em.op(f"arith.addi {coord(dim)}, {em.const(lo, Int(32))} : i32", "x")
        if e.value is func:
            return gather(acc[e.index], shape_f, linear(e.args, region.mins, shape_f), e.type)
        holder = e.value
        relocatable.gathered(pb.origins, holder)
        shape = pb.shape_of[holder]
        return gather(pb.tensor_of[holder][e.index], shape, linear(e.args, pb.min_of[holder], shape), e.type)

    em = VectorEmitter(body, pb.fresh, loc, leaf, n, scalar)
    guard = None
    for dim in sorted(over):
        c = em.op(f"arith.cmpi slt, {coord(dim)}, {em.const(span[dim][1], Int(32))} : i32")
        guard = c if guard is None else em.op(f"arith.andi {guard}, {c} : i1")
    em.mask = guard
    cond = guard
    for p in u.predicates:  # RDom.where: evaluated only on the lanes in the guard
        c = em.emit(p)
        cond = c if cond is None else em.op(f"arith.andi {cond}, {c} : i1")
    em.mask = cond
    values = [em.to_storage(em.emit(v), v.type) for v in u.values]  # all read before any is stored
    where = linear(u.args, region.mins, shape_f)
    mask = cond or em.all_true()
    base = ", ".join([zeros] * len(shape_f))
    out = []
    for v, tensor, ttype, e in zip(values, acc, ttypes, u.values):
        name = pb.fresh("t")
        body.append(
            f"{name} = vector.scatter {tensor}[{base}] [{where}], {mask}, {v} : {ttype}, "
            f"{em.vtype('index')}, {em.vtype('i1')}, {em.vtype(storage(e.type))} -> {ttype} {loc}"
        )
        out.append(name)
    return out


def _scalar_leaf(pb, em, e):
    if e.kind == "param":
        return pb.param_value(em, e)
    raise AssertionError(f"uniform leaf {e.kind}")  # only loop coordinates and Params are emitted as scalars
