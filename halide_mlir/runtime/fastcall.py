"""A C trampoline for the repeated-call fast paths (runtime/call.py's CallPlan, aot/callable.py's _Plan).

Through ctypes, one small call cost ~1.5 us of Python (the argument array copied, a ctype per scalar, the
descriptor of each output, the foreign call): Halide's Callable is ~0.5 us. fastcall.c does that work in one C
call. It is a CPython extension built once with the system C compiler and kept in the compiled-code cache's
directory, keyed by its source and this Python; without ``cc``, Python's headers or a private cache directory,
the plans keep the ctypes path (said once in a debug log). ``HALIDE_MLIR_FASTCALL=0`` turns it off.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
import threading

log = logging.getLogger(__name__)

_NAME = "_halide_mlir_fastcall"
_SOURCE = os.path.join(os.path.dirname(__file__), "fastcall.c")
_SPEC = struct.Struct("<iiiiqq")  # ScalarSpec: slot, value index, code, pad, lowest, highest
_CTYPE_CODES = {ctypes.c_int8: 1, ctypes.c_int16: 2, ctypes.c_int32: 3, ctypes.c_int64: 4}
_CTYPE_CODES.update({ctypes.c_float: 5, ctypes.c_double: 6})
_I64 = (-(1 << 63), (1 << 63) - 1)

_state: list = []  # [the module's call function, or None: the ctypes path]
_lock = threading.Lock()


def trampoline():
    """fastcall.c's ``call``, or None: use ctypes (off, or it can't be built here)."""
    if os.environ.get("HALIDE_MLIR_FASTCALL", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    if _state:
        return _state[0]
    with _lock:
        if not _state:
            try:
                fn, why = _load()
            except Exception as e:  # noqa: BLE001 -- an optimisation: never fail a call for it
                fn, why = None, f"{type(e).__name__}: {e}"
            if fn is None:
                log.debug("halide_mlir: the C call trampoline is not available (%s); calls go through ctypes", why)
            _state.append(fn)
    return _state[0]


def _load():
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        return None, f"no C compiler '{cc}'"
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        return None, f"no Python.h in {include}"
    with open(_SOURCE, "rb") as f:
        source = f.read()
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    key = hashlib.sha256(b"\0".join([source, sys.version.encode(), suffix.encode(), cc.encode()])).hexdigest()[:32]
    from . import disk_cache

    if disk_cache.enabled():
        d = os.path.join(disk_cache.cache_dir(), "fastcall")
        os.makedirs(d, mode=0o700, exist_ok=True)
        path = os.path.join(d, key + suffix)
        if not os.path.exists(path):
            err = _build(cc, include, d, path)
            if err:
                return None, err
        return _import(path), None
    with tempfile.TemporaryDirectory(prefix="halide_mlir-") as d:  # no cache: built for this process only
        path = os.path.join(d, key + suffix)
        err = _build(cc, include, d, path)
        return (None, err) if err else (_import(path), None)


def _build(cc: str, include: str, d: str, path: str):
    """Builds into a temporary name, then renames (other processes may be building the same one)."""
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".so.tmp")
    os.close(fd)
    try:
        argv = [cc, "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-I", include, _SOURCE, "-o", tmp]
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            return f"{cc} failed: {r.stderr[-2000:]}"
        os.replace(tmp, path)
        return None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _import(path: str):
    from importlib.machinery import ExtensionFileLoader
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location(_NAME, path, loader=ExtensionFileLoader(_NAME, path))
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.call


def address(compiled) -> int:
    """The packed entry point's address of a compiled pipeline (its ``packed`` ctypes function)."""
    return ctypes.cast(compiled.packed, ctypes.c_void_p).value


def scalar_spec(entries) -> bytes | None:
    """``entries``: (slot, value index, ctype, lowest, highest or None, a bool Param whose values are Python
    bools); None: a type the trampoline lacks."""
    out = []
    for slot, value, ct, lo, hi, boolean in entries:
        code = 7 if boolean else _CTYPE_CODES.get(ct)
        if code is None:
            return None
        lo = _I64[0] if lo is None else max(lo, _I64[0])
        hi = _I64[1] if hi is None else min(hi, _I64[1])
        out.append(_SPEC.pack(slot, value, code, 0, lo, hi))
    return b"".join(out)
