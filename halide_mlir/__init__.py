"""halide_mlir: Halide's Python API, compiled through upstream MLIR (linalg on tensors + transform dialect)."""

from .error import (
    AutoVectorizeWarning,
    CSourceWarning,
    HalideError,
    HalideTypeError,
    InternalError,
    ParallelAsLanesWarning,
    SerialUpdateWarning,
    SlowPathWarning,
    StorageWarning,
    StridedReadWarning,
    UnrollWarning,
    AsyncWarning,
    ComputeAtWarning,
    ComputeWithWarning,
    MemoizeWarning,
    PrefetchWarning,
)
from .error import UnsafeCacheWarning  # noqa: F401  (the disk cache's directory is not private)
from .lang.buffer import Buffer
from .lang.expr import Expr
from .lang.func import Func, FuncRef, FuncTupleElementRef, Tuple, lambda_func
from .runtime.realize import Realization
from .settings import set_auto_vectorize
from .lang.operators import (
    abs,
    acos,
    asin,
    atan,
    atan2,
    cast_to as cast,
    ceil,
    clamp,
    cos,
    cosh,
    exp,
    f32,
    f64,
    floor,
    i8,
    i16,
    i32,
    i64,
    log,
    max,
    min,
    pow,
    round,
    select,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
    u8,
    u16,
    u32,
    u64,
)
from .lang.boundary import BoundaryConditions
from .analysis.autodiff import Derivative, propagate_adjoints
from .lang.functions import *  # noqa: F401,F403  (mux, lerp, hypot, is_nan ...: Halide's everyday ops)
from .lang.functions import __all__ as _functions_all
from .lang.intrinsics import *  # noqa: F401,F403  (widening/saturating/halving ops, hl.u8_sat ...)
from .lang.intrinsics import __all__ as _intrinsics_all
from .lang.api_extras import *  # noqa: F401,F403  (LoopLevel, VarOrRVar, refusals: docs/api-parity.md)
from .lang.api_extras import __all__ as _api_extras_all, install as _install_api_extras
from .lang.func import Stage
from .lang.serialize import Parameter, deserialize_parameters, deserialize_pipeline, serialize_pipeline
from .lang.random import random_float, random_int, random_uint
from .lang.fast_math import fast_cos, fast_exp, fast_inverse, fast_inverse_sqrt, fast_log, fast_pow, fast_sin
from .lang.debugging import print_ as print, print_when  # noqa: F401,A004  (Halide's names; print stays out of __all__)
from .lang.inline_reductions import argmax, argmin, maximum, minimum, product, sum
from .lang.param import Dimension, ImageParam, OutputImageParam, Param
from .lang.pipeline import AutoSchedulerResults, AutoschedulerParams, Pipeline, load_plugin
from .lang.target import (
    DeviceAPI,
    Target,
    TargetArch,
    TargetFeature,
    TargetOS,
    TargetProcessorTune,
    get_host_target,
    get_jit_target_from_environment,
    get_target_from_environment,
    host_supports_target_device,
    target_feature_for_device_api,
)
from .lang.rdom import RDom, Range, RVar
from .lang.schedule import Partition, PrefetchBoundStrategy, TailStrategy
from .lang.memoize import EvictionKey
from .runtime.memo import memoization_cache_cleanup, memoization_cache_evict, memoization_cache_set_size
from .lang.compute_with import LoopAlignStrategy
from .lang.gpu_schedule import MemoryType
from .lang.types import BFloat, Bool, Float, Handle, Int, Type, TypeCode, UInt
from .lang.var import Var
from .lang.functions import evaluate as evaluate_may_gpu  # (evaluates on the CPU)
from .aot import Argument, ArgumentKind, OutputFileType, StmtOutputFormat
from .aot.callable import Callable
from .aot.module import LinkageType, Module, link_modules
from .autotune import autotune  # the function; `python -m halide_mlir.autotune` is its CLI
from .generator import (
    Generator,
    GeneratorContext,
    GeneratorParam,
    InputBuffer,
    InputScalar,
    OutputBuffer,
    OutputScalar,
    active_generator_context,
    alias,
    create_callable_from_generator,
    generator,
    main,
)

# Halide's implicit Vars: hl._ (the placeholder for the remaining dimensions) and hl._0 ... hl._9
_ = Var("_")
_0, _1, _2, _3, _4, _5, _6, _7, _8, _9 = (Var.implicit(i) for i in range(10))

__all__ = [
    "Derivative",
    "propagate_adjoints",
    "fast_cos",
    "fast_exp",
    "fast_inverse",
    "fast_inverse_sqrt",
    "fast_log",
    "fast_pow",
    "fast_sin",
    "HalideError",
    "InternalError",
    "SlowPathWarning",
    "AutoVectorizeWarning",
    "CSourceWarning",
    "UnrollWarning",
    "ParallelAsLanesWarning",
    "SerialUpdateWarning",
    "StorageWarning",
    "StridedReadWarning",
    "AsyncWarning",
    "ComputeAtWarning",
    "ComputeWithWarning",
    "MemoizeWarning",
    "PrefetchWarning",
    "set_auto_vectorize",
    "TailStrategy",
    "LoopAlignStrategy",
    "Partition",
    "PrefetchBoundStrategy",
    "autotune",
    "BoundaryConditions",
    "argmax",
    "argmin",
    "maximum",
    "minimum",
    "product",
    "sum",
    "Buffer",
    "Expr",
    "Pipeline",
    "Target",
    "AutoschedulerParams",
    "AutoSchedulerResults",
    "get_host_target",
    "get_jit_target_from_environment",
    "get_target_from_environment",
    "load_plugin",
    "Func",
    "FuncRef",
    "Tuple",
    "Realization",
    "ImageParam",
    "Param",
    "RDom",
    "RVar",
    "Range",
    "Var",
    "Type",
    "Bool",
    "Float",
    "Int",
    "UInt",
    "abs",
    "acos",
    "asin",
    "atan",
    "atan2",
    "cast",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "exp",
    "f32",
    "f64",
    "floor",
    "i8",
    "i16",
    "i32",
    "i64",
    "log",
    "max",
    "min",
    "pow",
    "round",
    "select",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
    "u8",
    "u16",
    "u32",
    "u64",
    *_functions_all,
    "HalideTypeError",
    "evaluate_may_gpu",
    "Argument",
    "ArgumentKind",
    "OutputFileType",
    "StmtOutputFormat",
    "Callable",
    "Module",
    "LinkageType",
    "link_modules",
]

# the rest of Halide's API surface (issue 15)
__all__ += [
    "FuncTupleElementRef",
    "lambda_func",
    "random_float",
    "random_int",
    "random_uint",
    "DeviceAPI",
    "TargetArch",
    "TargetFeature",
    "TargetOS",
    "TargetProcessorTune",
    "host_supports_target_device",
    "target_feature_for_device_api",
    "BFloat",
    "Handle",
    "TypeCode",
    "Parameter",
    "deserialize_parameters",
    "deserialize_pipeline",
    "serialize_pipeline",
    "MemoryType",
    "print_when",
    "Dimension",
    "OutputImageParam",
]

# the Generator framework (issue 17)
__all__ += [
    "Generator",
    "GeneratorContext",
    "GeneratorParam",
    "InputBuffer",
    "InputScalar",
    "OutputBuffer",
    "OutputScalar",
    "active_generator_context",
    "alias",
    "create_callable_from_generator",
    "generator",
    "main",
]
__all__ += ["EvictionKey", "memoization_cache_cleanup", "memoization_cache_evict", "memoization_cache_set_size"]
__all__ += _intrinsics_all  # Halide's integer intrinsics and target queries (issue 15, lang/intrinsics.py)
__all__ += [*_api_extras_all, "Stage"]  # the rest of Halide's surface (lang/api_extras.py)
_install_api_extras()
