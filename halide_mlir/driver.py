"""The compile driver: every step from a Func to machine code, in order, in one place.

``compile_pipeline`` is the whole order (Halide's ``lower_impl`` in src/Lower.cpp is the model): the front end
(stages and inlining, placement, the schedule checks), bounds inference, the stage plans, the two printers
(payload, transform script), then the MLIR half (``lower_to_llvm``: transform interpreter, bufferization and
the schedule's unrolls, the lowering passes) and LLVM (ExecutionEngine, or the disk cache's object). Each step
is one named function; ``STEPS`` names the ones whose output can be printed (``halide-mlir STEP file.py``,
``Func.compile_to_*``), so a new step appears in the CLI and the tests at once. ``HALIDE_MLIR_DEBUG=1`` logs
each step and its time to stderr (the ``halide_mlir.driver`` logger).

Data flows one way: lang (the user's program) → analysis → codegen → runtime; only this module sees them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import logging
import os
import time
import warnings
import weakref
from dataclasses import dataclass

from .analysis.bounds import Bounded, Region, infer_bounds, input_buffer
from .analysis.compute_with import check_compute_with
from .analysis.legality import check_schedules
from .analysis.warnings import print_schedule_warnings
from .analysis import memoize
from .analysis.loop_nest_text import loop_nest_text
from .analysis.pipeline import Pipeline, build_pipeline
from .analysis.placement import hoist_from_loops, place_inline_reductions, unplanned_scaled
from .analysis.plan import PipelinePlan, plan_stages
from .analysis.specialize import path_of as specialization_path
from .codegen import trace
from .codegen.payload import build_payload
from .driver_debug import debug_funcs, write_debug_files
from .driver_extern import bind_externs, standins as extern_standins
from .codegen.transform import build_transform
from .error import AutoVectorizeWarning, HalideError, InternalError
from .lang.buffer import Buffer
from .lang.schedule import generation
from .lang.source import user_site
from .lang.target import Target, TargetFeature, as_target, get_jit_target_from_environment
from .runtime import jit, memo
from .runtime.call import CallPlan
from .aot.requirements import check_all as check_requirements
from .lang.constraints import check_inputs as check_constraints
from .lang.constraints import check_outputs as check_output_constraints, output_constrained
from .runtime.realize import Realization, dims_read_elsewhere, input_signature, output_buffers, output_region, run
from .settings import compile_settings

if TYPE_CHECKING:  # annotations only
    from collections.abc import Sequence

    from mlir import ir

    from .lang.func import Func

log = logging.getLogger(__name__)
if os.environ.get("HALIDE_MLIR_DEBUG", "").strip() not in ("", "0"):
    log.addHandler(logging.StreamHandler())
    log.setLevel(logging.DEBUG)


@dataclass(frozen=True)
class Step:
    name: str
    description: str


# The steps whose output is text a user can read, in compile order.
STEPS = (
    Step("pipeline", "stages in realization order, where each is computed (after placement)"),
    Step("plan", "each stage's plan: loops, tile plan, producers, updates (analysis/plan.py)"),
    Step("payload", "linalg-on-tensors payload module (func.func)"),
    Step("transform", "transform-dialect script (@__transform_main) built from the schedule"),
    Step("scheduled", "payload after the transform script ran (tiled, fused, vectorized; still tensors)"),
    Step("bufferized", "scheduled module bufferized (memrefs), then the schedule's unrolls (@halide_unroll)"),
    Step("lowered", "LLVM dialect after bufferization and the lowering pipeline"),
    Step("llvm", "LLVM IR (mlir-translate)"),
    Step("asm", "x86-64 assembly (opt -O3, llc -O3 -mcpu=native); PTX for a pipeline with GPU schedules"),
    Step("ptx", "PTX of a pipeline with GPU schedules (driver_gpu.py; CUDA target: HL_JIT_TARGET's, else host-cuda)"),
)


class _Timer:
    """Logs ``after <step>`` with the step's time (and its output with HALIDE_MLIR_DEBUG=2)."""

    def __init__(self):
        self.start = time.perf_counter()

    def __call__(self, step: str, output=None):
        if log.isEnabledFor(logging.DEBUG):
            now = time.perf_counter()
            log.debug("halide_mlir: after %s (%.1f ms)", step, (now - self.start) * 1e3)
            if output is not None and os.environ.get("HALIDE_MLIR_DEBUG") == "2":
                log.debug("%s", output)
            self.start = now
        return output


# --- the front end: the user's program → a placed, checked pipeline ----------------------------------------

_front_ends: dict = {}


def front_end(func: Func, memoized: bool = False) -> Pipeline:
    """Stages, placement and the schedule checks; cached until any definition or schedule changes, one per
    specialization path the bound values choose (analysis/specialize.py). ``memoized``: memoized Funcs are
    inputs, their cached values (analysis/memoize.py)."""
    key = (id(func), generation[0], memoized)  # (not the Func: a cache must not keep the user's Funcs alive)
    hit = _front_ends.get(key)
    if hit is not None and hit[0] is func:
        p = hit[2].get(specialization_path(hit[1]))
        if p is not None:
            return p
    step = _Timer()
    pipeline = build_pipeline(func, memoized)  # stages in realization order, inline Funcs substituted
    step("pipeline")
    place_inline_reductions(pipeline)  # an unscheduled reduction goes to its consumer's loop, as in Halide
    check_schedules(pipeline)  # the schedule as the user wrote it: Halide's rules and messages
    memoize.warn_async(pipeline)  # async_/ring_buffer run synchronously (same values)
    check_compute_with(pipeline)  # compute_with: Halide's rules and messages
    print_schedule_warnings(func)  # Halide's warnings about it (stdout, as Halide's)
    hoist_from_loops(pipeline)  # what codegen can't compute at a consumer's loop goes to the root
    step("placement")
    if hit is None or hit[0] is not func:
        for k in [k for k in _front_ends if k[:2] != key[:2]]:  # (both versions of one Func stay)
            del _front_ends[k]
        hit = _front_ends[key] = (func, pipeline.specializations, {})
    hit[2][specialization_path(pipeline.specializations)] = pipeline
    return pipeline


# --- the whole order -----------------------------------------------------------------------------------------


class StageTexts:
    """The stages by name (tests and lit's Inputs/hl_stage.py), from ``text(step)``; ``ASSEMBLY``: the step
    whose text is the machine code (CPU assembly, or a GPU pipeline's PTX)."""

    ASSEMBLY = "asm"

    def text(self, step: str) -> str:
        raise NotImplementedError

    def scheduled(self) -> str:
        return self.text("scheduled")

    def bufferized(self) -> str:
        return self.text("bufferized")

    def lowered(self) -> str:
        return self.text("lowered")

    def assembly(self) -> str:
        return self.text(self.ASSEMBLY)


@dataclass
class Compilation(StageTexts):
    """One pipeline at one output region, compiled as far as text: the later steps run on demand."""

    plan: PipelinePlan
    payload: str
    transform: str

    def text(self, step: str) -> str:
        """The output of step ``step`` (one of STEPS) as text."""
        if step == "pipeline":
            return pipeline_text(self.plan.pipeline)
        if step == "plan":
            return self.plan.text()
        if step in ("payload", "transform"):
            return getattr(self, step)
        if step in ("scheduled", "bufferized", "lowered"):
            return str(
                lower_to_llvm(jit.new_context(), self.payload, self.transform, compile_settings()[0], until=step)
            )
        if step == "llvm":
            return jit.translate_to_llvm_ir(self.text("lowered"))
        if step == "asm":
            return jit.assemble(self.text("llvm"))
        if step == "ptx":
            raise HalideError("the ptx step needs a pipeline with GPU schedules (gpu_tile, gpu_blocks ...)")
        raise HalideError(f"unknown compile step {step!r}; expected one of {', '.join(s.name for s in STEPS)}")

    def llvm_ir(self) -> str:
        return self.text("llvm")


def compile_pipeline(
    func: Func, region: Region, auto_vector: bool = True, scalar_funcs: frozenset = frozenset(), memoized: bool = False
) -> Compilation:
    """Every step up to the text of the payload and the transform script; ``auto_vector``: vectorize the Funcs
    the user did not (analysis/vectorize.py), except ``scalar_funcs``; ``memoized``: see front_end."""
    pipeline = front_end(func, memoized)
    _gpu().check_cpu_storage(pipeline)  # store_in is honored on GPU stages only
    step = _Timer()
    bounded: Bounded = step("bounds", infer_bounds(pipeline, region))  # regions; inputs cover their reads
    plan = step("plan", plan_stages(bounded, auto_vector, scalar_funcs))  # every schedule decision, per stage
    stray = unplanned_scaled(plan)
    if stray:  # scaled reads no tile plan computes: to the root after all (analysis/placement.py)
        hoist_from_loops(pipeline, stray)
        bounded = infer_bounds(pipeline, region)
        plan = plan_stages(bounded, auto_vector, scalar_funcs)
    payload = step("payload", build_payload(plan))  # linalg.generic per stage, on tensors
    transform = step("transform", build_transform(plan))  # the schedule as transform ops
    return Compilation(plan, payload, transform)


def lower_to_llvm(ctx: ir.Context, payload: str, transform: str, threads: int, until: str | None = None) -> ir.Module:
    """The MLIR half, in order; ``until`` ("scheduled", "bufferized") stops early and returns that module."""
    step = _Timer()
    module, script = jit.apply_schedule(ctx, payload, transform)  # the transform interpreter runs the script
    if trace.CALL_PREFIX in payload:
        with ctx:
            trace.erase_fused_originals(module)  # (they print: MLIR keeps them though their results are unused)
    if step("scheduled") is None and until == "scheduled":
        return module
    jit.bufferize(ctx, module, script)  # one-shot-bufferize, strided reads, i32 gathers, @halide_unroll
    if step("bufferized") is None and until == "bufferized":
        return module
    jit.lower(ctx, module, threads)  # codegen/lowering.py's passes → the LLVM dialect
    step("lowered")
    return module


def compile_machine_code(compilation: Compilation, arg_types: list[str]) -> jit.Compiled:
    """The last steps: the engine of the same text compiled before, the disk cache's object, or LLVM
    (lower_to_llvm, then the ExecutionEngine) -- loaded and ready to call."""
    step = _Timer()
    return step("load", jit.compile_cached(compilation.payload, compilation.transform, arg_types, lower_to_llvm))


def compile(func: Func, region: Region, arg_types: list[str], memoized: bool = False) -> jit.Compiled:
    """Compiled code for ``func`` over ``region``. Auto-vectorization is an optimisation the user did not ask
    for: if MLIR fails on it, the Funcs the diagnostic points at (by their definitions' lines) are compiled
    without it, and if it names none, the whole pipeline is -- with a warning, never an error Halide would not
    raise. (Tests turn the warning into an error, so such failures are still found.)"""
    compilation = compile_pipeline(func, region, memoized=memoized)
    stages = compilation.plan.pipeline.stages
    scalar: set = set()
    error = None
    while True:
        try:
            compiled = compile_machine_code(compilation, arg_types)
            break
        except InternalError as e:
            error = error or e
            culprits = {
                s.func
                for s in stages
                for site in [s.func._definition().site, *(u.site for u in s.updates)]
                if site is not None and (site.file, site.line) in e.locations
            } - scalar
            scalar |= culprits
            retry = (
                compile_pipeline(func, region, scalar_funcs=frozenset(scalar), memoized=memoized)
                if culprits
                else compile_pipeline(func, region, auto_vector=False, memoized=memoized)
            )
            if retry.transform == compilation.transform:
                raise
            compilation = retry
    if error is not None:
        names = [s.name for s in stages if s.func in scalar] or ["every Func"]
        warnings.warn(
            AutoVectorizeWarning(
                f"{user_site()}: auto-vectorization failed in the pipeline of Func '{func.name()}'; "
                f"{', '.join(names)} run{'s' if len(names) == 1 else ''} without it (schedule a vectorize() to see the "
                f"error, or set HALIDE_MLIR_AUTO_VECTORIZE=0):\n{error}"
            ),
            stacklevel=3,
        )
    return compiled


def stages(func: Func, sizes: Sequence[int], mins: Sequence[int] | None = None) -> Compilation:
    """``func`` compiled for an output of ``sizes`` (at ``mins``) as far as text (Func.compile_to_mlir & co).
    A pipeline with GPU schedules is compiled for HL_JIT_TARGET if it has a GPU feature, else host-cuda."""
    region = output_region(func, sizes, mins)
    if _gpu().uses_gpu(front_end(func)):
        target = get_jit_target_from_environment()
        if not target.has_gpu_feature():
            target = target.with_feature(TargetFeature.CUDA)
        return _gpu_driver().compile_pipeline(func, region, target)
    return compile_pipeline(func, region)


def _gpu():
    from .analysis import gpu

    return gpu


def _gpu_driver():
    from . import driver_gpu

    return driver_gpu


def check_target(pipeline: Pipeline, target=None):
    """``target`` (None: HL_JIT_TARGET's) as a Target; Halide's error if the pipeline has GPU schedules and the
    target no GPU feature. Returns the target."""
    target = as_target(target)
    _gpu().check_target(pipeline, target)
    return target


def pipeline_text(pipeline: Pipeline) -> str:
    """The stages in realization order and where each is computed (after placement)."""
    lines = []
    for s in pipeline.stages:
        level = s.compute if s.func is not pipeline.output else None
        where = (
            "output" if level is None else level.kind if level.func is None else f"at {level.func.name()}.{level.var}"
        )
        moved = f" (scheduled at {s.hoisted_from.func.name()}.{s.hoisted_from.var})" if s.hoisted_from else ""
        lines.append(f"{s.name}: {where}{moved}; consumers: {', '.join(c.name for c in s.consumers) or '-'}")
    return "\n".join(lines)


def print_loop_nest(func: Func) -> str:
    return loop_nest_text(front_end(func))


# --- realize: compile once per (pipeline, sizes, inputs, settings), then call ---------------------------------

# Compiled code per (Func, generation, region, input signature, settings), held weakly: the engines belong to
# runtime/jit.py, which bounds how many stay loaded (an evicted one is found again by text, or recompiled).
_compiled: dict = {}

# The same realize again (same Func, definitions and schedules, sizes or output Buffers): a CallPlan
# (runtime/call.py) that checks only the inputs and calls, its settings not read again (settings.py) (the Python
# side of a small realize was ~17 us against Halide's ~4 us; this is most of what a call costs besides the
# kernel). Plans keep their pipeline's Funcs alive: at most MAX_REPEATS of them.
_repeats: dict = {}
MAX_REPEATS = 64


def realize(func, sizes, *rest, _memoizing: bool = False):
    """``f.realize([w, h])`` or ``f.realize(buffer)``; returns the output Buffer (a Realization of Buffers for a
    Tuple-valued Func). (``_memoizing``: a memoized Func realized for the cache, _bind_memoized.)"""
    target = None
    if rest:
        if len(rest) != 1 or not isinstance(rest[0], Target):
            raise HalideError(
                f"{user_site()}: realize takes a list of sizes or a Buffer (and optionally a Target), "
                f"e.g. f.realize([w, h])"
            )
        target = rest[0]
    repeat_key = given = None
    kind = type(sizes)
    if kind is list or kind is tuple:
        if sizes and type(sizes[0]) is Buffer:
            repeat_key, given = (id(func), generation[0], *map(id, sizes)), sizes
        else:
            for s in sizes:  # (a loop, not all(): this is most of a small realize's Python)
                if type(s) is not int:
                    break
            else:
                repeat_key = (id(func), generation[0], tuple(sizes))
    elif kind is Buffer:
        repeat_key, given = (id(func), generation[0], id(sizes)), sizes
    if repeat_key is not None:
        plan = _repeats.get(repeat_key)
        if plan is not None:  # (its code keeps the settings it was compiled under, as Halide's JIT module does)
            outs = plan.realize(given)
            if outs is not None:
                return outs[0] if len(outs) == 1 else Realization(outs)
    outs, region = output_buffers(func, sizes)
    result = outs[0] if len(outs) == 1 else Realization(outs)
    p = front_end(func)
    try:  # ImageParams' dim(i) constraints, Params' ranges (lang/constraints.py)
        check_constraints([*p.inputs, *p.params])
    except HalideError:
        infer_bounds(p, region)  # Halide checks the inputs cover the reads first: that error, if any
        raise
    check_output_constraints(func, outs, given is not None)  # and those of func.output_buffer(), bound to outs
    if p.requirements:  # hl.require's conditions (of Params)
        check_requirements(p.requirements)
    # extern stages (define_extern) run first, bound to the inputs they stand for (driver_extern.py)
    externs = 0 not in region.extents and bind_externs(p, region)
    if _gpu().uses_gpu(p):  # GPU schedules: Halide's error on a CPU target, else the CUDA backend
        target = check_target(p, target)
        memoize.warn_uncached(func, "a GPU pipeline", _memoizing)
        if 0 not in region.extents:
            _gpu_driver().realize(func, outs, region, target, copy_back=given is None)
            if debug_funcs(p):
                write_debug_files(p, region, outs, debug_funcs(p))
        return result
    if 0 in region.extents:  # Halide realizes an empty region as an empty buffer, without running anything
        return result
    memoized = _memoized_funcs(func, _memoizing)
    if memoized:  # memoized Funcs are inputs, computed (or found in the cache) first
        p = _bind_memoized(func, p, region)
    settings = compile_settings()
    key = (id(func), generation[0], bool(memoized), region, input_signature(p), *settings)
    ref = _compiled.get(key)
    compiled = ref() if ref is not None else None
    if compiled is None:
        inputs = [input_buffer(h) for h in p.inputs]
        arg_types = (
            ["memref"] * len(inputs)
            + [prm.type().mlir if not prm.type().is_bool() else "i8" for prm in p.params]
            + ["memref"] * len(outs)
        )
        compiled = compile(func, region, arg_types, bool(memoized))
        if len(_compiled) >= 4 * MAX_REPEATS:  # stale keys (older generations, evicted engines)
            for k in [k for k, r in _compiled.items() if r() is None or k[1] != generation[0]]:
                del _compiled[k]
        _compiled[key] = weakref.ref(compiled)
    run(compiled, p, outs)
    debug = debug_funcs(p)
    if debug:  # Func.debug_to_file (driver_debug.py)
        write_debug_files(p, region, outs, debug)
    # (a specialized pipeline is not repeated blindly: its Params may choose another variant next time)
    # (nor one whose code has sizes or strides of buffers it doesn't read: the plan checks only the inputs')
    if (
        repeat_key is not None
        and not p.specializations
        and not memoized
        and not externs
        and not debug
        and not p.requirements
        and not dims_read_elsewhere(p)
    ):
        if len(_repeats) >= MAX_REPEATS:  # stale entries (older generations) are never looked up again
            _repeats.clear()
        _repeats[repeat_key] = CallPlan(compiled, p, outs, given is not None)
    return result


def compiled_for(func, outs: list):
    """(compiled code, pipeline) that ``realize(func, outs)`` just ran, with the ImageParams and Params as bound
    now: hl.Callable's fast path calls it again with other arguments (aot/callable.py). None where a call must
    take the full path each time (GPU schedules, memoized Funcs, specializations) or nothing was compiled."""
    p = front_end(func)
    if p.specializations or p.requirements or _gpu().uses_gpu(p) or _memoized_funcs(func, False):
        return None
    if extern_standins(p) or debug_funcs(p):  # (each call runs its extern stages first, writes its files)
        return None
    if dims_read_elsewhere(p) or output_constrained(func):  # (what the fast path doesn't check)
        return None
    _, region = output_buffers(func, outs if len(outs) > 1 else outs[0])
    ref = _compiled.get((id(func), generation[0], False, region, input_signature(p), *compile_settings()))
    compiled = ref() if ref is not None else None
    return None if compiled is None else (compiled, p)


# --- memoize(): memoized Funcs realized by pipelines of their own, cached (analysis/memoize.py) -------------------

_memo_funcs: dict = {}


def _memoized_funcs(func, internal: bool) -> list:
    """The memoized Funcs the pipeline of ``func`` reaches (Halide's checks first), cached per generation."""
    key = (id(func), generation[0], internal)
    hit = _memo_funcs.get(key)
    if hit is not None and hit[0] is func:
        return hit[1]
    if len(_memo_funcs) >= MAX_REPEATS:
        _memo_funcs.clear()
    found = memoize.check(func, internal)
    if found:
        memoize.memoized_at_loops(front_end(func))
    _memo_funcs[key] = (func, found)
    return found


def _bind_memoized(func, p: Pipeline, region: Region) -> Pipeline:
    """The pipeline of ``func`` with its memoized Funcs as inputs, each bound to its cached Buffers over the
    region the pipeline reads (bounds inference of the whole pipeline), computed on a miss."""
    whole = infer_bounds(p, region)
    q = front_end(func, memoized=True)
    done: set = set()
    for holder in q.inputs:
        owner = memoize.standin_of(holder)
        if owner is None or id(owner[0]) in done:
            continue
        f = owner[0]
        done.add(id(f))
        holders = memoize.standins(f)
        r = whole.region(f)
        key, eviction = memoize.cache_key(f, r)
        bufs = memo.lookup(key)
        if bufs is None:
            types = f.types() if len(holders) > 1 else [f.type()]
            bufs = [Buffer(t, list(r.extents)) for t in types]
            for b in bufs:
                b.set_min(list(r.mins))
            realize(f, bufs, _memoizing=True)
            memo.store(key, bufs, eviction)
        for h, b in zip(holders, bufs):
            h.set(b)
    return q
