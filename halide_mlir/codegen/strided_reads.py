"""Strided reads (``f[2 * x + c]``, downsampling) as one dense load plus a shuffle, as Halide does.

The payload reads such a call through a strided ``tensor.extract_slice`` (codegen/payload.py), so after
vectorization and bufferization it is a ``vector.transfer_read`` of a memref whose innermost stride is s > 1.
MLIR lowers that to one scalar load and one insert per lane (only unit-stride transfers become vector loads),
and no upstream pattern turns it into a contiguous load (the vector dialect's transfer and gather lowerings
only handle unit innermost strides), so we rewrite it here, after bufferization:

    %r = vector.transfer_read %m[%i.., %j], %pad, %mask : memref<..xMxT, strided<[.., s]>>, vector<..xNxT>
 -> %d = memref.reinterpret_cast %m's base: same offset and outer dims, innermost size s*(M-1)+1, stride 1
    %w = vector.transfer_read %d[%i.., s*%j], %pad, %mask' : vector<..x(s*N)xT>
    %r = lanes 0, s, 2s.. of each row of %w: one vector.shuffle per row

%mask' keeps dense lane t iff t <= s*(b-1) where %mask keeps lanes < b, so the load touches exactly the span
from the first to the last element the strided read needs (the lanes in between lie inside it): it never reads
past the data. Without a mask the last s-1 lanes may lie past the end, so the dense read is marked out of
bounds in that dim (lowered to a masked load). A shuffle is one vpermt2ps/vpermt2w on AVX-512. Payloads only
hold strides up to analysis/affine.py's MAX_STRIDE (larger ones are gathers); larger strides here come from
other reads (a column of a matrix) and are left alone.
"""

from __future__ import annotations

import warnings

from ..analysis.affine import MAX_STRIDE
from ..error import StridedReadWarning
from .ir_walk import ops_where


def dense_strided_reads(module) -> int:
    """Rewrite every strided-innermost ``vector.transfer_read`` of ``module`` (bufferized; call inside its
    context) as above. Returns how many reads were rewritten."""

    reads = ops_where(module, lambda op: op.name == "vector.transfer_read" and _stride(op) in range(2, MAX_STRIDE + 1))
    count = 0
    for op in reads:
        done = _rewrite(op)
        if not done:  # no silent slow path: this read is one scalar load per lane
            warnings.warn(
                f"{op.location}: a vector read with innermost stride {_stride(op)} stays one scalar load "
                f"per lane (halide_mlir rewrites them unmasked or with a create_mask/constant_mask, "
                f"along the vector's last dim)",
                StridedReadWarning,
                stacklevel=2,
            )
        count += done
    return count


def _stride(op):
    """The innermost stride of a transfer_read's memref (None if not static, 1 for a plain memref)."""
    from mlir import ir

    t = op.operands[0].type
    if not isinstance(t, ir.MemRefType) or t.rank == 0:
        return 1
    strides, _ = t.get_strides_and_offset()
    return None if t.is_dynamic_stride_or_offset(strides[-1]) else strides[-1]


def _rewrite(op) -> int:
    """Rewrite one read if its stride is 2..MAX_STRIDE and the vector's last dim reads the memref's last dim."""
    from mlir import ir
    from mlir.dialects import arith, memref, vector

    s = _stride(op)
    if s is None or not 1 < s <= MAX_STRIDE:
        return 0
    pmap = ir.AffineMapAttr(op.attributes["permutation_map"]).value
    last = pmap.results[len(pmap.results) - 1]
    if not isinstance(last, ir.AffineDimExpr) or last.position != pmap.n_dims - 1:
        return 0
    src = op.operands[0]
    mtype = ir.MemRefType(src.type)
    rank = mtype.rank
    vtype = ir.VectorType(op.results[0].type)
    indices = list(op.operands[1 : 1 + rank])
    pad = op.operands[1 + rank]
    mask = op.operands[2 + rank] if len(op.operands) > 2 + rank else None
    in_bounds = [ir.BoolAttr(b).value for b in ir.ArrayAttr(op.attributes["in_bounds"])]
    index = ir.IndexType.get()
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    dyn_size = ir.ShapedType.get_dynamic_size()

    def const(v):
        return arith.constant(index, v)

    with ir.InsertionPoint(op), op.location:
        if mask is not None:
            mask = _spread_mask(mask, s)
            if mask is None:
                return 0  # a mask we can't spread: leave the read as it is
        meta = memref.ExtractStridedMetadataOp(src)
        strides, offset = mtype.get_strides_and_offset()
        static_sizes, sizes = list(mtype.shape), []
        for d, n in enumerate(static_sizes[:-1]):
            if n == dyn_size:
                sizes.append(meta.sizes[d])
        last = static_sizes[-1]
        if last == dyn_size:
            m = meta.sizes[rank - 1]
            span = arith.maxsi(arith.addi(arith.muli(m, const(s)), const(1 - s)), const(0))
            sizes.append(span)
            static_sizes[-1] = dyn_size
        else:
            static_sizes[-1] = max(s * (last - 1) + 1, 0)
        static_strides = strides[:-1] + [1]
        dyn_strides = [meta.strides[d] for d in range(rank - 1) if strides[d] == dynamic]
        offsets = [meta.offset] if offset == dynamic else []
        layout = ir.StridedLayoutAttr.get(offset, static_strides)
        dense_type = ir.MemRefType.get(static_sizes, mtype.element_type, layout, mtype.memory_space)
        dense = memref.reinterpret_cast(
            dense_type,
            meta.base_buffer,
            offsets,
            sizes,
            dyn_strides,
            ir.DenseI64ArrayAttr.get([offset]),
            ir.DenseI64ArrayAttr.get(static_sizes),
            ir.DenseI64ArrayAttr.get(static_strides),
        )
        indices[-1] = arith.muli(indices[-1], const(s))
        shape = list(vtype.shape)
        wide = ir.VectorType.get(shape[:-1] + [s * shape[-1]], vtype.element_type)
        in_bounds[-1] = in_bounds[-1] and mask is not None
        read = vector.transfer_read(
            wide,
            dense,
            indices,
            op.attributes["permutation_map"],
            pad,
            ir.ArrayAttr.get([ir.BoolAttr.get(b) for b in in_bounds]),
            mask=mask,
        )
        value = _every_nth(read, vtype, s)
    op.results[0].replace_all_uses_with(value)
    op.erase()
    return 1


def _every_nth(wide, vtype, s: int):
    """Lanes 0, s, 2s.. of each row of ``wide`` as a ``vtype`` vector: one ``vector.shuffle`` per row
    (``vector.extract_strided_slice`` only takes unit strides)."""
    import itertools
    from mlir import ir
    from mlir.dialects import ub, vector

    shape = list(vtype.shape)
    lanes = [s * i for i in range(shape[-1])]
    wide_row = ir.VectorType.get([s * shape[-1]], vtype.element_type)
    if all(n == 1 for n in shape[:-1]):
        row = vector.shape_cast(wide_row, wide)
        return vector.shape_cast(vtype, vector.shuffle(row, row, lanes))
    value = ub.poison(vtype)
    for at in itertools.product(*(range(n) for n in shape[:-1])):
        row = vector.extract(wide, [], list(at))
        value = vector.insert(vector.shuffle(row, row, lanes), value, [], list(at))
    return value


def _spread_mask(mask, s: int):
    """The mask of the dense read: lanes 0 .. s*(b-1) of the last dim where ``mask`` keeps lanes 0 .. b-1
    (``vector.create_mask`` / ``vector.constant_mask``; None for any other mask)."""
    from mlir import ir
    from mlir.dialects import arith, vector

    owner = mask.owner
    if not isinstance(owner, ir.Operation):
        owner = owner.operation
    mtype = ir.VectorType(mask.type)
    wide = ir.VectorType.get(list(mtype.shape[:-1]) + [s * mtype.shape[-1]], mtype.element_type)
    if owner.name == "vector.constant_mask":
        sizes = list(ir.DenseI64ArrayAttr(owner.attributes["mask_dim_sizes"]))
        sizes[-1] = max(s * sizes[-1] - s + 1, 0)
        return vector.constant_mask(wide, sizes)
    if owner.name == "vector.create_mask":
        index = ir.IndexType.get()
        operands = list(owner.operands)
        # create_mask clamps a negative size to 0: b = 0 stays an empty mask
        operands[-1] = arith.addi(arith.muli(operands[-1], arith.constant(index, s)), arith.constant(index, 1 - s))
        return vector.create_mask(wide, operands)
    return None
