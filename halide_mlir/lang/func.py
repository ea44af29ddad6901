"""``hl.Func``: a pure definition over Vars, a schedule, and the realize/compile entry points."""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np

from ..error import HalideError, StorageWarning
from .gpu_schedule import GpuScheduleMixin
from .expr import Expr, ExprOps, binary, cast, const, to_expr
from .undef import UNDEF, resolve_undef
from .traversal import free_rvars, free_vars, walk
from .schedule import Directive, DirectiveKind, FuncSchedule, LevelKind, LoopLevel, StorageFold, TailStrategy, touch
from .random import lower_random, next_tag
from .scatter_gather import has_lanes, lane, lane_count
from .rename import translate as translate_renamed, translate_var as translate_renamed_var
from .source import capture_site, user_site
from .types import Int, Type
from .debugging import install as install_tracing
from .memoize import install as install_memoize
from .prefetch import install as install_prefetch
from .small_directives import install as install_small_directives
from .unsupported import install as install_unsupported
from .var import Var

_fresh = itertools.count()
MAX_UNROLL = 256


def call_args(args, callee, dims: int) -> tuple:
    """The index Exprs of ``callee[args]``, checked for count and type."""
    from .implicit import expand, mismatch_message

    if not isinstance(args, (tuple, list)):
        args = (args,)
    exprs = tuple(to_expr(a) for a in expand(tuple(args), dims)[0])  # hl._ becomes implicit Vars
    if len(exprs) != dims:
        raise HalideError(f"{user_site()}: Error: {mismatch_message(callee, exprs, dims)}")
    _check_int_args(exprs, callee)
    return tuple(cast(Int(32), e) for e in exprs)


_name_counts: dict[str, int] = {}


def unique_func_name(name: str) -> str:
    """Halide's Func names are unique in a process: a name used before gets ``$n`` (``f``, ``f$1``, ``f$2``)."""
    if name not in _name_counts:
        _name_counts[name] = 0
        return name
    base = name.replace("$", "_")
    while True:
        _name_counts[base] = _name_counts.get(base, 0) + 1
        candidate = f"{base}${_name_counts[base]}"
        if candidate not in _name_counts:
            _name_counts[candidate] = 0
            return candidate


def _check_int_args(exprs, callee) -> None:
    for i, e in enumerate(exprs):
        if e is not None and e.type.is_float():
            raise HalideError(
                f"{user_site()}: Error: Implicit cast from {e.type} to int in argument {i + 1} in call "
                f'to "{callee.name()}" is not allowed. Use an explicit cast.'
            )


class FuncRef(ExprOps):
    """``f[x, y]`` before we know whether it is read (an Expr) or written (a definition)."""

    def __init__(self, func: "Func", args: tuple):
        self.func, self.args = func, args

    # f[x] += e: Python reads f[x], combines, then assigns. On a Func with no definition yet the combination is
    # Halide's unevaluated reference (an update with an implicit pure definition, made by the assignment);
    # otherwise it is the Expr f[x] + e.
    def _combine(self, op: str, e):
        return InPlace(op, self, e) if not self.func.defined() else binary(op, self, e)

    def __iadd__(self, e):
        return self._combine("add", e)

    def __isub__(self, e):
        return self._combine("sub", e)

    def __imul__(self, e):
        return self._combine("mul", e)

    def __itruediv__(self, e):
        return self._combine("div", e)

    def __add__(self, e):
        return self._combine("add", e)

    def __sub__(self, e):
        return self._combine("sub", e)

    def __mul__(self, e):
        return self._combine("mul", e)

    def __truediv__(self, e):
        return self._combine("div", e)

    def _as_expr(self) -> Expr:
        f = self.func
        if not f.defined():
            raise HalideError(
                f'{user_site()}: Error: Can\'t call Func "{f.name()}" because it has not yet been defined.'
            )
        if f.num_values() > 1:
            raise HalideError(
                f"{user_site()}: Func '{f.name()}' returns a Tuple of {f.num_values()} elements; "
                f"use {f.name()}[...][i] to read one"
            )
        e = Expr("call", f.output_type(), call_args(self.args, f, f.dimensions()), f)
        e.site = capture_site()
        return e

    def __getitem__(self, i) -> Expr:
        """``f[x][i]``: element ``i`` of a Tuple-valued Func."""
        f = self.func
        if not f.defined():
            raise HalideError(f"{user_site()}: can't call Func '{f.name()}' because it has not yet been defined")
        if not isinstance(i, (int, np.integer)) or not 0 <= i < f.num_values():
            raise HalideError(
                f"{user_site()}: Func '{f.name()}' has {f.num_values()} Tuple elements; there is no element {i!r}"
            )
        e = FuncTupleElementRef("call", f.output_types()[i], call_args(self.args, f, f.dimensions()), f)
        e.site, e.index = capture_site(), int(i)
        return e

    def __len__(self) -> int:
        return self.func.num_values()


class FuncTupleElementRef(Expr):
    """``f[x][i]``: one element of a call to a Tuple-valued Func (an Expr, with Halide's class name)."""

    __slots__ = ()

    def copy_with(self, args) -> Expr:
        r = Expr(self.kind, self._type, args, self.value)
        r.site, r.index = self.site, self.index
        return r


class Tuple:
    """``hl.Tuple(a, b, ...)``: several values of one Func at the same point."""

    def __init__(self, *values):
        if len(values) == 1 and isinstance(values[0], (list, tuple)):
            values = tuple(values[0])
        self._values = tuple(to_expr(v) for v in values)

    def __getitem__(self, i):
        return self._values[i]

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def __repr__(self) -> str:
        return f"<halide_mlir.Tuple of {len(self._values)}>"


class InPlace:
    """``f[args] op= e`` (or ``f[args] op e``) on a Func with no definition, waiting for its assignment to the same
    ``f[args]``: an update with an implicit pure definition. It has no operators, as in Halide."""

    def __init__(self, op: str, ref: FuncRef, e):
        self.op, self.ref, self.e = op, ref, e

    def same_location(self, func, args) -> bool:
        def same(a, b) -> bool:
            if a is b:
                return True
            if isinstance(a, Var) and isinstance(b, Var):
                return a.same_as(b)
            return isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)) and int(a) == int(b)

        return (
            func is self.ref.func
            and len(args) == len(self.ref.args)
            and all(same(a, b) for a, b in zip(args, self.ref.args))
        )


# Python's TypeError for ``ref += 1`` names the type: Halide's tests match its class's full name
InPlace.__name__ = "halide.halide_._UnevaluatedFuncRefExpr"


class Definition:
    """``f[args] = value``; ``site`` is the user's line, carried into MLIR locations and errors."""

    def __init__(self, args: tuple, value, site, schedule: FuncSchedule | None = None):
        # ``value`` is an Expr, or a tuple of them for a Tuple-valued Func (``values`` is always the tuple)
        self.values = tuple(value) if isinstance(value, tuple) else (value,)
        self.args, self.value, self.site = args, self.values[0], site
        self.schedule = schedule  # updates have their own loop schedule (f.update(i))
        self.stores = ()  # hl.scatter/gather: the other lanes' (args, values) (lang/scatter_gather.py)

    def rvars(self) -> list:
        """Every RVar of every RDom the update uses: the whole domain is iterated, r.x innermost."""
        doms: dict = {}
        for e in (*self.args, *self.values, *(x for sa, sv in self.stores for x in (*sa, *sv))):
            for r in free_rvars(e):
                doms.setdefault(id(r.domain()), r.domain())
        return [r for d in doms.values() for r in (d[i] for i in range(d.dimensions()))]

    def predicates(self) -> list:
        preds, doms = [], []
        for r in self.rvars():
            if not any(d is r.domain() for d in doms):
                doms.append(r.domain())
                preds.extend(r.domain().predicates())
        return preds


class Func(GpuScheduleMixin):
    """``hl.Func()``, ``hl.Func(name)``, ``hl.Func(required_type(s), required_dimensions, name)``,
    ``hl.Func(expr)`` (0-D), ``hl.Func(buffer)`` or ``hl.Func(image_param)`` (a Func reading it)."""

    def __init__(self, *args, **kwargs):
        from . import overloads as o
        from .buffer import Buffer
        from .param import ImageParam

        form, a = o.match(
            "Func",
            args,
            kwargs,
            [],
            [o.Arg("name", o.is_str, keyword=False)],
            [o.Arg("required_type", o.is_type), o.Arg("required_dimensions", o.is_int), o.Arg("name", o.is_str)],
            [
                o.Arg("required_types", lambda v: isinstance(v, (list, tuple)) and all(o.is_type(t) for t in v)),
                o.Arg("required_dimensions", o.is_int),
                o.Arg("name", o.is_str),
            ],
            [o.Arg("buffer", lambda v: isinstance(v, (Buffer, ImageParam)), keyword=False)],
            [o.Arg("expr", o.is_expr_like, keyword=False)],
        )
        name = a.get("name") or None
        self._declared_type, self._declared_dims = a.get("required_type"), a.get("required_dimensions")
        self._declared_types = list(a["required_types"]) if "required_types" in a else None
        if form == 4:
            name = f"{a['buffer'].name()}_im" if isinstance(a["buffer"], ImageParam) else None
        if name is not None and "." in name:
            raise HalideError(
                f'{user_site()}: Func name "{name}" is invalid. Func names may not contain the '
                f"character '.', as it is used internally by Halide as a separator"
            )
        self._name = unique_func_name(name) if name is not None else f"f{next(_fresh)}"
        self._pure: Definition | None = None
        self._updates: list[Definition] = []
        self._schedule = FuncSchedule()
        self._estimates: dict = {}
        if form == 4:  # reads the buffer or image at the same coordinates
            src = a["buffer"]
            vars_ = tuple(Var(f"_{i}") for i in range(src.dimensions()))
            call = Expr("call", src.type(), call_args(vars_, src, src.dimensions()), src)
            call.site = capture_site()
            self._define(vars_, call)
        elif form == 5:  # hl.Func(expr): a zero-dimensional Func
            self._define((), to_expr(a["expr"]))

    # --- definitions ---------------------------------------------------------------------------
    def __getitem__(self, args) -> FuncRef:
        if not isinstance(args, (tuple, list)):
            args = (args,)
        # float coordinates are refused where they are written, as in Halide
        _check_int_args([_as_expr_or_none(a) for a in args], self)
        if self._pure is not None:  # a wrong argument count is refused at the call, as in Halide
            call_args(args, self, len(self._pure.args))
        return FuncRef(self, tuple(args))

    def __setitem__(self, args, value) -> None:
        if not isinstance(args, (tuple, list)):
            args = (args,)
        from .implicit import definition_args

        if isinstance(value, InPlace):
            name = value.ref.func.name()
            if not value.same_location(self, tuple(args)):
                raise HalideError(
                    f"{user_site()}: Error: Cannot use an unevaluated reference to '{name}' to define "
                    f"an update at a different location."
                )
            if self._pure is not None:
                raise HalideError(
                    f"{user_site()}: Error: Cannot use an unevaluated reference to '{name}' to define "
                    f"an update when a pure definition already exists."
                )
            return self._define_in_place(definition_args(self, tuple(args), (to_expr(value.e),)), value)
        if not isinstance(value, (tuple, list, Tuple)) and _is_sequence(value):
            value = tuple(value[i] for i in range(len(value)))  # Tuple values from any sequence, as Halide's
        if isinstance(value, (tuple, list, Tuple)):
            value = tuple(to_expr(v) for v in value)
            if not value:
                raise HalideError(f"{user_site()}: Func '{self._name}' can't be defined as an empty Tuple")
            if len(value) == 1:
                value = value[0]
        else:
            value = to_expr(value)
        args = definition_args(self, tuple(args), value if isinstance(value, tuple) else (value,))
        if self._pure is None:
            return self._define(tuple(args), value)
        if isinstance(value, tuple) or len(self._pure.values) > 1 or any(n.kind == UNDEF for n in walk(value)):
            return self._define_update(tuple(args), value)
        same_args = len(args) == len(self._pure.args) and all(
            isinstance(a, Var) and a.same_as(b) for a, b in zip(args, self._pure.args)
        )
        if (
            same_args
            and not self._updates
            and not any(n.kind in ("call", "rvar") and (n.value is self or n.kind == "rvar") for n in walk(value))
        ):
            # Halide treats this as an update that hides the earlier definition, and only warns
            warnings.warn(
                f"{capture_site()}: update definition of Func '{self._name}' completely hides earlier definitions",
                stacklevel=2,
            )
            self._pure = None
            return self._define(tuple(args), value)
        self._define_update(tuple(args), value)

    def _define_in_place(self, args: tuple, upd: InPlace) -> None:
        rhs = to_expr(upd.e)
        if self._pure is None:
            # Halide's implicit pure definition: 0 for += and -=, 1 for *= and /=, of the value's type;
            # positions that are not Vars get implicit Vars
            pure_args = tuple(a if isinstance(a, Var) else Var(f"_{i}") for i, a in enumerate(args))
            init = 0 if upd.op in ("add", "sub") else 1
            self._define(pure_args, const(init, rhs.type), implicit=True)
        self._define_update(args, binary(upd.op, self[args], upd.e))

    def _define_update(self, args: tuple, value) -> None:
        if "_extern" in self.__dict__:  # (its values are the C function's: lang/extern.py)
            raise HalideError(f"{user_site()}: Func '{self._name}' is defined by define_extern and can't be updated")
        stores = ()
        if has_lanes([*map(to_expr, args), *(value if isinstance(value, tuple) else (value,))]):
            # hl.scatter / hl.gather: lane 0 is this definition, the others its stores (lang/scatter_gather.py)
            args, value, stores = self._lanes_of(tuple(args), value)
        value = resolve_undef(self, args, value, update=True)
        site = capture_site()
        i = len(self._updates)
        where = f'{site}: In update definition {i} of Func "{self._name}"'
        if len(args) != len(self._pure.args):
            raise HalideError(
                f"{where}: it has {len(args)} arguments, but the pure definition has {len(self._pure.args)}"
            )
        values = value if isinstance(value, tuple) else (value,)
        if len(values) != len(self._pure.values):
            raise HalideError(
                f"{where}: it has {len(values)} Tuple elements, but the pure definition has {len(self._pure.values)}"
            )
        for k, (v, t) in enumerate(zip(values, self.output_types())):
            if v.type != t:
                raise HalideError(
                    f"{where}: Tuple element {k} of update definition has type {v.type}, but "
                    f"pure definition has type {t}"
                )
        exprs = tuple(to_expr(a) for a in args)
        for j, (a, e) in enumerate(zip(args, exprs)):
            if e.type.is_float():
                raise HalideError(f"{where}: argument {j} is {e.type}; Func coordinates must be integers")
            if isinstance(a, Var) and not a.same_as(self._pure.args[j]):
                raise HalideError(
                    f"{where}: pure Var '{a.name()}' must appear in the same position as in the "
                    f"pure definition ({self._pure.args[j].name()})"
                )
        exprs = tuple(cast(Int(32), e) for e in exprs)
        exprs, value = _lower_random_update(args, exprs, value, site)
        lhs_vars = {a.name() for a in args if isinstance(a, Var)}
        stray = [v for e in (*exprs, *values) for v in free_vars(e) if v not in lhs_vars]
        if stray:
            raise HalideError(
                f"{where}: Var '{stray[0]}' is used but is not a pure argument on the left-hand "
                f"side; use an RDom to iterate over values"
            )
        d = Definition(exprs, value, site, FuncSchedule())
        d.stores = tuple((tuple(cast(Int(32), to_expr(a)) for a in sa), sv) for sa, sv in stores)
        doms = {id(r.domain()) for r in d.rvars()}
        if len(doms) > 1:
            raise HalideError(
                f"{where}: it uses RVars from {len(doms)} different RDoms; all the RVars of an "
                f"update definition must come from one RDom"
            )
        self._updates.append(d)
        touch()

    def _lanes_of(self, args: tuple, value):
        """(lane 0's args, lane 0's value, the other lanes as (args, values)) of a scatter/gather definition."""
        values = value if isinstance(value, tuple) else (value,)
        exprs = [to_expr(a) for a in args]
        n = lane_count(self._name, [*exprs, *values])
        lanes = [(tuple(lane(a, k) for a in exprs), tuple(lane(v, k) for v in values)) for k in range(n)]
        first_args = tuple(a if isinstance(a, Var) else lanes[0][0][j] for j, a in enumerate(args))
        first = lanes[0][1] if isinstance(value, tuple) else lanes[0][1][0]
        return first_args, first, tuple(lanes[1:])

    def _define(self, args: tuple, value, implicit: bool = False) -> None:
        values_ = value if isinstance(value, tuple) else (value,)
        if has_lanes(values_):  # a gather in a pure definition: its lanes store at one point, the last one wins
            n = lane_count(self._name, values_)
            value = tuple(lane(v, n - 1) for v in values_) if isinstance(value, tuple) else lane(value, n - 1)
        value = resolve_undef(self, args, value, update=False)
        site = capture_site()
        values = value if isinstance(value, tuple) else (value,)
        vars_ = []
        for a in args:
            if not isinstance(a, Var):
                raise HalideError(
                    f"{site}: the pure definition of Func '{self._name}' must have Vars as arguments, not {a!r}"
                )
            if any(v.same_as(a) for v in vars_):
                raise HalideError(f"{site}: Var '{a.name()}' appears twice on the left of Func '{self._name}'")
            vars_.append(a)
        declared = self._declared_types or ([self._declared_type] if self._declared_type is not None else None)
        if self._declared_dims is not None and len(vars_) != self._declared_dims:
            raise HalideError(
                f'{site}: Error: Func "{self._name}" is constrained to have exactly '
                f"{self._declared_dims} dimensions, but is defined with {len(vars_)} dimensions."
            )
        if declared is not None and [v.type for v in values] != declared:

            def types(ts):  # Halide's spelling: one type, or a parenthesized list
                return str(ts[0]) if len(ts) == 1 else f"({', '.join(map(str, ts))})"

            raise HalideError(
                f'{site}: Error: Func "{self._name}" is constrained to only hold values of type '
                f"{types(declared)} but is defined with values of type "
                f"{types([v.type for v in values])}."
            )
        unbound = [v for e in values for v in free_vars(e) if not any(v == a.name() for a in vars_)]
        if unbound:
            raise HalideError(
                f"{site}: the definition of Func '{self._name}' uses Var '{unbound[0]}', which is "
                f"not one of its arguments ({', '.join(v.name() for v in vars_)})"
            )
        if any(n.kind == "rvar" for e in values for n in walk(e)):
            raise HalideError(
                f"{site}: the pure definition of Func '{self._name}' uses an RVar; RVars may only "
                f"appear in update definitions"
            )
        tag = next_tag()  # one per definition, as Halide's random_variable_counter
        value = (
            tuple(lower_random(v, vars_, tag) for v in value)
            if isinstance(value, tuple)
            else lower_random(value, vars_, tag)
        )
        self._pure = Definition(tuple(vars_), value, site)
        self._updates = []
        touch()

    # --- introspection -------------------------------------------------------------------------
    def name(self) -> str:
        return self._name

    def defined(self) -> bool:
        return self._pure is not None

    def _definition(self) -> Definition:
        if self._pure is None:
            raise HalideError(f"Func '{self._name}' is used but has no definition")
        return self._pure

    def dimensions(self) -> int:
        if self._pure is None:
            if self._declared_dims is None:
                raise HalideError(
                    f'{user_site()}: Error: Can\'t call Func::dimensions on Func "{self._name}" '
                    f"because it is undefined or has no dimension requirements."
                )
            return self._declared_dims
        return len(self._pure.args)

    def outputs(self) -> int:
        """How many values the Func has (its Tuple size), as Halide's ``Func.outputs()``."""
        if self._pure is None:
            if self._declared_types is None and self._declared_type is None:
                raise HalideError(
                    f'{user_site()}: Error: Can\'t call Func::outputs on Func "{self._name}" '
                    f"because it is undefined or has no type requirements."
                )
            return len(self._declared_types) if self._declared_types is not None else 1
        return len(self._pure.values)

    def args(self) -> list[Var]:
        return list(self._definition().args)

    def value(self) -> Expr:
        self._single("value")
        return self._definition().value

    def values(self) -> "Tuple":
        return Tuple(*self._definition().values)

    def num_values(self) -> int:
        return len(self._definition().values) if self._pure is not None else 1

    def _single(self, what: str) -> None:
        if self._pure is not None and len(self._pure.values) > 1:
            raise HalideError(f'Can\'t call Func::{what} on Func "{self._name}" because it returns a Tuple')

    def output_type(self) -> Type:
        if self._pure is None:
            if self._declared_type is not None:
                return self._declared_type
            if self._declared_types is not None and len(self._declared_types) == 1:
                return self._declared_types[0]
            if self._declared_types is not None:
                raise HalideError(
                    f'{user_site()}: Error: Can\'t call Func::type on Func "{self._name}" because it returns a Tuple.'
                )
            raise HalideError(
                f'{user_site()}: Error: Can\'t call Func::type on Func "{self._name}" because it is '
                f"undefined or has no type requirements."
            )
        self._single("type")
        return self._pure.value.type

    def type(self) -> Type:
        return self.output_type()

    def output_types(self) -> list[Type]:
        if self._pure is None:
            return list(self._declared_types) if self._declared_types is not None else [self.output_type()]
        return [v.type for v in self._pure.values]

    def types(self) -> list[Type]:
        """Halide's name for the element types of every Tuple value (``output_types``)."""
        return self.output_types()

    def schedule(self) -> FuncSchedule:
        return self._schedule

    def updates(self) -> list[Definition]:
        return list(self._updates)

    def num_update_definitions(self) -> int:
        return len(self._updates)

    def has_update_definition(self) -> bool:
        return bool(self._updates)

    def update_args(self, i: int = 0) -> list:
        return list(self._update(i).args)

    def update_value(self, i: int = 0) -> Expr:
        return self._update(i).value

    def _update(self, i: int) -> Definition:
        if not 0 <= i < len(self._updates):
            raise HalideError(
                f"{user_site()}: Func '{self._name}' has {len(self._updates)} update definitions; "
                f"there is no update {i}"
            )
        return self._updates[i]

    def update(self, i: int = 0) -> "Stage":
        """The schedule of update definition ``i``: split/reorder/vectorize/parallel/unroll its loops."""
        return Stage(self, i, self._update(i).schedule)

    def __repr__(self) -> str:
        return f"<halide_mlir.Func '{self._name}'>"

    # --- scheduling (recorded; codegen/transform.py maps it to the transform dialect) ----------
    def _set_compute(self, level: LoopLevel) -> "Func":
        self._schedule.compute = level
        self._schedule.padded_copy = ()
        touch()
        return self

    def compute_root(self) -> "Func":
        return self._set_compute(LoopLevel.root())

    def compute_inline(self) -> "Func":
        return self._set_compute(LoopLevel.inlined())

    def compute_at(self, func: "Func", var=None) -> "Func":
        if var is None and hasattr(func, "_stage_index"):  # a hl.LoopLevel (lang/api_extras.py)
            return _api_extras().apply_level(self, func, "compute")
        if not isinstance(func, Func):
            raise HalideError(f"{user_site()}: compute_at of Func '{self._name}' takes a Func and a Var, got {func!r}")
        if func is self:
            raise HalideError(f"{user_site()}: Func '{self._name}' can't be computed at one of its own loops")
        var = translate_renamed_var(func, _var_name(var))
        return self._set_compute(LoopLevel(LevelKind.AT, func, var, capture_site()))

    def compute_with(self, stage, var, align=None) -> "Func":
        """Computed in the loop nest of ``stage`` down to its loop ``var`` (lang/compute_with.py)."""
        from .compute_with import compute_with

        return compute_with(self, stage, var, align)

    def store_root(self) -> "Func":
        self._schedule.store = LoopLevel.root()
        self._schedule.padded_copy = ()
        touch()
        return self

    def store_at(self, func: "Func", var=None) -> "Func":
        if var is None and hasattr(func, "_stage_index"):  # a hl.LoopLevel
            return _api_extras().apply_level(self, func, "store")
        var = translate_renamed_var(func, _var_name(var))
        self._schedule.store = LoopLevel(LevelKind.AT, func, var, capture_site())
        self._schedule.padded_copy = ()
        touch()
        return self

    def _directive(self, kind: DirectiveKind, *args) -> "Func":
        sch = self._stage_schedule()
        if "_renames" in sch.__dict__:  # loops renamed before (lang/rename.py): their first names
            args = translate_renamed(sch, args, self.name())
        sch.directives.append(Directive(kind, args, capture_site()))
        touch()
        return self

    def _stage_schedule(self) -> FuncSchedule:
        return self._schedule

    def split(self, old, outer, inner, factor, tail=None) -> "Func":
        if not isinstance(factor, (int, np.integer)):
            raise HalideError(
                f"{user_site()}: split factor of Func '{self._name}' must be a constant integer, got {factor!r}"
            )
        if tail is not None and not isinstance(tail, TailStrategy):
            raise HalideError(f"{user_site()}: split tail strategy must be a hl.TailStrategy, got {tail!r}")
        return self._directive(
            DirectiveKind.SPLIT, _var_name(old), _var_name(outer), _var_name(inner), int(factor), tail
        )

    def fuse(self, inner, outer, fused) -> "Func":
        return self._directive(DirectiveKind.FUSE, _var_name(inner), _var_name(outer), _var_name(fused))

    def tile(self, x, y, *rest) -> "Func":
        if isinstance(x, (list, tuple)):  # tile(previous, outers, inners, factors[, tail]) / (previous, inners, ...)
            return self._tile_vectors(x, (y, *rest))
        if len(rest) in (6, 7):  # tile(x, y, xo, yo, xi, yi, fx, fy[, tail])
            xo, yo, xi, yi, fx, fy, *tail = rest
        elif len(rest) in (4, 5):  # tile(x, y, xi, yi, fx, fy[, tail]): reuse x, y as the outer vars
            xi, yi, fx, fy, *tail = rest
            xo, yo = x, y
        else:
            raise HalideError(
                f"{user_site()}: tile takes (x, y, xo, yo, xi, yi, fx, fy[, tail]) or (x, y, xi, yi, fx, fy[, tail])"
            )
        t = tail[0] if tail else None
        self.split(x, xo, xi, fx, t)
        self.split(y, yo, yi, fy, t)
        return self.reorder(xi, yi, xo, yo)

    def _tile_vectors(self, previous, rest) -> "Func":
        lists = [r for r in rest if isinstance(r, (list, tuple))]
        tail = rest[len(lists)] if len(rest) > len(lists) else None
        if len(lists) == 3:
            outers, inners, factors = lists
        elif len(lists) == 2:
            inners, factors = lists
            outers = previous
        else:
            raise HalideError(
                f"{user_site()}: tile takes (previous, outers, inners, factors[, tail]) or "
                f"(previous, inners, factors[, tail]) as lists"
            )
        if not len(previous) == len(outers) == len(inners) == len(factors):
            raise HalideError(f"{user_site()}: Vectors passed to Stage::tile must all be the same length.")
        for v, o, i, fct in zip(previous, outers, inners, factors):
            self.split(v, o, i, fct, tail)
        return self.reorder(*inners, *outers)

    def reorder(self, *vars_) -> "Func":
        if len(vars_) == 1 and isinstance(vars_[0], (list, tuple)):
            vars_ = tuple(vars_[0])
        return self._directive(DirectiveKind.REORDER, *[_var_name(v) for v in vars_])

    def vectorize(self, var, factor=None, tail=None) -> "Func":
        self._check_atomic(var)
        if factor is not None:
            inner = Var()  # a fresh name, as Halide's v0, v1 ...
            self.split(var, var, inner, factor, tail)
            var = inner
        return self._directive(DirectiveKind.VECTORIZE, _var_name(var))

    def unroll(self, var, factor=None, tail=None) -> "Func":
        if factor is not None and int(factor) > MAX_UNROLL:
            raise HalideError(
                f"{user_site()}: unroll factor {factor} of Func '{self._name}' is too large "
                f"(at most {MAX_UNROLL}): the loop body would be copied {factor} times"
            )
        if factor is not None:
            inner = Var()  # a fresh name, as Halide's v0, v1 ...
            self.split(var, var, inner, factor, tail)
            var = inner
        return self._directive(DirectiveKind.UNROLL, _var_name(var))

    def parallel(self, var, task_size=None, tail=None) -> "Func":
        self._check_atomic(var)
        if task_size is not None:
            inner = Var()  # a fresh name, as Halide's v0, v1 ...
            self.split(var, var, inner, task_size, tail)
        return self._directive(DirectiveKind.PARALLEL, _var_name(var))

    def atomic(self, override_associativity_test: bool = False) -> "Func":
        """Halide's atomic(): this stage's RVar loops may run in parallel or as vector lanes, each update of the
        Func's value an atomic read-modify-write (codegen/updates.py)."""
        s = self._stage_schedule()
        s.atomic, s.atomic_override = True, bool(override_associativity_test)
        touch()
        return self

    def _check_atomic(self, var) -> None:
        """Halide refuses an atomic parallel or vector RVar loop of an update it can't prove associative and
        commutative (unless override_associativity_test)."""
        s = self._stage_schedule()
        if isinstance(self, Stage) and self._index >= 0 and s.atomic and not s.atomic_override:
            from .rfactor import check_atomic

            check_atomic(self, _var_name(var))

    def serial(self, var) -> "Func":
        return self._directive(DirectiveKind.SERIAL, _var_name(var))

    def reorder_storage(self, *vars_) -> "Func":
        """Not applied yet: intermediates are stored in dimension order here (the storage order never changes
        results, only the memory layout), so it warns (StorageWarning) rather than being dropped silently."""
        for v in vars_:
            _var_name(v)
        warnings.warn(
            f"{user_site()}: Func '{self._name}': reorder_storage is not applied yet; its storage stays in "
            "dimension order (same values)",
            StorageWarning,
            stacklevel=2,
        )
        return self

    def fold_storage(self, var, factor, fold_forward=True) -> "Func":
        """Store ``var`` as a circular buffer of ``factor`` elements: a sliding window keeps only the rows in
        flight (analysis/folding.py; a window it can't fold warns with StorageWarning)."""
        from .small_directives import _var_only

        _var_only(self, var)
        name = _var_name(var)
        try:
            factor = int(factor)
        except TypeError:  # a Param: Halide takes an Expr, compiled code here needs the fold's size
            raise HalideError(
                f"{user_site()}: fold_storage factor of Func '{self._name}' must be a constant integer here, "
                f"got {factor!r}"
            ) from None
        if factor <= 0:
            raise HalideError(f"{user_site()}: fold_storage factor of Func '{self._name}' must be positive")
        names = [v.name() for v in self.args()] if self._pure is not None else [name]
        if name not in names:
            raise HalideError(
                f"{user_site()}: In schedule for {self._name}, could not find var {name} to fold the "
                f"storage of.\nVars: {' '.join(names)}"
            )
        self._schedule.folds[name] = StorageFold(int(factor), bool(fold_forward), capture_site())
        touch()
        return self

    def in_(self, fs=None) -> "Func":
        """The wrapper Func of this Func in ``fs`` (a Func or a list of Funcs), or everywhere (lang/wrappers.py)."""
        from .wrappers import get_wrapper

        return get_wrapper(self._wrapped("in_"), fs, clone=False)

    def clone_in(self, fs) -> "Func":
        """A copy of this Func (definitions and schedule) that ``fs`` call instead (lang/wrappers.py)."""
        from .wrappers import get_wrapper

        return get_wrapper(self._wrapped("clone_in"), fs, clone=True)

    def _wrapped(self, method: str) -> "Func":
        if isinstance(self, Stage):
            raise HalideError(f"{user_site()}: '{method}' is not available on an update stage of Func '{self._name}'")
        return self

    def specialize(self, condition) -> "Stage":
        """A version of this stage's schedule used when ``condition`` (of Params and image sizes) holds at run
        time; schedule it through the Stage returned (lang/specialize.py, analysis/specialize.py)."""
        from .specialize import specialize

        s = specialize(self._stage_schedule(), condition, self._name)
        return SpecializedStage(self._func if isinstance(self, Stage) else self, s)

    def specialize_fail(self, message) -> None:
        """Realizing with none of the earlier specializations' conditions true is an error with ``message``."""
        from .specialize import specialize_fail

        specialize_fail(self._stage_schedule(), message)

    def bound(self, var, min_, extent) -> "Func":
        """``min_``/``extent`` may be Exprs of image sizes and Params (``bound(x, 0, input.width())``): code is
        specialized to them, as to the buffers (analysis/specialize.py resolves them)."""
        from .constraints import bound_value

        return self._directive(
            DirectiveKind.BOUND, _var_name(var), bound_value(min_, "min", self), bound_value(extent, "extent", self)
        )

    def set_estimate(self, var, min_, extent) -> "Func":
        """Autoscheduler hints in Halide; halide_mlir's autoscheduler does not need them (kept for code that
        sets them)."""
        self._estimates[_var_name(var)] = (int(min_), int(extent))
        return self

    def set_estimates(self, estimates) -> "Func":
        for var, (min_, extent) in zip(self.args(), estimates):
            self.set_estimate(var, min_, extent)
        return self

    # --- realization ---------------------------------------------------------------------------
    def realize(self, *args, **kwargs):
        """``realize(sizes=[], target=Target())`` or ``realize(dst, target=Target())`` (a Buffer or a list of
        them), as Halide's; a 0-D Func realizes with no sizes."""
        if len(args) == 1 and not kwargs:  # the common call, without the checks below (~1 us of a ~3 us realize)
            return (_driver_module[0] if _driver_module else _driver()).realize(self, args[0])
        from .target import Target, check_compilable

        if len(args) > 2 or set(kwargs) - {"sizes", "dst", "target"}:
            raise HalideError(
                f"{user_site()}: realize takes (sizes or dst[, target]), got {len(args)} positional "
                f"arguments and {sorted(kwargs)}"
            )
        sizes = args[0] if args else kwargs.get("sizes", kwargs.get("dst", []))
        target = args[1] if len(args) > 1 else kwargs.get("target")
        if target is not None and target != Target():  # Target(): the JIT target, as in Halide
            check_compilable(target, f"realize of Func '{self._name}'")
        return _driver().realize(self, sizes, *([target] if target is not None else []))

    def compile_jit(self, target=None) -> None:
        """Compiling needs sizes here (shapes are specialized), so compile_jit only checks the pipeline (and
        that its GPU schedules suit ``target``); the first realize compiles and caches."""
        from .target import check_compilable

        check_compilable(target, f"compile_jit of Func '{self._name}'")
        _driver().check_target(_driver().front_end(self), target)

    def infer_input_bounds(self, sizes=None, target=None, **kwargs) -> None:
        """Give every ImageParam without a buffer one covering what a realize over ``sizes`` (or into the
        Buffer ``dst``, a bounds query included) reads, constraints applied (lang/constraints.py)."""
        from .constraints import infer_input_bounds

        infer_input_bounds(self, kwargs.pop("dst", kwargs.pop("sizes", sizes)))

    def output_buffer(self):
        """The OutputImageParam of the buffer a realize writes (``dim(i).set_bounds(...)`` constrains it)."""
        if self.num_values() > 1:
            raise HalideError(
                f'{user_site()}: Error: Can\'t call Func::output_buffer on Func "{self._name}" '
                f"because it returns a Tuple."
            )
        return self.output_buffers()[0]

    def output_buffers(self) -> list:
        from .param import FuncOutput

        if not self.defined():
            raise HalideError(f'{user_site()}: Error: Can\'t access output buffer(s) of undefined Func "{self._name}".')
        outs = self.__dict__.get("_output_params")
        if outs is None:
            outs = self._output_params = [FuncOutput(self, k) for k in range(self.num_values())]
        return list(outs)

    def compile_to_mlir(self, sizes, mins=None) -> str:
        return _driver().stages(self, sizes, mins).payload

    def transform_script(self, sizes, mins=None) -> str:
        return _driver().stages(self, sizes, mins).transform

    def compile_to_lowered_mlir(self, sizes, mins=None) -> str:
        return _driver().stages(self, sizes, mins).lowered()

    def compile_to_llvm_ir(self, sizes, mins=None) -> str:
        return _driver().stages(self, sizes, mins).llvm_ir()

    def compile_to_assembly(self, sizes, *args, **kwargs):
        """``compile_to_assembly(filename, arguments, fn_name="", target=...)`` as in Halide (aot/); with a list of
        sizes, the x86 assembly of the pipeline at those sizes, as text."""
        if isinstance(sizes, (str, os.PathLike)):
            return _aot().compile_to_assembly(self, sizes, *args, **kwargs)
        return _driver().stages(self, sizes, *args, **kwargs).assembly()

    # --- ahead of time (halide_mlir/aot): Halide's C ABI, for fixed sizes (the estimates) -------------------------
    def compile_to(self, outputs, arguments, fn_name="", target=None) -> None:
        _aot().compile_to(self, outputs, arguments, fn_name, target)

    def compile_to_static_library(self, filename_prefix, arguments, fn_name="", target=None) -> None:
        _aot().compile_to_static_library(self, filename_prefix, arguments, fn_name, target)

    def compile_to_file(self, filename_prefix, arguments, fn_name="", target=None) -> None:
        _aot().compile_to_file(self, filename_prefix, arguments, fn_name, target)

    def compile_to_object(self, filename, arguments, fn_name="", target=None) -> None:
        _aot().compile_to_object(self, filename, arguments, fn_name, target)

    def compile_to_header(self, filename, arguments, fn_name="", target=None) -> None:
        _aot().compile_to_header(self, filename, arguments, fn_name, target)

    def compile_to_llvm_assembly(self, filename, arguments, fn_name="", target=None) -> None:
        _aot().compile_to_llvm_assembly(self, filename, arguments, fn_name, target)

    def compile_to_bitcode(self, filename, arguments, fn_name="", target=None) -> None:
        _aot().compile_to_bitcode(self, filename, arguments, fn_name, target)

    def compile_to_c(self, filename, arguments, fn_name="", target=None) -> None:
        _aot().compile_to_c(self, filename, arguments, fn_name, target)

    def compile_to_lowered_stmt(self, filename, arguments, fmt=None, target=None) -> None:
        _aot().compile_to_lowered_stmt(self, filename, arguments, fmt or "text", target)

    def infer_arguments(self) -> list:
        return _aot().infer_arguments(self)

    def compile_to_module(self, arguments, fn_name="", target=None):
        from ..aot.module import compile_to_module

        return compile_to_module(self, arguments, fn_name, target)

    def compile_to_callable(self, arguments, target=None):
        from ..aot.callable import Callable

        return Callable(self, arguments)

    def print_loop_nest(self) -> None:
        import sys

        print(_driver().print_loop_nest(self), file=sys.stderr)  # Halide 21 prints it on stderr (its debug stream)


def _lower_random_update(args, exprs, value, site):
    """An update's random calls hashed over its pure Vars and its RVars (Halide's Function::define_update)."""
    tag = next_tag()
    free = [a for a in args if isinstance(a, Var)] + Definition(exprs, value, site).rvars()
    exprs = tuple(lower_random(e, free, tag) for e in exprs)
    value = (
        tuple(lower_random(v, free, tag) for v in value) if isinstance(value, tuple) else lower_random(value, free, tag)
    )
    return exprs, value


def _as_expr_or_none(a):
    return (
        a
        if isinstance(a, Expr)
        else a._as_expr()
        if isinstance(a, ExprOps) and not isinstance(a, FuncRef)
        else to_expr(a)
        if isinstance(a, float)
        else None
    )


def _is_sequence(v) -> bool:
    from .overloads import is_expr_like

    return (
        not isinstance(v, (str, bytes)) and not is_expr_like(v) and hasattr(v, "__len__") and hasattr(v, "__getitem__")
    )


def lambda_func(*args) -> "Func":
    """``hl.lambda_func(x, y, e)``: a Func of the Vars given, defined as ``e``; ``lambda_func(e)`` uses the
    implicit Vars (``_0``, ``_1``, ...) that ``e`` mentions."""
    if not args:
        raise HalideError(f"{user_site()}: lambda_func takes Vars and an Expr")
    *vars_, e = args
    if not all(isinstance(v, Var) for v in vars_):
        raise HalideError(f"{user_site()}: lambda_func takes Vars and then an Expr, got {args!r}")
    values = tuple(to_expr(v) for v in e) if isinstance(e, (tuple, list, Tuple)) else to_expr(e)
    if not vars_:
        names = sorted(
            {
                v
                for x in (values if isinstance(values, tuple) else (values,))
                for v in free_vars(x)
                if Var(v).is_implicit()
            },
            key=lambda n: Var(n).implicit_index(),
        )
        vars_ = [Var(n) for n in names]
    f = Func(f"lambda_{next(_fresh)}")
    f[tuple(vars_)] = values
    return f


def _driver():
    """The compile driver. lang is the bottom layer: the one place it reaches up (Halide's API puts realize and
    compile_to_* on Func), imported when first called."""
    if not _driver_module:
        from .. import driver

        _driver_module.append(driver)
    return _driver_module[0]


_driver_module: list = []  # (an import statement per realize costs ~0.7 us)


def _aot():
    """Ahead-of-time compilation (halide_mlir/aot), imported when first used."""
    from .. import aot

    return aot


def _api_extras():
    from . import api_extras

    return api_extras


def _var_name(v) -> str:
    from .rdom import RDom, RVar

    if hasattr(v, "_schedule_var"):  # a hl.VarOrRVar
        v = v._schedule_var()
    if isinstance(v, (Var, RVar)):
        return v.name()
    if isinstance(v, RDom) and v.dimensions() == 1:
        return v.x.name()
    if isinstance(v, str):
        return v
    raise HalideError(f"{user_site()}: expected a Var, got {v!r}")


class Stage(Func):
    """``f.update(i)``: the loop-scheduling methods of Func, applied to one update definition."""

    def __init__(self, func: Func, index: int, schedule: FuncSchedule):  # (no super().__init__)
        self._func, self._index, self._update_schedule = func, index, schedule
        self._name = func.name()

    def _stage_schedule(self) -> FuncSchedule:
        return self._update_schedule

    def split(self, old, outer, inner, factor, tail=None) -> "Stage":
        from .rdom import RVar

        if tail == TailStrategy.RoundUp and not isinstance(old, RVar) and _var_name(old) in self._inner_vars():
            # Halide's Stage::split: a RoundUp split of a tile's inner variable may run some points of the update
            # twice (when its factor does not divide the enclosing one), which changes what a reduction computes
            raise HalideError(
                f"{user_site()}: Can't use TailStrategy::RoundUp for splitting {_var_name(old)} in update "
                f"definition of {self._name}.update({self._index}). It may redundantly recompute some values, which "
                f"could change the meaning of the algorithm. Use TailStrategy::GuardWithIf instead."
            )
        return super().split(old, outer, inner, factor, tail)

    def _inner_vars(self) -> set:
        """The variables split off as the inner part of a split so far, and those split or fused from them."""
        inner_vars: set = set()
        for d in self._update_schedule.directives:
            if d.kind == DirectiveKind.SPLIT:
                old, outer, inner = d.args[:3]
                inner_vars.add(inner)
                if old in inner_vars:
                    inner_vars.add(outer)
            elif d.kind == DirectiveKind.FUSE:
                if d.args[0] in inner_vars or d.args[1] in inner_vars:
                    inner_vars.add(d.args[2])
        return inner_vars

    def unscheduled(self) -> "Stage":
        """Says this update is left unscheduled on purpose (no "has not been scheduled" warning)."""
        if self._update_schedule.directives:
            raise HalideError(
                f"{user_site()}: unscheduled() on update {self._index} of Func '{self._name}', which has been scheduled"
            )
        self._update_schedule.unscheduled = True
        touch()
        return self

    def rfactor(self, *args) -> Func:
        """``rfactor(rv, v)`` or ``rfactor([(rv, v), ...])``: the intermediate Func ``f_intm`` of this reduction
        over the factored RVars made pure Vars; this update becomes its merge (lang/rfactor.py)."""
        from .rfactor import rfactor

        if len(args) == 2:
            pairs = [tuple(args)]
        elif (
            len(args) == 1
            and isinstance(args[0], (list, tuple))
            and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in args[0])
        ):
            pairs = [tuple(p) for p in args[0]]
        else:
            raise HalideError(f"{user_site()}: rfactor takes (RVar, Var) or a list of (RVar, Var) pairs")
        return rfactor(self, pairs)

    def __getattr__(self, item):
        raise HalideError(f"{user_site()}: '{item}' is not available on an update stage of Func '{self._name}'")

    def __repr__(self) -> str:
        return f"<halide_mlir.Stage '{self._name}'.update({self._index})>"


class SpecializedStage(Stage):
    """``f.specialize(cond)``: the stage's schedule under that condition (Halide's Stage for the specialized
    definition): loop directives and nested specializations, recorded on the Specialization."""

    def __init__(self, func: Func, spec):  # (no super().__init__)
        self._func, self._index, self._update_schedule = func, -1, spec.schedule
        self._name, self._condition = func.name(), spec.condition

    def __repr__(self) -> str:
        return f"<halide_mlir.Stage '{self._name}' specialized on {self._condition}>"


install_memoize(Func)  # memoize, async_, ring_buffer (lang/memoize.py)
install_prefetch(Func)  # prefetch (lang/prefetch.py)
install_small_directives(Func)  # partition, align_*, bound_*, hoist_storage... (lang/small_directives.py)
install_unsupported(Func)  # the Halide directives not implemented yet refuse (lang/unsupported.py)
install_tracing(Func)  # trace_stores/trace_loads/trace_realizations (lang/debugging.py)
