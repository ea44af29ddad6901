"""compute_with after bufferization: the fused loops below the outermost one, and a loop whose two ranges differ
(analysis/compute_with.py plans them; codegen/transform.py ``fuse_siblings`` tags each pair ``hl.compute_with_<k>``
= "level:role:shift:guarded").

On tensors, inside a fused loop the first stage's row is inserted into its tensor between the two inner loops, so
``transform.loop.fuse_sibling`` refuses them; on memrefs the two are sibling loops with no results. Each pair is
merged, outermost level first, into the later one (the host: the operands of both are defined there; the earlier
stage's body runs first in it). Equal ranges: the earlier body is moved into the host's, its induction variable
replaced. Different ranges (an alignment, at the innermost fused level): the host runs over both ranges as
aligned (iteration ``i`` is the parent's ``i`` and the child's ``i + shift``) and each body runs under an
``scf.if`` of its own range, as Halide guards each stage of a fused loop. There is no MLIR pass for this."""

from __future__ import annotations

from ..error import InternalError


def fuse_tagged_loops(module) -> int:
    """Merge every tagged pair (inside the module's context); returns how many."""
    from mlir import ir, passmanager

    tags: dict = {}

    def visit(op):
        for a in _named(op):
            if a.name.startswith("hl.compute_with_"):
                level = int(ir.StringAttr(a.attr).value.split(":")[0])
                tags.setdefault(int(a.name.rsplit("_", 1)[1]), set()).add(level)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    count = 0
    for k in sorted(tags):
        for level in sorted(tags[k]):
            pair = _find(module, k, level)
            if set(pair) != {"parent", "child"}:
                raise InternalError(f"compute_with {k}: level {level} has loops {sorted(pair)}", stage="bufferize")
            (pa, po, pg), (ca, co, cg) = pair["parent"], pair["child"]
            if pa.parent != ca.parent or pa.operation.block != ca.operation.block:
                raise InternalError(f"compute_with {k}: the loops of level {level} are not siblings", stage="bufferize")
            first, second = (pa, ca) if pa.operation.is_before_in_block(ca.operation) else (ca, pa)
            _check_nothing_between(first, second, f"compute_with {k}")
            shift = {id(pa): po, id(ca): co}
            with second.location:
                _merge(first, second, shift[id(first)], shift[id(second)], pg or cg, f"compute_with {k}")
            for a in _named(first):  # its tags for other fusions go with its body
                if a.name.startswith("hl.compute_with_") and a.name != f"hl.compute_with_{k}":
                    second.attributes[a.name] = a.attr
            first.erase()
            count += 1
            module.operation.verify()  # (a bad merge is an MLIRError here, not a crash in the pass below)
            # the next level's bounds were computed in two loops; now in one body, CSE makes them one value
            passmanager.PassManager.parse("builtin.module(func.func(cse))").run(module.operation)
    return count


# ops that make a view of a buffer without touching its elements
_VIEWS = {
    "memref.subview",
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.collapse_shape",
    "memref.expand_shape",
    "memref.dim",
    "memref.extract_strided_metadata",
}
# ops that write their memref operand at this position
_WRITES = {
    "memref.store": 1,
    "vector.store": 1,
    "vector.maskedstore": 1,
    "vector.transfer_write": 1,
    "vector.scatter": 1,
    "memref.copy": 1,
    "memref.atomic_rmw": 1,
    "memref.generic_atomic_rmw": 0,
}


def _buffer_root(value):
    """The buffer ``value`` is a view of (followed back through view ops)."""
    from mlir import ir

    while not isinstance(value.owner, ir.Block) and value.owner.name in _VIEWS:
        value = value.owner.operands[0]
    return value


def _check_nothing_between(first, second, what: str) -> None:
    """Merging moves ``first``'s body to ``second``'s place: an op between the two that uses a buffer ``first``
    writes would then run before the values it reads (or writes) are there. analysis/compute_with.py orders a
    fused group adjacently so this cannot happen; the check turns a future ordering bug into an InternalError
    instead of wrong values."""
    from mlir import ir

    written = set()

    def collect(op):
        position = _WRITES.get(op.name)
        if position is not None and len(op.operands) > position:
            written.add(_buffer_root(op.operands[position]))
        return ir.WalkResult.ADVANCE

    first.operation.walk(collect, ir.WalkOrder.PRE_ORDER)
    if not written:
        return
    clashes = []

    def check(op):
        if op.name not in _VIEWS and any(_buffer_root(v) in written for v in op.operands):
            clashes.append(op.name)
        return ir.WalkResult.ADVANCE

    block_ops = list(first.operation.block.operations)
    start = next(i for i, o in enumerate(block_ops) if o.operation == first.operation)
    end = next(i for i, o in enumerate(block_ops) if o.operation == second.operation)
    for op in block_ops[start + 1 : end]:
        op.operation.walk(check, ir.WalkOrder.PRE_ORDER)
    if clashes:
        raise InternalError(
            f"{what}: {', '.join(sorted(set(clashes)))} between the fused loops uses what the first one writes",
            stage="bufferize",
        )


def _named(op) -> list:
    return [op.attributes[i] for i in range(len(op.attributes))]


def _find(module, k: int, level: int) -> dict:
    from mlir import ir

    found = {}

    def visit(op):
        name = f"hl.compute_with_{k}"
        if name in op.attributes:
            j, role, shift, guarded = ir.StringAttr(op.attributes[name]).value.split(":")
            if int(j) == level:
                found[role] = (op.operation, int(shift), guarded == "1")
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _same(a, b) -> bool:
    from mlir import ir

    if a == b:
        return True
    ca, cb = (v.owner for v in (a, b))
    return (
        not isinstance(ca, ir.Block)
        and not isinstance(cb, ir.Block)
        and ca.name == cb.name == "arith.constant"
        and str(ca.attributes["value"]) == str(cb.attributes["value"])
    )


def _merge(first, host, shift_first: int, shift_host: int, guarded: bool, what: str) -> None:
    """Run ``first``'s iterations in ``host`` (both scf.for, or both scf.forall), ``first`` then left empty."""
    from mlir import ir
    from mlir.dialects import arith

    if first.name != host.name or len(first.results) or len(host.results):
        raise InternalError(f"{what}: can't fuse {first.name} with {host.name} (loops with results)", stage="bufferize")
    index = ir.IndexType.get()
    fbody, hbody = first.regions[0].blocks[0], host.regions[0].blocks[0]
    fivs, hivs = list(fbody.arguments), list(hbody.arguments)
    if host.name == "scf.for":
        lbs = [(first.operands[0], host.operands[0]), (first.operands[1], host.operands[1])]
        if not _same(first.operands[2], host.operands[2]):
            raise InternalError(f"{what}: the two loops have different steps", stage="bufferize")
    else:
        static = {
            a: (ir.DenseI64ArrayAttr(first.attributes[a]), ir.DenseI64ArrayAttr(host.attributes[a]))
            for a in ("staticLowerBound", "staticUpperBound", "staticStep")
        }
        if len(first.operands) or len(host.operands) or list(static["staticStep"][0]) != list(static["staticStep"][1]):
            raise InternalError(f"{what}: parallel loops with dynamic bounds or different steps", stage="bufferize")
        if len(fivs) != len(hivs) or (guarded and len(hivs) != 1):
            raise InternalError(f"{what}: parallel loops of different ranks", stage="bufferize")
    if not guarded:
        same = (
            all(_same(a, b) for a, b in lbs)
            if host.name == "scf.for"
            else all(list(a) == list(b) for n, (a, b) in static.items() if n != "staticStep")
        )
        if not same or shift_first or shift_host:
            raise InternalError(f"{what}: the fused loops' ranges differ", stage="bufferize")
        for a, b in zip(fivs, hivs):
            a.replace_all_uses_with(b)
        anchor = hbody.operations[0]
        for op in list(fbody.operations)[:-1]:  # (not the terminator)
            op.move_before(anchor)
        return

    def const(n):
        return arith.ConstantOp(index, n).result

    iv = hivs[0]
    host_ops = list(hbody.operations)[:-1]  # (before the bounds below are put at the top of its body)
    first_ops = list(fbody.operations)[:-1]
    # the host's range becomes the union of the two, aligned: iteration i is first's i + shift_first, host's
    # i + shift_host (each loop's own lower bound is 0: tile loops run over their op's extent)
    if host.name == "scf.for":
        (flb, fub), (hlb, hub) = zip(*lbs)
        if not (_is_zero(flb) and _is_zero(hlb)):
            raise InternalError(f"{what}: an aligned loop that does not start at 0", stage="bufferize")
        with ir.InsertionPoint(host):
            lo = const(min(-shift_first, -shift_host))
            hi = arith.MaxSIOp(
                arith.SubIOp(fub, const(shift_first)).result, arith.SubIOp(hub, const(shift_host)).result
            )
        host.operands[0] = lo
        host.operands[1] = hi.result
        f_hi, h_hi = fub, hub
    else:
        (flo, hlo), (fhi, hhi) = static["staticLowerBound"], static["staticUpperBound"]
        if flo[0] or hlo[0]:
            raise InternalError(f"{what}: an aligned loop that does not start at 0", stage="bufferize")
        host.attributes["staticLowerBound"] = ir.DenseI64ArrayAttr.get([min(-shift_first, -shift_host)])
        host.attributes["staticUpperBound"] = ir.DenseI64ArrayAttr.get([max(fhi[0] - shift_first, hhi[0] - shift_host)])
        with ir.InsertionPoint.at_block_begin(hbody):
            f_hi, h_hi = const(fhi[0]), const(hhi[0])
    with ir.InsertionPoint(host_ops[0]) if host_ops else ir.InsertionPoint.at_block_terminator(hbody):
        f_iv, f_if = _guarded(iv, shift_first, f_hi)
        h_iv, h_if = _guarded(iv, shift_host, h_hi)
    f_end, h_end = f_if.then_block.operations[0], h_if.then_block.operations[0]  # (their scf.yield)
    for op in first_ops:
        op.move_before(f_end)
    for op in host_ops:
        op.move_before(h_end)
    fivs[0].replace_all_uses_with(f_iv)
    _replace_inside(iv, h_iv, h_if)


def _is_zero(v) -> bool:
    from mlir import ir

    o = v.owner
    return (
        not isinstance(o, ir.Block) and o.name == "arith.constant" and ir.IntegerAttr(o.attributes["value"]).value == 0
    )


def _guarded(iv, shift: int, hi):
    """(the loop's own iv, an scf.if whose then-block runs where 0 <= iv < hi) at the insertion point."""
    from mlir import ir
    from mlir.dialects import arith, scf

    index = ir.IndexType.get()
    own = arith.AddIOp(iv, arith.ConstantOp(index, shift).result).result if shift else iv
    zero = arith.ConstantOp(index, 0).result
    ok = arith.AndIOp(
        arith.CmpIOp(arith.CmpIPredicate.sge, own, zero).result, arith.CmpIOp(arith.CmpIPredicate.slt, own, hi).result
    ).result
    guard = scf.IfOp(ok)
    with ir.InsertionPoint(guard.then_block):
        scf.YieldOp([])
    return own, guard


def _replace_inside(old, new, region_op) -> None:
    """Uses of ``old`` inside ``region_op`` read ``new`` instead."""
    if old == new:
        return
    for use in list(old.uses):
        o = use.owner
        while o is not None and o != region_op.operation:
            o = o.parent
        if o is not None:
            use.owner.operands[use.operand_number] = new
