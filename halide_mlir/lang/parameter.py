"""Halide's low-level ``hl.Parameter``: the parameter under a Param or an ImageParam (``p.parameter()``), or a new
one (``hl.Parameter(type, is_buffer, dimensions[, name])``). It is a view of that Param/ImageParam: setting a value,
a range, an estimate, a buffer or a constraint through it sets it on the Param, as Halide's share one parameter.
(De)serialization binds pipelines by them (lang/serialize.py)."""

from __future__ import annotations

from ..error import HalideError, HalideTypeError
from .expr import Expr, to_expr
from .source import user_site


class Parameter:
    def __init__(self, *args):
        from .param import ImageParam, Param
        from .types import Type

        self._param = None
        if not args:
            return
        if len(args) == 1 and isinstance(args[0], (Param, ImageParam)):  # (what p.parameter() makes)
            self._param = args[0]
        elif len(args) == 1 and isinstance(args[0], Parameter):
            self._param = args[0]._param
        elif 3 <= len(args) <= 4 and isinstance(args[0], Type) and isinstance(args[1], bool):
            t, is_buffer, dims = args[:3]
            name = args[3] if len(args) == 4 else None
            if not isinstance(dims, int) or (name is not None and not isinstance(name, str)):
                raise HalideTypeError(f"{user_site()}: Parameter(type, is_buffer, dimensions[, name])")
            if is_buffer:
                self._param = ImageParam(t, dims, name) if name else ImageParam(t, dims)
            else:
                if dims != 0:
                    raise HalideError(f"{user_site()}: a scalar Parameter has 0 dimensions, not {dims}")
                self._param = Param(t, name) if name else Param(t)
        else:
            raise HalideTypeError(
                f"{user_site()}: Parameter(), Parameter(parameter) or Parameter(type, is_buffer, dimensions[, name])"
            )

    # --- what every Parameter has ---------------------------------------------------------------------------
    def _p(self):
        if self._param is None:
            raise HalideError(f"{user_site()}: Error: Parameter is undefined")
        return self._param

    def defined(self) -> bool:
        return self._param is not None

    def name(self) -> str:
        return self._p().name()

    def type(self):
        return self._p().type()

    def is_buffer(self) -> bool:
        from .param import ImageParam

        return isinstance(self._p(), ImageParam)

    def dimensions(self) -> int:
        return self._p().dimensions() if self.is_buffer() else 0

    def same_as(self, other) -> bool:
        return isinstance(other, Parameter) and self._param is other._param

    def __repr__(self) -> str:
        if self._param is None:
            return "<halide.Parameter (undefined)>"
        return f"<halide.Parameter '{self.name()}' type {self.type()}>"

    def get_argument_estimates(self):
        from .api_extras import ArgumentEstimates
        from .rdom import Range

        ae = ArgumentEstimates()
        if self.is_buffer():
            est = getattr(self._param, "_estimates", None) or [None] * self.dimensions()
            ae.buffer_estimates = [Range(*e) if e is not None and None not in e else Range() for e in est]
        else:
            ae.scalar_min, ae.scalar_max = self.min_value(), self.max_value()
            ae.scalar_estimate, ae.scalar_def = self.estimate(), self.default_value()
        return ae

    # --- scalars --------------------------------------------------------------------------------------------
    def _scalar(self, what: str):
        if self.is_buffer():
            raise HalideError(f"{user_site()}: Error: Parameter {self.name()} is a Buffer ({what})")
        return self._param

    def scalar_expr(self) -> Expr:
        from .expr import const

        p = self._scalar("scalar_expr")
        return const(p.get(), p.type())

    def scalar(self):
        """The value (Halide's binding reads it as a bool; here, the value in the Param's type)."""
        return self._scalar("scalar").get()

    def set_scalar(self, *args) -> None:
        """``set_scalar(value)`` or ``set_scalar(type, value)`` (the type must be the Parameter's)."""
        from .types import Type

        p = self._scalar("set_scalar")
        if len(args) == 2 and isinstance(args[0], Type):
            if args[0] != p.type():
                raise HalideError(
                    f"{user_site()}: Error: Param<{p.type()}> cannot be accessed as scalar of type {args[0]}"
                )
            args = args[1:]
        if len(args) != 1:
            raise HalideTypeError(f"{user_site()}: set_scalar(value) or set_scalar(type, value)")
        p.set(args[0])

    def _expr_attr(self, attr: str) -> Expr:
        v = getattr(self._scalar(attr), attr, None)
        return v if isinstance(v, Expr) else Expr() if v is None else to_expr(v)

    def min_value(self) -> Expr:
        return self._scalar("min_value").min_value()

    def max_value(self) -> Expr:
        return self._scalar("max_value").max_value()

    def set_min_value(self, expr) -> None:
        self._scalar("set_min_value").set_min_value(expr)

    def set_max_value(self, expr) -> None:
        self._scalar("set_max_value").set_max_value(expr)

    def estimate(self) -> Expr:
        return self._expr_attr("_estimate")

    def set_estimate(self, expr) -> None:
        self._scalar("set_estimate").set_estimate(to_expr(expr))

    def default_value(self) -> Expr:
        return self._expr_attr("_default")

    def set_default_value(self, expr) -> None:
        self._scalar("set_default_value")._default = to_expr(expr)

    # --- buffers --------------------------------------------------------------------------------------------
    def _buffer(self, what: str, dim: int | None = None):
        if not self.is_buffer():
            raise HalideError(f"{user_site()}: Error: Parameter {self.name()} is not a Buffer ({what})")
        if dim is not None and not 0 <= dim < self.dimensions():
            raise HalideError(f"{user_site()}: Error: Dimension {dim} is not in the range [0, {self.dimensions() - 1}]")
        return self._param

    def buffer(self):
        from .buffer import Buffer

        b = self._buffer("buffer")._buffer
        return b if b is not None else Buffer()

    def set_buffer(self, buffer) -> None:
        self._buffer("set_buffer").set(buffer)

    def _constraint(self, dim: int, what: str) -> Expr:
        from .constraints import constraints

        p = self._buffer(f"{what}_constraint", dim)
        e = constraints(p).get((dim, what))
        if e is None and what == "stride" and dim == 0:
            return to_expr(1)  # (Halide's default: dense in dimension 0)
        return e if e is not None else Expr()

    def min_constraint(self, dim: int) -> Expr:
        return self._constraint(dim, "min")

    def extent_constraint(self, dim: int) -> Expr:
        return self._constraint(dim, "extent")

    def stride_constraint(self, dim: int) -> Expr:
        return self._constraint(dim, "stride")

    def set_min_constraint(self, dim: int, expr) -> None:
        self._buffer("set_min_constraint", dim).dim(dim).set_min(expr)

    def set_extent_constraint(self, dim: int, expr) -> None:
        self._buffer("set_extent_constraint", dim).dim(dim).set_extent(expr)

    def set_stride_constraint(self, dim: int, expr) -> None:
        self._buffer("set_stride_constraint", dim).dim(dim).set_stride(expr)

    def _estimate(self, dim: int, k: int) -> Expr:
        p = self._buffer("constraint_estimate", dim)
        est = (getattr(p, "_estimates", None) or [None] * p.dimensions())[dim]
        return Expr() if est is None or est[k] is None else to_expr(est[k])

    def min_constraint_estimate(self, dim: int) -> Expr:
        return self._estimate(dim, 0)

    def extent_constraint_estimate(self, dim: int) -> Expr:
        return self._estimate(dim, 1)

    def _set_estimate(self, dim: int, k: int, expr) -> None:
        p = self._buffer("set_constraint_estimate", dim)
        est = list(getattr(p, "_estimates", None) or [None] * p.dimensions())
        pair = list(est[dim] or (None, None))
        e = to_expr(expr)
        if e.kind != "const":
            raise HalideError(f"{user_site()}: the estimate of {p.name()}.dim({dim}) must be a constant, not {e}")
        pair[k] = int(e.value)
        est[dim] = tuple(pair)
        p._estimates = est

    def set_min_constraint_estimate(self, dim: int, expr) -> None:
        self._set_estimate(dim, 0, expr)

    def set_extent_constraint_estimate(self, dim: int, expr) -> None:
        self._set_estimate(dim, 1, expr)

    def buffer_constraints(self) -> list:
        """Per dimension: (min, extent, stride, min estimate, extent estimate) as Exprs (undefined: none)."""
        p = self._buffer("buffer_constraints")
        return [
            (
                self.min_constraint(d),
                self.extent_constraint(d),
                self.stride_constraint(d),
                self.min_constraint_estimate(d),
                self.extent_constraint_estimate(d),
            )
            for d in range(p.dimensions())
        ]

    def host_alignment(self) -> int:
        return self._buffer("host_alignment").host_alignment()

    def set_host_alignment(self, bytes) -> None:  # noqa: A002 (Halide's keyword)
        self._buffer("set_host_alignment").set_host_alignment(bytes)

    def memory_type(self):
        from .gpu_schedule import MemoryType

        return getattr(self._buffer("memory_type"), "_memory_type", MemoryType.Auto)

    def store_in(self, memory_type) -> None:
        p = self._buffer("store_in")
        p.store_in(memory_type)
        p._memory_type = memory_type
