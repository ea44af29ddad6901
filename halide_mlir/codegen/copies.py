"""Two fixes of the ``memref.copy``s bufferization leaves, which otherwise lower to a call of the runtime's generic,
element-by-element ``memrefCopy`` (nl_means spent 40% of its time there).

*Self-copies.* Copies of a buffer onto itself through reshapes are removed.

A reduction whose unit dims the script folds (codegen/transform.py ``ScriptBuilder.fold_unit_dims``) writes its
tile through ``tensor.collapse_shape``/``tensor.expand_shape``; once bufferized, the result is written back with
``memref.copy (expand_shape (collapse_shape %tile)) to %tile``: the same memory, but the reshaped view's layout
(``strided<[?, ?, ?, ?]>``) differs from the tile's, so the copy's self-copy folder does not see it. Where the
tile is dynamic (a masked edge tile) the copy lowers to a call of the runtime's generic ``memrefCopy`` per vector:
a 4-D reduction over nl_means' 384x640x7x7 offsets spent 3.4 s there instead of ~0.1 s. The copy's source is
followed through the view-like reshapes back to its root; where that is the copy's target, the copy is erased.

*Row copies.* A copy of one row of a tile (``memref<1x1x1x16xf32, strided<[1720320, 245760, 384, 1], offset:
?>>``: a stage that only copies its producer, a boundary condition's interior piece) is contiguous, but
``memref.copy``'s lowering only takes its memcpy path for layouts it proves contiguous, which leading unit dims
with large strides defeat; collapsed to one dim (``strided<[1]>``) it is a memcpy.
"""

from __future__ import annotations
from .ir_walk import ops_where

_RESHAPES = {"memref.expand_shape", "memref.collapse_shape", "memref.cast"}


def _root(value):
    from mlir import ir

    while True:
        owner = value.owner
        if isinstance(owner, ir.Block) or owner.name not in _RESHAPES:
            return value
        value = owner.operands[0]


def rewrite_copies(module) -> int:
    """Erase every ``memref.copy`` whose source is a reshape of its target, and collapse row copies to one dim
    (call inside the module's context). Returns how many copies changed."""
    from mlir import ir

    copies = ops_where(module, lambda op: op.name == "memref.copy")
    count = 0
    for op in copies:
        src, dst = op.operands[0], op.operands[1]
        # (reshapes of one buffer to the same shape address the same elements at the same indices)
        if _same_view(src, dst) and ir.ShapedType(src.type).shape == ir.ShapedType(dst.type).shape:
            op.erase()
            count += 1
        elif _row(src.type) and _row(dst.type) and not _same(src, dst):
            _collapse_copy(op, src, dst)
            count += 1
    return count


def _row(t) -> bool:
    """A static memref of shape 1x..x1xN (N > 1, two dims or more) with a unit innermost stride."""
    from mlir import ir

    shape = list(t.shape)
    if (
        len(shape) < 2
        or any(d != 1 for d in shape[:-1])
        or shape[-1] < 2
        or shape[-1] == ir.ShapedType.get_dynamic_size()
    ):
        return False
    strides, _ = ir.MemRefType(t).get_strides_and_offset()
    return strides[-1] == 1


def _collapse_copy(op, src, dst) -> None:
    from mlir import ir
    from mlir.dialects import memref

    reassociation = [list(range(len(ir.ShapedType(src.type).shape)))]
    with ir.InsertionPoint(op), op.location:
        flat = [memref.collapse_shape(_collapsed_type(v.type), v, reassociation) for v in (src, dst)]
        memref.copy(*flat)
    op.erase()


def _collapsed_type(t):
    from mlir import ir

    t = ir.MemRefType(t)
    _, offset = t.get_strides_and_offset()
    # (what collapse_shape infers: an identity layout stays one, a strided one stays strided)
    layout = ir.StridedLayoutAttr.get(offset, [1]) if isinstance(t.layout, ir.StridedLayoutAttr) else None
    return ir.MemRefType.get([t.shape[-1]], t.element_type, layout, t.memory_space)


def _same_view(src, dst) -> bool:
    """Is ``src`` a chain of reshapes of ``dst`` (or the other way)?"""
    return _same(_root(src), dst) or _same(_root(dst), src)


# views and index arithmetic: equal operands and attributes make equal values (what CSE leaves duplicated)
_PURE = ("memref.subview", "memref.cast", "arith.", "affine.apply", "affine.min", "affine.max")


def _same(a, b, depth: int = 8) -> bool:
    from mlir import ir

    if a == b:
        return True
    oa, ob = a.owner, b.owner
    if depth == 0 or isinstance(oa, ir.Block) or isinstance(ob, ir.Block) or oa.name != ob.name:
        return False
    if not oa.name.startswith(_PURE) or len(oa.operands) != len(ob.operands) or len(oa.results) != 1:
        return False
    attrs = {n: str(oa.attributes[n]) for n in oa.attributes}
    if attrs != {n: str(ob.attributes[n]) for n in ob.attributes} or a.type != b.type:
        return False
    return all(_same(x, y, depth - 1) for x, y in zip(oa.operands, ob.operands))
