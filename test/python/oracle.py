"""Differential-testing harness: run one Halide program under the real `halide`
package (the oracle, Halide 21's Python bindings) and under `halide_mlir`, and
check that both give the same numbers.

A test describes its program once, as a function of the module::

    IMG = image_u8(64, 48, seed=1)

    def build(hl):
        inp = hl.Buffer(IMG, "input")
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = inp[x, y] + 1
        return f

    run_both(build, [64, 48])

`build` must create every Halide object itself (Vars, Funcs, Buffers, Params)
from the module it is given; numpy inputs come from the deterministic helpers
below (`image_u8`, `image_f32`, ...), which return arrays in numpy's
[row, col] layout, so `hl.Buffer(arr)[x, y] == arr[y, x]`.

Keep the numpy arrays referenced outside `build` (as above): `hl.Buffer(arr)`
does not copy, and real Halide 21 does not reliably keep a temporary array
alive -- `hl.Buffer(image_u8(...), "input")` reads freed memory.

Comparison rules (`assert_same`):
  * identical shape and dtype;
  * integer / bool outputs bit-identical;
  * float outputs within rtol=1e-5 (atol=1e-6 for values near 0); NaN/inf must
    sit at the same places.

Error tests use `raises_both(program)`: the real Halide must raise (its
`HalideError`, or a RuntimeError/ValueError/TypeError from the bindings), ours
must raise `halide_mlir.HalideError`; our message is returned so the test can
check its text.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Callable, Sequence

import numpy as np

# ----------------------------------------------------------------------------
# The two implementations
# ----------------------------------------------------------------------------

REFERENCE_MODULE = "halide"
OURS_MODULE = "halide_mlir"


def reference():
    """The oracle: Halide 21's Python bindings."""
    return importlib.import_module(REFERENCE_MODULE)


def ours():
    """The implementation under test."""
    return importlib.import_module(OURS_MODULE)


# ----------------------------------------------------------------------------
# Deterministic inputs (numpy [row, col] layout)
# ----------------------------------------------------------------------------

def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _shape(w: int, h: int | None, c: int | None) -> tuple:
    if h is None:
        return (w,)
    if c is None:
        return (h, w)
    return (c, h, w)


def image_int(dtype, w: int, h: int | None = None, seed: int = 0, c: int | None = None,
              lo: int | None = None, hi: int | None = None) -> np.ndarray:
    """Uniform random integers of `dtype` over [lo, hi] (default: the full range).

    Shape is (h, w) -- or (w,) if h is None, or (c, h, w) if c is given -- so that
    `hl.Buffer(arr)` has width w, height h (and c channels as dim 2)."""
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return _rng(seed).integers(lo, hi, size=_shape(w, h, c), endpoint=True, dtype=np.int64).astype(dtype)


def image_u8(w, h=None, seed=0, c=None, lo=None, hi=None):
    return image_int(np.uint8, w, h, seed, c, lo, hi)


def image_u16(w, h=None, seed=0, c=None, lo=None, hi=None):
    return image_int(np.uint16, w, h, seed, c, lo, hi)


def image_u32(w, h=None, seed=0, c=None, lo=None, hi=None):
    return image_int(np.uint32, w, h, seed, c, lo, hi)


def image_i8(w, h=None, seed=0, c=None, lo=None, hi=None):
    return image_int(np.int8, w, h, seed, c, lo, hi)


def image_i16(w, h=None, seed=0, c=None, lo=None, hi=None):
    return image_int(np.int16, w, h, seed, c, lo, hi)


def image_i32(w, h=None, seed=0, c=None, lo=None, hi=None):
    return image_int(np.int32, w, h, seed, c, lo, hi)


def image_float(dtype, w, h=None, seed=0, c=None, lo=-1.0, hi=1.0) -> np.ndarray:
    """Uniform random floats of `dtype` in [lo, hi)."""
    return _rng(seed).uniform(lo, hi, size=_shape(w, h, c)).astype(dtype)


def image_f32(w, h=None, seed=0, c=None, lo=-1.0, hi=1.0):
    return image_float(np.float32, w, h, seed, c, lo, hi)


def image_f64(w, h=None, seed=0, c=None, lo=-1.0, hi=1.0):
    return image_float(np.float64, w, h, seed, c, lo, hi)


def image_of(dtype, w, h=None, seed=0, c=None):
    """A 'typical' image of any dtype: full range for integers, [-4, 4) for floats."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return image_float(dtype, w, h, seed, c, -4.0, 4.0)
    if dtype.kind == "b":
        return _rng(seed).integers(0, 2, size=_shape(w, h, c)).astype(bool)
    return image_int(dtype, w, h, seed, c)


# ----------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------

_DTYPE_TO_HL = {
    "uint8": ("UInt", 8), "uint16": ("UInt", 16), "uint32": ("UInt", 32), "uint64": ("UInt", 64),
    "int8": ("Int", 8), "int16": ("Int", 16), "int32": ("Int", 32), "int64": ("Int", 64),
    "float32": ("Float", 32), "float64": ("Float", 64), "bool": ("Bool", None),
}


def hl_type(hl, dtype):
    """The hl.Type of module `hl` for a numpy dtype (or dtype name)."""
    kind, bits = _DTYPE_TO_HL[np.dtype(dtype).name]
    return hl.Bool() if kind == "Bool" else getattr(hl, kind)(bits)


# ----------------------------------------------------------------------------
# Running and comparing
# ----------------------------------------------------------------------------

def to_numpy(result):
    """np.asarray of a Buffer (or a list/tuple of them); copies so later reuse of
    the buffer cannot change what we compare."""
    if isinstance(result, (list, tuple)):
        return [to_numpy(r) for r in result]
    return np.array(np.asarray(result), copy=True)


def assert_same(ref, got, rtol: float = 1e-5, atol: float = 1e-6, what: str = "output"):
    """Assert ours (`got`) matches the oracle (`ref`): shape, dtype, values."""
    if isinstance(ref, list):
        assert isinstance(got, list) and len(got) == len(ref), (
            f"{what}: expected {len(ref)} results, got {got!r:.200}")
        for i, (r, g) in enumerate(zip(ref, got)):
            assert_same(r, g, rtol, atol, what=f"{what}[{i}]")
        return
    ref = np.asarray(ref)
    got = np.asarray(got)
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != oracle's {ref.shape}"
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype} != oracle's {ref.dtype}"
    if ref.dtype.kind == "f":
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=f"{what} differs from real Halide")
    else:
        if not np.array_equal(got, ref):
            bad = np.argwhere(got != ref)
            first = tuple(int(i) for i in bad[0])
            raise AssertionError(
                f"{what} differs from real Halide at {len(bad)} of {ref.size} elements; "
                f"first at numpy index {first}: ours {got[first]!r}, oracle {ref[first]!r}\n"
                f"oracle: {ref.ravel()[:16]}\nours:   {got.ravel()[:16]}")


def run_program_both(program: Callable, rtol: float = 1e-5, atol: float = 1e-6, expected=None):
    """Run `program(hl)` -- any code that returns a Buffer / ndarray or a list of
    them -- with the oracle and with ours and compare.  Returns (ref, ours) as
    numpy arrays (or lists of arrays).  If `expected` is given, the oracle's
    result is first checked against it (to pin down the semantics we test)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # Halide's "float literal loses precision"
        ref = to_numpy(program(reference()))
    if expected is not None:
        assert_same(expected, ref, rtol, atol, what="oracle vs expected")
    got = to_numpy(program(ours()))
    assert_same(ref, got, rtol, atol)
    return ref, got


def realize(hl, func, sizes: Sequence[int], mins: Sequence[int] | None = None,
            out_dtype=None, mode: str = "sizes"):
    """Realize `func` over `sizes` (with min corner `mins`).

    mode="sizes":  func.realize(list(sizes))  (only when mins is None)
    mode="buffer": out = hl.Buffer(type, sizes); out.set_min(mins); func.realize(out)
    mode="numpy":  out = hl.Buffer(np.empty(reversed sizes, dtype)); set_min; realize(out)
    """
    sizes = [int(s) for s in sizes]
    if mode == "sizes" and mins is None:
        return func.realize(sizes)
    if out_dtype is None:
        raise ValueError("realize into a buffer needs out_dtype")
    if mode == "numpy":
        # sentinel-filled, so an output that is never written shows up
        arr = np.full(tuple(reversed(sizes)), 123, dtype=out_dtype)
        out = hl.Buffer(arr)
    else:
        arr = None
        out = hl.Buffer(hl_type(hl, out_dtype), sizes)
    if mins is not None:
        out.set_min([int(m) for m in mins])
    func.realize(out)
    # numpy mode: the result must have been written into the caller's array
    return arr if arr is not None else out


def _func_dtype(func):
    t = func.type()
    name = str(t)
    return np.dtype("bool" if name == "bool" else name)


def run_both(build: Callable, sizes: Sequence[int], mins: Sequence[int] | None = None,
             mode: str = "sizes", out_dtype=None, rtol: float = 1e-5, atol: float = 1e-6,
             expected=None, jit: bool = False):
    """Build the output Func with `build(hl)` under both implementations,
    realize it over `sizes` (optionally shifted to `mins`, or into an output
    buffer: mode="buffer"/"numpy"), compare, and return (ref, ours) arrays.

    The output buffer's dtype is `out_dtype` if given, else the oracle Func's
    type (so a type-inference bug in ours shows up as a realize error)."""
    if mins is not None and mode == "sizes":
        mode = "buffer"
    state = {}

    def program(hl):
        f = build(hl)
        if jit:
            f.compile_jit()
        dt = out_dtype
        if mode != "sizes" and dt is None:
            dt = state.get("dtype")
            if dt is None:
                dt = state["dtype"] = _func_dtype(f)
        return realize(hl, f, sizes, mins, dt, mode)

    return run_program_both(program, rtol, atol, expected)


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------

REFERENCE_ERRORS = (RuntimeError, ValueError, TypeError)


def _reference_error_types():
    return (reference().HalideError,) + REFERENCE_ERRORS


def raises_both(program: Callable, ours_error=None):
    """Assert that `program(hl)` raises under both implementations.

    The oracle may raise its HalideError (or RuntimeError/ValueError/TypeError);
    ours must raise `halide_mlir.HalideError` (or `ours_error` if given).
    Returns (reference_message, our_message)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            program(reference())
        except _reference_error_types() as e:  # noqa: PERF203
            ref_msg = str(e)
        else:
            raise AssertionError("the oracle (real Halide) did not raise; the test is wrong")
    mod = ours()
    err = ours_error if ours_error is not None else mod.HalideError
    try:
        result = program(mod)
    except err as e:
        return ref_msg, str(e)
    except Exception as e:  # a crash, or the wrong kind of error
        raise AssertionError(
            f"ours raised {type(e).__module__}.{type(e).__name__} instead of {err.__name__}: {e}\n"
            f"(real Halide said: {ref_msg.strip()})") from e
    raise AssertionError(
        f"ours did not raise (returned {result!r:.200}); real Halide said: {ref_msg.strip()}")


def realize_raises_both(build: Callable, sizes: Sequence[int], mins=None, mode="sizes", out_dtype=None):
    """raises_both for `realize(build(hl), sizes, ...)`."""
    def program(hl):
        f = build(hl)
        return realize(hl, f, sizes, mins, out_dtype, mode)
    return raises_both(program)
