"""Auto-vectorization: what halide_mlir does with a Func the user did not vectorize.

Halide runs such a Func's loops scalar. halide_mlir vectorizes the innermost loop over dimension 0 instead
(values are the same; only speed changes), as Hipacc does for its kernels:

- A uniform/varying analysis of the Func's (inlined) value along the vectorized Var ``x``: a node is
  *varying* when its value may differ between neighbouring lanes, i.e. when it depends on ``x`` (directly or
  through a load whose index depends on ``x``); every other node -- constants, Params, the other Vars, loads
  at an ``x``-independent address -- is *uniform*: one scalar for all lanes. Only varying values occupy
  vector registers, so only their types choose the width. Uniform work is kept out of the vector loop by
  MLIR itself: ``vector.sink_ops`` turns ops on broadcasts into scalar ops (transforms/cleanup.mlir) and
  LICM hoists them out of the loops.
- The SIMD width per kernel fills 512-bit registers at the narrowest varying type (64 lanes for a u8
  kernel, so its u16 intermediates are two full vectors -- Hipacc's "virtual vectors") but gives the widest
  varying type at most four registers per virtual vector (register pressure).
- Selects stay vectorized (``arith.select`` on masks); edge tiles are masked (structured.vectorize with
  vector sizes), never left scalar.

A loop the user scheduled otherwise (unrolled, parallel, reordered so dimension 0 is not innermost, a
producer computed at it) keeps its schedule.

``HALIDE_MLIR_AUTO_VECTORIZE`` (or ``set_auto_vectorize``) picks the mode: ``1`` (default) as above; ``0`` runs
what the user did not vectorize as scalar code, as Halide does -- LLVM's own loop and SLP vectorizers are then
kept off too (Halide disables them: vectorization is the schedule's job); ``llvm`` leaves those loops to LLVM's
vectorizers (what a plain MLIR scalar lowering at -O3 gets), to measure the difference.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ..lang.schedule import Directive, DirectiveKind, LoopKind
from ..settings import auto_vectorize_mode
from ..lang.traversal import free_vars
from .loop_nest import Loop

REGISTER_BITS = 512  # AVX-512 (the JIT's hosts); an ahead-of-time target sets its own with target_registers
MAX_REGISTERS_PER_VALUE = 4  # a virtual vector of the widest varying type spans at most this many registers
MIN_LANES, MAX_LANES = 4, 64
AUTO_SUFFIX = "_vec"  # the inner loop auto-vectorization splits off: x -> x, x_vec


@contextlib.contextmanager
def target_registers(bits: int):
    """Auto-vectorization widths for another target's SIMD registers (aot/cross.py: 128 for NEON or SSE, 256 for
    AVX2) while a pipeline is planned for it; the transform text differs, so the JIT's caches keep apart."""
    global REGISTER_BITS
    old, REGISTER_BITS = REGISTER_BITS, bits
    try:
        yield
    finally:
        REGISTER_BITS = old


SCALAR_CODE = False  # aot/c_source.py: vectorize() directives dropped (EmitC has no vectors)


@contextlib.contextmanager
def scalar_code():
    global SCALAR_CODE
    old, SCALAR_CODE = SCALAR_CODE, True
    try:
        yield
    finally:
        SCALAR_CODE = old


def kept(directives) -> list:
    """A stage's directives as planned: all of them, or without vectorize() inside ``scalar_code()``."""
    return [d for d in directives if not (SCALAR_CODE and d.kind == DirectiveKind.VECTORIZE)]


def mode() -> str:
    """ "auto", "off" or "llvm" (settings.py auto_vectorize_mode)."""
    return auto_vectorize_mode()


def enabled() -> bool:
    return mode() == "auto"


def varying(e, var: str) -> bool:
    """Does ``e`` take different values in neighbouring lanes of a loop over ``var``?"""
    return var in free_vars(e)


def varying_bits(values, var: str) -> list[int]:
    """Bit widths of the varying values (booleans are masks, not lanes of data). Bottom-up, once per node: asking
    ``varying`` of every node walks each subtree again, quadratic in an inlined chain's tree (fuzz seed 3030)."""
    bits, varies = set(), {}
    for value in values:
        stack = [(value, False)]
        while stack:
            n, ready = stack.pop()
            if id(n) in varies:
                continue
            if not ready:
                stack.append((n, True))
                stack.extend((a, False) for a in n.args if id(a) not in varies)
                continue
            varies[id(n)] = v = (n.kind == "var" and n.value.name() == var) or any(varies[id(a)] for a in n.args)
            if v and n.type is not None and not n.type.is_bool():
                bits.add(n.type.bits())
    return sorted(bits)


def natural_lanes(values, output_types, var: str) -> int:
    """Lanes for a kernel computing ``values`` (stored as ``output_types``), vectorized along ``var``."""
    bits = varying_bits(values, var) + [t.bits() for t in output_types if not t.is_bool()]
    if not bits:
        return MAX_LANES // 4
    lanes = min(REGISTER_BITS // min(bits), MAX_REGISTERS_PER_VALUE * REGISTER_BITS // max(bits))
    return max(MIN_LANES, min(MAX_LANES, lanes))


@dataclass(frozen=True)
class AutoVector:
    """The loop auto-vectorization picked for a stage: ``split`` it by ``lanes`` first unless it is short."""

    loop: str
    lanes: int
    split: bool

    def directives(self) -> list[Directive]:
        if not self.split:
            return [Directive(DirectiveKind.VECTORIZE, (self.loop,))]
        inner = self.loop + AUTO_SUFFIX
        return [
            Directive(DirectiveKind.SPLIT, (self.loop, self.loop, inner, self.lanes, None)),
            Directive(DirectiveKind.VECTORIZE, (inner,)),
        ]


def plan(
    loops: list[Loop],
    directives,
    values,
    output_types,
    pure_vars: list,
    dim: int = 0,
    computed_here: set = frozenset(),
    lanes: int | None = None,
    through_rvars: bool = True,
) -> AutoVector | None:
    """Auto-vectorization for one stage with ``loops`` (outermost first, after the user's directives), whose
    pure x is loop dimension ``dim`` (an update's RVars come first), or None when the user vectorized
    something or the innermost loop is not a plain loop over x. An update's serial RVar loops innermost (its
    default order, as in ``hl.sum``'s Func) don't stop it: x right outside them is vectorized, and the RVar
    loops run once per vector (loop_nest.py vector_block), as Halide runs a reduction computed inside a
    vectorized consumer's loop (unless not ``through_rvars``). ``lanes``: the width to use (the consumer's
    ``vectorize`` width) instead of the natural one."""
    if not enabled() or not loops or not pure_vars or any(d.kind == DirectiveKind.VECTORIZE for d in directives):
        return None
    at = len(loops) - 1
    while (
        through_rvars
        and at > 0
        and loops[at].kind == LoopKind.SERIAL
        and len(loops[at].parts) == 1
        and loops[at].dim < dim
    ):
        at -= 1
    inner = loops[at]
    if (
        inner.kind != LoopKind.SERIAL
        or len(inner.parts) > 1
        or inner.dim != dim
        or inner.stride != 1
        or inner.name in computed_here
        or inner.extent < MIN_LANES
    ):
        return None
    if any(l.name == inner.name + AUTO_SUFFIX for l in loops):
        return None
    lanes = lanes or natural_lanes(values, output_types, pure_vars[0])
    return AutoVector(inner.name, lanes, split=inner.extent > lanes)
