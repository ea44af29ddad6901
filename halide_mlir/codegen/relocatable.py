"""Positions as arguments: a payload whose absolute coordinates are ``i32`` arguments, not constants.

A pipeline compiled for one output region bakes the region's position into its code where coordinates are
used as values (``x + min`` in a generic's body, an update's body or its loops: codegen/updates.py) and where a
computed coordinate reads or an update writes a tensor (``coordinate - min``). Everything else in the payload
is relative (slice offsets are differences of mins; shapes are extents). Within ``relocatable()``, the payload
writes each such position as a function argument ``%orgK`` (after the Params) and records its value here, so
two regions of one shape whose payloads then have the same text run the same compiled code, each called with
its own values: the code computes, for every region, exactly what the code compiled with that region's
constants would. That is why a shared kernel is sound without proving the pipeline translation-invariant:
where a position enters the payload some other way (a boundary condition's pieces at the image edge, the slice
of a Func whose region stays put while the chunk moves, a vectorized update's body), the texts differ and the
regions get kernels of their own. halide_mlir.dask uses it to compile once per chunk shape.
"""

from __future__ import annotations

import contextlib
import contextvars

from ..lang.types import Int


class Origins:
    """The position arguments of one payload, in the order the payload first used them."""

    def __init__(self, view_outputs: bool = False):
        self.view_outputs = view_outputs  # outputs are strided views too (view_outputs)
        self.slots: dict = {}  # (site, value) -> argument name
        self.values: list[int] = []
        self.gathered: set = set()  # id() of the tensors read by a computed coordinate
        self.views: tuple = ()  # per input: passed as a strided view (view_inputs)

    def arg(self, site: tuple, value: int) -> str:
        """The argument holding ``value`` at ``site`` (what the position is: a stage's coordinate or a tensor's
        min, and its dim). One argument per (site, value): chunks whose positions move together share text."""
        key = (site, value)
        name = self.slots.get(key)
        if name is None:
            name = self.slots[key] = f"%org{len(self.values)}"
            self.values.append(int(value))
        return name

    def signature(self) -> list[tuple[str, str]]:
        return [(f"%org{k}", "i32") for k in range(len(self.values))]


class _Built(list):
    """The Origins of the payloads built inside one ``relocatable()``, and how they take their outputs."""

    view_outputs = False


_current: contextvars.ContextVar = contextvars.ContextVar("halide_mlir_origins", default=None)


@contextlib.contextmanager
def relocatable(view_outputs: bool = False):
    """Payloads built inside write positions as arguments; yields a list that gets the Origins of each payload
    built (the last one is the latest compile's). ``view_outputs``: the outputs are strided memrefs as well, so
    a part of a larger array is written in place (halide_mlir.dask splits a chunk into pieces)."""
    built = _Built()
    built.view_outputs = view_outputs
    token = _current.set(built)
    try:
        yield built
    finally:
        _current.reset(token)


def begin() -> Origins | None:
    """The Origins of the payload about to be built, or None outside ``relocatable()``."""
    built = _current.get()
    if built is None:
        return None
    built.append(Origins(built.view_outputs))
    return built[-1]


def position(origins: Origins | None, site: tuple, value: int, t) -> str | None:
    """``value`` as an argument where ``origins`` is on and the position is an i32 (coordinates are), else
    None (the caller emits the constant, and nothing where it is 0)."""
    if origins is None or t != Int(32):
        return None
    return origins.arg(site, value)


def gathered(origins: Origins | None, holder) -> None:
    """``holder`` is read at computed coordinates: the vectorizer linearizes them over the tensor's static shape
    (a ``vector.gather`` assumes a contiguous memref), so that input keeps the identity layout."""
    if origins is not None:
        origins.gathered.add(id(holder))


def view_inputs(origins: Origins | None, inputs, args: list, lines: list) -> None:
    """With positions as arguments, each input no gather reads becomes a view (a dynamic offset and row strides,
    a unit innermost stride), so a window inside a larger array is passed in place: its type in the signature
    ``args`` and in its ``bufferization.to_tensor`` (``lines[i]``)."""
    if origins is None:
        return
    views = []
    for i, holder in enumerate(inputs):
        name, identity = args[i]
        rank = identity.count("x")
        views.append(rank > 0 and id(holder) not in origins.gathered)
        if not views[-1]:
            continue
        strides = ", ".join(["?"] * (rank - 1) + ["1"])
        args[i] = (name, f"{identity[:-1]}, strided<[{strides}], offset: ?>>")
        lines[i] = lines[i].replace(f" : {identity} to ", f" : {args[i][1]} to ", 1)
    origins.views = tuple(views)


def view_outputs(origins: Origins | None, names: list, args: list, lines: list) -> None:
    """Where ``origins.view_outputs``: each output (argument ``names[k]``) becomes a strided memref (a dynamic
    offset and row strides, a unit innermost stride), in the signature ``args`` and wherever ``lines`` use it."""
    import re

    if origins is None or not origins.view_outputs:
        return
    for i, (name, identity) in enumerate(args):
        if name not in names or identity.count("x") == 0:
            continue
        rank = identity.count("x")
        strided = f"{identity[:-1]}, strided<[{', '.join(['?'] * (rank - 1) + ['1'])}], offset: ?>>"
        args[i] = (name, strided)
        use = re.compile(re.escape(name) + r"(?![\w])")
        for k, line in enumerate(lines):
            if use.search(line) and identity in line:
                lines[k] = line.replace(identity, strided)


def last() -> Origins | None:
    """The Origins of the payload built last inside ``relocatable()``, or None."""
    built = _current.get()
    return built[-1] if built else None
