"""Gathers index in 32 bits, as Halide's do.

The vectorizer linearizes the coordinates of a ``tensor.extract`` it turns into a ``vector.gather`` in
``index`` arithmetic (64-bit): x86 then multiplies 64-bit lanes (vpmullq) and gathers with 64-bit indices
(vgatherqps: 8 indices fill a zmm register for 8 floats). Where the gathered memref has fewer than 2^31
elements every index of an in-bounds lane fits in 32 bits, so the index vector is cast to i32 right before the
gather; LLVM narrows the whole index computation under that truncation (modular arithmetic) and emits
vgatherdps. Masked-off lanes may hold any value either way. There is no MLIR pass for this (vector's
narrow-type patterns handle element types, not gather indices), so we rewrite it here, after bufferization.
local_laplacian: vgatherqps 132 -> 8, vpmullq 54 -> 6.
"""

from __future__ import annotations

import math
from .ir_walk import ops_where


def narrow_gather_indices(module) -> int:
    """Cast the ``index`` vector of every ``vector.gather`` from a static memref of < 2^31 elements to i32
    (call inside the module's context). Returns how many gathers changed."""
    from mlir import ir

    gathers = ops_where(module, lambda op: op.name == "vector.gather")
    count = 0
    for op in gathers:
        base = op.operands[0].type
        if not isinstance(base, ir.MemRefType) or not base.has_static_shape or math.prod(base.shape) >= 1 << 31:
            continue
        position = 1 + base.rank  # operands: base, its indices, the index vector, mask, pass-through
        vt = op.operands[position].type
        if not isinstance(vt.element_type, ir.IndexType):
            continue
        from mlir.dialects import arith

        with ir.InsertionPoint(op), op.location:
            narrow = arith.index_cast(
                ir.VectorType.get(vt.shape, ir.IntegerType.get_signless(32)), op.operands[position]
            )
        op.operands[position] = narrow
        count += 1
    return count
