"""``Func.prefetch`` / ``Stage.prefetch`` (Halide's ``prefetch(func_or_image, at, from, offset=1,
strategy=PrefetchBoundStrategy.GuardWithIf)``): in loop ``at``, prefetch the region of an input that iteration
``from + offset`` will read. Recorded as a directive of the stage (its loops are materialized down to ``at``);
analysis/prefetch.py checks and plans it, codegen/prefetch.py emits the ``memref.prefetch`` ops. Installed on
Func like lang/memoize.py, so func.py stays small."""

from __future__ import annotations

import numpy as np

from ..error import HalideError
from .schedule import DirectiveKind, PrefetchBoundStrategy
from .source import user_site


def _loop_name(v, what: str, self) -> str:
    if not hasattr(v, "name") or not callable(v.name):
        raise HalideError(f"{user_site()}: prefetch of Func '{self.name()}': '{what}' must be a Var or RVar, got {v!r}")
    return v.name()


def _prefetch(self, func, at=None, from_=None, offset=1, strategy=PrefetchBoundStrategy.GuardWithIf, **kwargs):
    """Prefetch the region of ``func`` (an ImageParam or Buffer) that iteration ``from + offset`` of this stage's
    loop ``from`` reads, at the top of loop ``at`` (``at`` is ``from`` or a loop inside it). ``from`` is a Python
    keyword: pass it positionally (or as ``from_``), as with Halide's bindings."""
    from .buffer import Buffer
    from .param import ImageParam

    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:
        raise HalideError(f"{user_site()}: prefetch got unexpected arguments {sorted(kwargs)}")
    if at is None or from_ is None:
        raise HalideError(f"{user_site()}: prefetch of Func '{self.name()}' needs the loops 'at' and 'from'")
    if not isinstance(func, (ImageParam, Buffer)):
        kind = "Func" if hasattr(func, "update") else type(func).__name__
        raise HalideError(
            f"{user_site()}: prefetch of Func '{self.name()}': prefetching a {kind} ('{getattr(func, 'name', str)()}') "
            f"is not supported yet by halide_mlir; prefetch an ImageParam or Buffer"
        )
    if isinstance(offset, (bool, np.bool_)) or not isinstance(offset, (int, np.integer)):
        raise HalideError(
            f"{user_site()}: prefetch of Func '{self.name()}': halide_mlir needs a constant integer offset, "
            f"got {offset!r}"
        )
    if not isinstance(strategy, PrefetchBoundStrategy):
        raise HalideError(f"{user_site()}: prefetch strategy must be a hl.PrefetchBoundStrategy, got {strategy!r}")
    return self._directive(
        DirectiveKind.PREFETCH, func, _loop_name(at, "at", self), _loop_name(from_, "from", self), int(offset), strategy
    )


def install(cls: type) -> None:
    cls.prefetch = _prefetch
