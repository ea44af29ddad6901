"""``Func.compile_to_callable`` / ``hl.Callable``: a pipeline called with explicit arguments (Halide's Python API).

The arguments are those given to compile_to_callable (ImageParams and Params, in that order), then the output
Buffers, positionally or by name. A call binds them for the duration of the call only (the ImageParams' Buffers
and the Params' values are restored after it: a Callable never changes what a later ``realize`` sees) and
realizes into the outputs given, through the JIT's caches (compiled once per output size and input shapes).
"""

from __future__ import annotations

import numpy as np

from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.param import ImageParam, Param
from ..lang.source import user_site
from .arguments import argument_of


class Callable:
    def __init__(self, func, arguments, output_names=None):
        """``func``: a Func or a Pipeline (a Generator's: its outputs named ``output_names``)."""
        from .. import driver
        from ..lang.pipeline import Pipeline

        self._func = func
        funcs = func.outputs() if isinstance(func, Pipeline) else [func]
        self._pipeline = func if isinstance(func, Pipeline) else None
        args = [argument_of(a) for a in arguments]
        given = {id(a._source) for a in args}
        for f in funcs:
            p = driver.front_end(f)
            for h in [*p.inputs, *p.params]:
                if not isinstance(h, Buffer) and id(h) not in given:
                    kind = "buffer" if isinstance(h, ImageParam) else "parameter"
                    raise HalideError(
                        f"{user_site()}: Generated code refers to {kind} {h.name()}, which was not "
                        f"found in the argument list"
                    )
        outputs = []
        for i, f in enumerate(funcs):
            name = output_names[i] if output_names else f.name()
            n = len(f.output_types())
            outputs += [name] if n == 1 else [f"{name}_{k}" for k in range(n)]
        self._inputs = [a._source for a in args]
        self._names = [a.name for a in args] + outputs
        self._index = {n: i for i, n in enumerate(self._names)}
        self._n_outputs = len(outputs)

    def __call__(self, *args, **kwargs):
        names, n = self._names, len(self._names)
        if len(args) > n:
            raise HalideError(f"Expected at most {n} positional arguments, but saw {len(args)}.")
        values = list(args) + [None] * (n - len(args))
        for k, v in kwargs.items():
            i = self._index.get(k)
            if i is None:
                raise HalideError(f"Unknown argument '{k}' specified via keyword.")
            if i < len(args) or values[i] is not None:
                raise HalideError(f"Argument {k} specified multiple times.")
            values[i] = v
        if len(args) < n and not kwargs:
            raise HalideError(f"Expected exactly {n} positional arguments, but saw {len(args)}.")
        for name, v in zip(names, values):
            if v is None:
                raise HalideError(f"Argument {name} was not specified by either positional or keyword argument.")
        saved = []
        try:
            for src, name, v in zip(self._inputs, names, values):
                if isinstance(src, ImageParam):
                    saved.append((src, "_buffer", src._buffer))
                    src.set(_buffer(name, v))
                elif isinstance(src, Param):
                    if not isinstance(v, (int, float, bool, np.number)):
                        raise HalideError(f"Argument {name}: {v!r} is not an instance of a scalar ({src.type()})")
                    saved.append((src, "_value", src._value))
                    src.set(v)
            outs = [_buffer(name, v) for name, v in zip(names[-self._n_outputs :], values[-self._n_outputs :])]
            if self._pipeline is not None:
                from .requirements import check

                check(self._pipeline)
            self._func.realize(outs if len(outs) > 1 else outs[0])
        finally:
            for obj, attr, old in reversed(saved):
                setattr(obj, attr, old)


def _buffer(name: str, v) -> Buffer:
    if isinstance(v, Buffer):
        return v
    if isinstance(v, np.ndarray):
        return Buffer(v)
    raise HalideError(f"Argument {name}: {v!r} is not an instance of Buffer (or a numpy array)")
