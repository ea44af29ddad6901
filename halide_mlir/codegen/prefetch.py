"""prefetch() after bufferization: ``memref.prefetch`` ops at the top of each tagged loop (analysis/prefetch.py
says what Halide does; codegen/transform.py ``tag_prefetches`` tags the loops).

In the body of loop ``at``, the tiles' reads of the prefetched input are ``memref.subview`` chains rooted at the
function's argument; each chain's offsets (summed: absolute coordinates in the input) and last sizes are the box
that tap reads in one iteration. The index computations they depend on are cloned with ``from``'s induction
variable advanced by ``offset`` steps, which gives the box iteration ``from + offset`` reads; the union of the taps'
boxes is bounded by the strategy (Clamp: intersected with the input; GuardWithIf: an ``scf.if`` that skips it
unless it lies inside; NonFaulting: as it is) and prefetched one cache line at a time (loops over its rows, a
step of 64 bytes along the innermost dim), as Halide's SplitPrefetch does. There is no MLIR pass for this."""

from __future__ import annotations

import warnings

from ..error import InternalError, PrefetchWarning
from .ir_walk import ops_where

CACHE_LINE = 64
DYNAMIC = -(1 << 63)


def inject_prefetches(module) -> int:
    """Emit the prefetches of every loop tagged ``hl.prefetch`` (inside the module's context); returns how many."""
    from mlir import ir

    tagged = ops_where(module, lambda op: "hl.prefetch" in op.attributes)
    count = 0
    for loop in tagged:
        for entry in ir.StringAttr(loop.attributes["hl.prefetch"]).value.split(";"):
            k, arg, offset, strategy = entry.split(":")
            with loop.location:
                count += _inject(loop, int(k), int(arg), int(offset), strategy)
    return count


def _ancestors(op):
    while op is not None:
        yield op
        op = op.parent


def _iv_and_step(loop):
    from mlir import ir
    from mlir.dialects import arith

    body = loop.regions[0].blocks[0]
    if loop.name == "scf.for":
        return body.arguments[0], loop.operands[2]
    if loop.name == "scf.forall" and len(body.arguments) == 1:
        step = ir.DenseI64ArrayAttr(loop.attributes["staticStep"])[0]
        with ir.InsertionPoint(loop):
            return body.arguments[0], arith.ConstantOp(ir.IndexType.get(), step).result
    raise InternalError(f"prefetch: loop {loop.name} with {len(body.arguments)} induction variables", stage="bufferize")


def _inject(at, k: int, arg: int, offset: int, strategy: str) -> int:
    from mlir import ir
    from mlir.dialects import arith, memref, scf

    index = ir.IndexType.get()
    source = next((op for op in _ancestors(at) if f"hl.prefetch_from_{k}" in op.attributes), None)
    fn = next(op for op in _ancestors(at) if op.name == "func.func")
    if source is None:
        raise InternalError(f"prefetch {k}: its 'from' loop is not around its 'at' loop", stage="bufferize")
    target = fn.regions[0].blocks[0].arguments[arg]
    body = at.regions[0].blocks[0]
    slices = []
    for op in body.operations:
        if op.name != "memref.subview":
            continue
        chain, v = [], op.result
        while not isinstance(v.owner, ir.Block) and v.owner.name == "memref.subview":
            chain.append(v.owner.operation.opview)
            v = chain[-1].source
        if v == target and all(len(s.static_sizes) == ir.MemRefType(target.type).rank for s in chain):
            slices.append(chain)
    if not slices:
        warnings.warn(
            PrefetchWarning(
                f"prefetch {k}: no read of the prefetched input in the body of its 'at' loop: nothing to prefetch"
            ),
            stacklevel=2,
        )
        return 0
    iv, step = _iv_and_step(source)
    ip = ir.InsertionPoint.at_block_begin(body)
    memo: dict = {}

    def const(n):
        return arith.ConstantOp(index, n).result

    with ip:
        shifted_iv = arith.AddIOp(iv, arith.MulIOp(step, const(offset)).result).result

    def shift(v):
        """``v`` computed for iteration ``from + offset`` (the index ops it depends on cloned)."""
        if v == iv:
            return shifted_iv
        if isinstance(v.owner, ir.Block) or not _inside(v.owner.operation, source):
            return v
        owner = v.owner.operation
        key = owner
        if key not in memo:
            new = [shift(o) for o in owner.operands]
            # (an op inside ``at``'s body is after the insertion point: cloned even where it does not move)
            if all(a == b for a, b in zip(new, owner.operands)) and not _inside(owner, at):
                memo[key] = owner
            elif owner.regions or not owner.name.startswith(("arith.", "affine.", "index.")):
                raise InternalError(f"prefetch {k}: can't advance {owner.name} to a later iteration", stage="bufferize")
            else:
                with ip:
                    c = owner.clone()
                for i, o in enumerate(new):
                    c.operands[i] = o
                memo[key] = c
        return memo[key].results[list(owner.results).index(v)] if len(owner.results) > 1 else memo[key].result

    rank = ir.MemRefType(target.type).rank
    shape = ir.MemRefType(target.type).shape
    with ip:
        lo, hi = None, None
        for chain in slices:
            # from the input outwards: a view's offsets count in its parent's strides (a strided read, ``in[2 * x]``,
            # is a view of stride 2); its last view's points span (size - 1) * stride + 1 elements
            starts, strides = [const(0)] * rank, [1] * rank
            for s in reversed(chain):
                if any(st == DYNAMIC or st < 1 for st in s.static_strides):
                    raise InternalError(f"prefetch {k}: a slice of dynamic or negative stride", stage="bufferize")
                dyn = iter(s.offsets)
                for d, so in enumerate(s.static_offsets):
                    o = shift(next(dyn)) if so == DYNAMIC else const(so)
                    if strides[d] != 1:
                        o = arith.MulIOp(o, const(strides[d])).result
                    starts[d] = arith.AddIOp(starts[d], o).result
                strides = [a * b for a, b in zip(strides, s.static_strides)]
            dyn = iter(chain[0].sizes)
            sizes = [shift(next(dyn)) if sz == DYNAMIC else const(sz) for sz in chain[0].static_sizes]
            spans = [
                sz
                if st == 1
                else arith.AddIOp(arith.MulIOp(arith.SubIOp(sz, const(1)).result, const(st)).result, const(1)).result
                for sz, st in zip(sizes, strides)
            ]
            ends = [arith.AddIOp(a, b).result for a, b in zip(starts, spans)]
            lo = starts if lo is None else [arith.MinSIOp(a, b).result for a, b in zip(lo, starts)]
            hi = ends if hi is None else [arith.MaxSIOp(a, b).result for a, b in zip(hi, ends)]
        if strategy == "Clamp":
            lo = [arith.MaxSIOp(a, const(0)).result for a in lo]
            hi = [arith.MinSIOp(a, const(n)).result for a, n in zip(hi, shape)]
        where = ip
        if strategy == "GuardWithIf":
            ok = None
            for a, b, n in zip(lo, hi, shape):
                for c in (
                    arith.CmpIOp(arith.CmpIPredicate.sge, a, const(0)).result,
                    arith.CmpIOp(arith.CmpIPredicate.sle, b, const(n)).result,
                ):
                    ok = c if ok is None else arith.AndIOp(ok, c).result
            guard = scf.IfOp(ok)
            with ir.InsertionPoint(guard.then_block):
                scf.YieldOp([])
            where = ir.InsertionPoint.at_block_begin(guard.then_block)
        elem = ir.MemRefType(target.type).element_type
        line = max(1, CACHE_LINE // max(1, _bytes(elem)))
    coords = []
    for d in range(rank):
        with where:
            loop = scf.ForOp(lo[d], hi[d], const(line if d == rank - 1 else 1))
            coords.append(loop.induction_variable)
            with ir.InsertionPoint(loop.body):
                scf.YieldOp([])
        where = ir.InsertionPoint.at_block_begin(loop.body)
    with where:
        memref.PrefetchOp(target, coords, False, 3, True)
    return 1


def _inside(op, region_owner) -> bool:
    return any(a == region_owner for a in _ancestors(op.parent))


def _bytes(t) -> int:
    from mlir import ir

    if isinstance(t, ir.IntegerType):
        return max(1, t.width // 8)
    return {"f64": 8, "f32": 4, "f16": 2, "bf16": 2}.get(str(t), 4)
