"""Gathers at clamped coordinates (an inlined ``repeat_edge``: ``input[clamp(x, 0, w - 1), ...]``) as vector loads
where the clamp changes no lane, as Halide's loop partitioning does.

The vectorizer makes a ``tensor.extract`` at ``clamp(x + k, lo, hi)`` along the vectorized dim a
``vector.gather`` (one element per lane): the clamp hides the unit lane stride. Halide partitions the loop into
edges and a steady state where the clamp is proven a no-op; here each such gather becomes
``scf.if (the clamps change no lane) { dense loads } else { the gather }``: the index vector with every
``minsi``/``maxsi`` of a lane-varying value and a lane-uniform bound replaced by the value it clamps has lane
stride 1 along its last dim, so each row of it is one ``vector.maskedload`` at its lane 0 (same mask and
pass-through; the same addresses as the gather's, which lowers to a GEP from its base indices by each lane's
index). The check compares each clamp's result with the value it clamps, over every lane (masked ones too: a
tail whose lanes would be clamped takes the gather). Vectors of several rows (a channel loop the schedule
unrolls, vectorized as ``vector<4x1x16>``) load row by row.
"""

from __future__ import annotations

from .contiguous_gathers import _SAME_LANES, _splat, _Strides, gather_parts
from .ir_walk import ops_where

_CLAMPS = ("arith.minsi", "arith.maxsi")
# ops an index vector is cloned through (their operands may be replaced): elementwise integer arithmetic and
# the shape ops of the vectorizer's index computations
_LINEAR = ("arith.addi", "arith.subi", "arith.muli", *_SAME_LANES)
_SHAPES = ("vector.broadcast", "vector.shape_cast", "vector.transpose")


class _DimStrides:
    """Lane strides of n-D index vectors along one dim: 0 for values uniform along it, k where element i + 1
    holds element i's value + k, None where unknown."""

    def __init__(self):
        from mlir import ir

        self.ir = ir
        self.memo = {}

    def of(self, value, dim: int):
        ir = self.ir
        if not isinstance(value.type, ir.VectorType):
            return 0
        key = (value, dim)
        if key not in self.memo:
            self.memo[key] = None  # (cycles stay unknown)
            self.memo[key] = self._compute(value, dim)
        return self.memo[key]

    def _compute(self, value, dim: int):
        ir = self.ir
        op = value.owner
        if isinstance(op, ir.Block):
            return None
        shape = list(ir.VectorType(value.type).shape)
        if shape[dim] == 1:
            return 0
        name = op.name
        if name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
                return 0
            if not isinstance(attr, ir.DenseIntElementsAttr) or len(shape) != 1:
                return None
            lanes = [attr[i] for i in range(len(attr))]
            steps = {b - a for a, b in zip(lanes, lanes[1:])}
            return steps.pop() if len(steps) == 1 else None
        if name == "vector.step":
            return 1
        if name == "vector.broadcast":
            src = op.operands[0]
            if not isinstance(src.type, ir.VectorType):
                return 0
            sshape = list(ir.VectorType(src.type).shape)
            sdim = dim - (len(shape) - len(sshape))
            if sdim < 0 or sshape[sdim] == 1:
                return 0  # a dim the broadcast adds or stretches
            return self.of(src, sdim)
        if name == "vector.shape_cast":
            src = op.operands[0]
            sshape = list(ir.VectorType(src.type).shape)
            if dim == len(shape) - 1 and sshape[-1] == shape[-1]:
                return self.of(src, len(sshape) - 1)  # rows stay rows
            return None
        if name == "vector.transpose":
            perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
            return self.of(op.operands[0], perm[dim])
        if name in _SAME_LANES:
            return self.of(op.operands[0], dim)
        if name in ("arith.addi", "arith.subi"):
            a, b = self.of(op.operands[0], dim), self.of(op.operands[1], dim)
            if a is None or b is None:
                return None
            return a + b if name == "arith.addi" else a - b
        if name == "arith.muli":
            a, b = self.of(op.operands[0], dim), self.of(op.operands[1], dim)
            if a == 0 and b == 0:
                return 0
            for s, other in ((a, op.operands[1]), (b, op.operands[0])):
                c = _splat(other) if s is not None else None
                if c is not None:
                    return s * c
            return None
        if name == "vector.transfer_read":
            return 0 if _Strides()._broadcast_read(op) else None
        if name.startswith(("arith.", "math.")) and all(self.of(o, dim) == 0 for o in op.operands):
            return 0
        return None


class _Unclamp:
    """The index vector with its lane-varying clamps removed (ops cloned before the gather, which is the
    insertion point), and the (clamped, unclamped) value pairs whose equality makes it the same index."""

    def __init__(self, strides: _DimStrides):
        self.strides = strides
        self.memo = {}
        self.pairs = []

    def _last(self, value):
        ir = self.strides.ir
        return len(ir.VectorType(value.type).shape) - 1 if isinstance(value.type, ir.VectorType) else 0

    def of(self, value, depth: int = 0):
        if value in self.memo:
            return self.memo[value]
        self.memo[value] = new = self._compute(value, depth)
        return new

    def _compute(self, value, depth: int):
        ir = self.strides.ir
        op = value.owner
        if isinstance(op, ir.Block) or depth > 32 or not isinstance(value.type, ir.VectorType):
            return value
        if self.strides.of(value, self._last(value)) is not None:
            return value  # linear already: nothing under it to unclamp
        name = op.name
        if name in _CLAMPS:
            inner = value
            while getattr(inner.owner, "name", None) in _CLAMPS:
                a, b = inner.owner.operands
                last = self._last(inner)
                sa, sb = self.strides.of(a, last), self.strides.of(b, last)
                if sb == 0 and sa != 0:
                    inner = a
                elif sa == 0 and sb != 0:
                    inner = b
                else:
                    return value
            self.pairs.append((value, inner))
            return self.of(inner, depth + 1)
        if name not in _LINEAR and name not in _SHAPES:
            return value
        operands = list(op.operands)
        new = [self.of(o, depth + 1) for o in operands]
        if all(n == o for n, o in zip(new, operands)):
            return value
        clone = op.clone()
        for i, n in enumerate(new):
            if n != operands[i]:
                clone.operands[i] = n
        return clone.results[0]


def clamped_gathers(module) -> int:
    """Rewrite every ``vector.gather`` whose index vector is of lane stride 1 but for clamps (call inside the
    module's context). Returns how many changed."""
    from mlir import ir

    gathers = ops_where(module, lambda op: op.name == "vector.gather")
    if not gathers:
        return 0
    from mlir.dialects import arith, scf, vector

    strides = _DimStrides()
    count = 0
    index = ir.IndexType.get()
    i1 = ir.IntegerType.get_signless(1)
    for op in gathers:
        base, base_indices, idx, mask, passthru, result, _ = gather_parts(op)
        shape = list(ir.VectorType(result.type).shape)
        last = len(shape) - 1
        if shape[last] < 2 or strides.of(idx, last) is not None:
            continue
        with ir.InsertionPoint(op), op.location:
            unclamp = _Unclamp(strides)
            flat_idx = unclamp.of(idx)
            if not unclamp.pairs or strides.of(flat_idx, last) != 1:
                continue  # (cloned ops left unused are erased by the clean-up after bufferization)
            ok = None
            for clamped, value in unclamp.pairs:
                eq = arith.cmpi(arith.CmpIPredicate.eq, clamped, value)
                n = 1
                for d in ir.VectorType(eq.type).shape:
                    n *= d
                lanes = vector.shape_cast(ir.VectorType.get([n], i1), eq)
                all_eq = vector.reduction(i1, vector.CombiningKind.AND, lanes)
                ok = all_eq if ok is None else arith.andi(ok, all_eq)
            if_op = scf.IfOp(ok, [result.type], has_else=True)
            with ir.InsertionPoint(if_op.then_block):
                et = ir.VectorType(result.type).element_type
                row_t, mask_t = ir.VectorType.get([shape[last]], et), ir.VectorType.get([shape[last]], i1)
                acc = passthru
                rows = [()]
                for d in shape[:last]:
                    rows = [r + (i,) for r in rows for i in range(d)]
                for r in rows:
                    first = vector.ExtractOp(flat_idx, [], list(r) + [0]).result
                    if not isinstance(first.type, ir.IndexType):
                        first = arith.index_cast(index, first)
                    indices = list(base_indices)
                    indices[-1] = arith.addi(indices[-1], first)
                    m = vector.ExtractOp(mask, [], list(r)).result if r else mask
                    p = vector.ExtractOp(passthru, [], list(r)).result if r else passthru
                    if not r:
                        m, p = vector.shape_cast(mask_t, m), vector.shape_cast(row_t, p)
                    loaded = vector.maskedload(row_t, base, indices, m, p)
                    acc = vector.InsertOp(loaded, acc, [], list(r)).result if r else loaded
                scf.YieldOp([acc])
        result.replace_all_uses_with(if_op.results[0])
        with ir.InsertionPoint(if_op.else_block), op.location:
            op.move_before(scf.YieldOp([result]))  # (the gather, after its uses moved to the if's result)
        count += 1
    return count
