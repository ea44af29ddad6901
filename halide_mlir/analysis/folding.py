"""Storage folding of sliding windows (Halide's StorageFolding.cpp): a producer stored outside the serial loop it
is computed at keeps only the rows in flight, in a circular buffer indexed modulo the fold factor.

The factor is the user's ``fold_storage(var, factor)``, or, as Halide chooses it, the window's extent rounded up to
a power of two (so the modulo is a mask). The payload (codegen/tiled.py) writes each iteration's new rows at their
row modulo the factor and its readers read every tap at its row modulo the factor; that is one plain slice as long
as no slice crosses the end of the buffer, which holds where every read and write of the window is one row along
the folded dimension: the loop advances one row per iteration (its tile is one row) and the window is read only by
the consumer's generic and by other windows sliding along the same loop. Elsewhere the buffer spans the loop, as
before; an explicit ``fold_storage`` that can't be applied then warns (StorageWarning).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from ..error import HalideError, StorageWarning

MAX_AUTO_FOLD = 1024  # Halide's max_fold: a wider window is not folded automatically


def fold_windows(stage, producers: list, levels: list, slides: dict) -> dict:
    """``slides`` (Func -> Slide) with the fold factor of each window set where it is folded."""
    out = dict(slides)
    for prod in producers:
        slide = slides.get(prod.func)
        if slide is None:
            continue
        var = prod.vars[slide.dim]
        explicit = prod.func.schedule().folds.get(var)
        lev = levels[slide.level]
        if explicit is not None and explicit.factor < slide.extent:
            # (Halide checks it at run time: halide_error_fold_factor_too_small)
            raise HalideError(
                f"{explicit.site}: The fold factor ({explicit.factor}) of dimension {var} of "
                f"{prod.name} is too small to store the required region accessed by loop "
                f"{stage.name}.s0.{lev.loop.path} ({slide.extent})."
            )
        if explicit is not None:
            factor = explicit.factor
        elif slide.extent <= MAX_AUTO_FOLD:
            factor = 1 << (slide.extent - 1).bit_length()
        else:
            continue
        span = slide.extent + lev.parent_size - lev.size  # the rows of every window of the loop
        if factor >= span:
            continue  # nothing would wrap around: the unfolded buffer is no larger
        one_row = lev.size == 1 and all(
            c.func is stage.func or (c.func in slides and slides[c.func].level == slide.level) for c in prod.consumers
        )
        if one_row:
            out[prod.func] = replace(slide, fold=factor)
        elif explicit is not None:
            warnings.warn(
                f"{explicit.site}: Func '{prod.name}': fold_storage({var}, {factor}) is not applied: "
                f"the loop {stage.name}.{lev.loop.path} computes {lev.size} rows of it per iteration, "
                f"or a Func computed inside that loop reads it; its buffer spans the loop ({span} rows; "
                "same values, more memory)",
                StorageWarning,
                stacklevel=2,
            )
    return out
