"""Gathers whose lanes read every s-th element (s up to analysis/affine.py's MAX_STRIDE) become one dense masked
load plus a shuffle, as Halide loads ``f[2 * x + c]``.

A pyramid window (analysis/pyramid.py) is read through ``tensor.extract`` at ``2 * x + c`` and the row modulo
its fold (interpolate's downsampled_1 reading the clone of level 0: 9 reads per vector), which the vectorizer
leaves as a ``vector.gather`` of linearized indices: one element per lane. codegen/contiguous_gathers.py's
lane-stride analysis proves lane i reads lane 0's element + s * i; then the s * n elements from lane 0's are one
``vector.maskedload`` (masked to lanes 0, s, 2s, ... of the lanes the gather keeps, so it touches exactly the
elements the gather reads: never past the data) and lanes 0, s, 2s, ... of it are the result (one
``vector.shuffle``, a vpermt2ps on AVX-512), the gather's pass-through where its mask is off. No upstream pattern
does this (the vector dialect lowers a gather to one load per lane, or to a hardware gather).
"""

from __future__ import annotations

from ..analysis.affine import MAX_STRIDE
from .contiguous_gathers import lane0_indices, strided_gather_ops


def strided_gathers(module) -> int:
    """Rewrite every ``vector.gather`` whose index vector has a lane stride from 2 to MAX_STRIDE (call inside the
    module's context). Returns how many changed."""
    from mlir import ir

    count = 0
    for op, (base, base_indices, idx, mask, passthru, result, n), s in strided_gather_ops(module):
        if not 2 <= s <= MAX_STRIDE:
            continue
        from mlir.dialects import arith, vector

        i1 = ir.IntegerType.get_signless(1)
        et = ir.VectorType(result.type).element_type
        with ir.InsertionPoint(op), op.location:
            flat, dense_t = ir.VectorType.get([n], et), ir.VectorType.get([s * n], et)
            indices = lane0_indices(base_indices, idx)
            flat_mask = vector.shape_cast(ir.VectorType.get([n], i1), mask)
            # dense lane t is the gather's lane t / s where t % s == 0, else off: lane n of the pair is `off`
            false = ir.DenseElementsAttr.get_splat(flat_mask.type, ir.BoolAttr.get(False))
            off = arith.constant(flat_mask.type, false)
            dense_mask = vector.shuffle(flat_mask, off, [t // s if t % s == 0 else n for t in range(s * n)])
            zero = ir.FloatAttr.get(et, 0.0) if isinstance(et, ir.FloatType) else ir.IntegerAttr.get(et, 0)
            pad = arith.constant(dense_t, ir.DenseElementsAttr.get_splat(dense_t, zero))
            loaded = vector.maskedload(dense_t, base, indices, dense_mask, pad)
            lanes = vector.shuffle(loaded, loaded, [s * i for i in range(n)])
            kept = arith.select(flat_mask, lanes, vector.shape_cast(flat, passthru))
            new = vector.shape_cast(result.type, kept)
        result.replace_all_uses_with(new)
        op.erase()
        count += 1
    return count
