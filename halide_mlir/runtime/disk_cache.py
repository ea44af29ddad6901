"""Compiled pipelines persisted on disk, so a second process skips compilation entirely (Halide cannot: halide#5605).

What is stored is the relocatable object the JIT produced (``ExecutionEngine.dump_to_object_file``). A later process
links it in memory with LLVM's ORC JIT (``LLJIT`` through the LLVM-C API of the ``libLLVM.so`` that the MLIR wheels
already load): no MLIR parsing, no transform interpreter, no pass pipeline, no LLVM code generation, no external
linker, and ``mlir`` is not even imported. Linking a pipeline's object takes a few milliseconds.

Where:   ``$HALIDE_MLIR_CACHE_DIR``, else ``$XDG_CACHE_HOME/halide_mlir``, else ``~/.cache/halide_mlir``.
Off:     ``HALIDE_MLIR_CACHE=0`` (nothing is read or written; the in-memory cache still works).
Private: created 0700; a directory another user owns, or that group or others can write, is not used (an
         ``UnsafeCacheWarning``; realizes compile as with the cache off).
Size:    ``HALIDE_MLIR_CACHE_MAX_MB`` (default 1024): after a store, the least recently used entries (a hit refreshes
         an entry's mtime) are deleted until the cache is under 80% of that.
Verbose: ``HALIDE_MLIR_CACHE_VERBOSE=1`` prints one line per lookup/store to stderr.

Key: sha256 of the payload and transform text, the thread count, the argument types, the lowering pass pipeline,
this file's format version, the halide_mlir sources that run after the payload is built (jit.py, lowering.py,
this file, the post-bufferization rewrites), the MLIR/LLVM wheels (their libraries' size and mtime), and the host
CPU name and feature flags as LLVM sees them (the object is compiled for this CPU).

An entry is ``MAGIC | key | sha256(object + notes) | len(object) | len(notes) | object | notes``; the notes are
the SlowPathWarnings the compile emitted (JSON: category and message), which a hit emits again, as a compile
would. It is written to a temporary file in the cache directory and renamed into place (atomic on POSIX), so
concurrent processes storing the same entry are safe: each rename installs a complete file. An entry that is
truncated, has the wrong checksum, or that ORC refuses to link is
counted in ``stats["corrupt"]``, deleted and rebuilt by the caller.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import stat
import struct
import sys
import tempfile
import threading

FORMAT = b"halide_mlir object cache v2"
MAGIC = b"HLMLIRO2"
_HEADER = struct.Struct("<8s32s32sQQ")  # magic, key digest, digest of object + notes, their lengths
ENTRY_POINT = b"_mlir__mlir_ciface_pipeline"  # the packed wrapper: void(void **args)

# Counters for tests and diagnostics (never timing): a second process that loads from disk shows hits == 1.
stats = {"hits": 0, "misses": 0, "stores": 0, "corrupt": 0, "errors": 0}
_lock = threading.Lock()


def enabled() -> bool:
    """The cache is on (HALIDE_MLIR_CACHE) and its directory is private (see private_dir)."""
    if os.environ.get("HALIDE_MLIR_CACHE", "1").strip().lower() in ("0", "false", "no", "off", ""):
        return False
    return private_dir(cache_dir())


# The cache loads and runs native code from its directory, and its checksums guard against damage, not against
# someone else writing an entry: the directory must be private, as for compiler caches that execute what they
# load. Created 0700; one another user owns or that group or others can write is refused (a warning, no cache).
_private: dict = {}


def private_dir(d: str) -> bool:
    """Whether ``d`` is (created if need be as) a directory only this user can write; warns once when not."""
    ok = _private.get(d)
    if ok is not None:
        return ok
    why = None
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        st = os.stat(d)
        if not stat.S_ISDIR(st.st_mode):
            why = "it is not a directory"
        elif hasattr(os, "getuid") and st.st_uid != os.getuid():
            why = f"it is owned by another user (uid {st.st_uid})"
        elif st.st_mode & 0o022:
            why = f"group or others can write it (mode {stat.S_IMODE(st.st_mode):o})"
    except OSError:  # not there and can't be made: nothing can be loaded from it (stores fail, counted)
        pass
    if why is not None:
        import warnings
        from ..error import UnsafeCacheWarning

        warnings.warn(
            UnsafeCacheWarning(
                f"halide_mlir: not using the compiled-code cache in {d}: {why}. The cache runs the code it loads, so "
                f"its directory must be private (0700, yours); set HALIDE_MLIR_CACHE_DIR to one that is, or "
                f"HALIDE_MLIR_CACHE=0"
            ),
            stacklevel=2,
        )
    _private[d] = ok = why is None
    return ok


def cache_dir() -> str:
    d = os.environ.get("HALIDE_MLIR_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "halide_mlir")


def _log(msg: str) -> None:
    if os.environ.get("HALIDE_MLIR_CACHE_VERBOSE", "") not in ("", "0"):
        print(f"halide_mlir cache: {msg}", file=sys.stderr)


# ------------------------------------------------------------------------------------------- libLLVM (LLVM-C)

_llvm = [None]


def _libllvm():
    """The wheel's libLLVM.so (the same instance the MLIR bindings link against), with the ORC prototypes set."""
    if _llvm[0] is not None:
        return _llvm[0]
    with _lock:
        if _llvm[0] is not None:
            return _llvm[0]
        from .tools import _package_dir

        lib = ctypes.CDLL(os.path.join(_package_dir("llvm"), "lib", "libLLVM.so"))
        vp, P = ctypes.c_void_p, ctypes.POINTER

        def proto(name, res, *args):
            f = getattr(lib, name)
            f.restype, f.argtypes = res, list(args)

        proto("LLVMGetHostCPUName", vp)
        proto("LLVMGetHostCPUFeatures", vp)
        proto("LLVMDisposeMessage", None, vp)
        proto("LLVMGetErrorMessage", vp, vp)
        proto("LLVMDisposeErrorMessage", None, vp)
        proto("LLVMOrcCreateLLJIT", vp, P(vp), vp)
        proto("LLVMOrcDisposeLLJIT", vp, vp)
        proto("LLVMOrcLLJITGetMainJITDylib", vp, vp)
        proto("LLVMOrcLLJITGetGlobalPrefix", ctypes.c_char, vp)
        proto("LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess", vp, P(vp), ctypes.c_char, vp, vp)
        proto("LLVMOrcCreateDynamicLibrarySearchGeneratorForPath", vp, P(vp), ctypes.c_char_p, ctypes.c_char, vp, vp)
        proto("LLVMOrcJITDylibAddGenerator", None, vp, vp)
        proto("LLVMCreateMemoryBufferWithMemoryRangeCopy", vp, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p)
        proto("LLVMOrcLLJITAddObjectFile", vp, vp, vp, vp)
        proto("LLVMOrcLLJITLookup", vp, vp, P(ctypes.c_uint64), ctypes.c_char_p)
        for target in ("TargetInfo", "Target", "TargetMC", "AsmPrinter"):
            getattr(lib, f"LLVMInitializeX86{target}")()
        _llvm[0] = lib
        return lib


def _message(lib, ptr, dispose) -> str:
    text = ctypes.string_at(ptr).decode(errors="replace")
    dispose(ptr)
    return text


class LinkError(Exception):
    pass


def _check(lib, err) -> None:
    if err:
        raise LinkError(_message(lib, lib.LLVMGetErrorMessage(err), lib.LLVMDisposeErrorMessage))


_host = [None]


def host_cpu() -> str:
    """LLVM's host CPU name and feature string: what the JIT compiled for."""
    if _host[0] is None:
        try:
            lib = _libllvm()
            name = _message(lib, lib.LLVMGetHostCPUName(), lib.LLVMDisposeMessage)
            features = _message(lib, lib.LLVMGetHostCPUFeatures(), lib.LLVMDisposeMessage)
            _host[0] = f"{name};{features}"
        except (OSError, AttributeError) as e:  # no usable libLLVM: a key nothing else produces
            _host[0] = f"unknown cpu: {e}"
    return _host[0]


# ------------------------------------------------------------------------------------------------ the key

_versions = [None]


def _environment() -> str:
    """What else decides the machine code: the MLIR/LLVM wheels (identified by their libraries' size and mtime,
    which change on any reinstall: cheaper than importlib.metadata, which costs ~25 ms) and the halide_mlir code
    that runs after the payload/transform text is built (hashed)."""
    if _versions[0] is None:
        from .tools import _package_dir

        here = os.path.dirname(os.path.abspath(__file__))
        parts = [FORMAT.decode(), f"{sys.platform} {sys.byteorder}"]
        for path in (
            os.path.join(_package_dir("llvm"), "lib", "libLLVM.so"),
            os.path.join(_package_dir("mlir"), "_mlir_libs", "libMLIRPythonCAPI.so"),
            os.path.join(_package_dir("mlir"), "lib", "libmlir_async_runtime.so"),
            os.path.join(_package_dir("mlir"), "lib", "libmlir_c_runner_utils.so"),
        ):
            try:
                st = os.stat(path)
                parts.append(f"{os.path.basename(path)} {st.st_size} {st.st_mtime_ns}")
            except OSError:
                parts.append(f"{os.path.basename(path)} missing")
        for source in (
            os.path.join(here, "jit.py"),
            os.path.join(here, "disk_cache.py"),
            os.path.join(here, os.pardir, "codegen", "lowering.py"),
            os.path.join(here, os.pardir, "codegen", "math_approx.py"),
            # the rewrites jit.bufferize runs on the bufferized module
            os.path.join(here, os.pardir, "codegen", "strided_reads.py"),
            os.path.join(here, os.pardir, "codegen", "clamped_gathers.py"),
            os.path.join(here, os.pardir, "codegen", "contiguous_gathers.py"),
            os.path.join(here, os.pardir, "codegen", "gather_indices.py"),
            os.path.join(here, os.pardir, "codegen", "copies.py"),
            os.path.join(here, os.pardir, "codegen", "prefetch.py"),
            os.path.join(here, os.pardir, "codegen", "compute_with.py"),
            os.path.join(here, os.pardir, "codegen", "ir_walk.py"),
            os.path.join(here, os.pardir, "codegen", "divided_gathers.py"),
            os.path.join(here, os.pardir, "codegen", "strided_gathers.py"),
            os.path.join(here, os.pardir, "driver.py"),
        ):
            try:
                with open(source, "rb") as f:
                    parts.append(hashlib.sha256(f.read()).hexdigest())
            except OSError:
                parts.append(f"{source} unreadable")
        _versions[0] = "\n".join(parts)
    return _versions[0]


def key(payload: str, transform: str, threads: int, arg_types, passes: str) -> str:
    h = hashlib.sha256()
    for part in (_environment(), host_cpu(), passes, str(threads), ",".join(arg_types), payload, transform):
        data = part.encode()
        h.update(struct.pack("<Q", len(data)))
        h.update(data)
    return h.hexdigest()


def _path(k: str) -> str:
    return os.path.join(cache_dir(), k[:2], k + ".o")


# ------------------------------------------------------------------------------------------- read / write


def pack(k: str, obj: bytes, notes: list | tuple = ()) -> bytes:
    """Entry ``k``'s bytes: the header, the object, the notes (a list of JSON values)."""
    text = json.dumps(list(notes)).encode()
    return _HEADER.pack(MAGIC, bytes.fromhex(k), hashlib.sha256(obj + text).digest(), len(obj), len(text)) + obj + text


def read(k: str) -> bytes | None:
    """The object of entry ``k``, or None when absent; a damaged entry is deleted (and counted) and gives None."""
    entry = read_entry(k)
    return None if entry is None else entry[0]


def read_entry(k: str) -> tuple[bytes, list] | None:
    """(object, notes) of entry ``k``, or None when absent or damaged (deleted and counted)."""
    path = _path(k)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    notes = None
    try:
        magic, kd, od, n, m = _HEADER.unpack_from(data)
        obj, text = data[_HEADER.size : _HEADER.size + n], data[_HEADER.size + n :]
        ok = (
            magic == MAGIC
            and kd == bytes.fromhex(k)
            and n == len(obj)
            and m == len(text)
            and hashlib.sha256(obj + text).digest() == od
            and obj[:4] == b"\x7fELF"
        )
        notes = json.loads(text) if ok else None
        ok = ok and isinstance(notes, list)
    except (struct.error, ValueError):
        ok = False
    if not ok:
        discard(k, "damaged entry")
        return None
    try:
        os.utime(path)  # recently used: pruned last
    except OSError:
        pass
    return obj, notes


def max_bytes() -> int:
    try:
        return int(float(os.environ.get("HALIDE_MLIR_CACHE_MAX_MB", "1024")) * (1 << 20))
    except ValueError:
        return 1 << 30


def prune(limit: int | None = None) -> int:
    """Delete the least recently used entries while the cache holds more than ``limit`` bytes (default
    ``max_bytes()``), down to 80% of it; returns how many were deleted. Another process deleting the same files
    at the same time is harmless (a missing entry is a miss)."""
    limit = max_bytes() if limit is None else limit
    entries, total = [], 0
    for sub in os.scandir(cache_dir()) if os.path.isdir(cache_dir()) else []:
        if not sub.is_dir():
            continue
        for e in os.scandir(sub.path):
            if e.name.endswith(".o") and not e.name.startswith(".tmp-"):
                try:
                    st = e.stat()
                except OSError:
                    continue
                entries.append((st.st_mtime, st.st_size, e.path))
                total += st.st_size
    if total <= limit:
        return 0
    deleted = 0
    for _, size, path in sorted(entries):
        if total <= 0.8 * limit:
            break
        try:
            os.unlink(path)
            total -= size
            deleted += 1
        except OSError:
            pass
    _log(f"pruned {deleted} entries (limit {limit} bytes)")
    return deleted


def discard(k: str, why: str) -> None:
    stats["corrupt"] += 1
    _log(f"{why}, rebuilding {k}")
    try:
        os.unlink(_path(k))
    except OSError:
        pass


def write(k: str, obj: bytes, notes: list | tuple = ()) -> None:
    """Install entry ``k`` atomically (temp file in the same directory + rename). Failures only cost the cache."""
    if obj[:4] != b"\x7fELF":
        stats["errors"] += 1
        _log(f"not storing {k}: the JIT's object dump is not an ELF object")
        return
    path = _path(k)
    tmp = None
    try:
        os.makedirs(cache_dir(), mode=0o700, exist_ok=True)  # (makedirs gives a mode to the leaf only)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-", suffix=".o")
        with os.fdopen(fd, "wb") as f:
            f.write(pack(k, obj, notes))
        os.replace(tmp, path)
        tmp = None
        stats["stores"] += 1
        _log(f"stored {k} ({len(obj)} bytes)")
        prune()
    except OSError as e:
        stats["errors"] += 1
        _log(f"can't store {k}: {e}")
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


# --------------------------------------------------------------------------------------------- linking


class LoadedObject:
    """A cached object linked into its own ORC LLJIT; ``address`` is the packed entry point."""

    def __init__(self, obj: bytes, runtime_libraries: list[str]):
        lib = self._lib = _libllvm()
        jit = ctypes.c_void_p()
        _check(lib, lib.LLVMOrcCreateLLJIT(ctypes.byref(jit), None))
        self._jit = jit
        jd = lib.LLVMOrcLLJITGetMainJITDylib(jit)
        prefix = lib.LLVMOrcLLJITGetGlobalPrefix(jit)
        # the runner utils and the parallel-loop runtime first (as the ExecutionEngine's shared_libs), then libc & co
        for path in runtime_libraries:
            gen = ctypes.c_void_p()
            _check(
                lib,
                lib.LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(
                    ctypes.byref(gen), path.encode(), prefix, None, None
                ),
            )
            lib.LLVMOrcJITDylibAddGenerator(jd, gen)
        gen = ctypes.c_void_p()
        _check(lib, lib.LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(ctypes.byref(gen), prefix, None, None))
        lib.LLVMOrcJITDylibAddGenerator(jd, gen)
        from .trace import define_symbols

        define_symbols(lib, jit, jd)  # hl.print and tracing's callbacks (runtime/trace.py)
        buf = lib.LLVMCreateMemoryBufferWithMemoryRangeCopy(obj, len(obj), b"halide_mlir_pipeline")
        _check(lib, lib.LLVMOrcLLJITAddObjectFile(jit, jd, buf))  # takes ownership of buf
        address = ctypes.c_uint64()
        _check(lib, lib.LLVMOrcLLJITLookup(jit, ctypes.byref(address), ENTRY_POINT))  # links (resolves) here
        if not address.value:
            raise LinkError("the cached object has no pipeline entry point")
        self.address = address.value

    def __del__(self, _finalizing=sys.is_finalizing):
        # at interpreter exit the code may still run (atexit, other threads): leave it mapped
        jit = getattr(self, "_jit", None)
        if jit and jit.value and not _finalizing():
            self._jit = None
            self._lib.LLVMOrcDisposeLLJIT(jit)
