"""memoize(): a memoized Func is realized by a pipeline of its own and cached (runtime/memo.py); the pipeline
that reads it is compiled with it as an input (a stand-in ImageParam per Tuple element, bound to the cached
Buffers before each call). The cache key is Halide's (src/Memoization.cpp): the Func, the region computed, the
values of the Params its values depend on (through every Func it calls, RDom bounds and specialize conditions
included) and the image sizes it reads; not the contents of Buffers it reads (Halide does not key on them
either: changing such a Buffer returns the cached values), and a Func that reads an ImageParam is refused, as in
Halide. Also the checks and warnings of async_, hoist_storage and ring_buffer (lang/memoize.py)."""

from __future__ import annotations

import warnings

from ..error import AsyncWarning, HalideError, MemoizeWarning, StorageWarning
from ..lang.buffer import Buffer
from ..lang.expr import Expr
from ..lang.func import Func
from ..lang.param import ImageParam
from ..lang.schedule import LevelKind
from ..lang.traversal import rebuild, walk
from .interval import bounds


def is_memoized(f) -> bool:
    return isinstance(f, Func) and f.schedule().memoize is not None


def standins(f: Func) -> list[ImageParam]:
    """The ImageParams that stand for memoized ``f`` (one per Tuple element) in the pipelines that read it."""
    s = f.__dict__.get("_memo_standins")
    types = f.types() if hasattr(f, "types") else [f.type()]
    if s is None or [p.type() for p in s] != list(types) or s[0].dimensions() != f.dimensions():
        s = [
            ImageParam(t, f.dimensions(), f"{f.name()}_memoized" + (f"{i}" if len(types) > 1 else ""))
            for i, t in enumerate(types)
        ]
        for p in s:
            p._memoized = (f, s)
        f._memo_standins = s
    return s


def standin_of(holder):
    """(memoized Func, index of the Tuple element) of a stand-in ImageParam, else None."""
    m = getattr(holder, "_memoized", None)
    return None if m is None else (m[0], m[1].index(holder))


def redirect(consumer: Func, e: Expr, output: Func) -> Expr:
    """``e`` (a definition of ``consumer``, inline Funcs substituted) with its calls to memoized Funcs other than
    the output read from their stand-ins."""
    if not any(n.kind == "call" and is_memoized(n.value) for n in walk(e)):
        return e

    def leaf(n: Expr, args) -> Expr | None:
        if n.kind == "call" and is_memoized(n.value) and n.value is not output and n.value is not consumer:
            r = Expr("call", n.type, args, standins(n.value)[n.index or 0])
            r.site = n.site
            return r
        return None

    return rebuild(e, leaf)


def _definition_exprs(f: Func) -> list[Expr]:
    d = f._definition()
    out = [*d.values]
    for u in f.updates():
        out += [*u.args, *u.values, *u.predicates()]
        for r in u.rvars():
            out += list(r.domain().bounds()[r.index()])
    stack = list(f.schedule().specializations)
    while stack:
        sp = stack.pop()
        if sp.condition is not None:
            out.append(sp.condition)
        stack += list(sp.schedule.specializations)
    return out


def closure(f: Func) -> list[Func]:
    """``f`` and every Func its values depend on."""
    seen, order, work = set(), [], [f]
    while work:
        g = work.pop()
        if id(g) in seen:
            continue
        seen.add(id(g))
        order.append(g)
        for e in _definition_exprs(g):
            for n in walk(e):
                if n.kind == "call" and isinstance(n.value, Func) and n.value is not g:
                    work.append(n.value)
    return order


def check(output: Func, internal: bool = False) -> list[Func]:
    """Halide's errors for memoize in the pipeline of ``output``; returns the memoized Funcs it reaches besides
    the output (``internal``: the output is a memoized Func realized for the cache)."""
    if is_memoized(output) and not internal:
        raise HalideError(
            f"{output.schedule().memoize.site}: Can't compile Pipeline with memoized output Func: "
            f"{output.name()}. Memoization is valid only on intermediate Funcs because it takes "
            f"control of buffer allocation."
        )
    found = [f for f in closure(output)[1:] if is_memoized(f)]
    for f in found:
        if f.schedule().compute.kind == LevelKind.INLINE and not f.has_update_definition():
            raise HalideError(
                f"{f.schedule().memoize.site}: Cannot memoize function {f.name()} because the "
                f"function is scheduled inline."
            )
        for g in closure(f):
            for e in _definition_exprs(g):
                for n in walk(e):
                    if n.kind == "call" and isinstance(n.value, ImageParam):
                        raise HalideError(
                            f"{f.schedule().memoize.site}: Buffer parameter {n.value.name()} encountered in "
                            f"computed_cached computation (memoized Func '{f.name()}', through Func '{g.name()}').\n"
                            f"Computations which depend on buffer parameters cannot be scheduled compute_cached."
                        )
    return found


def _value(e: Expr, what: str):
    from .pipeline import resolve_buffer_dims  # (pipeline.py imports this module)

    iv = bounds(resolve_buffer_dims(e), {})
    if iv.lo != iv.hi:
        raise HalideError(f"{what} must depend only on constants, Params and image sizes; {e} does not")
    return iv.lo


def cache_key(f: Func, region) -> tuple:
    """What the cached values of ``f`` over ``region`` depend on (Halide's key), and its eviction key's value."""
    params, dims = {}, {}
    for g in closure(f):
        for e in _definition_exprs(g):
            for n in walk(e):
                if n.kind == "param":
                    params[id(n.value)] = (n.value.name(), n.value.get())
                elif n.kind == "buffer_dim":
                    holder, d, field = n.value
                    if not isinstance(holder, Buffer):
                        dims[(id(holder), d, field)] = _value(n, "an image size")
    m = f.schedule().memoize
    evict = (
        None if m.eviction_key is None else _value(m.eviction_key, f"The eviction key of memoized Func '{f.name()}'")
    )
    key = (id(f), region.mins, region.extents, tuple(sorted(params.items())), tuple(sorted(dims.items())))
    return key, evict


def warn_async(pipeline) -> None:
    """Halide's checks of ring_buffer (its hoist_storage level: lang/small_directives.py); async_ and ring_buffer
    run synchronously here: same values, with a warning that says so."""
    for s in pipeline.stages:
        sch, name = s.func.schedule(), s.name
        if sch.ring_buffer is not None and sch.hoist is None:
            site = sch.sites.get("ring_buffer")
            at = f"{site}: " if site is not None else ""
            raise HalideError(
                f'{at}Func "{name}" is scheduled with ring_buffer(), but has matching store_at and '
                f"hoist_storage levels. Add an explicit hoist_storage directive to the schedule to fix "
                f"the issue."
            )
        if sch.async_ or sch.ring_buffer is not None:
            on = [w for w, yes in (("async_()", sch.async_), ("ring_buffer()", sch.ring_buffer is not None)) if yes]
            warnings.warn(
                AsyncWarning(
                    f"Func '{name}': {' and '.join(on)} run{'' if len(on) > 1 else 's'} synchronously in halide_mlir: "
                    f"it is computed before its consumer reads it, not beside it (same values)"
                ),
                stacklevel=5,
            )
    for f in closure(pipeline.output):
        sch = f.schedule()
        if (
            sch.hoist is not None
            and sch.compute.kind == LevelKind.INLINE
            and not f.has_update_definition()
            and f is not pipeline.output
        ):  # (the output is computed at the root)
            root = sch.hoist.kind == LevelKind.ROOT
            raise HalideError(
                f'Func "{f.name()}" is scheduled hoist_storage{"_root" if root else ""}(), but is '
                f"inlined. Funcs that use hoist_storage_root must also call "
                f"{'compute_root or compute_at' if root else 'compute_at'}."
            )


def memoized_at_loops(pipeline) -> None:
    """A memoized Func is computed over its whole region as one cache entry, not at a consumer's loop."""
    for f in closure(pipeline.output):
        if is_memoized(f) and f.schedule().compute.kind == LevelKind.AT and f is not pipeline.output:
            c = f.schedule().compute
            warnings.warn(
                StorageWarning(
                    f"Func '{f.name()}': memoized, it is computed once over the whole region its consumers read (one "
                    f"cache entry), not at {c.func.name()}.{c.var} (same values)"
                ),
                stacklevel=5,
            )


def warn_uncached(output: Func, where: str, internal: bool = False) -> None:
    """Paths without a memoization cache (``where``: AOT code, a GPU or a Dask pipeline) compute memoized Funcs
    as ordinary stages on every call: Halide's checks of memoize first, then a warning naming each Func
    (``internal``: see check)."""
    for f in check(output, internal):
        warnings.warn(
            MemoizeWarning(
                f"{f.schedule().memoize.site}: Func '{f.name()}' is memoized, but {where} has no memoization "
                f"cache in halide_mlir: it is computed on every call (same values)"
            ),
            stacklevel=3,
        )
