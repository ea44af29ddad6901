"""The exception and warning classes of halide_mlir.

``HalideError`` is what Halide's Python bindings raise for what the user wrote (a bad schedule, an out-of-bounds
input, a missing definition). ``InternalError`` is a compiler bug (MLIR rejected IR we generated, a transform
script failed to apply): it subclasses HalideError so ``except hl.HalideError`` still catches it, as Halide's
``InternalError`` is a ``Halide::Error``, but the fuzzer and the auto-vectorization fallback tell the two apart by
class, never by message text. Warnings that announce a slow path (same values, slower code than asked for) are
``SlowPathWarning``s; the test suite turns the whole family into errors.
"""

from __future__ import annotations


class HalideError(RuntimeError):
    pass


class HalideTypeError(HalideError, TypeError):
    """Arguments that match none of the forms Halide's bindings take (where Halide raises TypeError)."""


class HalideValueError(HalideError, ValueError):
    """Where Halide's bindings raise ValueError (an Expr used as a Python bool)."""


class InternalError(HalideError):
    """A halide_mlir bug: the IR or script we generated was rejected by MLIR, or an invariant broke.

    ``stage``: the compile step that failed (driver.py's names: "schedule", "lower", ...);
    ``diagnostic``: MLIR's own text; ``locations``: the user's source lines (file, line) it points at, which
    name the Funcs involved (each op carries the line of its Func's definition)."""

    def __init__(
        self,
        message: str,
        *,
        stage: str | None = None,
        diagnostic: str | None = None,
        locations: frozenset = frozenset(),
    ):
        super().__init__(message)
        self.stage = stage
        self.diagnostic = diagnostic
        self.locations = locations


class SlowPathWarning(RuntimeWarning):
    """The compiled code is slower than the schedule asks for (same values): a directive only partly honored."""


class CSourceWarning(SlowPathWarning):
    """The C source output (aot/c_source.py) runs vectorized and parallel loops as serial scalar loops: EmitC's
    C has no vector types and no threads."""


class UnrollWarning(SlowPathWarning):
    """A loop the schedule unrolls was not (fully) unrolled in the compiled code: same values, slower."""


class AutoVectorizeWarning(SlowPathWarning):
    """MLIR could not vectorize a Func the user left unvectorized; it runs scalar (as in Halide)."""


class ParallelAsLanesWarning(SlowPathWarning):
    """A parallel loop runs as lanes of a vectorized loop (it is inside it), not in parallel."""


class SerialUpdateWarning(SlowPathWarning):
    """A scatter or scan update's schedule is not applied: it runs as serial loops."""


class StorageWarning(SlowPathWarning):
    """A storage directive is not applied: ``reorder_storage`` (storage stays in dimension order), or a
    ``fold_storage`` of a window that can't be folded (its buffer spans the loop; analysis/folding.py). Same values;
    more memory, or another layout, than the schedule asks for."""


class AsyncWarning(SlowPathWarning):
    """``async_()`` and ``ring_buffer()`` run synchronously: the producer is computed before its consumer, not
    beside it (same values; lang/memoize.py)."""


class StridedReadWarning(SlowPathWarning):
    """A strided vector read stays one scalar load per lane."""


class UnsafeCacheWarning(SlowPathWarning):
    """The disk cache's directory is not private (another user owns it, or group or others can write it): the
    cache is not used, so nothing compiled is loaded from it (every process compiles again)."""


class ComputeAtWarning(SlowPathWarning):
    """A Func scheduled ``compute_at`` a consumer's loop that is computed once at the root instead (codegen can't
    put it in that loop yet: analysis/placement.py hoist_from_loops says which cases). Same values; the locality
    the schedule asked for is lost."""


class ComputeWithWarning(SlowPathWarning):
    """A ``compute_with`` whose loops can't be fused yet (their extents or splits differ, so an alignment would be
    needed): the stages run in their own loop nests. Same values; the locality the fusion was for is lost."""


class MemoizeWarning(SlowPathWarning):
    """A memoized Func computed on every call, as an ordinary stage: ahead-of-time code (``compile_to_*``,
    python extensions), GPU and Dask pipelines have no memoization cache yet (Halide's runtime has one). Same
    values; the recomputation memoize() was for is not saved."""


class PrefetchWarning(SlowPathWarning):
    """A ``prefetch`` that prefetches nothing: the stage reads nothing of the input in the body of the loop it is
    at (Halide removes such a prefetch with a warning too)."""
