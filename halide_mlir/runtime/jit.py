"""Payload + transform script → scheduled IR → LLVM dialect → ExecutionEngine, with MLIR errors as HalideError."""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import re
import threading
import warnings

from ..codegen.clamped_gathers import clamped_gathers
from ..codegen.contiguous_gathers import contiguous_gathers
from ..codegen.strided_gathers import strided_gathers
from ..codegen.divided_gathers import divided_gathers
from ..codegen.copies import rewrite_copies
from ..codegen.gather_indices import narrow_gather_indices
from ..codegen.prefetch import inject_prefetches
from ..codegen.compute_with import fuse_tagged_loops
from ..codegen.store_in import place_allocations
from ..codegen.math_approx import INLINE, approximate_math
from ..codegen.lowering import (
    AFTER_BUFFERIZE,
    BUFFERIZE,
    DEALLOCATE,
    compile_body_once,
    heap_allocations,
    hoist_static_allocas,
    merge_parallel_regions,
    keep_masked_store_values,
    lowering_passes,
    to_llvm,
    top_level_ops,
)
from ..codegen.ir_walk import ops_where
from ..codegen.strided_reads import dense_strided_reads
from ..codegen.transform import UNROLL_SEQUENCE
from ..error import InternalError, SlowPathWarning, UnrollWarning
from ..settings import auto_vectorize_mode, compile_settings, parallel_runtime


def _not_llvm(op) -> bool:
    return op.name.split(".")[0] not in ("llvm", "builtin", "omp")


@contextlib.contextmanager
def mlir_errors(what: str, stage: str):
    """MLIR rejecting what we generated is a halide_mlir bug: an InternalError whose ``diagnostic`` is MLIR's
    text (every op carries the user's source line, so it names the Funcs involved: ``locations``)."""
    from mlir.ir import MLIRError

    try:
        yield
    except (MLIRError, ValueError) as e:  # the transform interpreter reports failures as ValueError
        text = readable_locations(str(e))
        raise InternalError(
            f"{what} (a halide_mlir bug):\n{text}", stage=stage, diagnostic=text, locations=source_locations(str(e))
        ) from None


# (a Func stored in a memory type has its line inside a name location: analysis/store_in.py)
_LOC = re.compile(r'loc\((?P<tag>"hl\.store_in\.\w+"\()?"(?P<path>(?:[^"\\]|\\.)*)":(?P<line>\d+):\d+\)(?(tag)\))')


def readable_locations(text: str) -> str:
    """``loc("/path/prog.py":12:0)`` → ``prog.py:12`` (as in our other messages); ``loc("-":20:23)`` is a line
    of the generated transform script."""

    def sub(m):
        path, line = m.group("path"), m.group("line")
        return f"transform script line {line}" if path == "-" else f"{os.path.basename(path)}:{line}"

    return _LOC.sub(sub, text)


def source_locations(text: str) -> frozenset:
    """The user's source lines (file, line) a diagnostic points at (not the transform script's)."""
    return frozenset((m["path"], int(m["line"])) for m in _LOC.finditer(text) if m["path"] != "-")


def _sequence(script, name: str):
    return next(
        (
            op
            for op in script.body.operations
            if "sym_name" in op.attributes and str(op.attributes["sym_name"]) == f'"{name}"'
        ),
        None,
    )


def apply_schedule(ctx, payload: str, transform: str):
    """Parse the payload and run the transform script on it, in process. Returns the module and the parsed
    script (bufferize runs its second entry point)."""
    from mlir import ir
    from mlir.dialects.transform import interpreter

    with ctx, mlir_errors("MLIR rejected the generated payload", "payload"):
        module = ir.Module.parse(payload)
    with ctx, mlir_errors("MLIR rejected the generated transform script", "transform"):
        script = ir.Module.parse(transform)
    with ctx, mlir_errors("applying the schedule failed", "schedule"):
        interpreter.apply_named_sequence(module.operation, _sequence(script, "__transform_main"), script)
    return module, script


def run_passes(ctx, module, passes: str, what: str, stage: str) -> None:
    from mlir import passmanager

    with ctx, mlir_errors(what, stage):
        passmanager.PassManager.parse(f"builtin.module({passes})").run(module.operation)


def bufferize(ctx, module, script) -> None:
    """Bufferize the scheduled module, turn strided vector reads into dense loads plus shuffles, contiguous
    gathers into loads and gathers' indices into i32, then unroll the loops the schedule unrolls (the script's
    UNROLL_SEQUENCE, see codegen/transform.py flush_unrolls), then clean up and fix the copies left."""
    from mlir.dialects.transform import interpreter

    run_passes(ctx, module, BUFFERIZE, "bufferization failed", "bufferize")
    with ctx, mlir_errors("rewriting vector reads failed", "bufferize"):
        dense_strided_reads(module)  # codegen/strided_reads.py
        clamped_gathers(module)  # codegen/clamped_gathers.py
        contiguous_gathers(module)  # codegen/contiguous_gathers.py
        divided_gathers(module)  # codegen/divided_gathers.py
        strided_gathers(module)  # codegen/strided_gathers.py
        narrow_gather_indices(module)  # codegen/gather_indices.py
        inject_prefetches(module)  # codegen/prefetch.py
    unroll = _sequence(script, UNROLL_SEQUENCE)
    if unroll is not None:
        with ctx:
            reported = check_unroll_factors(module, unroll)
        with ctx, mlir_errors("unrolling failed", "unroll"):
            interpreter.apply_named_sequence(module.operation, unroll, script)
        with ctx:
            check_unrolled(module, reported)
    run_passes(ctx, module, AFTER_BUFFERIZE, "bufferization failed", "bufferize")
    with ctx, mlir_errors("fusing compute_with loops failed", "bufferize"):
        fuse_tagged_loops(module)  # codegen/compute_with.py (after the clean-up: loops without results)
    with ctx, mlir_errors("rewriting copies failed", "bufferize"):
        rewrite_copies(module)  # codegen/copies.py (after CSE: equal views are one value)


# Unrolling is checked around @halide_unroll: transform.loop.unroll by a factor above the loop's trip count
# leaves the loop as it is, and by a smaller one leaves a loop; neither is an error in MLIR. A schedule's
# unroll that does not happen is reported (UnrollWarning), never silently dropped.


def _constant(value):
    op = value.owner
    if getattr(op, "name", None) != "arith.constant":
        return None
    from mlir import ir

    return ir.IntegerAttr(op.attributes["value"]).value


def _upper_bound(value):
    """A constant upper bound of an index: a constant, or an affine.min with a constant among its results
    (an edge tile's extent, min(4, 9 - iv))."""
    from mlir import ir

    c = _constant(value)
    op = value.owner
    if c is not None or getattr(op, "name", None) != "affine.min":
        return c
    consts = [
        e.value for e in ir.AffineMapAttr(op.attributes["map"]).value.results if isinstance(e, ir.AffineConstantExpr)
    ]
    return min(consts) if consts else None


def _max_trip(loop):
    """At most how many iterations the scf.for runs (None: not known when compiling)."""
    lb, ub, step = list(loop.operands)[:3]
    lb, ub, step = _constant(lb), _upper_bound(ub), _constant(step)
    if None in (lb, ub, step) or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def _unrolled_loops(module):
    """(hl.unroll id, what: the Func and loop, scf.for) of each loop the schedule unrolls."""
    from mlir import ir

    found = []

    def visit(op):
        if op.name == "scf.for" and "hl.unroll_of" in op.attributes:
            found.append(
                (
                    ir.IntegerAttr(op.attributes["hl.unroll"]).value,
                    ir.StringAttr(op.attributes["hl.unroll_of"]).value,
                    op,
                )
            )
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def check_unroll_factors(module, unroll_sequence) -> set:
    """Before unrolling: each loop's factor (from the @halide_unroll sequence) must be its trip count, at
    least in a full tile (edge tiles may run fewer iterations: the unroll's epilogue loop does them).
    Returns the loops reported."""
    factors, k = {}, None
    for op in unroll_sequence.regions[0].blocks[0].operations:
        text = str(op)
        m = re.search(r"hl\.unroll = (\d+)", text) or re.search(r"\{factor = (\d+)", text)
        if m and "hl.unroll" in m.group(0):
            k = int(m.group(1))
        elif m and k is not None:
            factors[k] = int(m.group(1))
    reported = set()
    for k, what, loop in _unrolled_loops(module):
        trip, factor = _max_trip(loop), factors.get(k)
        if trip is None or factor is None or trip <= 1 or trip == factor or what in reported:
            continue
        reported.add(what)
        warnings.warn(
            UnrollWarning(
                f"{what} is not fully unrolled: it runs {trip} iterations in the compiled "
                f"code, but is unrolled by {factor} (same values)"
            ),
            stacklevel=3,
        )
    return reported


def check_unrolled(module, reported: set = frozenset()) -> None:
    """After unrolling: a loop the schedule unrolls is gone or, in an edge tile, has a dynamic trip count
    (unroll-by-factor's epilogue). One still there with a static trip count above 1 was not unrolled."""
    for _, what, loop in _unrolled_loops(module):
        trip = _max_trip(loop) if _constant(list(loop.operands)[1]) is not None else None
        if trip is not None and trip > 1 and what not in reported:
            reported = reported | {what}
            warnings.warn(
                UnrollWarning(
                    f"{what} is not fully unrolled: {trip} iterations of it remain a loop "
                    f"in the compiled code (same values)"
                ),
                stacklevel=3,
            )


def lower(ctx, module, threads: int) -> None:
    """A bufferized module → the LLVM dialect (codegen/lowering.py's passes and IR rewrites, in order)."""
    with ctx, mlir_errors("approximating math functions failed", "lower"):
        approximated = approximate_math(module)  # codegen/math_approx.py: f32 exp, log, pow as vector code
    if approximated:
        run_passes(ctx, module, INLINE, "approximating math functions failed", "lower")
    hoist, loops, after = lowering_passes(threads)
    run_passes(ctx, module, hoist, "lowering to LLVM failed", "lower")
    with ctx:
        place_allocations(module)  # codegen/store_in.py: store_in(Heap/Stack/Register) of CPU stages
        if heap_allocations(module):
            loops = f"{DEALLOCATE},{loops}"
    run_passes(ctx, module, loops, "lowering to LLVM failed", "lower")
    with ctx:
        merge_parallel_regions(module)  # one fork/join for adjacent parallel loops
        hoist_static_allocas(module)
    run_passes(ctx, module, after, "lowering to LLVM failed", "lower")
    with ctx:
        keep_masked_store_values(module)  # works around an LLVM 22 X86 miscompile, see codegen/lowering.py
        compile_body_once(module)
    if auto_vectorize_mode() == "off":
        with ctx:
            keep_llvm_from_vectorizing(module)


LLVM_TARGET = ["-mtriple=x86_64-unknown-linux-gnu", "-mcpu=native"]


def translate_to_llvm_ir(lowered: str) -> str:
    """The LLVM dialect as LLVM IR (mlir-translate)."""
    from .tools import mlir_tool, run_tool

    return run_tool([mlir_tool("mlir-translate"), "--mlir-to-llvmir"], lowered)


def assemble(llvm_ir: str) -> str:
    """As the JIT builds it: opt -O3 first (it also lowers the async runtime's coroutines, if any), then llc.
    The triple matters: without it memcpy becomes byte loops (docs/mlir-pitfalls.md#target-triple)."""
    from .tools import llvm_tool, run_tool

    optimized = run_tool([llvm_tool("opt"), "-O3", "-S", *LLVM_TARGET], llvm_ir)
    return run_tool([llvm_tool("llc"), "-O3", *LLVM_TARGET], optimized)


def keep_llvm_from_vectorizing(module) -> None:
    """Scalar mode (analysis/vectorize.py): LLVM's loop and SLP vectorizers refuse functions marked
    ``noimplicitfloat``, so loops the schedule left scalar stay scalar, as in Halide. Explicit vector ops are
    unaffected."""
    from mlir import ir

    for op in top_level_ops(module, "llvm.func"):
        attrs = op.attributes
        old = list(attrs["passthrough"]) if "passthrough" in attrs else []
        attrs["passthrough"] = ir.ArrayAttr.get(old + [ir.StringAttr.get("noimplicitfloat")])


def runtime_libraries(threads: int) -> list[str]:
    """The shared libraries compiled code calls into: MLIR's runner utils (memrefCopy & co) and the runtime of
    its parallel loops (codegen/lowering.py)."""
    from .tools import mlir_lib

    libraries = [mlir_lib("libmlir_c_runner_utils.so")]
    runtime = parallel_runtime(threads)
    if runtime == "openmp":
        from . import openmp

        libraries.append(openmp.library())
    elif runtime == "async":
        libraries.append(mlir_lib("libmlir_async_runtime.so"))
    return libraries


# A library with MLIR's ``__mlir_execution_engine_init``/``_destroy`` hooks (the async runtime) registers its symbols
# with each ExecutionEngine given it and tears down its process-wide state when that engine is destroyed: its
# default runtime (thread pool) is a static the first destroyed engine resets, and every other engine's next
# parallel loop then crashes. So the engines never get such a library: it is loaded into the process once
# (RTLD_GLOBAL, never unloaded) and engines find its symbols through their process-symbol generator, so engines
# can be freed in any order while others run.
_process_libraries: dict = {}


def engine_libraries(libraries: list[str]) -> list[str]:
    """``libraries`` less those loaded process-wide instead (see above)."""
    kept = []
    for path in libraries:
        lib = _process_libraries.get(path)
        if lib is None:
            lib = _process_libraries[path] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        if hasattr(lib, "__mlir_execution_engine_destroy"):
            continue
        kept.append(path)
    return kept


def new_context():
    from mlir import ir

    ctx = ir.Context()
    ctx.allow_unregistered_dialects = False
    # A pipeline is one function: MLIR's pass thread pool has nothing to run in parallel, and its hand-offs cost
    # 2-4 ms CPU per compile (harris, unsharp, conv_layer)
    ctx.enable_multithreading(False)
    return ctx


# Compiles share one context (a new one loads every dialect: ~4 ms, a tenth of a small pipeline's MLIR time),
# renewed every CONTEXT_USES compiles so the types and attributes it interns stay bounded. Compiles hold
# compile_lock, so the context is never used from two threads at once.
CONTEXT_USES = 64
_shared_context = [None, 0]


def compile_context():
    if _shared_context[0] is None or _shared_context[1] >= CONTEXT_USES:
        _shared_context[:] = [new_context(), 0]
    _shared_context[1] += 1
    return _shared_context[0]


class Compiled:
    """A JIT-compiled pipeline; ``call`` it with one ctypes cell per argument.

    With ``cache_key`` (see disk_cache.py) the machine code comes from the on-disk cache when an entry exists
    (linked in memory, no compilation: ``from_disk`` is True); otherwise it is compiled and the object stored.
    """

    def __init__(
        self,
        payload: str,
        transform: str,
        arg_types: list[str],
        threads: int,
        lower_to_llvm,
        cache_key: str | None = None,
    ):
        from . import disk_cache
        from .memory import keep_freed_memory
        from .memref import scalar_ctype

        keep_freed_memory()
        self.arg_ctypes = [ctypes.c_void_p if t == "memref" else scalar_ctype(t) for t in arg_types]
        self.ctx = self.module = self.engine = self.loaded = None
        self.from_disk = False
        # the SlowPathWarnings its compile emitted, as (category, message with the unrolled loops' descriptions
        # as {0}, {1}..: the same engine serves a pipeline built again, whose descriptions may differ), emitted
        # again each time it is handed out (emit_warnings): a pipeline from the disk or in-memory cache warns as
        # its compile did
        self.warnings: list = []
        self._object = None  # the relocatable object's bytes, once known (object_code)
        libraries = runtime_libraries(threads)
        address = None
        entry = disk_cache.read_entry(cache_key) if cache_key else None
        obj = None
        if entry is not None:
            obj, notes = entry
            self.warnings = [(str(c), str(m)) for c, m in notes]
        if obj is not None:
            try:
                self.loaded = disk_cache.LoadedObject(obj, libraries)
                address = self.loaded.address
                self.from_disk = True
                self._object = obj
                disk_cache.stats["hits"] += 1
                disk_cache._log(f"hit {cache_key}")
            except (disk_cache.LinkError, OSError) as e:
                self.loaded = None
                self.warnings = []
                disk_cache.discard(cache_key, f"can't link the cached object ({e})")
        if address is None:
            if cache_key:
                disk_cache.stats["misses"] += 1
                disk_cache._log(f"miss {cache_key}")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                address = self._compile(payload, transform, threads, libraries, lower_to_llvm)
            descriptions = unroll_descriptions(transform)
            for w in caught:
                if issubclass(w.category, SlowPathWarning) and w.category.__module__ == SlowPathWarning.__module__:
                    self.warnings.append((w.category.__name__, _template(str(w.message), descriptions)))
                else:  # not ours to keep: passed on as it was
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
            if cache_key:
                self._store(cache_key)
        self.packed = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        self.module = None  # the engine holds the machine code; the lowered module is only memory now
        self.last_use = next(_clock)  # (for eviction: callers stamp each call)

    def _compile(self, payload: str, transform: str, threads: int, libraries: list[str], lower_to_llvm) -> int:
        from mlir import execution_engine

        self.ctx = compile_context()
        module = lower_to_llvm(self.ctx, payload, transform, threads)
        with self.ctx, mlir_errors("JIT compilation failed", "llvm"):
            try:
                self.engine = execution_engine.ExecutionEngine(
                    module, opt_level=3, shared_libs=engine_libraries(libraries)
                )
            except RuntimeError:  # the bindings' only word for "LLVM translation failed": name what was left
                raise InternalError(
                    "JIT compilation failed (a halide_mlir bug): ops without an LLVM lowering reached the JIT: "
                    + ", ".join(sorted({op.name for op in ops_where(module, _not_llvm)})),
                    stage="llvm",
                ) from None
            from .trace import register_with_engine

            register_with_engine(self.engine)  # hl.print and tracing's callbacks (runtime/trace.py)
        self.module = module
        # raw_lookup finds the *packed* wrapper: void(void **args), one pointer per argument's storage
        address = self.engine.raw_lookup("_mlir_ciface_pipeline")
        if not address:
            raise InternalError("the JIT did not produce the pipeline entry point", stage="llvm")
        return address

    def _store(self, cache_key: str) -> None:
        """The object the JIT just built (after raw_lookup compiled it) goes to the disk cache."""
        import tempfile
        from . import disk_cache

        try:
            with tempfile.TemporaryDirectory(prefix="halide_mlir-") as d:
                path = os.path.join(d, "pipeline.o")
                self.engine.dump_to_object_file(path)
                with open(path, "rb") as f:
                    obj = self._object = f.read()
        except Exception as e:  # noqa: BLE001 -- the cache is an optimisation: never fail a realize for it
            disk_cache.stats["errors"] += 1
            disk_cache._log(f"can't dump the object: {e}")
            return
        disk_cache.write(cache_key, obj, self.warnings)

    def emit_warnings(self, transform: str) -> None:
        """The SlowPathWarnings of this engine's compile, naming the unrolled loops as ``transform`` does."""
        if not self.warnings:
            return
        from .. import error

        descriptions = unroll_descriptions(transform)
        for category, template in self.warnings:
            cls = getattr(error, category, None)
            cls = cls if isinstance(cls, type) and issubclass(cls, SlowPathWarning) else SlowPathWarning
            try:
                message = template.format(*descriptions)
            except (IndexError, ValueError, KeyError):  # (a template this transform can't fill: never fail)
                message = template
            warnings.warn(cls(message), stacklevel=_user_stacklevel())

    def object_code(self) -> bytes:
        """The compiled pipeline as a relocatable object: what disk_cache.LoadedObject links in another process
        (halide_mlir.dask ships it to its workers)."""
        if self._object is None:
            import tempfile

            with tempfile.TemporaryDirectory(prefix="halide_mlir-") as d:
                path = os.path.join(d, "pipeline.o")
                self.engine.dump_to_object_file(path)
                with open(path, "rb") as f:
                    self._object = f.read()
        return self._object

    def call(self, cells) -> None:
        """One ctypes cell per argument: a ``void*`` to its descriptor for a memref (runtime/memref.py
        argument_cell), the scalar's own ctype for a Param."""
        self.last_use = next(_clock)
        self.packed((ctypes.c_void_p * len(cells))(*[ctypes.addressof(c) for c in cells]))


# Loaded engines, by text and settings. Each holds its machine code and LLVM's JIT state (~1-2 MB resident), so a
# process that builds many pipelines (a service, the autotuner) keeps at most max_engines(): the least recently
# called goes first. An evicted engine is freed when its last caller returns (the driver's caches hold it weakly);
# the same pipeline realized again links the disk cache's object (milliseconds) or compiles again.
_engines: dict = {}
_clock = itertools.count()
stats = {"built": 0, "evicted": 0}


def max_engines() -> int:
    """HALIDE_MLIR_MAX_ENGINES (default 64; 0: no bound)."""
    try:
        return max(0, int(os.environ.get("HALIDE_MLIR_MAX_ENGINES", "64")))
    except ValueError:
        return 64


def _evict(limit: int) -> None:
    """Drop the least recently called engines until at most ``limit`` remain (compile_lock held)."""
    while limit and len(_engines) > limit:
        key = min(_engines, key=lambda k: _engines[k].last_use)
        del _engines[key]
        stats["evicted"] += 1


# Compiles are serialized: two threads asking for the same pipeline get one engine, and LLVM's process-wide
# state (target registration, command-line options) is never initialized from two threads at once.
# Calls into compiled code do not take it (ctypes releases the GIL, so they run in parallel).
compile_lock = threading.RLock()


def loaded_engine_count() -> int:
    """How many compiled pipelines this process holds now (at most max_engines())."""
    return len(_engines)


def engines_built() -> int:
    """How many engines this process has made (compiled or linked from the disk cache), evicted ones included."""
    return stats["built"]


_UNROLL_DESCRIPTION = re.compile(r'(?<=transform\.param\.constant )"[^"]*"(?= -> !transform\.any_param)')


def compile_cached(payload: str, transform: str, arg_types: list[str], lower_to_llvm) -> Compiled:
    """Two Funcs that compile to the same text share one engine; across processes, the disk cache
    (disk_cache.py) supplies the compiled object so a second process compiles nothing. ``lower_to_llvm(ctx,
    payload, transform, threads)``: the MLIR steps (driver.py), run on a miss."""
    threads, runtime, vectorize_mode = compile_settings()
    # the unrolled loops' descriptions (for UnrollWarning) name fresh Vars and RDoms (v3, r0), numbered per
    # process: the same pipeline built again must still find its engine and its disk-cache entry
    transform_key = _UNROLL_DESCRIPTION.sub('""', transform)
    payload_key, transform_key = _canonical_func_names(payload, transform_key)
    key = (payload_key, transform_key, threads, runtime, vectorize_mode)
    c = _engines.get(key)
    if c is None:
        with compile_lock:
            c = _engines.get(key)
            if c is None:
                from . import disk_cache

                cache_key = None
                if disk_cache.enabled():
                    passes = f"{BUFFERIZE}|{UNROLL_SEQUENCE}|{AFTER_BUFFERIZE}|{to_llvm(threads)}"
                    cache_key = disk_cache.key(
                        payload_key,
                        transform_key,
                        threads,
                        arg_types,
                        f"{passes}|opt_level=3|vectorize={vectorize_mode}",
                    )
                c = Compiled(payload, transform, arg_types, threads, lower_to_llvm, cache_key)
                stats["built"] += 1
                _engines[key] = c
                _evict(max_engines())
    c.last_use = next(_clock)
    c.emit_warnings(transform)
    return c


_FUNC_ATTR = re.compile(r'(hl\.(?:func|update_of|kernel|loop) = ")([^".]*)')


def _canonical_func_names(payload: str, transform: str) -> tuple[str, str]:
    """The texts with each stage's name (``hl.func``, ``hl.update_of``, ...) replaced by its order of first use:
    Func names are unique per process (a rebuilt pipeline's ``f`` is ``f$1``), and a rebuilt pipeline must find
    its engine and disk entry. (Names are only labels there; a consistent renaming keeps which op each
    transform line matches.)"""
    names: dict[str, str] = {}

    def sub(m):
        return m.group(1) + names.setdefault(m.group(2), f"s{len(names)}")

    return _FUNC_ATTR.sub(sub, payload), _FUNC_ATTR.sub(sub, transform)


def unroll_descriptions(transform: str) -> list[str]:
    """The unrolled loops' descriptions (``hl.unroll_of``: the Func, the loop, the schedule's line), in order."""
    return [
        _MLIR_ESCAPE.sub(lambda m: m.group(1) or bytes.fromhex(m.group(2)).decode("latin-1"), d[1:-1])
        .encode("latin-1")
        .decode("utf-8", "replace")
        for d in _UNROLL_DESCRIPTION.findall(transform)
    ]


_MLIR_ESCAPE = re.compile(r'\\(?:(["\\])|([0-9A-Fa-f]{2}))')


def _template(message: str, descriptions: list[str]) -> str:
    """``message`` with braces doubled and each description (longest first) as its ``{index}``."""
    message = message.replace("{", "{{").replace("}", "}}")
    for i, d in sorted(enumerate(descriptions), key=lambda e: -len(e[1])):
        d = d.replace("{", "{{").replace("}", "}}")
        if d:
            message = message.replace(d, "{%d}" % i)
    return message


def _user_stacklevel() -> int:
    """The stacklevel of the first caller outside halide_mlir (a warning then points at the user's line)."""
    import sys

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level
