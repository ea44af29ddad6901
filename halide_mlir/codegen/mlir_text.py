"""Small helpers for writing MLIR textual IR: types, constants, strings.

We emit the payload as text and parse it once with the bindings: one way for every kind of op, readable
for users and FileCheck, and the builder API is painful for whole linalg.generic regions
(docs/mlir-pitfalls.md#textual-ir).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import struct

from ..lang.types import Type

if TYPE_CHECKING:  # annotations only
    from collections.abc import Sequence


def storage(t: Type) -> str:
    """Element type in memory: bools are bytes, as in numpy and Halide buffers."""
    return "i8" if t.is_bool() else t.mlir


def tensor_type(shape: Sequence[int], t: Type) -> str:
    return "tensor<" + "".join(f"{s}x" for s in shape) + storage(t) + ">"


def memref_type(shape: Sequence[int], t: Type) -> str:
    return "memref<" + "".join(f"{s}x" for s in shape) + storage(t) + ">"


def constant_literal(value: int | float | bool, t: Type) -> str:
    if t.is_bool():
        return "true" if value else "false"
    if t.is_float():
        # hex keeps the exact bits (and spells inf and nan)
        if t.bits() == 32:
            return "0x%08X" % struct.unpack(">I", struct.pack(">f", value))[0]
        return "0x%016X" % struct.unpack(">Q", struct.pack(">d", value))[0]
    v = int(value) & ((1 << t.bits()) - 1)
    if v >= 1 << (t.bits() - 1):  # MLIR integers are signless: spell the bit pattern as a signed number
        v -= 1 << t.bits()
    return str(v)


def mlir_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.extend("\\%02X" % b for b in ch.encode())
    return '"' + "".join(out) + '"'


def affine_map(n_dims: int, results: Sequence[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(n_dims))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


def output_arg(k: int) -> str:
    """The entry point's k-th output memref (one per Tuple element of the output Func)."""
    return "%out" if k == 0 else f"%out{k}"


def out_block_arg(k: int) -> str:
    """Inside a generic, the current value of its k-th output."""
    return "%o" if k == 0 else f"%o{k}"


def update_loop_attr(stage_name: str, update: int, loop_name: str) -> str:
    """The attribute naming a loop of a scatter's or scan's explicit loops (codegen/updates.py)."""
    return f"hl.loop = {mlir_string(f'{stage_name}.s{update + 1}.{loop_name}')}"


def loop_attr(stage_name: str, loop_name: str) -> str:
    """The attribute naming a loop the payload spells out (codegen/tiled.py), matched by the transform script."""
    return f"hl.loop = {mlir_string(f'{stage_name}.s0.{loop_name}')}"
