"""The arguments of an ahead-of-time compiled pipeline, in Halide's order, and the sizes it is compiled for.

halide_mlir compiles for static shapes (bounds inference, tiling and vectorization all use concrete sizes), so an
AOT function is specialized, like a Halide pipeline whose buffers carry ``dim(d).set_bounds(...)`` constraints:
the output's region comes from the Func's estimates (``set_estimate(s)``), each input's from its estimates or
the Buffer bound to it (``ImageParam.set``). At run time the generated function checks the buffers it is given
against that region and returns Halide's error code otherwise (aot/wrapper.py).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.param import ImageParam, Param
from ..lang.source import user_site
from ..lang.traversal import walk
from ..lang.types import Type


class ArgumentKind(enum.IntEnum):
    """Halide's ``hl.ArgumentKind``."""

    InputScalar = 0
    InputBuffer = 1
    OutputBuffer = 2


class Argument:
    """Halide's ``hl.Argument``: one parameter of a compiled function (what ``infer_arguments`` returns)."""

    def __init__(self, name: str, kind: ArgumentKind, type_: Type, dimensions: int, source=None):
        self.name, self.kind, self.type, self.dimensions, self._source = name, kind, type_, dimensions, source
        from ..lang.api_extras import ArgumentEstimates

        self.argument_estimates = ArgumentEstimates()  # (estimates live on the Params; Halide's default record)

    def is_buffer(self) -> bool:
        return self.kind != ArgumentKind.InputScalar

    def is_scalar(self) -> bool:
        return self.kind == ArgumentKind.InputScalar

    def is_input(self) -> bool:
        return self.kind != ArgumentKind.OutputBuffer

    def is_output(self) -> bool:
        return self.kind == ArgumentKind.OutputBuffer

    def __repr__(self) -> str:
        return f"<halide_mlir.Argument '{self.name}' {self.kind.name} {self.type} {self.dimensions}-D>"


def argument_of(x) -> Argument:
    if isinstance(x, Argument):
        return x
    if isinstance(x, ImageParam):
        return Argument(x.name(), ArgumentKind.InputBuffer, x.type(), x.dimensions(), x)
    if isinstance(x, Param):
        return Argument(x.name(), ArgumentKind.InputScalar, x.type(), 0, x)
    if isinstance(x, Buffer):
        return Argument(x.name(), ArgumentKind.InputBuffer, x.type(), x.dimensions(), x)
    raise HalideError(
        f"{user_site()}: the arguments of compile_to must be ImageParams, Params, Buffers or Arguments, not {x!r}"
    )


def infer_arguments(func) -> list[Argument]:
    """Halide's ``Func.infer_arguments``: every ImageParam, then every Param the pipeline reads, each group
    sorted by name (Halide's canonical order). Buffers read by the pipeline are compiled into it."""
    from .. import driver

    p = driver.front_end(func)
    buffers = sorted((h for h in p.inputs if isinstance(h, ImageParam)), key=lambda h: h.name())
    params = sorted(p.params, key=lambda q: q.name())
    return [argument_of(h) for h in buffers] + [argument_of(q) for q in params]


@dataclass
class BufferArg:
    """A buffer argument of the generated function: what the wrapper checks and passes on."""

    name: str  # Halide's argument name (the C parameter is _<name>_buffer)
    type: Type
    mins: tuple  # the region the code is compiled for, dimension 0 first
    extents: tuple
    output: bool
    exact: bool  # the algorithm reads its dims (a boundary condition): the buffer must be this region
    source: object = None  # the ImageParam (inputs)
    free_dims: tuple = ()  # dims of an exact input where a bigger buffer gives the same values (free_dims())


@dataclass
class ScalarArg:
    name: str
    type: Type
    fixed: object = None  # an index Param: its value is compiled in (checked at run time)


@dataclass
class Spec:
    """A pipeline specialized for AOT: the function's arguments in order and the data compiled into it."""

    func: object
    fn_name: str
    arguments: list  # BufferArg / ScalarArg in Halide's order: args as given, then the outputs
    kernel_inputs: list  # per pipeline input (first-use order): the BufferArg, or an embedded Buffer
    kernel_params: list  # ScalarArg per pipeline param, in the pipeline's order
    outputs: list  # BufferArg per Tuple element
    region: object  # the output Region


def _reads_dims(pipeline, holder) -> bool:
    """Does the algorithm read ``holder``'s min/extent (``repeat_edge(input)``, ``input.width()``)?"""
    exprs = [e for s in pipeline.stages for e in s.exprs()]
    for s in pipeline.stages:
        for u in s.updates:
            for r in u.rvars:
                exprs.extend(e for b in r.domain().bounds() for e in b if hasattr(e, "kind"))
    return any(n.kind == "buffer_dim" and n.value[0] is holder for e in exprs for n in walk(e))


def _estimated_region(what: str, estimates, dims: int):
    if estimates is None or len(estimates) != dims:
        return None
    return tuple(int(m) for m, _ in estimates), tuple(int(e) for _, e in estimates)


def specialize(func, args, fn_name: str):
    """The Spec of ``func`` called with ``args``, and the Buffers to bind to unbound ImageParams while it is
    compiled (restored by the caller). Raises Halide's errors for arguments that are missing or unknown."""
    from .. import driver
    from ..analysis.bounds import Region

    p = driver.front_end(func)
    given = [argument_of(a) for a in args]
    names = [a.name for a in given]
    for n in names:
        if names.count(n) > 1:
            raise HalideError(f"{user_site()}: the argument name '{n}' is used twice in the arguments of '{fn_name}'")
    by_source = {id(a._source): a for a in given if a._source is not None}
    for h in [*p.inputs, *p.params]:
        if isinstance(h, Buffer):
            continue  # a Buffer the pipeline reads is compiled in, as in Halide
        if id(h) not in by_source:
            kind = "buffer" if isinstance(h, ImageParam) else "parameter"
            raise HalideError(
                f"{user_site()}: Generated code refers to {kind} {h.name()}, which was not found in "
                f"the argument list of '{fn_name}'"
            )
    dims = func.dimensions()
    estimates = [func._estimates.get(v.name()) for v in func.args()]
    if any(e is None for e in estimates):
        raise HalideError(
            f"{user_site()}: ahead-of-time compilation of Func '{func.name()}' needs the output's size: halide_mlir "
            f"compiles for fixed sizes, so give every dimension an estimate ({func.name()}.set_estimates("
            f"[(min, extent)] * {dims}) or set_estimate(var, min, extent)); the compiled function accepts output "
            f"buffers of exactly that region"
        )
    region = Region(tuple(m for m, _ in estimates), tuple(e for _, e in estimates))
    bind = []
    arguments, kernel_inputs = [], []
    buffer_args = {}
    for h in p.inputs:
        if isinstance(h, Buffer):
            kernel_inputs.append(h)
            continue
        est = _estimated_region(h.name(), getattr(h, "_estimates", None), h.dimensions())
        bound = h.get()
        if est is not None:
            mins, extents = est
            if bound is None or tuple(bound.mins()) != mins or tuple(bound.extents()) != extents:
                b = Buffer(np.zeros(tuple(reversed(extents)), h.type().numpy), name=h.name())
                b.set_min(*mins)
                bind.append((h, b))
        elif bound is not None:
            mins, extents = tuple(bound.mins()), tuple(bound.extents())
        else:
            raise HalideError(
                f"{user_site()}: ahead-of-time compilation of '{fn_name}' needs the size of ImageParam "
                f"'{h.name()}': give it estimates ({h.name()}.set_estimates([(min, extent)] * {h.dimensions()})) "
                f"or set a Buffer to it; halide_mlir compiles for fixed sizes"
            )
        b = BufferArg(h.name(), h.type(), mins, extents, False, _reads_dims(p, h), h)
        buffer_args[id(h)] = b
        kernel_inputs.append(b)
    scalars = {}
    for q in p.params:
        fixed = None
        if any(q is i for i in p.index_params):
            fixed = q._value if q._value is not None else getattr(q, "_estimate", None)
            if fixed is None:
                raise HalideError(
                    f"{user_site()}: Param '{q.name()}' is used in coordinates or RDom bounds, so its "
                    f"value is compiled into '{fn_name}' (halide_mlir compiles for fixed sizes): give it "
                    f"a value or an estimate"
                )
            if q._value is None:  # compiled for its estimate: bound to it while compiling
                bind.append((q, fixed))
        scalars[id(q)] = ScalarArg(q.name(), q.type(), fixed)
    kernel_params = [scalars[id(q)] for q in p.params]
    for a in given:
        if a.is_output():
            raise HalideError(f"{user_site()}: '{a.name}' is an output; compile_to's arguments are the inputs")
        src = a._source
        if a.is_buffer():
            if isinstance(src, Buffer):
                raise HalideError(
                    f"{user_site()}: a Buffer as an argument of '{fn_name}' is not supported; use an "
                    f"ImageParam (a Buffer the pipeline reads is compiled in)"
                )
            arguments.append(
                buffer_args.get(id(src))
                or BufferArg(a.name, a.type, (0,) * a.dimensions, (0,) * a.dimensions, False, False, src)
            )
        else:
            arguments.append(scalars.get(id(src)) or ScalarArg(a.name, a.type))
    types = func.output_types()
    outputs = [
        BufferArg(func.name() if len(types) == 1 else f"{func.name()}_{k}", t, region.mins, region.extents, True, True)
        for k, t in enumerate(types)
    ]
    arguments.extend(outputs)
    return Spec(func, fn_name, arguments, kernel_inputs, kernel_params, outputs, region), bind


def free_dims(stages, regions: dict, arg: BufferArg) -> tuple:
    """The dims of the exact input ``arg`` whose size the values do not depend on: the algorithm reads its bounds
    only to clamp coordinates (``repeat_edge``) that stay inside the compiled region anyway, e.g. the channel of
    ``clamped[x, y, c]`` for c in 0..2 with a 4-channel image: a buffer bigger there (containing the region) is
    taken as a crop, as Halide's code would read it. ``stages``: the pipeline's (analysis/pipeline.py), with
    ``regions`` {id(func): Region} of the compiled ones; updates count as reading every dim."""
    from ..analysis.interval import Interval, bounds

    holder = arg.source
    free = []
    for d, (m, e) in enumerate(zip(arg.mins, arg.extents)):
        ok = True
        for st in stages:
            r = regions.get(id(st.func))
            uses = [
                n
                for x in st.exprs()
                for n in walk(x)
                if n.kind == "buffer_dim" and n.value[0] is holder and n.value[1] == d
            ]
            if not uses:
                continue
            if (
                r is None
                or any(u.exprs() for u in st.updates)
                and any(
                    n.kind == "buffer_dim" and n.value[0] is holder
                    for u in st.updates
                    for x in u.exprs()
                    for n in walk(x)
                )
            ):
                ok = False
                break
            env = {v: Interval(lo, lo + n - 1) for v, lo, n in zip(st.vars, r.mins, r.extents)}
            clamped = 0
            for x in st.values:
                for n in walk(x):
                    if n.kind != "call" or n.value is not holder or len(n.args) <= d:
                        continue
                    c = n.args[d]  # clamp(a, lo, hi) is max(min(a, hi), lo)
                    if c.kind == "max" and c.args[0].kind == "min":
                        a = c.args[0].args[0]
                        inner = [k for k in walk(a) if k.kind == "buffer_dim" and k.value[0] is holder]
                        try:
                            iv = bounds(a, env)
                        except (KeyError, HalideError):
                            iv = None
                        if inner or iv is None or not (m <= iv.lo and iv.hi <= m + e - 1):
                            ok = False
                        clamped += sum(
                            1 for k in walk(c) if k.kind == "buffer_dim" and k.value[0] is holder and k.value[1] == d
                        )
            if not ok or clamped != len(uses):  # its bounds read elsewhere (arithmetic, another clamp)
                ok = False
                break
        if ok:
            free.append(d)
    return tuple(free)
