"""``hl.Func``: a pure definition over Vars, a schedule, and the realize/compile entry points."""
from __future__ import annotations

import itertools
import warnings

import numpy as np

from ..error import HalideError
from ..analysis.free_vars import walk
from .expr import Expr, ExprOps, to_expr
from .schedule import Directive, FuncSchedule, LoopLevel, TailStrategy, touch
from .source import capture_site, user_site
from .types import Type, as_type
from .var import Var

_fresh = itertools.count()


def call_args(args, callee, dims: int) -> tuple:
    """The index Exprs of ``callee[args]``, checked for count and type."""
    if not isinstance(args, (tuple, list)):
        args = (args,)
    exprs = tuple(to_expr(a) for a in args)
    if len(exprs) != dims:
        raise HalideError(f"{user_site()}: '{callee.name()}' has {dims} dimensions but is called with "
                          f"{len(exprs)} arguments")
    for i, e in enumerate(exprs):
        if e.type.is_float():
            raise HalideError(f"{user_site()}: argument {i} of the call to '{callee.name()}' is {e.type}; "
                              f"Func and Buffer coordinates must be integers")
    from .expr import cast
    from .types import Int
    return tuple(cast(Int(32), e) for e in exprs)


class FuncRef(ExprOps):
    """``f[x, y]`` before we know whether it is read (an Expr) or written (a definition)."""

    def __init__(self, func: "Func", args: tuple):
        self.func, self.args = func, args

    def _as_expr(self) -> Expr:
        f = self.func
        if not f.defined():
            raise HalideError(f"{user_site()}: can't call Func '{f.name()}' because it has not yet been defined")
        e = Expr("call", f.output_type(), call_args(self.args, f, f.dimensions()), f)
        e.site = capture_site()
        return e


class Definition:
    """``f[args] = value``; ``site`` is the user's line, carried into MLIR locations and errors."""

    def __init__(self, args: tuple, value: Expr, site):
        self.args, self.value, self.site = args, value, site


class Func:
    def __init__(self, *args):
        name, self._declared_type, self._declared_dims = None, None, None
        for a in args:
            if isinstance(a, str):
                name = a
            elif isinstance(a, int):
                self._declared_dims = a
            elif not (isinstance(a, (Expr, Var)) or hasattr(a, "_as_expr")):
                self._declared_type = as_type(a)
        if name is not None and "." in name:
            raise HalideError(f"{user_site()}: Func name \"{name}\" is invalid. Func names may not contain the "
                              f"character '.', as it is used internally by Halide as a separator")
        self._name = name if name is not None else f"f{next(_fresh)}"
        self._pure: Definition | None = None
        self._schedule = FuncSchedule()
        for a in args:  # hl.Func(expr): a zero-dimensional Func
            if isinstance(a, (Expr, Var)) or hasattr(a, "_as_expr"):
                self._define((), to_expr(a))

    # --- definitions ---------------------------------------------------------------------------
    def __getitem__(self, args) -> FuncRef:
        if not isinstance(args, (tuple, list)):
            args = (args,)
        return FuncRef(self, tuple(args))

    def __setitem__(self, args, value) -> None:
        if not isinstance(args, (tuple, list)):
            args = (args,)
        if isinstance(value, FuncRef) and value.func is self and value.args is not None:
            value = value._as_expr()
        if isinstance(value, (tuple, list)):
            raise HalideError(f"{user_site()}: Tuple-valued Funcs are not supported yet ('{self._name}')")
        self._define(tuple(args), to_expr(value))

    def _define(self, args: tuple, value: Expr) -> None:
        site = capture_site()
        if self._pure is not None:
            same_args = len(args) == len(self._pure.args) and all(
                isinstance(a, Var) and a.same_as(b) for a, b in zip(args, self._pure.args))
            calls_self = any(n.kind == "call" and n.value is self for n in walk(value))
            if not same_args or calls_self:
                raise HalideError(f"{site}: Func '{self._name}' already has a pure definition; update definitions "
                                  f"(reductions) are not supported yet")
            # Halide treats this as an update that hides the earlier definition, and only warns
            warnings.warn(f"{site}: update definition of Func '{self._name}' completely hides earlier definitions",
                          stacklevel=3)
            self._pure = None
        vars_ = []
        for a in args:
            if not isinstance(a, Var):
                raise HalideError(f"{site}: the pure definition of Func '{self._name}' must have Vars as "
                                  f"arguments, not {a!r} (update definitions are not supported yet)")
            if any(v.same_as(a) for v in vars_):
                raise HalideError(f"{site}: Var '{a.name()}' appears twice on the left of Func '{self._name}'")
            vars_.append(a)
        if self._declared_type is not None and value.type != self._declared_type:
            raise HalideError(f"{site}: Func '{self._name}' was declared {self._declared_type} but defined as "
                              f"{value.type}")
        if self._declared_dims is not None and len(vars_) != self._declared_dims:
            raise HalideError(f"{site}: Func '{self._name}' was declared with {self._declared_dims} dimensions "
                              f"but defined with {len(vars_)}")
        from ..analysis.free_vars import free_vars
        unbound = [v for v in free_vars(value) if not any(v == a.name() for a in vars_)]
        if unbound:
            raise HalideError(f"{site}: the definition of Func '{self._name}' uses Var '{unbound[0]}', which is "
                              f"not one of its arguments ({', '.join(v.name() for v in vars_)})")
        self._pure = Definition(tuple(vars_), value, site)
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
            return self._declared_dims or 0
        return len(self._pure.args)

    def args(self) -> list[Var]:
        return list(self._definition().args)

    def value(self) -> Expr:
        return self._definition().value

    def output_type(self) -> Type:
        if self._pure is None:
            if self._declared_type is not None:
                return self._declared_type
            raise HalideError(f"Func '{self._name}' has no definition, so it has no type")
        return self._pure.value.type

    def type(self) -> Type:
        return self.output_type()

    def output_types(self) -> list[Type]:
        return [self.output_type()]

    def schedule(self) -> FuncSchedule:
        return self._schedule

    def __repr__(self) -> str:
        return f"<halide_mlir.Func '{self._name}'>"

    # --- scheduling (recorded; codegen/transform.py maps it to the transform dialect) ----------
    def _set_compute(self, level: LoopLevel) -> "Func":
        self._schedule.compute = level
        touch()
        return self

    def compute_root(self) -> "Func":
        return self._set_compute(LoopLevel.root())

    def compute_inline(self) -> "Func":
        return self._set_compute(LoopLevel.inlined())

    def compute_at(self, func: "Func", var) -> "Func":
        if not isinstance(func, Func):
            raise HalideError(f"{user_site()}: compute_at of Func '{self._name}' takes a Func and a Var, "
                              f"got {func!r}")
        if func is self:
            raise HalideError(f"{user_site()}: Func '{self._name}' can't be computed at one of its own loops")
        return self._set_compute(LoopLevel("at", func, _var_name(var), capture_site()))

    def store_root(self) -> "Func":
        self._schedule.store = LoopLevel.root()
        touch()
        return self

    def store_at(self, func: "Func", var) -> "Func":
        self._schedule.store = LoopLevel("at", func, _var_name(var), capture_site())
        touch()
        return self

    def _directive(self, kind: str, *args) -> "Func":
        self._schedule.directives.append(Directive(kind, args, capture_site()))
        touch()
        return self

    def split(self, old, outer, inner, factor, tail=None) -> "Func":
        if not isinstance(factor, (int, np.integer)):
            raise HalideError(f"{user_site()}: split factor of Func '{self._name}' must be a constant integer, "
                              f"got {factor!r}")
        if tail is not None and not isinstance(tail, TailStrategy):
            raise HalideError(f"{user_site()}: split tail strategy must be a hl.TailStrategy, got {tail!r}")
        return self._directive("split", _var_name(old), _var_name(outer), _var_name(inner), int(factor), tail)

    def fuse(self, inner, outer, fused) -> "Func":
        return self._directive("fuse", _var_name(inner), _var_name(outer), _var_name(fused))

    def tile(self, x, y, *rest) -> "Func":
        if len(rest) in (6, 7):  # tile(x, y, xo, yo, xi, yi, fx, fy[, tail])
            xo, yo, xi, yi, fx, fy, *tail = rest
        elif len(rest) in (4, 5):  # tile(x, y, xi, yi, fx, fy[, tail]): reuse x, y as the outer vars
            xi, yi, fx, fy, *tail = rest
            xo, yo = x, y
        else:
            raise HalideError(f"{user_site()}: tile takes (x, y, xo, yo, xi, yi, fx, fy[, tail]) or "
                              f"(x, y, xi, yi, fx, fy[, tail])")
        t = tail[0] if tail else None
        self.split(x, xo, xi, fx, t)
        self.split(y, yo, yi, fy, t)
        return self.reorder(xi, yi, xo, yo)

    def reorder(self, *vars_) -> "Func":
        if len(vars_) == 1 and isinstance(vars_[0], (list, tuple)):
            vars_ = tuple(vars_[0])
        return self._directive("reorder", *[_var_name(v) for v in vars_])

    def vectorize(self, var, factor=None, tail=None) -> "Func":
        if factor is not None:
            inner = Var()  # a fresh name, as Halide's v0, v1 ...
            self.split(var, var, inner, factor, tail)
            var = inner
        return self._directive("vectorize", _var_name(var))

    def unroll(self, var, factor=None, tail=None) -> "Func":
        if factor is not None:
            inner = Var()  # a fresh name, as Halide's v0, v1 ...
            self.split(var, var, inner, factor, tail)
            var = inner
        return self._directive("unroll", _var_name(var))

    def parallel(self, var, task_size=None, tail=None) -> "Func":
        if task_size is not None:
            inner = Var()  # a fresh name, as Halide's v0, v1 ...
            self.split(var, var, inner, task_size, tail)
        return self._directive("parallel", _var_name(var))

    def serial(self, var) -> "Func":
        return self._directive("serial", _var_name(var))

    def bound(self, var, min_, extent) -> "Func":
        return self._directive("bound", _var_name(var), int(min_), int(extent))

    # --- realization ---------------------------------------------------------------------------
    def realize(self, sizes, *rest):
        from ..runtime.realize import realize
        return realize(self, sizes, *rest)

    def compile_jit(self, target=None) -> None:
        """Compiling needs sizes here (shapes are specialized), so compile_jit only checks the pipeline;
        the first realize compiles and caches."""
        from ..analysis.pipeline import build_pipeline
        build_pipeline(self)

    def infer_input_bounds(self, sizes) -> None:
        raise HalideError("infer_input_bounds is not supported yet")

    def compile_to_mlir(self, sizes, mins=None) -> str:
        from ..runtime.realize import stages
        return stages(self, sizes, mins).payload

    def transform_script(self, sizes, mins=None) -> str:
        from ..runtime.realize import stages
        return stages(self, sizes, mins).transform

    def compile_to_lowered_mlir(self, sizes, mins=None) -> str:
        from ..runtime.realize import stages
        return stages(self, sizes, mins).lowered()

    def compile_to_llvm_ir(self, sizes, mins=None) -> str:
        from ..runtime.realize import stages
        return stages(self, sizes, mins).llvm_ir()

    def compile_to_assembly(self, sizes, mins=None) -> str:
        from ..runtime.realize import stages
        return stages(self, sizes, mins).assembly()

    def print_loop_nest(self) -> None:
        from ..analysis.loop_nest import loop_nest_text
        print(loop_nest_text(self))


def _var_name(v) -> str:
    if isinstance(v, Var):
        return v.name()
    if isinstance(v, str):
        return v
    raise HalideError(f"{user_site()}: expected a Var, got {v!r}")
