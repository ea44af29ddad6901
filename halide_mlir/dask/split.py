"""A chunk cut into an interior piece that reads one input block in place and border slabs around it.

The window of an interior chunk (chunk + halo) spans up to 3^n input blocks when the chunks are the blocks: it
is assembled by copying (kernel.py ``_assemble``, ~0.3 ms per 1026^2 f32 window, a third of a 3x3 blur's
kernel). The chunk's interior, where the halo stays inside the block under the chunk's centre, instead reads
that block in place (a strided view: codegen/relocatable.py), and only the slabs along the chunk's faces read
assembled windows, which are thin. Each piece is compiled with its outputs as strided views too, so it writes
its part of the chunk's block in place; pieces of one shape share a kernel like chunks do.
"""

from __future__ import annotations

import bisect

import numpy as np

from ..analysis.bounds import Region

# a chunk is split only when it is big enough for the copy to matter (1024^2: 2-6% of the task, 2048^2: 7-12%),
# and the interior is most of it
MIN_PIXELS = 1024 * 1024
MIN_INTERIOR = 0.5


def _block_of(array, whole: Region, d: int, x: int):
    """The (min, max) in Halide's coordinates of the input block holding coordinate ``x`` of Halide dim ``d``."""
    sizes = array.chunks[len(whole.mins) - 1 - d]
    starts = np.cumsum((0,) + tuple(sizes)).tolist()
    b = min(max(bisect.bisect_right(starts, x - whole.mins[d]) - 1, 0), len(sizes) - 1)
    return whole.mins[d] + starts[b], whole.mins[d] + starts[b + 1] - 1


def _in_one_block(array, whole: Region, w: Region) -> bool:
    return all(
        _block_of(array, whole, d, lo) == _block_of(array, whole, d, lo + ext - 1)
        for d, (lo, ext) in enumerate(zip(w.mins, w.extents))
    )


def pieces(inputs, r: Region, windows: dict, arrays: dict, wholes: dict, windows_of):
    """``r`` as [(region, windows)]: its interior first (every input's window inside one block), then the slabs
    around it; None where a split gains nothing (a small chunk, windows already inside one block, a thin
    interior) or costs kernels (a chunk that is not inside one input block: its interior's shape depends on
    where the blocks cut it). ``windows_of(region)``: bounds inference's windows of a region (the inputs bound
    to the wholes)."""
    if int(np.prod(r.extents)) < MIN_PIXELS or all(_in_one_block(arrays[h], wholes[h], windows[h]) for h in inputs):
        return None
    lo, hi = list(r.mins), [m + e - 1 for m, e in zip(r.mins, r.extents)]
    for h in inputs:
        w = windows[h]
        if _in_one_block(arrays[h], wholes[h], w):
            continue
        for d in range(len(r.mins)):
            bmin, bmax = _block_of(arrays[h], wholes[h], d, r.mins[d] + r.extents[d] // 2)
            if not bmin <= r.mins[d] <= r.mins[d] + r.extents[d] - 1 <= bmax:
                # a chunk across input blocks would have an interior of its own shape: a kernel per chunk
                return None
            lo[d] = max(lo[d], r.mins[d] + bmin - w.mins[d])
            hi[d] = min(hi[d], r.mins[d] + r.extents[d] - 1 - (w.mins[d] + w.extents[d] - 1 - bmax))
    if any(a > z for a, z in zip(lo, hi)):
        return None
    interior = Region(tuple(lo), tuple(z - a + 1 for a, z in zip(lo, hi)))
    if np.prod(interior.extents) < MIN_INTERIOR * np.prod(r.extents):
        return None
    inner = windows_of(interior)
    if not all(_in_one_block(arrays[h], wholes[h], inner[h]) for h in inputs):
        return None  # (the halo does not shrink with the region as a stencil's does)
    out = [(interior, inner)]
    box_lo, box_hi = list(r.mins), [m + e - 1 for m, e in zip(r.mins, r.extents)]
    for d in reversed(range(len(r.mins))):  # slabs across the outer dims first: long rows
        for a, z in ((box_lo[d], lo[d] - 1), (hi[d] + 1, box_hi[d])):
            if a > z:
                continue
            mins, maxs = list(box_lo), list(box_hi)
            mins[d], maxs[d] = a, z
            slab = Region(tuple(mins), tuple(m2 - m1 + 1 for m1, m2 in zip(mins, maxs)))
            out.append((slab, windows_of(slab)))
        box_lo[d], box_hi[d] = lo[d], hi[d]
    return out
