"""``Func.compile_to_callable`` / ``hl.Callable``: a pipeline called with explicit arguments (Halide's Python API).

The arguments are those given to compile_to_callable (ImageParams and Params, in that order), then the output
Buffers, positionally or by name.

The first call for a signature (the Buffers' shapes, types and mins, the values of Params used as indices) binds
the arguments for the duration of the call only (the ImageParams' Buffers and the Params' values are restored
after it: a Callable never changes what a later ``realize`` sees) and realizes into the outputs given, through the
JIT's caches. It leaves a ``_Plan``: where each argument goes in the compiled function's argument array. A later
call with that signature only checks the arguments and calls the compiled code -- no Param is set and nothing of
the front end runs (a realize's Python was 13-19 us a call; Halide's Callable is ~1 us), so threads may call one
Callable at once. GPU pipelines, specializations, memoized Funcs, Generators' Pipelines and constrained ImageParams
take the first path on every call.
"""

from __future__ import annotations

import ctypes
import weakref

import numpy as np

from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.constraints import constraints
from ..lang.param import ImageParam, Param
from ..lang.schedule import generation
from ..lang.source import user_site
from ..runtime import fastcall
from ..runtime.memref import _cells, argument_cell
from ..settings import compile_settings
from .arguments import argument_of

_addressof = ctypes.addressof
_SCALARS = (int, float, bool, np.number)


class Callable:
    def __init__(self, func, arguments, output_names=None):
        """``func``: a Func or a Pipeline (a Generator's: its outputs named ``output_names``)."""
        from .. import driver
        from ..lang.extern import standin_of  # (an extern stage's output: bound by each call, not an argument)
        from ..lang.pipeline import Pipeline

        self._func = func
        funcs = func.outputs() if isinstance(func, Pipeline) else [func]
        self._pipeline = func if isinstance(func, Pipeline) else None
        args = [argument_of(a) for a in arguments]
        given = {id(a._source) for a in args}
        for f in funcs:
            p = driver.front_end(f)
            for h in [*p.inputs, *p.params]:
                if not isinstance(h, Buffer) and id(h) not in given and standin_of(h) is None:
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
        n = len(self._names)
        # the arguments that are Buffers (ImageParams', then the outputs), in the order a signature lists them
        self._buffer_slots = [i for i, s in enumerate(self._inputs) if isinstance(s, ImageParam)]
        self._buffer_slots += list(range(n - self._n_outputs, n))
        self._last = None  # (generation, settings, _Plan, bound Buffers, their checks, index values): last call
        # the last call through the trampoline, as its arguments: (generation, compiled code's weakref, eviction
        # clock, trampoline, entry point, argument array, scalar spec, Buffer checks, count of arguments, cells)
        self._quick = None
        self._state = None  # (generation, settings, index-Param slots or None: no fast path, {signature: _Plan})

    def __call__(self, *args, **kwargs):
        quick = self._quick
        if quick is not None and not kwargs and quick[0] == generation[0]:
            # the last call's code and argument array: the trampoline checks the count of arguments and that the
            # Buffers are the last call's (None: not), then calls. (The settings are not read again: settings.py)
            compiled = quick[1]()
            if compiled is not None:
                compiled.last_use = next(quick[2])
                if quick[3](quick[4], quick[5], quick[6], args, (), None, 0, quick[7], quick[8]) is True:
                    return
        values = args if not kwargs and len(args) == len(self._names) else self._values(args, kwargs)
        if self._pipeline is None:
            last = self._last
            if last is not None and last[0] == generation[0]:
                plan = last[2]
                # the same Buffers (same arrays and mins) and index values as the last call: its cells again
                for i, b, a, mins in last[4]:
                    v = values[i]
                    if v is not b or v._array is not a or v._mins != mins:
                        break
                else:
                    if all(values[i] == v for i, v in last[5]) and plan.call(values, last[3]):
                        return
            state = self._state
            if state is None or state[0] != generation[0]:
                state = self._state = self._new_state()
            if state[2] is not None:
                signature, buffers = self._signature(values, state[2])
                if buffers is not None:
                    plan = state[3].get(signature)
                    bound = plan.bind(buffers) if plan is not None else None
                    if bound is not None and plan.call(values, bound):
                        if all(values[i] is b for i, b in zip(self._buffer_slots, buffers)):  # (not arrays)
                            same = tuple((i, b, b._array, list(b._mins)) for i, b in zip(self._buffer_slots, buffers))
                            index = [(i, values[i]) for i in state[2]]
                            self._last = (state[0], state[1], plan, bound, same, index)
                            if plan.fast is not None and not index and not plan.captured:
                                n = len(self._names)
                                quick = (plan.compiled, plan.clock, plan.fast, plan.fn, bound[0], plan.spec, same, n)
                                self._quick = (state[0], *quick, bound)
                        return
                    self._call_slow(values, state, signature)
                    return
        self._call_slow(values)

    def _values(self, args, kwargs) -> list:
        """The arguments in order, from positions and keywords; Halide's messages for a bad call."""
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
        return values

    def _new_state(self):
        """Fresh plans for the current definitions and settings; which arguments are index Params (their values
        are compiled in: part of the signature), or None where every call takes the full path."""
        from .. import driver

        p = driver.front_end(self._func)
        where = {id(s): i for i, s in enumerate(self._inputs)}
        if p.specializations or any(isinstance(h, ImageParam) and constraints(h) for h in p.inputs):
            index_slots = None
        else:
            index_slots = [where[id(prm)] for prm in p.index_params if id(prm) in where]
        return (generation[0], compile_settings(), index_slots, {})

    def _signature(self, values, index_slots):
        """(signature, the Buffer arguments) or (None, None): not Buffers or arrays (the full path's message)."""
        signature, buffers = [], []
        for i in self._buffer_slots:
            b = values[i]
            if type(b) is not Buffer:
                if not isinstance(b, np.ndarray):
                    return None, None
                b = Buffer(b)
            a = b._array
            if a is None:
                return None, None
            signature.append((a.shape, a.dtype, *b._mins))
            buffers.append(b)
        for i in index_slots:
            signature.append(values[i])
        return tuple(signature), buffers

    def _call_slow(self, values, state=None, signature=None):
        """The full path: bind, realize, restore; with ``state``, leave a plan for ``signature``."""
        names = self._names
        saved = []
        try:
            for src, name, v in zip(self._inputs, names, values):
                if isinstance(src, ImageParam):
                    saved.append((src, "_buffer", src._buffer))
                    src.set(_buffer(name, v))
                elif isinstance(src, Param):
                    if not isinstance(v, _SCALARS):
                        raise HalideError(f"Argument {name}: {v!r} is not an instance of a scalar ({src.type()})")
                    saved.append((src, "_value", src._value))
                    src.set(v)
            outs = [_buffer(name, v) for name, v in zip(names[-self._n_outputs :], values[-self._n_outputs :])]
            if self._pipeline is not None:
                from .requirements import check

                check(self._pipeline)
            self._func.realize(outs if len(outs) > 1 else outs[0])
            if state is not None and state[0] == generation[0]:
                from .. import driver

                found = driver.compiled_for(self._func, outs)
                if found is not None:
                    plan = _Plan.make(self, *found)
                    if plan is not None:
                        state[3][signature] = plan
        finally:
            for obj, attr, old in reversed(saved):
                setattr(obj, attr, old)


class _Plan:
    """One signature's compiled code and where each argument goes in its argument array (inputs, Params,
    outputs); the captured Buffers' cells are in the template. ``call`` returns False: take the full path."""

    @classmethod
    def make(cls, callable_: Callable, compiled, p):
        where = {id(s): i for i, s in enumerate(callable_._inputs)}
        n_in, n_par = len(p.inputs), len(p.params)
        kernel_pos = {id(h): k for k, h in enumerate(p.inputs)}
        # (jit is imported here, on the slow path, not at import: it imports codegen, which a Dask worker must not
        # load; its eviction clock is kept so each fast call can stamp the engine it uses)
        from ..runtime import jit

        self = cls()
        self.compiled = weakref.ref(compiled)
        self.clock = jit._clock
        self.args_type = ctypes.c_void_p * len(compiled.arg_ctypes)
        n = len(callable_._names)
        self.buffers = []  # (kernel position or None: unused, per Buffer argument)
        for i in callable_._buffer_slots:
            if i >= n - callable_._n_outputs:
                self.buffers.append(n_in + n_par + i - (n - callable_._n_outputs))
            else:
                self.buffers.append(kernel_pos.get(id(callable_._inputs[i])))
        self.captured = []  # (Buffer, its array, mins) of the Buffers the pipeline reads directly
        template = self.args_type()
        cells = []
        for k, h in enumerate(p.inputs):
            if isinstance(h, Buffer):
                a = h._array
                if a is None or not a.flags.c_contiguous:
                    return None
                c = argument_cell(h, a)
                cells.append(c)
                template[k] = _addressof(c)
                self.captured.append((h, a, list(h._mins)))
            elif id(h) not in where:
                return None
        self.cells = cells  # (kept alive with the template that points at them)
        self.template = bytes(template)
        self.scalars = []  # (kernel position, argument, ctype, Param, its name, exact Python type, lowest, highest)
        for k, prm in enumerate(p.params):
            i = where.get(id(prm))
            if i is None:
                return None
            t = prm.type()
            if t.is_float():
                exact, lo, hi = float, None, None
            elif t.is_bool():
                exact, lo, hi = bool, None, None
            else:
                exact, lo, hi = int, t.min_value(), t.max_value()
            self.scalars.append((n_in + k, i, compiled.arg_ctypes[n_in + k], prm, callable_._names[i], exact, lo, hi))
        # the C trampoline (runtime/fastcall.py) when it can be had: the same checks, one C call
        self.fast = fastcall.trampoline()
        if self.fast is not None:
            self.fn = fastcall.address(compiled)
            self.spec = fastcall.scalar_spec(
                [(k, i, ct, lo, hi, exact is bool) for k, i, ct, _, _, exact, lo, hi in self.scalars]
            )
            if self.spec is None:
                self.fast = None
        return self

    def bind(self, buffers):
        """The argument array's template with the Buffers' cells in place, and the cells; None: the full path."""
        args = self.args_type.from_buffer_copy(self.template)
        keep = []
        for k, b in zip(self.buffers, buffers):
            if k is None:
                continue
            a = b._array
            hit = _cells.get(b)
            if hit is not None and hit[0] is a:
                c = hit[2]
            elif a.flags.c_contiguous:
                c = argument_cell(b, a)
            else:  # copied on every call: the full path does that
                return None
            args[k] = _addressof(c)
            keep.append(c)
        return bytes(args), keep

    def call(self, values, bound) -> bool:
        """Run on ``values`` with the Buffers ``bound``; False: take the full path."""
        compiled = self.compiled()
        if compiled is None:
            return False
        for h, a, mins in self.captured:
            if h._array is not a or h._mins != mins:
                return False
        fast = self.fast
        if fast is not None:
            compiled.last_use = next(self.clock)
            # False: a value not exactly of its Param's Python type, or out of range: converted as below, again
            if fast(self.fn, bound[0], self.spec, values, (), None, 0) is not False:
                return True
            values = self._converted(values)
            if fast(self.fn, bound[0], self.spec, values, (), None, 0) is not False:
                return True
        args = self.args_type.from_buffer_copy(bound[0])
        keep = []
        for k, i, ct, prm, name, exact, lo, hi in self.scalars:
            v = values[i]
            if type(v) is not exact or lo is not None and not lo <= v <= hi:
                if not isinstance(v, _SCALARS):
                    raise HalideError(f"Argument {name}: {v!r} is not an instance of a scalar ({prm.type()})")
                v = prm._converted(v)
            c = ct(v)
            args[k] = _addressof(c)
            keep.append(c)
        compiled.last_use = next(self.clock)
        compiled.packed(args)
        return True

    def _converted(self, values) -> list:
        """``values`` with each Param's value as ``set`` would store it (Halide's checks and messages)."""
        values = list(values)
        for _, i, _, prm, name, exact, lo, hi in self.scalars:
            v = values[i]
            if type(v) is not exact or lo is not None and not lo <= v <= hi:
                if not isinstance(v, _SCALARS):
                    raise HalideError(f"Argument {name}: {v!r} is not an instance of a scalar ({prm.type()})")
                values[i] = prm._converted(v)
        return values


def _buffer(name: str, v) -> Buffer:
    if isinstance(v, Buffer):
        return v
    if isinstance(v, np.ndarray):
        return Buffer(v)
    raise HalideError(f"Argument {name}: {v!r} is not an instance of Buffer (or a numpy array)")
