"""Halide's buffer constraints: ``param.dim(i).set_min/set_extent/set_bounds/set_stride`` on ImageParams and on a
Func's ``output_buffer()``, and ``Func.infer_input_bounds``.

Code is specialized to the bound buffers here, so a constraint is a check, not an assumption: a realize whose input
buffer violates one raises Halide's ``Constraint violated: ...`` error. ``infer_input_bounds`` iterates Halide's
bounds query: the output's constrained shape, grown to what the schedule writes (RoundUp splits), gives the region
each input is read over; constraints then set the inputs' shapes, until nothing changes; inputs with no buffer
get new (zeroed) Buffers of those shapes.
"""

from __future__ import annotations

from ..error import HalideError
from .expr import Expr, to_expr
from .source import user_site

MAX_PASSES = 16  # Halide's infer_input_bounds gives up after this many bounds queries


def set_constraint(param, i: int, what: str, value) -> None:
    from .schedule import touch

    cons = param.__dict__.setdefault("_constraints", {})
    if value is None or isinstance(value, Expr) and value.kind == "undefined":
        cons.pop((i, what), None)
    else:
        e = to_expr(value)
        if e.type.is_float():
            raise HalideError(
                f"{user_site()}: the {what} of dimension {i} of {param.name()} must be an integer, not {e.type}"
            )
        cons[(i, what)] = e
    touch()


def bound_value(v, what: str, func):
    """A ``bound()`` argument: an int, or an integer Expr kept until compile time (image sizes, Params)."""
    import numpy as np

    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    e = to_expr(v)
    if not (e.type.is_int() or e.type.is_uint()):
        raise HalideError(
            f"{user_site()}: the {what} of a bound of Func '{func.name()}' must be an integer, not {e.type}"
        )
    return int(e.value) if e.kind == "const" else e


def resolved_directive(d):
    """``d`` with Expr arguments of ``bound()`` evaluated for the buffers and Params bound now."""
    from ..analysis.bounds import constant_value
    from .schedule import DirectiveKind

    if d.kind != DirectiveKind.BOUND or all(isinstance(a, int) for a in d.args[1:]):
        return d
    what = f"{d.site}: the bound of {d.args[0]}"
    args = tuple(a if isinstance(a, int) else constant_value(a, what) for a in d.args[1:])
    return type(d)(d.kind, (d.args[0], *args), d.site)


def resolve_bound_exprs(pipeline) -> None:
    """Each stage's ``bound()`` Exprs evaluated for the buffers and Params bound now (the front end's pipeline
    is cached across realizes, so the Exprs are kept beside the directives)."""
    from .schedule import DirectiveKind

    for st in pipeline.stages:
        exprs = st.__dict__.get("_bound_exprs")
        if exprs is None:
            bounds_ = [d.args[1:3] for d in st.directives if d.kind == DirectiveKind.BOUND]
            if all(isinstance(a, int) for b in bounds_ for a in b):
                continue
            exprs = st._bound_exprs = list(st.directives)
        st.directives = [resolved_directive(d) for d in exprs]


def constraints(param) -> dict:
    return getattr(param, "_constraints", {})


def _eval(e) -> int:
    from ..analysis.specialize import evaluate

    return int(evaluate(e))


def check_inputs(inputs) -> None:
    """Before a realize: each bound input buffer satisfies its ImageParam's constraints (Halide's message)."""
    from .api_extras import check_param_ranges
    from .param import ImageParam

    check_param_ranges(inputs)  # Param.set_range / set_min_value / set_max_value
    for h in inputs:
        if not isinstance(h, ImageParam) or not constraints(h) or h.get() is None:
            continue
        buf = h.get()
        for (i, what), e in sorted(constraints(h).items(), key=lambda kv: (kv[0][0], _ORDER[kv[0][1]])):
            d = buf.dim(i)
            actual = d.min() if what == "min" else d.extent() if what == "extent" else d.stride()
            want = _eval(e)
            if actual != want:
                raise HalideError(
                    f"{user_site()}: Error: Constraint violated: {h.name()}.{what}.{i} ({actual}) == {e} ({want})"
                )


_ORDER = {"min": 0, "extent": 1, "stride": 2}


def output_constrained(func) -> bool:
    return any(constraints(h) for h in func.__dict__.get("_output_params") or ())


def check_outputs(func, outs, given: bool) -> None:
    """Before a realize: ``func.output_buffer()`` bound to its buffer, and its constraints checked. Halide
    computes the constrained region, so one outside the buffer is its access error, then a constraint not met its
    ``Constraint violated``. Strides are checked on given buffers only (Halide allocates a realize's buffer with
    the constrained strides; ours are dense, so code reading a stride sees the real one)."""
    holders = func.__dict__.get("_output_params")
    if not holders:
        return
    for holder, buf in zip(holders, outs):
        # the code reads the sizes of the buffers it writes (``f.output_buffer().dim(0).extent()``); they stay
        # bound after the realize, as the last realize's in Halide
        holder._buffer = buf
        c = constraints(holder)
        if not c:
            continue
        _check_output(holder, buf, c, given)


def _check_output(holder, buf, c, given: bool) -> None:
    for i in range(buf.dimensions()):
        d = buf.dim(i)
        lo = _eval(c[(i, "min")]) if (i, "min") in c else d.min()
        hi = lo + (_eval(c[(i, "extent")]) if (i, "extent") in c else d.extent()) - 1
        if lo < d.min():
            raise HalideError(
                f"{user_site()}: Error: Output buffer {holder.name()} is accessed at {lo}, which is before the "
                f"min ({d.min()}) in dimension {i}"
            )
        if hi > d.max():
            raise HalideError(
                f"{user_site()}: Error: Output buffer {holder.name()} is accessed at {hi}, which is beyond the "
                f"max ({d.max()}) in dimension {i}"
            )
    for (i, what), e in sorted(c.items(), key=lambda kv: (kv[0][0], _ORDER[kv[0][1]])):
        if what == "stride" and not given:
            continue
        d = buf.dim(i)
        actual = d.min() if what == "min" else d.extent() if what == "extent" else d.stride()
        want = _eval(e)
        if actual != want:
            raise HalideError(
                f"{user_site()}: Error: Constraint violated: {holder.name()}.{what}.{i} ({actual}) == {e} ({want})"
            )


def _query_buffer(t, mins, extents):
    from .buffer import Buffer

    b = Buffer.make_bounds_query(t, list(extents))
    b.set_min(list(mins))
    return b


def _written_region(func, mins, extents) -> tuple[list, list]:
    """The region a realize of ``func`` over (mins, extents) writes: RoundUp splits of its pure Vars (explicit,
    or Auto in an update definition, as Halide chooses) grow it to a multiple of the factor."""
    from .schedule import DirectiveKind

    names = [v.name() for v in func.args()]
    extents = list(extents)
    schedules = [(func.schedule(), False)] + [(u.schedule, True) for u in func.updates()]
    for sched, is_update in schedules:
        for d in getattr(sched, "directives", []):
            if d.kind != DirectiveKind.SPLIT or not isinstance(d.args[3], int):
                continue
            old = d.args[0] if isinstance(d.args[0], str) else getattr(d.args[0], "name", lambda: None)()
            if old not in names:
                continue
            tail = d.args[4].name if d.args[4] is not None else "Auto"
            if tail == "RoundUp" or (tail == "Auto" and is_update):
                k = names.index(old)
                f = d.args[3]
                extents[k] = -(-extents[k] // f) * f
    return list(mins), extents


def infer_input_bounds(func, dst) -> None:
    from ..analysis.bounds import infer_bounds
    from ..analysis.bounds import Region
    from ..driver import front_end
    from .buffer import Buffer
    from .param import ImageParam

    if isinstance(dst, (list, tuple)) and dst and isinstance(dst[0], Buffer):
        dst = dst[0]
    query = dst if isinstance(dst, Buffer) else None
    if query is not None:
        mins, extents = list(query.mins()), list(query.extents())
    else:
        extents = [int(s) for s in (dst if isinstance(dst, (list, tuple)) else [dst])]
        mins = [0] * len(extents)
    out = func.output_buffer()
    p = front_end(func)
    params = [h for h in p.inputs if isinstance(h, ImageParam) and h.get() is None]
    shapes = {h: ([0] * h.dimensions(), [1] * h.dimensions()) for h in params}
    saved = out._buffer
    try:
        for _ in range(MAX_PASSES):
            before = (list(mins), list(extents), {h: (list(a), list(b)) for h, (a, b) in shapes.items()})
            for h in params:
                h._buffer = _query_buffer(h.type(), *shapes[h])
            out._buffer = _query_buffer(out.type(), mins, extents)
            # the output's constraints, on the current shapes
            for i in range(len(mins)):
                c = constraints(out)
                new_min = _eval(c[(i, "min")]) if (i, "min") in c else mins[i]
                new_ext = _eval(c[(i, "extent")]) if (i, "extent") in c else extents[i]
                mins[i], extents[i] = new_min, new_ext
            mins, extents = _written_region(func, mins, extents)
            out._buffer = _query_buffer(out.type(), mins, extents)
            bounded = infer_bounds(p, Region(tuple(mins), tuple(extents)), check_inputs=False)
            for h in params:
                r = bounded.input_regions.get(h)
                m, e = (list(r.mins), list(r.extents)) if r is not None else shapes[h]
                h._buffer = _query_buffer(h.type(), m, e)
                shapes[h] = (m, e)
            for h in params:  # then each input's constraints, on the shapes just found
                c = constraints(h)
                m, e = shapes[h]
                m = [_eval(c[(i, "min")]) if (i, "min") in c else m[i] for i in range(len(m))]
                e = [_eval(c[(i, "extent")]) if (i, "extent") in c else e[i] for i in range(len(e))]
                shapes[h] = (m, e)
            if (mins, extents, shapes) == before:
                break
        else:
            raise HalideError(
                f"{user_site()}: Inferring input bounds on Pipeline didn't converge after "
                f"{MAX_PASSES} iterations. There may be unsatisfiable constraints"
            )
    finally:
        out._buffer = saved
        for h in params:
            h._buffer = None
    for h in params:
        b = Buffer(h.type(), list(shapes[h][1]), h.name())
        b.set_min(list(shapes[h][0]))
        h.set(b)
    if query is not None:
        query._set_shape(mins, extents)
