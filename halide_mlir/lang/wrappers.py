"""Wrapper Funcs: ``f.in_(g)``, ``f.in_([g, h])``, ``f.in_()``, ``f.clone_in(g)`` and ``ImageParam.in_``.

As in Halide, a wrapper is an ordinary new Func -- ``w[x, y] = f[x, y]`` (``in_``), or a copy of f's definitions
and schedule (``clone_in``) -- that the front end substitutes for f in the named consumers (or in every Func but f
and its wrappers: the global wrapper). It is scheduled on its own like any Func (inline by default).
The wrapped object (Func or ImageParam) only records which consumer gets which wrapper; the substitution happens
when a pipeline is built (analysis/wrappers.py), as Halide's ``wrap_func_calls`` does at lowering.
"""

from __future__ import annotations

from ..error import HalideError
from .expr import Expr
from .schedule import Directive, FuncSchedule, touch
from .source import capture_site, user_site

GLOBAL = None  # the key of the global wrapper (f.in_())


class Wrappers:
    """The wrappers of one Func or ImageParam: (consumer Func or GLOBAL, wrapper Func) pairs, in creation order.
    Consumers are kept by identity (Halide keys them by name; two Funcs may share a name here)."""

    def __init__(self):
        self.entries: list = []

    def get(self, consumer):
        return next((w for c, w in self.entries if c is consumer), None)

    def wrappers(self) -> list:
        return list(dict.fromkeys(w for _, w in self.entries))

    def custom(self) -> list:
        return [(c, w) for c, w in self.entries if c is not GLOBAL]


def wrappers_of(obj) -> Wrappers | None:
    return getattr(obj, "_wrappers_", None)


def _registry(obj) -> Wrappers:
    reg = wrappers_of(obj)
    if reg is None:
        reg = Wrappers()
        obj._wrappers_ = reg
    return reg


def _consumers(fs, method: str, wrapped_name: str) -> list:
    from .func import Func, Stage

    items = list(fs) if isinstance(fs, (list, tuple)) else [fs]
    if not items:
        raise HalideError(f"{user_site()}: Could not create a {method} wrapper for an empty list of Funcs")
    for f in items:
        if not isinstance(f, Func) or isinstance(f, Stage):
            raise HalideError(
                f"{user_site()}: {method}_ of '{wrapped_name}' takes a Func or a list of Funcs, got {f!r}"
            )
    return items


def get_wrapper(obj, fs, clone: bool):
    """Halide's ``get_wrapper``: the existing wrapper of these consumers, or a new one (all of ``fs`` share it).
    ``fs`` None: the global wrapper."""
    from .func import Func

    name = obj.name()
    wrapped_name = f"{name}_im" if not isinstance(obj, Func) else name  # Halide wraps an ImageParam's Func
    method = "clone" if clone else "in"
    if isinstance(obj, Func) and not obj.defined():
        raise HalideError(f"{user_site()}: can't wrap Func '{name}' because it has not yet been defined")
    reg = _registry(obj)
    consumers = [GLOBAL] if fs is None else _consumers(fs, method, name)
    for c in consumers:
        if c is obj:
            raise HalideError(f'{user_site()}: Cannot create wrapper of itself ("{name}")')
    existing = reg.get(consumers[0])
    if existing is not None:
        for c, w in reg.entries:
            in_fs = any(c is k for k in consumers)
            if in_fs and w is not existing:
                raise HalideError(
                    f"{user_site()}: {c.name()} should have shared the same wrapper as {consumers[0].name()}"
                )
            if not in_fs and w is existing:
                raise HalideError(
                    f"{user_site()}: Redefinition of shared wrapper [{name} -> {existing.name()}] in "
                    f"{consumers[0].name()} is illegal since {c.name()} shares the same wrapper but "
                    f"is not part of the redefinition"
                )
        return existing
    for c in consumers[1:]:
        if reg.get(c) is not None:
            raise HalideError(
                f"{user_site()}: Cannot define the wrapper since {c.name()} already has a wrapper "
                f"while {consumers[0].name()} doesn't"
            )
    if fs is None:
        wname = f"{wrapped_name}_global_wrapper"
    elif isinstance(fs, (list, tuple)):
        wname = f"{wrapped_name}_wrapper" if not clone else f"{wrapped_name}_clone"
    else:
        wname = f"{wrapped_name}_{'clone_in' if clone else 'in'}_{consumers[0].name()}"
    wname += f"${len(reg.entries)}"
    wrapper = _clone(obj, wname) if clone else _in_wrapper(obj, wname)
    wrapper._wraps_ = obj
    wrapper._wrap_site_ = capture_site()  # where the wrapper was asked for: named by the pipeline's checks
    for c in consumers:
        reg.entries.append((c, wrapper))
    touch()
    return wrapper


def _in_wrapper(obj, wname: str):
    """``w[args] = f[args]`` over f's pure Vars (``_0``, ``_1`` ... for an ImageParam, as Halide's)."""
    from .func import Func, Tuple
    from .var import Var

    w = Func(wname)
    if isinstance(obj, Func):
        args = obj.args()
        w[args] = obj[args] if obj.num_values() == 1 else Tuple(*(obj[args][i] for i in range(obj.num_values())))
    else:
        args = [Var.implicit(i) for i in range(obj.dimensions())]
        w[args] = obj[args]
    return w


def _clone(f, wname: str):
    """A copy of f under a new name: its definitions (calls of f to itself call the copy) and its schedule."""
    from .func import Definition, Func

    if not isinstance(f, Func):
        raise HalideError(f"{user_site()}: clone_in wraps Funcs only")
    w = Func(wname)

    def remap(e):
        if not isinstance(e, Expr):
            return e
        args = tuple(remap(a) for a in e.args)
        value = w if e.kind == "call" and e.value is f else e.value
        if value is e.value and all(a is b for a, b in zip(args, e.args)):
            return e
        r = Expr(e.kind, e.type, args, value)
        r.site, r.index = e.site, e.index
        return r

    def values(d):
        vs = tuple(remap(v) for v in d.values)
        return vs if len(vs) > 1 else vs[0]

    pure = f._definition()
    w._pure = Definition(pure.args, values(pure), pure.site)
    w._updates = [
        Definition(tuple(remap(a) for a in u.args), values(u), u.site, copy_schedule(u.schedule)) for u in f.updates()
    ]
    w._schedule = copy_schedule(f.schedule())
    return w


def copy_schedule(s: FuncSchedule) -> FuncSchedule:
    c = FuncSchedule(s.compute, s.store, [Directive(d.kind, d.args, d.site) for d in s.directives], s.padded_copy)
    for k, v in vars(s).items():  # fields other branches add (kept as they are)
        if k not in ("compute", "store", "directives", "padded_copy"):
            setattr(c, k, v.copy() if isinstance(v, (list, dict)) else v)
    return c
