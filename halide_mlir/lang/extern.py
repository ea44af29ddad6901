"""``Func.define_extern`` and ``hl.ExternFuncArgument``: a C function as a pipeline stage (Halide's extern stages).

An extern Func is recorded as a pure definition that reads a stand-in ImageParam per output (``<f>_extern0``...),
so the rest of the compiler sees an ordinary Func reading an input: bounds inference gives the region its consumers
read, and the compiled pieces around it are the JIT's usual code. Before each realize the driver computes that
region, runs the C function over it (Halide's C ABI: the bounds query with null hosts, the Func arguments realized
over the region it asks for, then the real call: runtime/extern.py) and binds the result to the stand-in. So an
extern stage is its own step between compiled pieces, and data flows lang → analysis → codegen → runtime as for
any input; the alternative, an ``llvm.call`` built after bufferization with halide_buffer_t descriptors in IR,
would put a run-time bounds query inside compiled code, which our bounds inference (all at compile time) can't
feed back into the producers' regions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..error import HalideError, HalideTypeError
from .source import capture_site, user_site


class ExternFuncArgument:
    """An argument of an extern stage: a Func, a Buffer, an ImageParam (or OutputImageParam), or an Expr (a
    Param, a constant). ``hl.ExternFuncArgument()`` is undefined, as in Halide."""

    def __init__(self, *args, **kwargs):
        from .buffer import Buffer
        from .expr import Expr, to_expr
        from .func import Func
        from .param import OutputImageParam, Param

        if kwargs or len(args) > 1:
            raise HalideTypeError(f"{user_site()}: ExternFuncArgument takes one Func, Buffer, ImageParam or Expr")
        self.func = self.buffer = self.image_param = self.expr = None
        if not args:
            return
        (a,) = args
        if isinstance(a, ExternFuncArgument):
            self.func, self.buffer, self.image_param, self.expr = a.func, a.buffer, a.image_param, a.expr
        elif isinstance(a, Func):
            self.func = a
        elif isinstance(a, Buffer):
            self.buffer = a
        elif isinstance(a, OutputImageParam):
            self.image_param = a
        elif isinstance(a, (Expr, Param, int, float)) and not isinstance(a, bool) or _is_expr_like(a):
            self.expr = to_expr(a)
        else:
            raise HalideTypeError(
                f"{user_site()}: ExternFuncArgument takes a Func, a Buffer, an ImageParam or an Expr, not {a!r}"
            )

    def is_func(self) -> bool:
        return self.func is not None

    def is_expr(self) -> bool:
        return self.expr is not None

    def is_buffer(self) -> bool:
        return self.buffer is not None

    def is_image_param(self) -> bool:
        return self.image_param is not None

    def defined(self) -> bool:
        return self.is_func() or self.is_expr() or self.is_buffer() or self.is_image_param()

    def __repr__(self) -> str:
        return "<halide_mlir.ExternFuncArgument>"


def _is_expr_like(a) -> bool:
    from .expr import ExprOps

    return isinstance(a, ExprOps)


def _implicit(a) -> ExternFuncArgument:
    """One element of define_extern's ``params``: what Halide's bindings convert implicitly (Expr, Func, Buffer,
    Param, ImageParam); a plain Python number is Halide's TypeError (wrap it: ``hl.Expr(5)``)."""
    if isinstance(a, (int, float, bool)):
        raise HalideTypeError(
            f"{user_site()}: define_extern(): incompatible function arguments: the parameter {a!r} is a Python "
            f"number; pass hl.Expr({a!r}) or hl.ExternFuncArgument({a!r})"
        )
    return a if isinstance(a, ExternFuncArgument) else ExternFuncArgument(a)


@dataclass
class ExternDefinition:
    name: str  # the C symbol
    args: list  # ExternFuncArgument
    types: list  # one Type per output
    standins: list  # ImageParam per output, bound before each realize to what the C function wrote
    site: object


def define_extern(self, function_name, params, types, arguments, mangling=None, device_api=None):
    """``f.define_extern(name, params, type(s), dimensionality or [Vars])``: ``f`` is computed by the C function
    ``name`` (``int name(args..., halide_buffer_t *out...)``, 0 for success), with Halide's C ABI."""
    from .api_extras import NameMangling
    from .expr import Expr
    from .func import Definition, call_args
    from .target import DeviceAPI
    from .param import ImageParam
    from .schedule import touch
    from .types import Type
    from .var import Var

    site = capture_site()
    if not isinstance(function_name, str) or not isinstance(params, (list, tuple)):
        raise HalideTypeError(f"{user_site()}: define_extern(function_name: str, params: list, types, arguments)")
    type_list = [types] if isinstance(types, Type) else list(types) if isinstance(types, (list, tuple)) else None
    if not type_list or not all(isinstance(t, Type) for t in type_list):
        raise HalideTypeError(f"{user_site()}: define_extern: types must be a Type or a list of Types, not {types!r}")
    if isinstance(arguments, int) and not isinstance(arguments, bool):
        vars_ = tuple(Var(f"_{i}") for i in range(arguments))
    elif isinstance(arguments, (list, tuple)) and all(isinstance(v, Var) for v in arguments):
        vars_ = tuple(arguments)
    else:
        raise HalideTypeError(
            f"{user_site()}: define_extern: arguments must be a dimensionality or a list of Vars, not {arguments!r}"
        )
    if mangling is not None and NameMangling(int(mangling)) == NameMangling.CPlusPlus:
        raise HalideError(
            f"{user_site()}: define_extern of Func '{self.name()}': NameMangling.CPlusPlus is not supported by "
            f'halide_mlir (extern stages are C functions: declare yours extern "C")'
        )
    if device_api is not None and device_api != DeviceAPI.Host:
        raise HalideError(f"{user_site()}: define_extern of Func '{self.name()}': only DeviceAPI.Host is supported")
    if self.defined():
        raise HalideError(
            f'{user_site()}: Error: In extern definition for Func "{self.name()}":\nFunc with a pure definition '
            f"cannot have an extern definition."
        )
    args = [_implicit(a) for a in params]
    for a in args:
        if not a.defined():
            raise HalideError(f"{user_site()}: define_extern of Func '{self.name()}': an argument is undefined")
        if a.is_func() and not a.func.defined():
            raise HalideError(f"{user_site()}: define_extern: Func '{a.func.name()}' is an argument but is undefined")
    standins = [
        ImageParam(t, len(vars_), f"{self.name()}_extern" + (f"{i}" if len(type_list) > 1 else ""))
        for i, t in enumerate(type_list)
    ]
    for i, p in enumerate(standins):
        p._extern_of = (self, i)
    calls = []
    for p in standins:
        c = Expr("call", p.type(), call_args(vars_, p, len(vars_)), p)
        c.site = site
        calls.append(c)
    self._pure = Definition(vars_, calls[0] if len(calls) == 1 else tuple(calls), site)
    self._updates = []
    self._extern = ExternDefinition(function_name, args, type_list, standins, site)
    touch()


def extern_of(f):
    """The ExternDefinition of Func ``f``, or None."""
    return f.__dict__.get("_extern")


def standin_of(holder):
    """(extern Func, output index) of a stand-in ImageParam, else None."""
    return getattr(holder, "_extern_of", None)


def is_extern(self) -> bool:
    return extern_of(self) is not None


def extern_function_name(self) -> str:
    e = extern_of(self)
    return "" if e is None else e.name
