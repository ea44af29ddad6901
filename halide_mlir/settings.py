"""Process-wide settings that change the compiled code, read from the environment (and set_auto_vectorize).

They are read when a pipeline is compiled, as Halide reads HL_* once per JIT compile, and are part of the compile
caches' keys (``compile_settings``): code compiled under one setting is never reused for a compile under another.
Code already compiled keeps its settings, as Halide's JIT module does: a repeated realize or an hl.Callable's call
does not read the environment again (that was ~0.14 us of a ~0.5 us call); a changed variable takes effect on the
next compile (new definitions or schedules, new sizes). set_auto_vectorize counts as a schedule change.
"""

from __future__ import annotations

import os

from .error import HalideError

CORES = os.cpu_count() or 1  # (asking the OS costs ~10 us, once per realize otherwise)
PARALLEL_RUNTIMES = ("openmp", "async")


def num_threads() -> int:
    """Halide's HL_NUM_THREADS, else every core."""
    env = os.environ.get("HL_NUM_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return CORES


def parallel_runtime(threads: int) -> str:
    """What runs parallel loops: "serial" (one thread), else HALIDE_MLIR_PARALLEL_RUNTIME: "openmp" (the
    default) or "async"."""
    if threads <= 1:
        return "serial"
    runtime = os.environ.get("HALIDE_MLIR_PARALLEL_RUNTIME", "openmp") or "openmp"
    if runtime not in PARALLEL_RUNTIMES:
        raise HalideError(f"HALIDE_MLIR_PARALLEL_RUNTIME={runtime!r}: expected one of {', '.join(PARALLEL_RUNTIMES)}")
    return runtime


AUTO_VECTORIZE_MODES = ("auto", "off", "llvm")
_auto_vectorize_override: list = [None]


def set_auto_vectorize(enabled: bool) -> None:
    """True/False turn auto-vectorization (analysis/vectorize.py) on/off for this process, "llvm" leaves
    unvectorized loops to LLVM's vectorizers, None goes back to the environment's choice."""
    if enabled not in (True, False, None, "llvm"):
        raise ValueError(f"set_auto_vectorize takes True, False, 'llvm' or None, not {enabled!r}")
    _auto_vectorize_override[0] = enabled
    from .lang.schedule import touch

    touch()  # (like a schedule change: what was compiled before is not repeated blindly)


def auto_vectorize_mode() -> str:
    """ "auto", "off" (scalar, LLVM's vectorizers off too) or "llvm" (scalar loops left to LLVM):
    set_auto_vectorize, else HALIDE_MLIR_AUTO_VECTORIZE (default 1)."""
    choice = _auto_vectorize_override[0]
    if choice is None:
        choice = os.environ.get("HALIDE_MLIR_AUTO_VECTORIZE", "1").strip().lower()
    if choice == "llvm":
        return "llvm"
    return "off" if choice in (False, "0", "false", "no", "off") else "auto"


_ENV_NAMES = ("HL_NUM_THREADS", "HALIDE_MLIR_PARALLEL_RUNTIME", "HALIDE_MLIR_AUTO_VECTORIZE")
# os.environ's own mapping (bytes on POSIX): reading it directly costs ~0.1 us a name against ~1 us for
# os.environ[...] (a realize's fast path reads the settings on every call)
_environ_data = getattr(os.environ, "_data", None)
_env_keys = (
    tuple(os.environ.encodekey(n) for n in _ENV_NAMES)
    if _environ_data is not None and hasattr(os.environ, "encodekey")
    else None
)
_last: list = [None, None]


def compile_settings() -> tuple:
    """(threads, parallel runtime, auto-vectorize mode): what, besides the pipeline, shapes the compiled code.
    Worked out again whenever the environment variables or set_auto_vectorize that decide it change."""
    if _env_keys is not None:
        get = _environ_data.get
        raw = (get(_env_keys[0]), get(_env_keys[1]), get(_env_keys[2]), _auto_vectorize_override[0])
        if raw == _last[0]:
            return _last[1]
    else:
        raw = None
    threads = num_threads()
    settings = threads, parallel_runtime(threads), auto_vectorize_mode()
    if raw is not None:
        _last[:] = [raw, settings]
    return settings
