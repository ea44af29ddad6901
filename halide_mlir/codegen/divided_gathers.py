"""Gathers at divided coordinates (``f[x / 2]``, upsampling) as one dense load plus shuffles, as Halide does.

A read ``f[(x + c) / d]`` along the vectorized dim is a ``vector.gather`` after vectorization (the vectorizer only
makes loads of unit-stride indices), and a gather of 16- or 8-bit elements is one scalar load per lane on x86
(camera_pipe's demosaic: 110 gathers of 64 x i16 per strip of 64 pixels). Its lanes read consecutive elements,
each ``d`` times: lane i reads ``w / d`` with ``w`` = ``w0 + i`` (lane stride 1, codegen/contiguous_gathers.py's
analysis), plus uniform terms. So it is a masked load of the elements lane 0 to lane n-1 read (from lane 0's index,
masked to the last one needed, so it never reads past the data), then lane i takes element ``(r + i) / d`` of
it, ``r`` = ``w0 mod d``: one static shuffle per value of ``r``, the right one chosen by a select (d is small).
Gathers with a tail mask (lanes < b) load
what lanes < b read, and keep the pass-through value in the others."""

from __future__ import annotations

from .contiguous_gathers import _SAME_LANES, _lanes, _splat, _Strides, gather_parts
from .ir_walk import ops_where

MAX_DIVISOR = 4  # a select among d shuffles: beyond, the gather stays


def _floor_div(op, strides):
    """(w, d) if ``op`` computes ``w / d`` flooring with lane stride 1 for ``w`` (body.py's divsi / remsi / select
    form or ``arith.floordivsi``), else None."""
    if op.name == "arith.floordivsi":
        d = _splat(op.operands[1])
        return (op.operands[0], d) if d and strides.of(op.operands[0]) == 1 else None
    if op.name != "arith.select":
        return None
    cond, lo, q = (o.owner for o in op.operands)
    if getattr(q, "name", None) != "arith.divsi" or getattr(lo, "name", None) != "arith.subi":
        return None
    if lo.operands[0] != q.results[0] or _splat(lo.operands[1]) != 1 or getattr(cond, "name", None) != "arith.cmpi":
        return None
    rem = cond.operands[0].owner
    if getattr(rem, "name", None) != "arith.remsi" or _splat(cond.operands[1]) != 0:
        return None
    w, d = q.operands[0], _splat(q.operands[1])
    if rem.operands[0] != w or _splat(rem.operands[1]) != d or not d or strides.of(w) != 1:
        return None
    return w, d


def _divided(value, strides, memo):
    """(w, d) if ``value`` is ``w / d`` plus lane-uniform terms (w of lane stride 1), else None."""
    from mlir import ir

    if not isinstance(value.type, ir.VectorType) or isinstance(value.owner, ir.Block):
        return None
    if value in memo:
        return memo[value]
    memo[value] = None
    op = value.owner
    out = _floor_div(op, strides)
    if out is None and op.name in _SAME_LANES | {"vector.shape_cast"}:
        out = _divided(op.operands[0], strides, memo)
    elif out is None and op.name == "vector.broadcast" and isinstance(op.operands[0].type, ir.VectorType):
        if _lanes(op.operands[0].type) == _lanes(value.type):
            out = _divided(op.operands[0], strides, memo)
    elif out is None and op.name in ("arith.addi", "arith.subi"):
        a, b = op.operands
        if strides.of(b) == 0:
            out = _divided(a, strides, memo)
        elif op.name == "arith.addi" and strides.of(a) == 0:
            out = _divided(b, strides, memo)
    memo[value] = out
    return out


def _lanes_on(mask, n: int):
    """How many leading lanes ``mask`` keeps: ``n`` for an all-true constant, the last bound of a
    ``vector.create_mask`` whose other bounds are 1 (a tail); None for any other mask."""
    from mlir import ir

    owner = mask.owner
    name = getattr(owner, "name", None)
    if name == "arith.constant":
        attr = owner.attributes["value"]
        if isinstance(attr, ir.DenseIntElementsAttr) and attr.is_splat and ir.BoolAttr(attr.get_splat_value()).value:
            return n
        return None
    if name == "vector.create_mask" and all(_index_const(o) == 1 for o in owner.operands[:-1]):
        return owner.operands[-1]
    return None


def _index_const(value):
    from mlir import ir

    owner = value.owner
    if getattr(owner, "name", None) != "arith.constant":
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


def divided_gathers(module) -> int:
    """Rewrite the gathers described above (call inside the module's context, after bufferization). Returns how
    many changed."""
    from mlir import ir

    gathers = ops_where(module, lambda op: op.name == "vector.gather")
    if not gathers:
        return 0
    from mlir.dialects import arith, vector

    strides, memo = _Strides(), {}
    index = ir.IndexType.get()
    count = 0
    for op in gathers:
        base, base_indices, idx, mask, passthru, result, n = gather_parts(op)
        if n is None or n < 4 or _lanes(idx.type) != n:
            continue
        lanes_on = _lanes_on(mask, n)  # the gather reads lanes < lanes_on (None: another mask)
        if lanes_on is None:
            continue
        found = _divided(idx, strides, memo)
        if found is None or not 1 < found[1] <= MAX_DIVISOR:
            continue
        w, d = found
        elem = ir.VectorType(result.type).element_type
        if not isinstance(elem, (ir.IntegerType, ir.FloatType)):
            continue
        with ir.InsertionPoint(op), op.location:
            # the dense load is only as wide as the elements lanes < n can read: (d - 1 + n - 1) / d + 1. (As wide as
            # the gather, a 64 x i8 dense vector's duplicating shuffle hangs LLVM 22's X86 backend on AVX-512BW:
            # docs/mlir-pitfalls.md x86-v64i8-shuffle-hang)
            m = (n + 2 * d - 2) // d
            dense = ir.VectorType.get([m], elem)
            zero = ir.IntegerAttr.get(elem, 0) if isinstance(elem, ir.IntegerType) else ir.FloatAttr.get(elem, 0.0)
            zeros = [0] * len(ir.VectorType(idx.type).shape)
            first = vector.ExtractOp(idx, [], zeros).result
            w0 = vector.ExtractOp(w, [], [0] * len(ir.VectorType(w.type).shape)).result
            if not isinstance(first.type, ir.IndexType):
                first = arith.index_cast(index, first)
            if not isinstance(w0.type, ir.IndexType):
                w0 = arith.index_cast(index, w0)

            def const(v):
                return arith.constant(index, v)

            # r = w0 mod d (flooring); lanes 0 .. b-1 read elements 0 .. (r + b - 1) / d of the dense load
            r = arith.subi(w0, arith.muli(arith.floordivsi(w0, const(d)), const(d)))
            b = const(n) if isinstance(lanes_on, int) else lanes_on
            needed = arith.addi(arith.floordivsi(arith.addi(r, arith.subi(b, const(1))), const(d)), const(1))
            needed = arith.select(arith.cmpi(arith.CmpIPredicate.eq, b, const(0)), const(0), needed)
            dense_mask = vector.create_mask(ir.VectorType.get([m], ir.IntegerType.get_signless(1)), [needed])
            indices = list(base_indices)
            indices[-1] = arith.addi(indices[-1], first)
            # (masked-off elements feed no lane that is on: zeros)
            fill = arith.constant(dense, ir.DenseElementsAttr.get_splat(dense, zero))
            loaded = vector.maskedload(dense, base, indices, dense_mask, fill)
            picked = None
            for k in range(d):
                lanes = vector.shuffle(loaded, loaded, [(k + i) // d for i in range(n)])
                if picked is None:
                    picked = lanes
                else:
                    is_k = arith.cmpi(arith.CmpIPredicate.eq, r, const(k))
                    picked = arith.select(is_k, lanes, picked)
            new = vector.shape_cast(result.type, picked)
            if not isinstance(lanes_on, int):  # lanes past the tail keep the pass-through value, as the gather's
                new = arith.select(mask, new, passthru)
        result.replace_all_uses_with(new)
        op.erase()
        count += 1
    return count
