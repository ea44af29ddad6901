"""The rest of Halide 21's Python surface (issue 15, docs/api-parity.md): ``LoopLevel`` and ``VarOrRVar`` as values,
small enums and records (``NameMangling``, ``ArgInfo*``, ``ArgumentEstimates``), Func/Stage/Pipeline/Param/RDom
methods that Halide's bindings have and ours lacked, and the names halide_mlir cannot honour yet, each refusing
with a HalideError that says why (never an AttributeError that reads like a typo, never a silent no-op).

Installed onto the classes by ``install()`` (called from halide_mlir/__init__.py), so func.py stays small.
"""

from __future__ import annotations

import enum
import os
import shutil
import tempfile

from ..error import HalideError, HalideTypeError
from .expr import REQUIRE, Expr, binary, to_expr
from .extern import ExternFuncArgument  # (Func.define_extern's arguments: lang/extern.py)
from .scatter_gather import gather, scatter  # (several stores per update: lang/scatter_gather.py)
from .source import user_site
from .undef import undef


# --- values ----------------------------------------------------------------------------------------------------
class LoopLevel:
    """Where a Func is computed or stored, as a value: ``LoopLevel(f, x)``, ``LoopLevel.root()``,
    ``LoopLevel.inlined()``; ``f.compute_at(level)`` / ``f.store_at(level)`` take one."""

    def __init__(self, func=None, var=None, stage_index: int = -1):
        from .func import Func
        from .schedule import LevelKind

        if func is None and var is None:
            self._kind = LevelKind.INLINE
            self._func = self._var = None
        else:
            if not isinstance(func, Func):
                raise HalideTypeError(f"{user_site()}: LoopLevel takes a Func and a Var or RVar, got {func!r}")
            self._kind, self._func, self._var = LevelKind.AT, func, var
        self._stage_index = stage_index

    @staticmethod
    def root() -> "LoopLevel":
        from .schedule import LevelKind

        level = LoopLevel()
        level._kind = LevelKind.ROOT
        return level

    @staticmethod
    def inlined() -> "LoopLevel":
        return LoopLevel()

    def set(self, other: "LoopLevel") -> None:
        """Halide's mutable LoopLevel: this level becomes ``other`` (a schedule given it later sees the change only
        when the schedule is made after the set, as halide_mlir records levels by value)."""
        self._kind, self._func, self._var = other._kind, other._func, other._var
        self._stage_index = other._stage_index

    def stage_index(self) -> int:
        return self._stage_index

    def __repr__(self) -> str:
        return "<halide_mlir.LoopLevel>"


def apply_level(func, level: LoopLevel, what: str):
    """``func.compute_at(level)`` / ``func.store_at(level)`` with a LoopLevel value."""
    from .schedule import LevelKind

    if level._kind == LevelKind.ROOT:
        return func.compute_root() if what == "compute" else func.store_root()
    if level._kind == LevelKind.INLINE:
        if what == "compute":
            return func.compute_inline()
        raise HalideError(f"{user_site()}: store_at(LoopLevel.inlined()) of Func '{func.name()}' is not supported")
    return (func.compute_at if what == "compute" else func.store_at)(level._func, level._var)


class VarOrRVar:
    """A Var or an RVar where a schedule takes either (Halide's implicit conversion, as a value)."""

    def __init__(self, v, is_rvar: bool | None = None):
        from .rdom import RDom, RVar
        from .var import Var

        if isinstance(v, str):
            if is_rvar is None:
                raise HalideTypeError(f"{user_site()}: VarOrRVar(name, is_rvar) needs both arguments")
            v = RVar(v) if is_rvar else Var(v)
        elif isinstance(v, RDom):
            if v.dimensions() != 1:
                raise HalideError(f"{user_site()}: a VarOrRVar from an RDom needs a 1-D RDom")
            v = v.x
        elif not isinstance(v, (Var, RVar)):
            raise HalideTypeError(f"{user_site()}: VarOrRVar takes a Var, an RVar, an RDom or (name, is_rvar)")
        self._v = v
        self.is_rvar = isinstance(v, RVar)

    @property
    def var(self):
        from .var import Var

        return self._v if not self.is_rvar else Var(self._v.name())

    @property
    def rvar(self):
        from .rdom import RVar

        return self._v if self.is_rvar else RVar(self._v.name())

    def name(self) -> str:
        return self._v.name()

    def _schedule_var(self):
        return self._v


class NameMangling(enum.IntEnum):
    Default = 0
    C = 1
    CPlusPlus = 2


class ArgInfoKind(enum.IntEnum):
    Scalar = 0
    Function = 1
    Buffer = 2


class ArgInfoDirection(enum.IntEnum):
    Input = 0
    Output = 1


class ArgInfo:
    """A Generator argument's description (name, direction, kind, types, dimensions)."""

    def __init__(
        self,
        name: str = "",
        dir: ArgInfoDirection = ArgInfoDirection.Input,  # noqa: A002 - Halide's name
        kind: ArgInfoKind = ArgInfoKind.Scalar,
        types: tuple = (),
        dimensions: int = 0,
    ):
        self.name, self.dir, self.kind, self.types, self.dimensions = name, dir, kind, list(types), dimensions

    def __repr__(self) -> str:
        return f"<halide_mlir.ArgInfo '{self.name}'>"


class ArgumentEstimates:
    """An Argument's estimates for the autoschedulers (undefined Exprs and no buffer estimates by default)."""

    def __init__(self):
        self.scalar_def = self.scalar_min = self.scalar_max = self.scalar_estimate = Expr()
        self.buffer_estimates: list = []


class BufferDimension:
    """One dimension of a Buffer (what ``buffer.dim(i)`` describes): min, extent, stride, max."""

    def __init__(self, *args, **kwargs):
        raise HalideTypeError(f"{user_site()}: halide_mlir.BufferDimension: No constructor defined!")

    @classmethod
    def _of(cls, d) -> "BufferDimension":
        self = object.__new__(cls)
        self._d = d
        return self

    def min(self) -> int:
        return self._d.min()

    def extent(self) -> int:
        return self._d.extent()

    def stride(self) -> int:
        return self._d.stride()

    def max(self) -> int:
        return self._d.max()


def install_dir() -> str:
    """The directory halide_mlir is installed in (Halide's: its install prefix)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- refusals --------------------------------------------------------------------------------------------------
def _refusal(name: str, why: str):
    def refuse(*args, **kwargs):
        raise HalideError(f"{user_site()}: {name} is not supported by halide_mlir: {why} (docs/api-parity.md)")

    refuse.__name__ = name
    refuse.__doc__ = f"Halide's ``{name}``: {why}; raises HalideError."
    return refuse


user_context_value = _refusal("user_context_value", "the JIT passes no user_context")


def compile_standalone_runtime(outputs, target):
    """Halide's runtime alone, for libraries built with ``-no_runtime`` (aot/standalone.py): ``outputs`` a file name
    (an object) or a dict {OutputFileType.object/static_library: path}; the dict form returns it, as Halide's."""
    from ..aot.standalone import compile_standalone_runtime as build_runtime
    from ..aot import OutputFileType

    as_dict = isinstance(outputs, dict)
    wanted = dict(outputs) if as_dict else {OutputFileType.object: outputs}
    for kind, path in wanted.items():
        name = getattr(kind, "name", str(kind))
        if name not in ("object", "static_library"):
            raise HalideError(
                f"{user_site()}: compile_standalone_runtime writes an object or a static_library, not {name}"
            )
        with tempfile.TemporaryDirectory() as tmp:  # the builder's intermediate rt.o must not clobber a user's file
            (built,) = build_runtime("runtime", tmp, [name], str(target))
            shutil.move(built, path)
    return wanted if as_dict else None


def require(condition, value, *error_args) -> Expr:
    """``value`` when ``condition`` holds, else Halide's "Requirement Failed" error (a HalideError at realize, a
    Callable call or an AOT call, with ``error_args`` printed). The condition is checked before the pipeline runs,
    so it must be made of Params and constants (analysis/pipeline.py collects it; aot/requirements.py evaluates
    it); one reading a Var or a Func would need errors raised from compiled code, which halide_mlir has not."""
    from ..aot.requirements import Requirement

    c, v = to_expr(condition), to_expr(value)
    if c.kind == "const":
        if not c.value:
            msg = " ".join(str(a) for a in error_args)
            raise HalideError(f"{user_site()}: Requirement Failed: ({condition}) {msg}")
        return v
    try:
        req = Requirement(c, list(error_args))
    except HalideError as e:
        raise HalideError(
            f"{user_site()}: require() with a condition of Vars or Funcs is not supported by halide_mlir yet (no "
            f"run-time errors in compiled code): {e}"
        ) from None
    return Expr(REQUIRE, v.type, (v,), req)


FUNC_REFUSALS = {
    "compile_to_conceptual_stmt": "halide_mlir has no Halide IR Stmt to print (see compile_to_lowered_stmt)",
    "copy_to_device": "explicit device copies are not implemented (GPU stages copy their own inputs)",
    "copy_to_host": "explicit device copies are not implemented (GPU stages copy their own outputs)",
}
STAGE_REFUSALS = ("dump_argument_list",)
PIPELINE_REFUSALS = ("compile_to_conceptual_stmt",)


def _method_refusal(name: str, why: str):
    def refuse(self, *args, **kwargs):
        owner = self.name() if hasattr(self, "name") and callable(self.name) else type(self).__name__
        raise HalideError(f"{user_site()}: '{owner}': {name} is not supported by halide_mlir: {why}")

    refuse.__name__ = name
    refuse.__doc__ = f"Halide's ``{name}``: {why}; raises HalideError."
    return refuse


# --- methods ---------------------------------------------------------------------------------------------------
def _rvars(self, idx: int = 0) -> list:
    """The RVars update ``idx`` iterates, innermost first."""
    return self._update(idx).rvars()


def _debug_to_file(self, filename):
    """Write each realization of this Func to ``filename`` (format by extension: driver_debug.py)."""
    from .schedule import touch

    if not isinstance(filename, (str, os.PathLike)):
        raise HalideTypeError(f"{user_site()}: debug_to_file takes a file name, not {filename!r}")
    self._debug_file = os.fspath(filename)
    touch()
    return self


def _multitarget_static_library(self, filename_prefix, arguments, targets) -> None:
    """``prefix.a`` and ``prefix.h``: one function per target, the wrapper choosing by CPU features
    (aot/multitarget.py)."""
    from ..aot.multitarget import compile_multitarget

    compile_multitarget(self, str(filename_prefix), arguments, targets, None, library=True)


def _multitarget_object_files(self, filename_prefix, arguments, targets, suffixes) -> None:
    """``prefix-<suffix>.o`` per target, ``prefix_wrapper.o``, ``prefix_runtime.o`` and ``prefix.h``."""
    from ..aot.multitarget import compile_multitarget

    compile_multitarget(self, str(filename_prefix), arguments, targets, list(suffixes), library=False)


def _update_values(self, idx: int = 0):
    from .func import Tuple

    return Tuple(*self._update(idx).values)


def _funcref_size(self) -> int:
    """The number of values of the Func referenced (Halide's FuncRef::size)."""
    return self.func.outputs() if self.func.defined() else 1


def _param_min_value(self) -> Expr:
    return getattr(self, "_range", (Expr(), Expr()))[0]


def _param_max_value(self) -> Expr:
    return getattr(self, "_range", (Expr(), Expr()))[1]


def _param_set_range(self, lo, hi) -> None:
    self._set_min_value(lo)
    self._set_max_value(hi)


def _param_bound(which: int):
    def set_bound(self, v) -> None:
        from .expr import cast
        from .schedule import touch

        e = Expr() if v is None or (isinstance(v, Expr) and not v.defined()) else cast(self.type(), to_expr(v))
        rng = list(getattr(self, "_range", (Expr(), Expr())))
        rng[which] = e
        self._range = tuple(rng)
        touch()  # the range is checked at the next realize (lang/constraints.py)

    return set_bound


def check_param_ranges(inputs) -> None:
    """Before a realize: each Param with a range holds a value inside it (Halide's check and message)."""
    from .param import Param

    for p in inputs:
        rng = getattr(p, "_range", None) if isinstance(p, Param) else None
        if rng is None or p.get() is None:
            continue
        v = p.get()
        lo, hi = (_const_value(e) for e in rng)
        if hi is not None and v > hi:
            raise HalideError(f"{user_site()}: Error: Parameter {p.name()} is {v} but must be at most {hi}")
        if lo is not None and v < lo:
            raise HalideError(f"{user_site()}: Error: Parameter {p.name()} is {v} but must be at least {lo}")


def _const_value(e: Expr):
    if not e.defined():
        return None
    from ..analysis.specialize import evaluate

    return evaluate(e)


def _param_set_then_recheck(original):
    def set(self, value) -> None:  # noqa: A001 - Halide's name
        original(self, value)
        if getattr(self, "_range", None) is not None:
            from .schedule import touch

            touch()  # a realize of an unchanged pipeline re-checks the range (no cached fast path)

    set.__doc__ = original.__doc__
    return set


def _host_alignment(self) -> int:
    return getattr(self, "_host_alignment", 1)


def _set_host_alignment(self, alignment: int):
    if not isinstance(alignment, int) or alignment <= 0:
        raise HalideError(f"{user_site()}: host alignment of '{self.name()}' must be a positive integer")
    self._host_alignment = alignment
    return self


def _image_param_reset(self) -> None:
    """Unbinds the bound buffer (Halide's ImageParam.reset)."""
    self._buffer = None


def _store_in(self, memory_type):
    from .gpu_schedule import MemoryType

    if memory_type not in (MemoryType.Auto, MemoryType.Heap):
        raise HalideError(
            f"{user_site()}: ImageParam '{self.name()}' store_in({memory_type}): only MemoryType.Auto and "
            f"MemoryType.Heap are supported (inputs live in host memory)"
        )
    return self


def _rdom_same_as(self, other) -> bool:
    return self is other


def _rdom_domain(self):
    raise HalideTypeError(
        f"{user_site()}: RDom.domain() returns Halide's internal ReductionDomain, which its bindings cannot convert "
        f"either (Halide raises TypeError)"
    )


def _reflected(kind: str):
    def op(self, other):
        return binary(kind, other, self)

    op.__name__ = f"__r{kind}__"
    return op


def _nonzero(self):
    return self.__bool__()


# Halide's integer value of each member of the schedule enums (its C++ enum order), by member name: int() works,
# and ordering comparisons raise TypeError, as on Halide's pybind11 enums
HALIDE_ENUM_ORDER = {
    "LoopAlignStrategy": "AlignStart AlignEnd NoAlign Auto",
    "MemoryType": "Auto Heap Stack Register GPUShared GPUTexture LockedCache VTCM AMXTile",
    "OutputFileType": "assembly bitcode c_header c_source compiler_log cpp_stub featurization function_info_header "
    "hlpipe llvm_assembly object python_extension pytorch_wrapper registration schedule static_library stmt "
    "conceptual_stmt stmt_html conceptual_stmt_html device_code",
    "Partition": "Auto Never Always",
    "PrefetchBoundStrategy": "Clamp GuardWithIf NonFaulting",
    "StmtOutputFormat": "Text HTML",
    "TailStrategy": "RoundUp GuardWithIf Predicate PredicateLoads PredicateStores ShiftInwards ShiftInwardsAndBlend "
    "RoundUpAndBlend Auto",
}


def _install_enum_ints(cls, order: str) -> None:
    names = [n.lower() for n in order.split()]

    def as_int(self) -> int:
        return names.index(self.name.lower())

    def unordered(self, other):
        return NotImplemented  # (Python raises TypeError)

    cls.__int__ = cls.__index__ = as_int
    for name in ("lt", "le", "gt", "ge"):
        setattr(cls, f"__{name}__", unordered)
    cls.__ne__ = lambda self, other: not (self == other)


def install() -> None:
    from . import extern
    from .rename import rename
    from .func import Func, FuncRef, FuncTupleElementRef, Stage
    from .expr import ExprOps
    from .param import ImageParam, OutputImageParam, Param
    from .pipeline import Pipeline
    from .rdom import RDom

    for name, why in FUNC_REFUSALS.items():
        if not hasattr(Func, name):
            setattr(Func, name, _method_refusal(name, why))
    for name in STAGE_REFUSALS:
        if name not in Stage.__dict__:
            why = FUNC_REFUSALS.get(name, "not implemented yet")
            setattr(Stage, name, _method_refusal(name, why))
    Pipeline.compile_to_multitarget_static_library = _multitarget_static_library
    Pipeline.compile_to_multitarget_object_files = _multitarget_object_files
    for name in PIPELINE_REFUSALS:
        if not hasattr(Pipeline, name):
            setattr(Pipeline, name, _method_refusal(name, FUNC_REFUSALS[name]))
    for name, fn in (
        ("rvars", _rvars),
        ("update_values", _update_values),
        ("is_extern", extern.is_extern),
        ("extern_function_name", extern.extern_function_name),
        ("define_extern", extern.define_extern),
        ("rename", rename),
        ("debug_to_file", _debug_to_file),
        ("compile_to_multitarget_static_library", _multitarget_static_library),
        ("compile_to_multitarget_object_files", _multitarget_object_files),
    ):
        if not hasattr(Func, name):
            setattr(Func, name, fn)
    for cls in (FuncRef, FuncTupleElementRef):
        if not hasattr(cls, "size") and cls is FuncRef:
            cls.size = _funcref_size
    Param.min_value, Param.max_value = _param_min_value, _param_max_value
    Param._set_min_value, Param._set_max_value = _param_bound(0), _param_bound(1)
    Param.set_min_value, Param.set_max_value, Param.set_range = (
        Param._set_min_value,
        Param._set_max_value,
        _param_set_range,
    )
    Param.set = _param_set_then_recheck(Param.set)
    for cls in (OutputImageParam,):
        cls.host_alignment, cls.set_host_alignment, cls.store_in = _host_alignment, _set_host_alignment, _store_in
    ImageParam.reset = _image_param_reset
    RDom.same_as, RDom.domain = _rdom_same_as, _rdom_domain
    from .. import __dict__ as package

    for name, order in HALIDE_ENUM_ORDER.items():
        _install_enum_ints(package[name], order)
    ExprOps.__nonzero__ = _nonzero
    for kind in ("eq", "ne", "lt", "le", "gt", "ge"):
        setattr(ExprOps, f"__r{kind}__", _reflected(kind))


__all__ = [
    "ArgInfo",
    "ArgInfoDirection",
    "ArgInfoKind",
    "ArgumentEstimates",
    "BufferDimension",
    "ExternFuncArgument",
    "LoopLevel",
    "NameMangling",
    "VarOrRVar",
    "compile_standalone_runtime",
    "gather",
    "install_dir",
    "require",
    "scatter",
    "undef",
    "user_context_value",
]
