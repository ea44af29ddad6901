"""Calls that print: ``hl.print`` and the trace events, as ``func.call``s of runtime/trace.py's callbacks.

A line is built by calls in order: text (8 bytes per call, as i64 constants: no string globals in the payload),
each value widened to i64 or f64 with the way Halide prints it, then the end of the line. A side effect inside a
``linalg.generic`` body keeps the generic scalar (plan.py does not vectorize a stage that prints,
``prints``), and the calls run in the order of the loops the schedule makes. The payload declares the callbacks
(``declarations``) when it calls any.
"""

from __future__ import annotations

from ..lang.debugging import tracing
from ..lang.traversal import walk
from ..lang.types import Int, Type
from ..runtime.trace import CHARS, END, FLOAT, INT, MLIR_SIGNATURES

CALL_PREFIX = "@halide_mlir_print_"


def declarations(payload_lines: list[str]) -> list[str]:
    """The callbacks' declarations, if the payload calls any."""
    if not any(CALL_PREFIX in line for line in payload_lines):
        return []
    return [f"func.func private @{name}{sig.split(' -> ')[0]}" for name, sig in MLIR_SIGNATURES.items()]


def prints(values) -> bool:
    """Does evaluating these Exprs print (an ``hl.print`` in them)?"""
    return any(n.kind == "print" for v in values for n in walk(v))


def _call(em, name: str, args: list[str]) -> None:
    em.lines.append(f"func.call @{name}({', '.join(args)}) : {MLIR_SIGNATURES[name]} {em.loc}")


def text(em, s: str) -> None:
    data = s.encode()
    for k in range(0, len(data), 8):
        packed = int.from_bytes(data[k : k + 8].ljust(8, b"\0"), "little")
        if packed >= 1 << 63:
            packed -= 1 << 64
        _call(em, CHARS, [em.const(packed, Int(64))])


def value(em, v: str, t: Type, scientific_f64: bool = False) -> None:
    """``v`` (an SSA value of type ``t``, logical form) as Halide prints it: ``print`` writes bools as
    true/false and every float as ``%f``; the tracer writes bools as 0/1 and doubles as ``%e``."""
    i32 = Int(32)
    if t.is_float():
        if t.bits() < 64:
            v = em.op(f"arith.extf {v} : {t.mlir} to f64")
        kind = 1 if scientific_f64 and t.bits() == 64 else 0
        _call(em, FLOAT, [v, em.const(kind, i32)])
        return
    if t.is_handle():
        text(em, "<handle>")
        return
    if t.bits() < 64:
        ext = "extsi" if t.is_signed() else "extui"
        v = em.op(f"arith.{ext} {v} : {t.mlir} to i64")
    kind = 0 if t.is_signed() else 2 if t.is_bool() and not scientific_f64 else 1
    _call(em, INT, [v, em.const(kind, i32)])


def end(em, lanes: int = 1) -> None:
    _call(em, END, [em.const(lanes, Int(32))])


def emit_print(em, e) -> str:
    """An ``hl.print``/``hl.print_when`` Expr: prints, then is its first value."""
    cond, *values = e.args
    vals = [em.emit(v) for v in values]
    if cond.kind == "const" and cond.value:
        body = em
    else:
        c = em.emit(cond)
        em.lines.append(f"scf.if {c} {{")
        body = em.nested()
    for i, part in enumerate(e.value):
        if i:
            text(body, " ")
        if isinstance(part, str):
            text(body, part)
        else:
            value(body, vals[part], values[part].type)
    end(body)
    if body is not em:
        em.lines.append(f"}} {em.loc}")
    return vals[0]


def event(
    em, kind: str, name: str, index: int, coords: list[str], v: str | None = None, t: Type | None = None, lanes: int = 1
) -> None:
    """One trace line: ``Store f.0(1, 2) = 3`` (``kind`` is Halide's event name), or without a value."""
    text(em, f"{kind} {name}.{index}(")
    for k, c in enumerate(coords):
        if k:
            text(em, ", ")
        value(em, c, Int(32), True)
    text(em, ")")
    if v is not None:
        text(em, " = ")
        value(em, v, t, True)
    end(em, lanes)


def traced(holder, kind: str) -> bool:
    return kind in tracing(holder)


def func_type_and_dim(types, region) -> str:
    """Halide's first trace tag of a traced Func or input: its types (code bits lanes) and the box it covers."""
    words = [len(types)]
    for t in types:
        words += [4 if t.is_bfloat() else int(t.code()), t.bits(), 1]
    words.append(len(region.mins))
    for lo, ext in zip(region.mins, region.extents):
        words += [lo, ext]
    return "func_type_and_dim: " + " ".join(map(str, words))


def name_of(pb, holder) -> str:
    """The name Halide's trace lines give a Func (unique in the pipeline) or an input."""
    try:
        return pb.name_of(holder)
    except StopIteration:
        return holder.name()


def load(pb, em, call, v: str) -> str:
    """A call's value ``v``, traced first if its Func or ImageParam traces loads."""
    if traced(call.value, "loads"):
        coords = [em.emit(a) for a in call.args]
        event(em, "Load", name_of(pb, call.value), call.index, coords, v, call.type, em.trace_lanes)
    return v


def stores(em, func, name: str, coords, values: list[str], types: list, cond: str | None = None) -> None:
    """Store events of one point's Tuple elements, if ``func`` traces stores (``coords()`` gives the point;
    ``cond``: only where it holds, an RDom's predicate)."""
    if not traced(func, "stores"):
        return
    where = coords()
    body = em
    if cond is not None:
        em.lines.append(f"scf.if {cond} {{")
        body = em.nested()
    for k, (v, t) in enumerate(zip(values, types)):
        event(body, "Store", name, k, where, v, t, em.trace_lanes)
    if cond is not None:
        em.lines.append(f"}} {em.loc}")


# --- the pipeline's events: Begin/End pipeline, tags, realizations (at the payload's top level) --------------


def _top(pb):
    from .body import BodyEmitter

    return BodyEmitter(pb.lines, pb.fresh, "loc(unknown)", None)


def _consts(em, region) -> list[str]:
    return [em.const(v, Int(32)) for lo, ext in zip(region.mins, region.extents) for v in (lo, ext)]


def _traced_inputs(pb) -> list:
    return [(h, buf) for h, buf in zip(pb.p.inputs, pb.b.input_buffers) if traced(h, "loads")]


def pipeline_traced(pb) -> bool:
    return bool(_traced_inputs(pb)) or any(tracing(s.func) for s in pb.plan.stages)


def _realizations(plan) -> bool:
    if not traced(plan.func, "realizations"):
        return False
    if plan.compute.at_loop():
        from ..error import HalideError

        raise HalideError(
            f"Func '{plan.func.name()}': trace_realizations() of a Func computed at a loop of "
            f"another is not supported by halide_mlir yet (compute it at the root to trace it)"
        )
    return True


def begin_pipeline(pb) -> None:
    """Halide's first events: Begin pipeline, each traced input's and Func's type-and-box tag (inputs first,
    then the Funcs producers first), the output's Begin realization."""
    if not pipeline_traced(pb):
        return
    em, out = _top(pb), pb.p.output
    event(em, "Begin pipeline", out.name(), 0, [])
    tags = [(h.name(), h, buf) for h, buf in _traced_inputs(pb)]
    tags += [(s.name, s.func, s.region) for s in pb.plan.stages if tracing(s.func)]
    for name, holder, region in tags:
        if not hasattr(region, "mins"):  # an input's buffer
            from types import SimpleNamespace

            region = SimpleNamespace(mins=list(region.mins()), extents=list(region.extents()))
        types = holder.output_types() if hasattr(holder, "output_types") else [holder.type()]
        text(em, f'Tag {name}.0() tag = "{func_type_and_dim(types, region)}"')
        end(em)
    last = pb.plan.stages[-1]
    if _realizations(last):
        event(em, "Begin realization", last.name, 0, _consts(em, last.region))


def begin_stage(pb, plan) -> None:
    if not _realizations(plan):
        return
    em = _top(pb)
    box = _consts(em, plan.region)
    if plan.func is not pb.p.output:
        event(em, "Begin realization", plan.name, 0, box)
    event(em, "Produce", plan.name, 0, box)


def end_stage(pb, plan) -> None:
    if not _realizations(plan):
        return
    em = _top(pb)
    box = _consts(em, plan.region)
    event(em, "End produce", plan.name, 0, box)
    if plan.func is not pb.p.output:
        event(em, "Consume", plan.name, 0, box)


def end_pipeline(pb) -> None:
    if not pipeline_traced(pb):
        return
    em = _top(pb)
    out = [s for s in pb.plan.stages if s.func is pb.p.output]
    for plan in [*reversed([s for s in pb.plan.stages if s.func is not pb.p.output]), *out]:
        if _realizations(plan):
            box = _consts(em, plan.region)
            if plan.func is not pb.p.output:
                event(em, "End consume", plan.name, 0, box)
            event(em, "End realization", plan.name, 0, box)
    event(em, "End pipeline", pb.p.output.name(), 0, [])


def erase_fused_originals(module) -> None:
    """After the schedule: a stage's ``linalg.generic`` whose result nothing reads any more (``fuse_into_
    containing_op`` computed it inside its consumer's loops instead) is erased. MLIR erases such an op itself only
    when its body has no side effects; one that prints would run once more, over the whole region."""
    from mlir import ir

    dead = []

    def visit(op):
        if (
            op.name == "linalg.generic"
            and "hl.func" in op.attributes
            and all(not list(r.uses) for r in op.results)
            and all(str(r.type).startswith("tensor<") for r in op.results)
        ):
            dead.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.POST_ORDER)
    for op in dead:
        op.erase()
