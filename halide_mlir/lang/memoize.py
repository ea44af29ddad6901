"""The schedule directives about when and where a Func's values live rather than what they are: ``memoize``
(results cached across realizes, analysis/memoize.py and runtime/memo.py), ``async_``, ``hoist_storage`` and
``ring_buffer`` (lesson 24; they run synchronously, analysis/memoize.py ``warn_async``). Recorded on the
FuncSchedule; installed on Func like lang/unsupported.py, so func.py stays small."""

from __future__ import annotations

from dataclasses import dataclass

from ..error import HalideError
from .expr import Expr, to_expr
from .schedule import touch
from .source import capture_site, user_site


class EvictionKey:
    """``hl.EvictionKey(expr)``: a value stored with a memoized Func's cache entries, so that they can be evicted
    together (``hl.memoization_cache_evict(value)``; Halide's ``halide_memoization_cache_evict``)."""

    def __init__(self, key=None):
        self.key = None if key is None else to_expr(key)
        if self.key is not None and not (self.key.type.is_int() or self.key.type.is_uint()):
            raise HalideError(f"{user_site()}: EvictionKey takes an integer Expr, got {self.key.type}")


@dataclass(frozen=True)
class Memoize:
    eviction_key: Expr | None
    site: object


def _memoize(self, eviction_key: EvictionKey | None = None):
    """Cache this Func's values across realizes, keyed by the region computed and the values of the Params it
    depends on (Halide's rule; analysis/memoize.py)."""
    if eviction_key is not None and not isinstance(eviction_key, EvictionKey):
        raise HalideError(
            f"{user_site()}: memoize of Func '{self.name()}' takes an hl.EvictionKey, got {eviction_key!r}"
        )
    self._schedule.memoize = Memoize(None if eviction_key is None else eviction_key.key, capture_site())
    touch()
    return self


def _async(self):
    """Compute this Func as its own task (Halide's ``async``): halide_mlir runs it synchronously, with an
    AsyncWarning (analysis/memoize.py ``warn_async``)."""
    self._schedule.async_ = True
    touch()
    return self


def _ring_buffer(self, extent):
    e = to_expr(extent)
    if not (e.type.is_int() or e.type.is_uint()):
        raise HalideError(f"{user_site()}: ring_buffer extent of Func '{self.name()}' must be an integer, got {e.type}")
    self._schedule.ring_buffer = e
    self._schedule.sites["ring_buffer"] = capture_site()
    touch()
    return self


def install(cls: type) -> None:
    cls.memoize = _memoize
    cls.async_ = _async
    cls.ring_buffer = _ring_buffer
