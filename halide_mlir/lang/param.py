"""Run-time scalars (``hl.Param``) and input images bound at run time (``hl.ImageParam``)."""

from __future__ import annotations

import itertools

import numpy as np

from ..error import HalideError
from .expr import Expr, ExprOps, _wrap_const
from .source import capture_site, user_site
from .types import Int, Type

_fresh = itertools.count()


class Param(ExprOps):
    """``hl.Param(type[, name][, value])``, positionally or by keyword (``type=``, ``name=``, ``value=``)."""

    def __init__(self, *args, **kwargs):
        from . import overloads as o

        def is_value(v) -> bool:
            return o.is_bool(v) or o.is_int(v) or isinstance(v, (float, np.floating))

        _, a = o.match(
            "Param",
            args,
            kwargs,
            [o.Arg("type", o.is_type), o.Arg("name", o.is_str), o.Arg("value", is_value, None)],
            [o.Arg("type", o.is_type), o.Arg("value", is_value, None)],
        )
        self._type = a["type"]
        self._name = a.get("name") or f"p{next(_fresh)}"
        self._value = None  # Halide refuses to run with a Param that was never given a value
        if a["value"] is not None:
            self.set(a["value"])

    def name(self) -> str:
        return self._name

    def set_estimate(self, value) -> "Param":
        """An autoscheduler hint in Halide; halide_mlir's autoscheduler does not need it."""
        self._estimate = value
        return self

    def type(self) -> Type:  # type: ignore[override]
        return self._type

    def set(self, value) -> None:
        self._value = self._converted(value)

    def _converted(self, value):
        """``value`` as ``set`` stores it (Halide's checks and messages); hl.Callable passes it without setting."""
        t = self._type
        if isinstance(value, Expr) or not isinstance(value, (int, float, bool)) and not hasattr(value, "dtype"):
            raise HalideError(f"{user_site()}: Param '{self._name}' of type {t} can't be set to {value!r}")
        if not t.is_float() and (
            float(value) != int(value) or not -(1 << (t.bits() - 1)) <= int(value) < (1 << t.bits())
        ):
            raise HalideError(
                f"{user_site()}: The value {value} cannot be losslessly converted to type {t} (Param '{self._name}')"
            )
        return float(value) if t.is_float() else _wrap_const(int(value), Int(64), t)

    def get(self):
        if self._value is None:
            raise HalideError(
                f"Parameter {self._name} does not have a valid scalar value (call "
                f"{self._name}.set(value) or give it a default)"
            )
        return self._value

    def _as_expr(self) -> Expr:
        return Expr("param", self._type, (), self)

    def parameter(self):
        """Halide's underlying Parameter (binds this input in a deserialized pipeline)."""
        from .serialize import Parameter

        return Parameter(self)

    def __repr__(self) -> str:
        return f"<halide_mlir.Param '{self._name}' of type {self._type}>"


class Dimension:
    """Halide's ``Dimension``: ``param.dim(i)`` of an ImageParam or of a Func's ``output_buffer()``. ``min()``,
    ``extent()``, ``stride()`` are the bound buffer's values as Exprs; ``set_*`` constrain them (lang/constraints.py:
    checked at realize, applied by ``infer_input_bounds``)."""

    def __init__(self, param, i: int):
        self._param, self._i = param, i

    def _field(self, what: str) -> Expr:
        return Expr("buffer_dim", Int(32), (), (self._param, self._i, what))

    def min(self) -> Expr:
        return self._field("min")

    def extent(self) -> Expr:
        return self._field("extent")

    def stride(self) -> Expr:
        return self._field("stride")

    def max(self) -> Expr:
        return self.min() + self.extent() - 1

    def dim(self, i: int) -> "Dimension":
        return self._param.dim(i)

    def set_min(self, min=None) -> "Dimension":  # noqa: A002 (Halide's keyword)
        return self._set("min", min)

    def set_extent(self, extent=None) -> "Dimension":
        return self._set("extent", extent)

    def set_stride(self, stride=None) -> "Dimension":
        return self._set("stride", stride)

    def set_bounds(self, min=None, extent=None) -> "Dimension":  # noqa: A002
        return self._set("min", min)._set("extent", extent)

    def set_estimate(self, min=None, extent=None) -> "Dimension":  # noqa: A002
        est = list(getattr(self._param, "_estimates", None) or [None] * self._param.dimensions())
        est[self._i] = (int(min), int(extent))
        self._param._estimates = est
        if isinstance(self._param, FuncOutput):  # an output's estimates are its Func's, as in Halide
            f = self._param._func
            f.set_estimate(f.args()[self._i], int(min), int(extent))
        return self

    def _set(self, what: str, value) -> "Dimension":
        from .constraints import set_constraint

        set_constraint(self._param, self._i, what, value)
        return self


ImageDim = Dimension  # (the old name)


class OutputImageParam:
    """Halide's ``OutputImageParam``: what ``Func.output_buffer()`` returns, and the base of ImageParam.
    ``hl.OutputImageParam()`` is undefined, as in Halide."""

    def __init__(self):
        self._defined, self._type, self._dims, self._name, self._buffer = False, None, 0, "", None

    def defined(self) -> bool:
        return self._defined

    def _check_defined(self) -> None:
        if not self._defined:
            raise HalideError(f"{user_site()}: this {type(self).__name__} is undefined")

    def name(self) -> str:
        self._check_defined()
        return self._name

    def type(self) -> Type:
        self._check_defined()
        return self._type

    def dimensions(self) -> int:
        self._check_defined()
        return self._dims

    def set_estimates(self, estimates) -> "OutputImageParam":
        """An autoscheduler hint in Halide; halide_mlir's autoscheduler does not need it."""
        self._estimates = [tuple(int(v) for v in e) for e in estimates]
        return self

    def dim(self, i: int) -> Dimension:
        self._check_defined()
        if not isinstance(i, (int, np.integer)) or not 0 <= i < self._dims:
            raise HalideError(f"{user_site()}: {self._name} has {self._dims} dimensions; there is no dimension {i}")
        return Dimension(self, int(i))

    def width(self) -> Expr:
        return self.dim(0).extent()

    def height(self) -> Expr:
        return self.dim(1).extent()

    def channels(self) -> Expr:
        return self.dim(2).extent()

    def left(self) -> Expr:
        return self.dim(0).min()

    def top(self) -> Expr:
        return self.dim(1).min()

    def right(self) -> Expr:
        return self.dim(0).max()

    def bottom(self) -> Expr:
        return self.dim(1).max()

    def bound_buffer(self):
        if self._buffer is None:
            raise HalideError(
                f"{user_site()}: the size of output buffer '{self._name}' is used before a realize or "
                f"infer_input_bounds gives it one"
            )
        return self._buffer

    def __repr__(self) -> str:  # Halide's text
        kind = type(self).__name__ if type(self) is not FuncOutput else "OutputImageParam"
        if not self._defined:
            return f"<halide.{kind} {kind}()>"
        return f"<halide.{kind} '{self._name}', dims: {self._dims}, type: {self._type}>"


class FuncOutput(OutputImageParam):
    """``f.output_buffer()``: the buffer a realize of ``f`` writes (its constraints live here)."""

    def __init__(self, func, index: int):
        super().__init__()
        types = func.output_types()
        self._func = func
        self._defined, self._type, self._dims = True, types[index], func.dimensions()
        self._name = func.name() if len(types) == 1 else f"{func.name()}.{index}"


class ImageParam(OutputImageParam):
    """``hl.ImageParam(type, dimensions[, name])`` (or by keyword): an input image supplied with
    ``.set(buffer)``. ``hl.ImageParam()`` is undefined, as in Halide."""

    def __init__(self, *args, **kwargs):
        from . import overloads as o

        form, a = o.match(
            "ImageParam",
            args,
            kwargs,
            [],
            [o.Arg("type", o.is_type), o.Arg("dimensions", o.is_int), o.Arg("name", o.is_str, "")],
        )
        self._defined = form == 1
        self._type = a.get("type")
        self._dims = int(a["dimensions"]) if self._defined else 0
        self._name = a.get("name") or f"p{next(_fresh)}"
        self._buffer = None

    def set(self, buffer) -> None:
        from .buffer import Buffer

        if not isinstance(buffer, Buffer):
            buffer = Buffer(buffer)
        if buffer.type() != self._type:
            raise HalideError(
                f"{user_site()}: ImageParam '{self._name}' has type {self._type}, "
                f"but the buffer set to it has type {buffer.type()}"
            )
        if buffer.dimensions() != self._dims:
            raise HalideError(
                f"{user_site()}: ImageParam '{self._name}' has {self._dims} dimensions, "
                f"but the buffer set to it has {buffer.dimensions()}"
            )
        self._buffer = buffer

    def get(self):
        return self._buffer

    def bound_buffer(self):
        if self._buffer is None:
            raise HalideError(
                f"ImageParam '{self._name}' is used by the pipeline but no buffer was set "
                f"(call {self._name}.set(buffer) before realize)"
            )
        return self._buffer

    def parameter(self):
        """Halide's underlying Parameter (binds this input in a deserialized pipeline)."""
        from .serialize import Parameter

        return Parameter(self)

    def in_(self, fs=None):
        """The wrapper Func of this image in ``fs`` (a Func or a list of Funcs), or everywhere: stages a tile
        of the input when scheduled (lang/wrappers.py)."""
        from .wrappers import get_wrapper

        self._check_defined()
        return get_wrapper(self, fs, clone=False)

    def __getitem__(self, args) -> Expr:
        from .func import call_args

        e = Expr("call", self._type, call_args(args, self, self._dims), self)
        e.site = capture_site()
        return e


def _install_tracing() -> None:
    from .debugging import install

    install(ImageParam, ("loads",))  # ImageParam.trace_loads (lang/debugging.py)


_install_tracing()
