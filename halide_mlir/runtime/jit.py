"""Payload + transform script → scheduled IR → LLVM dialect → ExecutionEngine, with MLIR errors as HalideError."""
from __future__ import annotations

import contextlib
import ctypes
import os
import re
import threading

from ..codegen.lowering import BUFFERIZE, RUNTIME_LIBRARIES, num_threads, to_llvm
from ..error import HalideError

_PARSE_OPTS = {}


@contextlib.contextmanager
def mlir_errors(what: str):
    """MLIR diagnostics carry the user's source lines (every op has a loc); surface them as HalideError."""
    from mlir.ir import MLIRError
    try:
        yield
    except MLIRError as e:
        raise HalideError(f"{what}:\n{readable_locations(str(e))}") from None
    except ValueError as e:  # the transform interpreter reports failures as ValueError with the diagnostics
        raise HalideError(f"{what}:\n{readable_locations(str(e))}") from None


_LOC = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):\d+\)')


def readable_locations(text: str) -> str:
    """``loc("/path/prog.py":12:0)`` → ``prog.py:12`` (as in our other messages); ``loc("-":20:23)`` is a line
    of the generated transform script."""
    def sub(m):
        path, line = m.group(1), m.group(2)
        return f"transform script line {line}" if path == "-" else f"{os.path.basename(path)}:{line}"
    return _LOC.sub(sub, text)


def apply_schedule(ctx, payload: str, transform: str):
    """Parse the payload and run the transform script on it, in process."""
    from mlir import ir
    from mlir.dialects.transform import interpreter
    with ctx, mlir_errors("MLIR rejected the generated payload (a halide_mlir bug)"):
        module = ir.Module.parse(payload)
    with ctx, mlir_errors("MLIR rejected the generated transform script (a halide_mlir bug)"):
        script = ir.Module.parse(transform)
    entry = next(op for op in script.body.operations
                 if "sym_name" in op.attributes and str(op.attributes["sym_name"]) == '"__transform_main"')
    with ctx, mlir_errors("applying the schedule failed"):
        interpreter.apply_named_sequence(module.operation, entry, script)
    return module


def run_passes(ctx, module, passes: str, what: str) -> None:
    from mlir import passmanager
    with ctx, mlir_errors(what):
        passmanager.PassManager.parse(f"builtin.module({passes})").run(module.operation)


def lower(ctx, payload: str, transform: str, threads: int):
    """Scheduled, bufferized and lowered to the LLVM dialect."""
    module = apply_schedule(ctx, payload, transform)
    run_passes(ctx, module, BUFFERIZE, "bufferization failed")
    run_passes(ctx, module, to_llvm(threads), "lowering to LLVM failed")
    return module


def new_context():
    from mlir import ir
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = False
    return ctx


class Compiled:
    """A JIT-compiled pipeline; call it with descriptor addresses and scalars."""

    def __init__(self, payload: str, transform: str, arg_types: list[str], threads: int):
        from mlir import execution_engine
        from .memory import keep_freed_memory
        from .tools import mlir_lib
        keep_freed_memory()
        self.ctx = new_context()
        module = lower(self.ctx, payload, transform, threads)
        with self.ctx, mlir_errors("JIT compilation failed"):
            self.engine = execution_engine.ExecutionEngine(
                module, opt_level=3, shared_libs=[mlir_lib(l) for l in RUNTIME_LIBRARIES])
        self.module = module
        # raw_lookup finds the *packed* wrapper: void(void **args), one pointer per argument's storage
        address = self.engine.raw_lookup("_mlir_ciface_pipeline")
        if not address:
            raise HalideError("internal: the JIT did not produce the pipeline entry point")
        from .memref import scalar_ctype
        self.arg_ctypes = [ctypes.c_void_p if t == "memref" else scalar_ctype(t) for t in arg_types]
        self.packed = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)

    def __call__(self, *args) -> None:
        """Memref arguments are addresses of descriptors; scalars are Python numbers."""
        cells = [ct(a) for ct, a in zip(self.arg_ctypes, args)]
        pointers = (ctypes.c_void_p * len(cells))(*[ctypes.addressof(c) for c in cells])
        self.packed(pointers)


_engines: dict = {}
# Compiles are serialized: two threads asking for the same pipeline get one engine, and LLVM's process-wide
# state (target registration, command-line options) is never initialized from two threads at once.
# Calls into compiled code do not take it (ctypes releases the GIL, so they run in parallel).
compile_lock = threading.RLock()


def compile_cached(payload: str, transform: str, arg_types: list[str]) -> Compiled:
    """Two Funcs that compile to the same text share one engine."""
    threads = num_threads()
    key = (payload, transform, threads)
    c = _engines.get(key)
    if c is None:
        with compile_lock:
            c = _engines.get(key)
            if c is None:
                c = Compiled(payload, transform, arg_types, threads)
                _engines[key] = c
    return c
