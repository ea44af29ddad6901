"""Extern stages (``Func.define_extern``, lang/extern.py) in a realize: each is run before the compiled pipeline
that reads it, over the region bounds inference says its consumers read, and its output bound to the stand-in
ImageParam the pipeline was compiled with. Halide's order: the bounds query (null hosts; the Func arguments'
regions come back in their buffers), the Func arguments realized over those regions (pipelines of their own), then
the call; a nonzero result is Halide's error."""

from __future__ import annotations

from .analysis.bounds import Region, infer_bounds
from .error import HalideError
from .lang.buffer import Buffer
from .lang.extern import extern_of, standin_of
from .lang.schedule import LevelKind
from .runtime import extern as c


def standins(p) -> list:
    """The stand-in inputs of pipeline ``p`` (one per output of each extern Func it reads)."""
    return [h for h in p.inputs if standin_of(h) is not None]


def bind_externs(p, region: Region) -> bool:
    """Run the extern stages pipeline ``p`` reads for an output ``region``; False if it reads none."""
    held = standins(p)
    if not held:
        return False
    for h in held:
        if h._buffer is None:  # (bounds inference reads the bound buffers; the region is what we want from it)
            h.set(Buffer(h.type(), [1] * h.dimensions()))
    whole = infer_bounds(p, region, check_inputs=False)
    done: set = set()
    for h in held:
        f = standin_of(h)[0]
        if id(f) in done:
            continue
        done.add(id(f))
        ext = extern_of(f)
        if f.schedule().compute.kind == LevelKind.AT:
            raise HalideError(
                f"{ext.site}: extern Func '{f.name()}' is scheduled compute_at: halide_mlir calls extern stages "
                f"at the root only (compute_root, or no compute directive)"
            )
        regs = [whole.input_regions[s] for s in ext.standins if s in whole.input_regions]
        if not regs:
            continue  # (not read: nothing to call)
        lo = [min(r.mins[d] for r in regs) for d in range(len(regs[0].mins))]
        hi = [max(r.mins[d] + r.extents[d] for r in regs) for d in range(len(lo))]
        outs = realize_extern(f, lo, [b - a for a, b in zip(lo, hi)])
        for s, b in zip(ext.standins, outs):
            s.set(b)
    return True


def realize_extern(f, mins: list, extents: list, outs: list | None = None) -> list:
    """Run extern Func ``f`` over (mins, extents) into ``outs`` (allocated when None); returns them."""
    from . import driver

    ext = extern_of(f)
    fn = c.symbol(ext.name, f.name(), ext.site)
    scalars = {}
    for i, a in enumerate(ext.args):
        if a.is_expr():
            scalars[i] = c.c_scalar(a.expr.type, _value(a.expr, ext, f))
    # the bounds query: outputs over the region, Func arguments as empty query buffers the callee fills in
    queries = {}
    args = []
    for i, a in enumerate(ext.args):
        if a.is_func():
            types = a.func.types()
            n = a.func.dimensions()
            queries[i] = [c.make_buffer(t, [0] * n, [0] * n) for t in types]
            args += queries[i]
        elif a.is_expr():
            args.append(scalars[i])
        else:
            args.append(c.buffer_of(_input_buffer(a, ext, f)))
    args += [c.make_buffer(t, mins, extents) for t in ext.types]
    c.call(fn, ext.name, args)
    # the Func arguments over the regions asked for
    produced = {}
    for i, a in enumerate(ext.args):
        if not a.is_func():
            continue
        g = a.func
        if g.schedule().compute.kind == LevelKind.INLINE and extern_of(g) is None:
            raise HalideError(
                f"{ext.site}: Func {g.name()} cannot be scheduled to be computed inline, because it is used in the "
                f"externally-computed function {f.name()}"
            )
        q = queries[i][0]
        qm = [q.dim[d].min for d in range(q.dimensions)]
        qe = [q.dim[d].extent for d in range(q.dimensions)]
        bufs = []
        for t in g.types():
            b = Buffer(t, qe)
            b.set_min(qm)
            bufs.append(b)
        driver.realize(g, bufs if len(bufs) > 1 else bufs[0])
        produced[i] = bufs
    if outs is None:
        outs = []
        for t in ext.types:
            b = Buffer(t, list(extents))
            b.set_min(list(mins))
            outs.append(b)
    args = []
    for i, a in enumerate(ext.args):
        if a.is_func():
            args += [c.buffer_of(b) for b in produced[i]]
        elif a.is_expr():
            args.append(scalars[i])
        else:
            args.append(c.buffer_of(_input_buffer(a, ext, f)))
    args += [c.buffer_of(b) for b in outs]
    c.call(fn, ext.name, args)
    return outs


def _input_buffer(a, ext, f) -> Buffer:
    if a.is_buffer():
        return a.buffer
    try:
        return a.image_param.bound_buffer()
    except HalideError as e:
        raise HalideError(f"{ext.site}: the extern stage of Func '{f.name()}': {e}") from None


def _value(e, ext, f):
    """A scalar argument's value now (constants and Params)."""
    from .analysis.interval import bounds
    from .analysis.pipeline import resolve_buffer_dims

    iv = bounds(resolve_buffer_dims(e), {})
    if iv.lo != iv.hi:
        raise HalideError(
            f"{ext.site}: the extern stage of Func '{f.name()}' takes {e}: a scalar argument must be made of "
            f"constants and Params"
        )
    return iv.lo
