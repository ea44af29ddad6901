"""Halide's Python Generator framework: ``@hl.generator``, ``hl.Generator``, ``hl.GeneratorParam``, the
``Input*``/``Output*`` declarations, ``hl.GeneratorContext``, ``Generator.call`` and ``hl.main()``.

A Generator is built in stages, as Halide's: its GeneratorParams are collected (class attributes in declaration
order) and replaced by their values, then its Inputs and Outputs (whose type and dimensions a ``name.type`` /
``name.dim`` GeneratorParam may give), then ``configure()`` may add more, then each Input becomes an ImageParam or
Param and each Output a Func named after it, and ``generate()`` defines them. The result is a Pipeline of the
Outputs, used by ``call`` (inside another pipeline), ``compile_to_callable`` (the JIT) or ``hl.main()`` (ahead of
time, aot/). The messages are Halide's, since Halide's tests match them.
"""

from __future__ import annotations

import contextvars
import inspect
import os
import re
import sys
import warnings

from .error import HalideError
from .lang.buffer import Buffer
from .lang.expr import Expr
from .lang.func import Func
from .lang.param import ImageParam, Param
from .lang.pipeline import AutoschedulerParams, Pipeline
from .lang.target import Target
from .lang.types import Bool, Float, Int, Type, UInt

__all__ = [
    "Generator",
    "GeneratorParam",
    "GeneratorContext",
    "InputBuffer",
    "InputScalar",
    "OutputBuffer",
    "OutputScalar",
    "active_generator_context",
    "alias",
    "generator",
    "main",
    "create_callable_from_generator",
]


def _check(cond, msg: str) -> None:
    if not cond:
        raise HalideError(msg)


# a C identifier that doesn't start with '_' and has no '__'; "generator_params" is call()'s keyword
_NAME = re.compile(r"(?!.*__)[A-Za-z0-9][A-Za-z0-9_]*")


def _valid_name(name: str) -> str:
    _check(
        isinstance(name, str) and name != "generator_params" and _NAME.fullmatch(name),
        f"The name '{name}' is not valid for a GeneratorParam, Input, or Output.",
    )
    return name


def _types(t) -> list:
    """A declared type (None: unspecified; bool/int/float: UInt(1)/Int(32)/Float(32)) as a list of Types."""
    if t is None or t is type(None):
        return []
    if isinstance(t, (list, tuple)):
        return [x for v in t for x in _types(v)]
    if t is bool:
        return [UInt(1)]
    if t is int:
        return [Int(32)]
    if t is float:
        return [Float(32)]
    _check(isinstance(t, Type), f"Expected a Halide Type, but saw: {t}")
    return [t]


_TYPE_NAMES = {
    "bool": Bool(),
    "float16": Float(16),
    "float32": Float(32),
    "float64": Float(64),
    "int8": Int(8),
    "int16": Int(16),
    "int32": Int(32),
    "uint8": UInt(8),
    "uint16": UInt(16),
    "uint32": UInt(32),
}


def _parse_type_list(s: str) -> list:
    out = []
    for t in s.split(","):
        _check(t in _TYPE_NAMES, f"The value {t} cannot be parsed as a Type.")
        out.append(_TYPE_NAMES[t])
    return out


class _Requirement:
    """What an Input/Output must be: its types (several for a Tuple output) and dimensions (0: scalar)."""

    def __init__(self, name: str, types: list, dims: int):
        self.name, self.types, self.dims = _valid_name(name), list(types), dims
        _check(
            self.types,
            f"No type has been specified for {name}. Try specifying one in code, or by setting "
            f"'{name}.type' as a GeneratorParam.",
        )
        _check(
            dims >= 0,
            f"No dimensionality has been specified for {name}. Try specifying one in code, or by "
            f"setting '{name}.dim' as a GeneratorParam.",
        )

    def check(self, types, dims: int) -> None:
        types = _types(types)
        _check(
            len(types) == len(self.types),
            f"Type mismatch for {self.name}: expected {len(self.types)} types but saw {len(types)}",
        )
        for i, (want, saw) in enumerate(zip(self.types, types)):
            _check(want == saw, f"Type mismatch for {self.name}:{i}: expected {want} saw {saw}")
        _check(dims == self.dims, f"Dimensions mismatch for {self.name}: expected {self.dims} saw {dims}")


class GeneratorParam:
    """A compile-time parameter (str, bool, int, float or Type list); the attribute reads as its value."""

    def __init__(self, value):
        self._value = value

    @staticmethod
    def _parse(name: str, kind: type, value):
        if kind is str:
            return str(value)
        if kind is bool:
            if isinstance(value, str):  # from the command line: Halide's spellings
                _check(value in ("true", "false", "True", "False", "1", "0"), f"Unable to parse bool: {value}")
                return value in ("true", "True", "1")
            return bool(value)
        if kind is int:
            return int(value)
        if kind is float:
            return float(value)
        if kind in (Type, list):
            return _types(value) if isinstance(value, (list, Type)) else _parse_type_list(str(value))
        raise HalideError(f"GeneratorParam {name} has unsupported type {kind}")

    def _decl(self):
        return [Int(32)], 0  # a placeholder Requirement (the name checks are what matters)

    def _replacement(self, value, r: _Requirement):
        kind = Type if isinstance(self._value, Type) else type(self._value)
        default = GeneratorParam._parse(r.name, kind, self._value)
        return default if value is None else GeneratorParam._parse(r.name, kind, value)


class InputBuffer(ImageParam):
    """``hl.InputBuffer(type, dimensions)`` (None: set by the ``name.type`` / ``name.dim`` GeneratorParams);
    an ImageParam named after the attribute once the Generator is built."""

    def __init__(self, type, dimensions):  # (the ImageParam is made by _replacement, when the type is known)
        self._g_types, self._g_dims = _types(type), -1 if dimensions is None else int(dimensions)

    def _decl(self):
        return self._g_types, self._g_dims

    _direction = "input"

    def _replacement(self, value, r: _Requirement):
        if value is None:
            return ImageParam(r.types[0], r.dims, r.name)
        _check(
            isinstance(value, (Buffer, ImageParam)),
            f"Input {r.name} requires an ImageParam or Buffer argument when using call(), but saw {value}",
        )
        _check(value.defined(), f"Cannot set the value for {r.name} to an undefined value.")
        if isinstance(value, Buffer):
            im = ImageParam(value.type(), value.dimensions(), r.name)
            im.set(value)
            value = im
        r.check([value.type()], value.dimensions())
        return value


class InputScalar(Param):
    """``hl.InputScalar(type)``: a Param named after the attribute."""

    def __init__(self, type):
        self._g_types = _types(type)

    def _decl(self):
        return self._g_types, 0

    _direction = "input"

    def _replacement(self, value, r: _Requirement):
        if value is None:
            return Param(r.types[0], r.name)
        if isinstance(value, (bool, int, float)):
            p = Param(r.types[0], r.name)
            p.set(value)
            return p
        _check(
            isinstance(value, Param),
            f"Input {r.name} requires a Param (or scalar literal) argument when using call(), but saw {value}.",
        )
        r.check([value.type()], 0)
        return value


class OutputBuffer(Func):
    """``hl.OutputBuffer(type(s), dimensions)``: a Func named after the attribute, defined by generate()."""

    def __init__(self, types, dimensions):
        self._g_types, self._g_dims = _types(types), -1 if dimensions is None else int(dimensions)

    def _decl(self):
        return self._g_types, self._g_dims

    _direction = "output"

    def _replacement(self, value, r: _Requirement):
        if value is None:
            return _output_func(r.types if len(r.types) > 1 else r.types[0], r.dims, r.name)
        _check(
            isinstance(value, (Buffer, Func)),
            f"Output {r.name} requires a Func or Buffer argument when using call(), but saw {value}",
        )
        _check(value.defined(), f"Cannot set the value for {r.name} to an undefined value.")
        r.check([value.type()] if isinstance(value, Buffer) else value.output_types(), value.dimensions())
        if isinstance(value, Buffer):  # a Buffer compiled into the pipeline as this output
            f = _output_func(r.types[0], r.dims, r.name)
            f[tuple(_implicit(r.dims))] = value[tuple(_implicit(r.dims))]
            value = f
        return value


def _output_func(types, dims, name) -> Func:
    """An Output's Func keeps the Output's name (the C argument's) however often the Generator is built."""
    f = Func(types, dims, name)
    f._name = name
    return f


class OutputScalar(OutputBuffer):
    """``hl.OutputScalar(type)``: a zero-dimensional output."""

    def __init__(self, types):
        super().__init__(types, 0)

    def _replacement(self, value, r: _Requirement):
        if value is None:
            return _output_func(r.types if len(r.types) > 1 else r.types[0], 0, r.name)
        _check(isinstance(value, Expr), f"Output {r.name} requires an Expr argument when using call(), but saw {value}")
        r.check(value.type(), 0)
        f = _output_func(value.type(), 0, r.name)
        f[()] = value
        return f


def _implicit(n: int):
    from .lang.var import Var

    return [Var(f"_{i}") for i in range(n)]


_IO = (InputBuffer, InputScalar, OutputBuffer, OutputScalar)

# --- GeneratorContext ----------------------------------------------------------------------------------------

_context: contextvars.ContextVar = contextvars.ContextVar("halide_mlir_generator_context", default=None)


class GeneratorContext:
    """``hl.GeneratorContext(target[, autoscheduler_params])``: the Target (and autoscheduler) Generators made
    inside ``with context:`` use."""

    def __init__(self, target=None, autoscheduler_params=None):
        self._target = target if isinstance(target, Target) else Target(str(target)) if target else Target("host")
        self._autoscheduler = autoscheduler_params if autoscheduler_params is not None else AutoschedulerParams()
        self._tokens = []

    def target(self) -> Target:
        return self._target

    def autoscheduler_params(self) -> AutoschedulerParams:
        return self._autoscheduler

    def __enter__(self) -> "GeneratorContext":
        self._tokens.append(_context.set(self))
        return self

    def __exit__(self, *exc) -> None:
        _context.reset(self._tokens.pop())

    def __repr__(self) -> str:
        return f"<halide_mlir.GeneratorContext target={self._target}>"


def active_generator_context() -> GeneratorContext:
    ctx = _context.get()
    _check(isinstance(ctx, GeneratorContext), "There is no active GeneratorContext")
    return ctx


# --- Generator -----------------------------------------------------------------------------------------------

# the build stages, in order
_CREATED, _GP_CREATED, _GP_REPLACED, _IO_CREATED, _CONFIGURED, _IO_REPLACED, _BUILT = range(7)


def _declared(cls):
    """(name, value) of the class's attributes, bases first, in declaration order (not dir()'s sorted order)."""
    for base in cls.__bases__:
        yield from _declared(base)
    yield from cls.__dict__.items()


class Generator:
    """Base class of Python Generators (``@hl.generator`` adds it to a class that doesn't derive from it)."""

    _halide_registered_name = ""

    def __init__(self, generator_params: dict | None = None):
        ctx = active_generator_context()
        self._target = ctx.target()
        self._autoscheduler = AutoschedulerParams(ctx.autoscheduler_params().name, ctx.autoscheduler_params().extra)
        self._stage = _CREATED
        self._requirements: dict = {}
        self._gp, self._inputs, self._outputs = {}, {}, {}
        self._arginfos_in, self._arginfos_out = [], []
        self._unhandled: dict = {}
        self._replacements: dict = {}
        self._in_configure = 0
        self._pipeline = None
        self._pipeline_requirements = []
        for name, v in _declared(type(self)):
            if isinstance(v, GeneratorParam):
                self._add(name, v, self._gp, None)
        self._stage = _GP_CREATED
        for k, v in getattr(self, "_halide_alias_generator_params", {}).items():
            self._set_generatorparam_value(k, v)
        if generator_params:
            _check(isinstance(generator_params, dict), "generator_params must be a dict")
            for k, v in generator_params.items():
                self._set_generatorparam_value(k, v)

    # --- what generate() uses
    def context(self) -> GeneratorContext:
        return GeneratorContext(self._target, self._autoscheduler)

    def target(self) -> Target:
        return self._target

    def autoscheduler(self) -> AutoschedulerParams:
        return self._autoscheduler

    def using_autoscheduler(self) -> bool:
        return bool(self._autoscheduler.name)

    def natural_vector_size(self, t: Type) -> int:
        return self._target.natural_vector_size(t)

    def add_requirement(self, condition, *error_args) -> None:
        _check(self._stage < _BUILT, "add_requirement() must be called before the pipeline is built")
        self._pipeline_requirements.append((condition, list(error_args)))

    def allow_out_of_order_inputs_and_outputs(self) -> bool:
        return False

    def configure(self) -> None:
        pass

    def generate(self) -> None:
        raise HalideError(f"Generator {self._get_name()} must define generate()")

    def add_input(self, name: str, io) -> None:
        _check(self._in_configure > 0, "Can only call add_input() from the configure() method.")
        _check(
            not hasattr(self, name),
            f"Cannot call add_input('{name}') because the class already has a member of that name.",
        )
        _check(
            isinstance(io, (InputBuffer, InputScalar)), f"Cannot call add_input() with an object of type '{type(io)}'."
        )
        self._add(name, io, self._inputs, self._arginfos_in)

    def add_output(self, name: str, io) -> None:
        _check(self._in_configure > 0, "Can only call add_output() from the configure() method.")
        _check(
            not hasattr(self, name),
            f"Cannot call add_output('{name}') because the class already has a member of that name.",
        )
        _check(
            isinstance(io, (OutputBuffer, OutputScalar)),
            f"Cannot call add_output() with an object of type '{type(io)}'.",
        )
        self._add(name, io, self._outputs, self._arginfos_out)

    # --- building
    def _get_name(self) -> str:
        return self._halide_registered_name

    def _add(self, name: str, io, table: dict, arginfos) -> None:
        _valid_name(name)
        _check(
            name not in self._requirements, f"The name '{name}' is used more than once in Generator {self._get_name()}."
        )
        types, dims = io._decl()
        if f"{name}.type" in self._unhandled:
            _check(
                not types,
                f"Cannot set the GeneratorParam {name}.type for {self._get_name()} because the value "
                f"is explicitly specified in the Python source.",
            )
            types = GeneratorParam._parse(f"{name}.type", Type, self._unhandled.pop(f"{name}.type"))
        if f"{name}.dim" in self._unhandled:
            _check(
                dims == -1,
                f"Cannot set the GeneratorParam {name}.dim for {self._get_name()} because the value "
                f"is explicitly specified in the Python source.",
            )
            dims = GeneratorParam._parse(f"{name}.dim", int, self._unhandled.pop(f"{name}.dim"))
        self._requirements[name] = _Requirement(name, types, dims)
        table[name] = io
        if arginfos is not None:
            arginfos.append(name)

    def _set_generatorparam_value(self, name: str, value) -> None:
        _check(name != "target", f"The GeneratorParam named {name} cannot be set by set_generatorparam_value.")
        _check(self._stage == _GP_CREATED, f"GeneratorParam {name} can't be set once the Generator is built")
        if name in self._gp:
            old = self._gp[name]._value
            kind = Type if isinstance(old, Type) else type(old)
            self._gp[name] = GeneratorParam(GeneratorParam._parse(name, kind, value))
        elif name in ("autoscheduler", "autoscheduler.name"):  # (the second: the name lessons use)
            _check(not self._autoscheduler.name, f"The GeneratorParam {name} cannot be set more than once")
            self._autoscheduler.name = str(value)
        elif name.startswith("autoscheduler."):
            key = name[len("autoscheduler.") :]
            _check(key not in self._autoscheduler.extra, f"The GeneratorParam {name} cannot be set more than once")
            self._autoscheduler.extra[key] = value
        else:
            self._unhandled[name] = value

    def _advance(self, stage: int) -> None:
        if self._stage < _GP_REPLACED <= stage:
            self._replace(self._gp)
            self._stage = _GP_REPLACED
        if self._stage < _IO_CREATED <= stage:
            seen_output = False
            for name, io in _declared(type(self)):
                if not isinstance(io, _IO):
                    continue
                is_input = io._direction == "input"
                if is_input and seen_output and not self.allow_out_of_order_inputs_and_outputs():
                    warnings.warn(
                        "Generators will always produce code that orders all Inputs before all Outputs; "
                        "this Generator declares the Inputs and Outputs in a different order, so the "
                        "calling convention may not be as expected.",
                        stacklevel=3,
                    )
                seen_output |= not is_input
                self._add(
                    name,
                    io,
                    self._inputs if is_input else self._outputs,
                    self._arginfos_in if is_input else self._arginfos_out,
                )
            _check(
                not self._unhandled,
                f"Generator {self._get_name()} has no GeneratorParam(s) named: {list(self._unhandled)}",
            )
            self._stage = _IO_CREATED
        if self._stage < _CONFIGURED <= stage:
            self._in_configure += 1
            try:
                self.configure()
            finally:
                self._in_configure -= 1
            _check(self._outputs, f"Generator '{self._get_name()}' must declare at least one output.")
            self._stage = _CONFIGURED
        if self._stage < _IO_REPLACED <= stage:
            self._replace(self._inputs)
            self._replace(self._outputs)
            self._stage = _IO_REPLACED

    def _replace(self, table: dict) -> None:
        for name, io in table.items():
            value = self._replacements.pop(name, None)
            object.__setattr__(
                self, name, value if value is not None else io._replacement(None, self._requirements[name])
            )

    def __setattr__(self, name, value):
        if name in getattr(self, "_requirements", ()) and getattr(self, "_stage", _CREATED) >= _GP_REPLACED:
            raise AttributeError(f"Invalid write to field '{name}'")
        object.__setattr__(self, name, value)

    def _bind_input(self, name: str, value) -> None:
        self._advance(_CONFIGURED)
        _check(name in self._inputs, f"There is no input with the name: {name}")
        self._replacements[name] = self._inputs[name]._replacement(value, self._requirements[name])

    def _build_pipeline(self) -> Pipeline:
        if self._pipeline is not None:
            return self._pipeline
        self._advance(_IO_REPLACED)
        with self.context():
            self.generate()
        funcs = []
        for name in self._arginfos_out:
            f = getattr(self, name)
            _check(f.defined(), f"Output '{name}' was not defined.")
            self._requirements[name].check(f.output_types(), f.dimensions())
            funcs.append(f)
        self._pipeline = Pipeline(funcs)
        if self._pipeline_requirements:
            from .aot.requirements import add_requirements

            add_requirements(self._pipeline, self._pipeline_requirements)
        self._stage = _BUILT
        return self._pipeline

    def _input_arguments(self) -> list:
        return [getattr(self, n) for n in self._arginfos_in]

    def _output_funcs(self) -> list:
        return [getattr(self, n) for n in self._arginfos_out]

    def _apply_autoscheduler(self, pipeline: Pipeline) -> None:
        if self._autoscheduler.name:
            pipeline.apply_autoscheduler(self._target, self._autoscheduler)

    def _schedule_part(self, func) -> None:
        """One output of several, autoscheduled on its own just before it is compiled (aot/multi.py)."""
        Pipeline(func).apply_autoscheduler(self._target, self._autoscheduler)

    @classmethod
    def call(cls, *args, **kwargs):
        """This Generator's Outputs as Funcs of the given inputs (Buffers/ImageParams/Funcs, Params/numbers), to
        use inside another pipeline: one Func, or a tuple of them."""
        g = cls()
        gp = kwargs.pop("generator_params", {})
        _check(isinstance(gp, dict), "generator_params must be a dict")
        for k, v in gp.items():
            g._set_generatorparam_value(k, v)
        g._advance(_CONFIGURED)
        n = len(g._arginfos_in)
        _check(
            len(args) <= n,
            f"Generator '{g._get_name()}' allows at most {n} positional args, but {len(args)} were specified.",
        )
        given = []
        for name, v in zip(g._arginfos_in, args):
            given.append(name)
            g._bind_input(name, v)
        for k, v in kwargs.items():
            _check(k in g._arginfos_in, f"Unknown input '{k}' specified via keyword argument.")
            _check(k not in given, f"Input {k} specified multiple times.")
            given.append(k)
            g._bind_input(k, v)
        _check(len(given) == n, f"Generator '{g._get_name()}' requires {n} args, but {len(given)} were specified.")
        g._build_pipeline()
        outs = g._output_funcs()
        return outs[0] if len(outs) == 1 else tuple(outs)

    def compile_to_callable(self):
        pipeline = self._build_pipeline()
        self._apply_autoscheduler(pipeline)
        from .aot.callable import Callable

        return Callable(pipeline, self._input_arguments(), self._arginfos_out)


# --- registration --------------------------------------------------------------------------------------------

_registry: dict = {}


def _check_name_free(name: str) -> None:
    # interactive sessions (and notebooks) redefine generators as they go
    _check(hasattr(sys, "ps1") or name not in _registry, f"The Generator name {name} is already in use.")


def generator(name: str = ""):
    """``@hl.generator(name=...)``: registers the class (made a Generator subclass if it isn't one)."""

    def register(cls):
        _check(inspect.isclass(cls), "@generator can only be used on classes.")
        n = name or (cls.__qualname__ if cls.__module__ == "__main__" else f"{cls.__module__}.{cls.__qualname__}")
        _check_name_free(n)
        bases = (cls,) if issubclass(cls, Generator) else (cls, Generator)
        new = type(
            cls.__name__,
            bases,
            {"_halide_registered_name": n, "__module__": cls.__module__, "__qualname__": cls.__qualname__},
        )
        _registry[n] = new
        return new

    return register


def alias(**aliases):
    """``@hl.alias(other_name={"param": value}, ...)``: the Generator registered again under other names, with
    those GeneratorParams set."""

    def register(cls):
        for k, v in aliases.items():
            _valid_name(k)
            _check(
                hasattr(cls, "_halide_registered_name") and cls._halide_registered_name,
                "@alias can only be used in conjunction with @generator.",
            )
            _check_name_free(k)
            _check(type(v) is dict, f"The Generator alias {k} specifies something other than a dict.")
            _registry[k] = type(k, (cls,), {"_halide_registered_name": k, "_halide_alias_generator_params": v})
        return cls

    return register


def _create(name: str, context: GeneratorContext, params: dict | None = None) -> Generator:
    cls = _registry.get(name)
    if cls is None:
        raise HalideError(f"Generator not found: {name}\nDid you mean:\n" + "".join(f"    {n}\n" for n in _registry))
    with context:
        return cls(generator_params=dict(params or {}))


def create_callable_from_generator(context, name: str, generator_params: dict | None = None):
    """``hl.create_callable_from_generator(context_or_target, name, generator_params)``."""
    ctx = context if isinstance(context, GeneratorContext) else GeneratorContext(context)
    return _create(name, ctx, generator_params).compile_to_callable()


# --- hl.main(): Halide's generator command line ---------------------------------------------------------------

_USAGE = """
gengen
  [-g GENERATOR_NAME] [-f FUNCTION_NAME] [-o OUTPUT_DIR] [-r RUNTIME_NAME]
  [-d 1|0] [-e EMIT_OPTIONS] [-n FILE_BASE_NAME] [-p PLUGIN_NAME]
  [-t TIMEOUT]
  target=target-string
  [generator_param=value [...]]

 -e  A comma separated list of files to emit: assembly, bitcode, c_header, llvm_assembly, object,
     python_extension, static_library, stmt, stmt_html, conceptual_stmt, conceptual_stmt_html.
     If omitted, default value is [c_header, static_library].
"""

# Halide's file name suffixes
_SUFFIX = {
    "assembly": ".s",
    "bitcode": ".bc",
    "c_header": ".h",
    "llvm_assembly": ".ll",
    "object": ".o",
    "python_extension": ".py.cpp",
    "static_library": ".a",
    "stmt": ".stmt",
    "stmt_html": ".stmt.html",
    "conceptual_stmt": ".conceptual.stmt",
    "conceptual_stmt_html": ".conceptual.stmt.html",
    "c_source": ".halide_generated.cpp",
    "cpp_stub": ".stub.h",
    "featurization": ".featurization",
    "function_info_header": ".function_info.h",
    "hlpipe": ".hlpipe",
    "pytorch_wrapper": ".pytorch.h",
    "registration": ".registration.cpp",
    "schedule": ".schedule.h",
    "device_code": ".device_code",
    "compiler_log": ".halide_compiler_log",
}
_ALIASES = {"cpp": "c_source", "h": "c_header", "html": "stmt_html", "o": "object", "py.c": "python_extension"}


def main(argv: list | None = None) -> None:
    """``hl.main()``: Halide's generator command line over the registered Python Generators:
    ``-g NAME -o DIR [-e kinds] [-f FN] [-n BASE] [-p PLUGINS] target=... [param=value ...]``."""
    argv = list(sys.argv if argv is None else argv)
    flags = {"-d": "0", "-e": "", "-f": "", "-g": "", "-n": "", "-o": "", "-p": "", "-r": "", "-v": "0", "-t": "0"}
    params: dict = {}
    i = 1
    while i < len(argv):
        a = argv[i]
        if not a.startswith("-"):
            k, eq, v = a.partition("=")
            _check(eq and k and v and "=" not in v, _USAGE)
            params[k] = v
        elif a in flags:
            _check(i + 1 < len(argv), _USAGE)
            flags[a] = argv[i + 1]
            i += 1
        elif a == "-s":
            raise HalideError(
                "-s is no longer supported for setting autoscheduler; specify autoschduler.name=NAME "
                "instead.\n" + _USAGE
            )
        else:
            raise HalideError(f"Unknown flag: {a}\n{_USAGE}")
        i += 1
    from .lang.pipeline import load_plugin

    for lib in filter(None, flags["-p"].split(",")):
        load_plugin(lib)
    if "auto_schedule" in params:
        raise HalideError(
            "auto_schedule=true is no longer supported for enabling autoscheduling; specify "
            "autoscheduler=NAME instead.\n" + _USAGE
        )
    if "machine_params" in params:
        raise HalideError(
            "machine_params is no longer supported as a GeneratorParam; specify "
            "autoscheduler.FIELD=VALUE instead.\n" + _USAGE
        )
    _check(flags["-d"] in ("0", "1"), "-d must be 0 or 1\n" + _USAGE)
    _check(flags["-v"] in ("0", "1"), "-v must be 0 or 1\n" + _USAGE)
    _check(flags["-d"] == "0", "-d 1 (a gradient module) is not supported by halide_mlir")
    if flags["-r"]:  # a standalone runtime (what CMake's GenRT builds for -no_runtime libraries)
        from .aot.standalone import compile_standalone_runtime

        _check(flags["-o"], "Output directory must be specified (-o)\n" + _USAGE)
        kinds = [_ALIASES.get(k, k) for k in (flags["-e"] or "static_library").split(",")]
        targets = [t for t in params.pop("target", "host").split(",") if t]
        _check(len(targets) == 1, "halide_mlir builds a standalone runtime for one target at a time")
        compile_standalone_runtime(flags["-r"], flags["-o"], kinds, targets[0])
        return
    _check(_registry, "No generators have been registered and not compiling a standalone runtime\n" + _USAGE)
    if not flags["-g"]:
        raise HalideError(
            "Either -g <name> or -r must be specified; available Generators are:\n"
            + "".join(f"    {n}\n" for n in _registry)
        )
    kinds = []
    for opt in (flags["-e"] or "c_header,static_library").split(","):
        opt = _ALIASES.get(opt, opt)
        _check(
            opt in _SUFFIX, f"Unrecognized emit option: {opt} is not one of [{' '.join(_SUFFIX)}], ignoring.\n{_USAGE}"
        )
        kinds.append(opt)
    targets = [t for t in params.pop("target", "host").split(",") if t]
    _check(
        len(targets) == 1,
        "halide_mlir's generators compile for one target at a time (multi-target libraries are not supported)",
    )
    _check(flags["-o"], "Output directory must be specified (-o)\n" + _USAGE)
    target = Target(targets[0])
    gen = _create(flags["-g"], GeneratorContext(target))
    for k, v in params.items():
        gen._set_generatorparam_value(k, v)
    fn_name = flags["-f"] or flags["-g"]
    fn_name = fn_name.split("::")[-1]  # a C++ namespace qualifier: the C function is the last component
    base = os.path.join(flags["-o"], flags["-n"] or fn_name)
    os.makedirs(flags["-o"], exist_ok=True)
    from .aot.cross import library_suffix, object_suffix

    suffix = {**_SUFFIX, "object": object_suffix(target), "static_library": library_suffix(target)}  # .obj/.lib
    compile_generator(gen, {k: base + suffix[k] for k in kinds}, fn_name, targets[0])
    if flags["-v"] == "1":
        for k in kinds:
            print(f"Generated file: {base + suffix[k]}")


def compile_generator(gen: Generator, outputs: dict, fn_name: str, target) -> None:
    """Writes ``{kind name: path}`` for the Generator's pipeline compiled as C function ``fn_name``."""
    from .aot import OutputFileType, compile_to

    pipeline = gen._build_pipeline()
    several = len(pipeline.outputs()) > 1 and gen.using_autoscheduler()
    if not several:
        gen._apply_autoscheduler(pipeline)
    compile_to(
        pipeline,
        {OutputFileType(k): p for k, p in outputs.items()},
        gen._input_arguments(),
        fn_name,
        target,
        _schedule_part=gen._schedule_part if several else None,
    )
