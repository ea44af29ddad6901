"""Gathers whose lanes read consecutive elements become (masked) vector loads.

The vectorizer makes a ``tensor.extract`` a contiguous load only when it can prove every index but the last is
uniform across the vector and the last one is the vectorized loop's index plus a uniform offset; an index
computed from another ``tensor.extract`` (a LUT read at an outer Var: max_filter's ``vert_log[x, y - t, c,
slice_for_radius[t]]``, nl_means-like channel muxes) is not proven uniform, so the read stays a ``vector.gather``
of linearized indices, one element per lane. After bufferization the index vector is plain arithmetic on
broadcasts, ``vector.step`` and broadcast reads of one element, so a small lane-stride analysis proves what the
vectorizer could not: where the index of lane i is the index of lane 0 plus i, the gather is a masked load at
lane 0's index (same mask and pass-through; ``vector.gather`` lowers to a GEP from the element at its base
indices by each lane's index, ``vector.maskedload`` to one from the element at its indices: the same addresses).
"""

from __future__ import annotations
from .ir_walk import ops_where

_SAME_LANES = {"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"}


def _lanes(vtype) -> int | None:
    """The lane count of a vector whose dims are all 1 but the last (None for any other shape)."""
    shape = list(vtype.shape)
    if not shape or any(d != 1 for d in shape[:-1]):
        return None
    return shape[-1]


class _Strides:
    """The lane stride of index vectors: 0 for a value uniform across lanes, k where lane i holds lane 0's
    value + k * i, None where unknown."""

    def __init__(self):
        from mlir import ir

        self.ir = ir
        self.memo = {}

    def of(self, value):
        ir = self.ir
        if not isinstance(value.type, ir.VectorType):
            return 0  # a scalar: the same in every lane it is broadcast to
        key = value
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # (cycles through loop-carried values stay unknown)
        self.memo[key] = s = self._compute(value)
        return s

    def _compute(self, value):
        ir = self.ir
        op = value.owner
        if isinstance(op, ir.Block):
            return None  # a block argument
        name = op.name
        if _lanes(value.type) is None:
            return None
        if name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
                return 0
            if not isinstance(attr, ir.DenseIntElementsAttr):
                return None
            lanes = [attr[i] for i in range(len(attr))]  # (codegen/updates.py's lane offsets: 0, 1, 2, ...)
            steps = {b - a for a, b in zip(lanes, lanes[1:])}
            return steps.pop() if len(steps) == 1 else None
        if name == "vector.step":
            return 1
        if name == "vector.broadcast":
            src = op.operands[0]
            if not isinstance(src.type, ir.VectorType):
                return 0
            n = _lanes(src.type)
            if n == 1:
                return 0
            return self.of(src) if n == _lanes(value.type) else None
        if name == "vector.shape_cast":
            src = op.operands[0]
            return self.of(src) if _lanes(src.type) == _lanes(value.type) else None
        if name == "vector.transfer_read":
            return 0 if self._broadcast_read(op) else None
        if name in _SAME_LANES:
            return self.of(op.operands[0])
        if name in ("arith.addi", "arith.subi"):
            a, b = self.of(op.operands[0]), self.of(op.operands[1])
            if a is None or b is None:
                return None
            return a + b if name == "arith.addi" else a - b
        if name == "arith.muli":
            a, b = self.of(op.operands[0]), self.of(op.operands[1])
            if a == 0 and b == 0:
                return 0
            for s, other in ((a, op.operands[1]), (b, op.operands[0])):
                c = _splat(other) if s is not None else None
                if c is not None:
                    return s * c
            return None
        if name.startswith(("arith.", "math.")) and all(self.of(o) == 0 for o in op.operands):
            return 0  # any elementwise op of uniform operands
        return None

    def _broadcast_read(self, op) -> bool:
        """A transfer_read of one element broadcast to every lane (no mask): a LUT read at outer loops."""
        ir = self.ir
        rank = ir.ShapedType(op.operands[0].type).rank
        if len(op.operands) != rank + 2:  # source, indices, padding: no mask
            return False
        amap = ir.AffineMapAttr(op.attributes["permutation_map"]).value
        shape = ir.VectorType(op.results[0].type).shape
        # each vector dim is a broadcast (constant 0) or reads along a memref dim it has one lane of
        return all(
            (isinstance(r, ir.AffineConstantExpr) and r.value == 0) or n == 1 for r, n in zip(amap.results, shape)
        )


def _splat(value):
    """The integer a constant splat vector holds (None if ``value`` is none)."""
    from mlir import ir

    owner = value.owner
    if getattr(owner, "name", None) != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if not isinstance(attr, ir.DenseIntElementsAttr) or not attr.is_splat:
        return None
    return ir.IntegerAttr(attr.get_splat_value()).value


def gather_parts(op) -> tuple:
    """A ``vector.gather``'s base memref, its indices, the index vector, mask, pass-through, result and lanes."""
    from mlir import ir

    base = op.operands[0]
    rank = ir.ShapedType(base.type).rank
    idx, mask, passthru = op.operands[1 + rank : 4 + rank]
    result = op.results[0]
    return base, list(op.operands[1 : 1 + rank]), idx, mask, passthru, result, _lanes(result.type)


def strided_gather_ops(module):
    """The module's ``vector.gather``s of n >= 2 lanes (an index per lane) whose index vector has a lane stride:
    (op, gather_parts(op), stride), for the rewrite here and codegen/strided_gathers.py's (each op may be replaced
    before the next is asked for)."""
    strides = _Strides()
    for op in ops_where(module, lambda op: op.name == "vector.gather"):
        parts = gather_parts(op)
        idx, n = parts[2], parts[6]
        if n is None or n < 2 or _lanes(idx.type) != n:
            continue
        s = strides.of(idx)
        if s is not None:
            yield op, parts, s


def lane0_indices(base_indices, idx) -> list:
    """A gather's base indices moved to the element its lane 0 reads (built at the current insertion point)."""
    from mlir import ir
    from mlir.dialects import arith, vector

    first = vector.ExtractOp(idx, [], [0] * len(ir.VectorType(idx.type).shape)).result
    if not isinstance(first.type, ir.IndexType):
        first = arith.index_cast(ir.IndexType.get(), first)
    indices = list(base_indices)
    indices[-1] = arith.addi(indices[-1], first)
    return indices


def contiguous_gathers(module) -> int:
    """Rewrite every ``vector.gather`` whose index vector has lane stride 1 as a ``vector.maskedload`` (call
    inside the module's context). Returns how many changed."""
    from mlir import ir

    count = 0
    for op, (base, base_indices, idx, mask, passthru, result, n), s in strided_gather_ops(module):
        if s != 1:
            continue
        from mlir.dialects import vector

        with ir.InsertionPoint(op), op.location:
            flat = ir.VectorType.get([n], ir.VectorType(result.type).element_type)
            indices = lane0_indices(base_indices, idx)
            flat_mask = vector.shape_cast(ir.VectorType.get([n], ir.IntegerType.get_signless(1)), mask)
            flat_pass = vector.shape_cast(flat, passthru)
            loaded = vector.maskedload(flat, base, indices, flat_mask, flat_pass)
            new = vector.shape_cast(result.type, loaded)
        result.replace_all_uses_with(new)
        op.erase()
        count += 1
    return count
