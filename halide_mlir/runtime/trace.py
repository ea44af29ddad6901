"""The functions compiled code calls to print: ``hl.print``/``hl.print_when`` and the trace events of
``trace_stores``/``trace_loads``/``trace_realizations``, in Halide's default text format.

Compiled code builds each line with a few calls (codegen/trace.py writes them): text 8 bytes at a time, integers,
floats, then the end of the line. They are ctypes callbacks, defined as symbols of every JIT (the
ExecutionEngine's and the disk cache's linker, ``define_symbols``): compiled objects name them and are linked to
them at load time, so a cached object works in any process. Lines go to Python's ``sys.stdout`` when they end,
as Halide's Python bindings print (their ``halide_print`` is ``py::print``): ``contextlib.redirect_stdout``,
pytest's ``capsys`` and ``capfd`` all see them.

A vectorized Func that is traced runs its lanes one after another (the loads and stores are calls in each
lane), and each trace event's ``lanes`` consecutive lines from one thread are merged into Halide's vector line
(``Store f.0(<0, 1, 2, 3>, <0, 0, 0, 0>) = <0, 1, 2, 3>``).
"""

from __future__ import annotations

import ctypes
import sys
import threading

# the symbols compiled code calls: name -> (ctypes signature, MLIR signature)
CHARS = "halide_mlir_print_chars"  # (i64: up to 8 bytes of text, little-endian, zero-padded)
INT = "halide_mlir_print_int"  # (i64 value, i32 kind: 0 signed, 1 unsigned, 2 bool)
FLOAT = "halide_mlir_print_float"  # (f64 value, i32 kind: 0 fixed "%f", 1 scientific "%e")
END = "halide_mlir_print_end"  # (i32 lanes: 1 a line; n > 1 one lane of an n-lane vector event)
MLIR_SIGNATURES = {CHARS: "(i64) -> ()", INT: "(i64, i32) -> ()", FLOAT: "(f64, i32) -> ()", END: "(i32) -> ()"}

_lines: dict = {}  # thread id -> the tokens of its line being built: str, or a number's text as ("n", text)
_vectors: dict = {}  # thread id -> {the line's text tokens: [lanes so far, each its numbers]}
_lock = threading.Lock()


def _tokens() -> list:
    tid = threading.get_ident()  # (a ctypes callback from an OpenMP worker gets a fresh Python thread state each
    line = _lines.get(tid)  # call, so threading.local would not last from one call to the next)
    if line is None:
        line = _lines[tid] = []
    return line


def _chars(packed: int) -> None:
    _tokens().append((packed & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little").rstrip(b"\0").decode("utf-8", "replace"))


def _int(value: int, kind: int) -> None:
    if kind == 1:
        value &= 0xFFFFFFFFFFFFFFFF
    _tokens().append(("n", ("true" if value else "false") if kind == 2 else str(value)))


def format_float(value: float, kind: int) -> str:
    """As Halide's ``halide_double_to_string``: ``%f`` (scientific=0) or ``%e`` (scientific=1)."""
    return ("%e" if kind == 1 else "%f") % value


def _float(value: float, kind: int) -> None:
    _tokens().append(("n", format_float(value, kind)))


def _write(text: str) -> None:
    out = sys.stdout
    if out is not None:
        out.write(text)


def _end(lanes: int) -> None:
    tid = threading.get_ident()
    line = _lines.pop(tid, [])
    if lanes <= 1:
        flush_vectors(tid)
        _write("".join(t if isinstance(t, str) else t[1] for t in line) + "\n")
        return
    key = tuple(t if isinstance(t, str) else None for t in line)
    pending = _vectors.setdefault(tid, {})
    group = pending.setdefault(key, [])
    group.append([t[1] for t in line if not isinstance(t, str)])
    if len(group) == lanes:
        del pending[key]
        numbers = iter(zip(*group))
        _write("".join(t if t is not None else "<" + ", ".join(next(numbers)) + ">" for t in key) + "\n")


def flush_vectors(tid: int | None = None) -> None:
    """Vector events left incomplete (fewer lanes than announced: an edge) as one line per lane."""
    for t in [tid] if tid is not None else list(_vectors):
        for key, group in _vectors.pop(t, {}).items():
            for numbers in group:
                it = iter(numbers)
                _write("".join(k if k is not None else next(it) for k in key) + "\n")


_CALLBACKS = {
    CHARS: ctypes.CFUNCTYPE(None, ctypes.c_int64)(_chars),
    INT: ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int32)(_int),
    FLOAT: ctypes.CFUNCTYPE(None, ctypes.c_double, ctypes.c_int32)(_float),
    END: ctypes.CFUNCTYPE(None, ctypes.c_int32)(_end),
}


def symbols() -> dict[str, int]:
    """Symbol name -> address of each callback (they live as long as the process)."""
    return {name: ctypes.cast(cb, ctypes.c_void_p).value for name, cb in _CALLBACKS.items()}


def register_with_engine(engine) -> None:
    """Define the callbacks in an ExecutionEngine, before its first lookup links the module."""
    for name, address in symbols().items():
        engine.raw_register_runtime(name, ctypes.c_void_p(address))


class _SymbolFlags(ctypes.Structure):
    _fields_ = [("GenericFlags", ctypes.c_uint8), ("TargetFlags", ctypes.c_uint8)]


class _EvaluatedSymbol(ctypes.Structure):
    _fields_ = [("Address", ctypes.c_uint64), ("Flags", _SymbolFlags)]


class _SymbolMapPair(ctypes.Structure):
    _fields_ = [("Name", ctypes.c_void_p), ("Sym", _EvaluatedSymbol)]


def define_symbols(lib, jit, jd) -> None:
    """Define the callbacks in an ORC LLJIT's JITDylib ``jd`` (the disk cache's linker; ``lib``: libLLVM)."""
    vp = ctypes.c_void_p
    lib.LLVMOrcLLJITMangleAndIntern.restype, lib.LLVMOrcLLJITMangleAndIntern.argtypes = vp, [vp, ctypes.c_char_p]
    lib.LLVMOrcAbsoluteSymbols.restype = vp
    lib.LLVMOrcAbsoluteSymbols.argtypes = [ctypes.POINTER(_SymbolMapPair), ctypes.c_size_t]
    lib.LLVMOrcJITDylibDefine.restype, lib.LLVMOrcJITDylibDefine.argtypes = vp, [vp, vp]
    syms = symbols()
    pairs = (_SymbolMapPair * len(syms))()
    exported_callable = 1 | 4  # LLVMJITSymbolGenericFlagsExported | ...Callable
    for pair, (name, address) in zip(pairs, syms.items()):
        pair.Name = lib.LLVMOrcLLJITMangleAndIntern(jit, name.encode())
        pair.Sym = _EvaluatedSymbol(address, _SymbolFlags(exported_callable, 0))
    unit = lib.LLVMOrcAbsoluteSymbols(pairs, len(syms))
    from .disk_cache import _check

    _check(lib, lib.LLVMOrcJITDylibDefine(jd, unit))


def pipeline_done() -> None:
    """After a realize: vector events still incomplete are printed lane by lane."""
    if _vectors:
        with _lock:
            flush_vectors()
