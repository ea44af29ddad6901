"""The same realize again: a CallPlan made after a realize's first call does the next ones with almost no Python.

A small realize's cost is nearly all Python (it was ~17 us against Halide's ~4 us for a 64x64 Func): checking the
inputs, allocating the output, building the memref descriptors and the packed argument array, constructing the
Buffer. The plan precomputes each of them once: the argument array with the inputs' cells in place (a template
copied per call), the outputs' descriptors with their shapes and strides (copied, then pointed at the new
memory), the outputs' types and names. Per call it only checks what can change without a new compile (the inputs
bound, their mins, index Params: the driver's key covers the rest) and reads the Params' values.

Everything written per call is a fresh object, and what the plan shares between calls is replaced, never
mutated (``bound``), so threads may realize the same Func at once.
"""

from __future__ import annotations

import ctypes
import weakref

import numpy as np

from ..analysis.bounds import input_buffer
from ..lang.buffer import Buffer
from . import fastcall, jit
from .memory import ALIGNMENT
from .memref import argument_cell, descriptor

_addressof = ctypes.addressof
_c_void_p = ctypes.c_void_p
_c_char = ctypes.c_char
_empty, _ndarray, _uint8 = np.empty, np.ndarray, np.uint8
_new = object.__new__
_clock = jit._clock


class CallPlan:
    """``realize(sizes or given)`` as the first call did it; None from ``realize`` means "take the full path"
    (the engine was evicted, an input changed shape or layout, a given output changed)."""

    def __init__(self, compiled, pipeline, outs: list, given: bool):
        self.compiled = weakref.ref(compiled)
        self.pipeline = pipeline
        self.holders = list(pipeline.inputs)
        n_in, n_par = len(self.holders), len(pipeline.params)
        self.params = [
            (n_in + k, ct, prm)
            for k, (ct, prm) in enumerate(zip(compiled.arg_ctypes[n_in : n_in + n_par], pipeline.params))
        ]
        self.index_params = list(pipeline.index_params)
        self.index_values = [p.get() for p in self.index_params]
        self.first_out = n_in + n_par
        self.args_type = ctypes.c_void_p * (n_in + n_par + len(outs))
        self.given = given
        self.bound = None
        if given:  # the same Buffers each call: their cells go in the template
            self.out_refs = [weakref.ref(o) for o in outs]
            self.out_mins = [list(o._mins) for o in outs]
            self.out_cells = [argument_cell(o, o.array) for o in outs]
        else:
            self.outputs = []
            for o in outs:
                a = o.array
                d = descriptor(a)
                self.outputs.append(
                    (a.shape, a.dtype, a.nbytes + ALIGNMENT, type(d), bytes(d), o.type(), o.name(), tuple(o._mins))
                )
        self.signature = self._bind(self._buffers())
        # the C trampoline (runtime/fastcall.py) when it can be had: the same work, one C call
        self.fast = fastcall.trampoline()
        if self.fast is not None:
            self.fn = fastcall.address(compiled)
            self.spec = fastcall.scalar_spec(
                [(k, j, ct, *_range(prm.type()), prm.type().is_bool()) for j, (k, ct, prm) in enumerate(self.params)]
            )
            self.out_spec = () if given else tuple((self.first_out + k, o[4]) for k, o in enumerate(self.outputs))
            if self.spec is None:
                self.fast = None
            elif not given and not self.holders and not self.index_params and len(self.outputs) == 1:
                # the usual small realize (no inputs to check, one output): one frame, its constants in a tuple
                shape, dtype, nbytes, _, _, type_, name, out_mins = self.outputs[0]
                self.one = (self.fast, self.fn, self.spec, self.out_spec, nbytes, shape, dtype, type_, name, out_mins)
                self.realize = self._realize_one

    def _buffers(self):
        return [input_buffer(h) for h in self.holders]

    def _bind(self, buffers):
        """The inputs' cells and the argument template for ``buffers``; their signature (shapes, types, mins)."""
        cells, signature = [], []
        for b in buffers:
            a = b.array
            if not a.flags.c_contiguous:  # copied on every call: the full path does that
                self.bound = None
                return None
            cells.append(argument_cell(b, a))
            signature.append((a.shape, a.dtype.str, tuple(b._mins)))
        template = self.args_type()
        for k, c in enumerate(cells):
            template[k] = _addressof(c)
        if self.given:
            for k, c in enumerate(self.out_cells):
                template[self.first_out + k] = _addressof(c)
            cells = cells + self.out_cells
        self.bound = (buffers, [list(b._mins) for b in buffers], cells, bytes(template))
        return signature

    def realize(self, given=None):
        """The outputs (a list of Buffers), or None: take the full path."""
        compiled = self.compiled()
        bound = self.bound
        if compiled is None or bound is None:
            return None
        buffers, mins, cells, template = bound
        if self.holders:
            now = [input_buffer(h) for h in self.holders]
            if any(b is not c or b._mins != m for b, c, m in zip(now, buffers, mins)):
                if self._bind(now) != self.signature:  # a new shape or type: compiled again
                    return None
                buffers, mins, cells, template = self.bound
        if self.index_params and [p.get() for p in self.index_params] != self.index_values:
            return None
        if self.fast is not None:
            outs = self._fast(compiled, template, cells, given)
            if outs is not False:
                return outs
        args = self.args_type.from_buffer_copy(template)
        keep = [cells]
        for k, ct, prm in self.params:
            cell = ct(prm.get())
            args[k] = _addressof(cell)
            keep.append(cell)
        if self.given:
            outs = given if isinstance(given, (list, tuple)) else [given]
            if len(outs) != len(self.out_refs) or any(
                r() is not o or o._mins != m for r, o, m in zip(self.out_refs, outs, self.out_mins)
            ):
                return None
        else:
            outs = []
            k = self.first_out
            for shape, dtype, nbytes, desc_type, desc, type_, name, out_mins in self.outputs:
                raw = np.empty(nbytes, np.uint8)
                base = _addressof(_c_char.from_buffer(raw))  # (raw.ctypes.data costs ~1.4 us of a ~3 us call)
                offset = -base % ALIGNMENT
                ptr = base + offset
                d = desc_type.from_buffer_copy(desc)
                d.allocated = d.aligned = ptr
                cell = _c_void_p(_addressof(d))
                args[k] = _addressof(cell)
                k += 1
                keep.append((d, cell))
                outs.append(Buffer._wrap(np.ndarray(shape, dtype, raw, offset), type_, name, list(out_mins)))
        compiled.last_use = next(jit._clock)
        compiled.packed(args)
        return outs

    def _realize_one(self, given=None):
        """``realize`` of the usual small case (see __init__)."""
        compiled = self.compiled()
        bound = self.bound
        if compiled is None or bound is None:
            return None
        fast, fn, spec, out_spec, nbytes, shape, dtype, type_, name, out_mins = self.one
        raw = _empty(nbytes, _uint8)
        compiled.last_use = next(_clock)
        params = self.params
        values = [prm.get() for _, _, prm in params] if params else ()
        offsets = fast(fn, bound[3], spec, values, out_spec, [raw], ALIGNMENT)
        if offsets is False:
            return CallPlan.realize(self, given)  # (a Param's value the trampoline doesn't take: ctypes)
        b = _new(Buffer)  # (Buffer._wrap without its frame)
        b._type, b._array, b._mins, b._name = type_, _ndarray(shape, dtype, raw, offsets[0]), list(out_mins), name
        return [b]

    def _fast(self, compiled, template, cells, given):
        """``realize`` through the trampoline: the outputs, None (the full path) or False (a Param's value the
        trampoline doesn't take: the ctypes path)."""
        values = [prm.get() for _, _, prm in self.params] if self.params else ()
        if self.given:
            outs = given if isinstance(given, (list, tuple)) else [given]
            if len(outs) != len(self.out_refs) or any(
                r() is not o or o._mins != m for r, o, m in zip(self.out_refs, outs, self.out_mins)
            ):
                return None
            compiled.last_use = next(jit._clock)
            return outs if self.fast(self.fn, template, self.spec, values, (), None, 0) is not False else False
        if len(self.outputs) == 1:  # (the usual case, without the comprehensions' frames)
            shape, dtype, nbytes, _, _, type_, name, out_mins = self.outputs[0]
            raw = np.empty(nbytes, np.uint8)
            compiled.last_use = next(jit._clock)
            offsets = self.fast(self.fn, template, self.spec, values, self.out_spec, [raw], ALIGNMENT)
            if offsets is False:
                return False
            return [Buffer._wrap(np.ndarray(shape, dtype, raw, offsets[0]), type_, name, list(out_mins))]
        raws = [np.empty(o[2], np.uint8) for o in self.outputs]
        compiled.last_use = next(jit._clock)
        offsets = self.fast(self.fn, template, self.spec, values, self.out_spec, raws, ALIGNMENT)
        if offsets is False:
            return False
        return [
            Buffer._wrap(np.ndarray(shape, dtype, raw, offset), type_, name, list(out_mins))
            for (shape, dtype, _, _, _, type_, name, out_mins), raw, offset in zip(self.outputs, raws, offsets)
        ]


def _range(t) -> tuple:
    """(lowest, highest) an integer Param's ctype holds; (None, None) for floats and bools."""
    if t.is_float() or t.is_bool():
        return None, None
    return t.min_value(), t.max_value()
