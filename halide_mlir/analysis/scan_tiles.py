"""Scans and scatters computed per iteration of a loop, read there through gathers along their whole dims.

A Func with explicit-loop updates (a scan ``f[x, r.x] = f[x, r.x - 1] + ...``, a scatter) computed at a consumer's
loop is computed by that consumer's payload loops (analysis/tiling.py ``_explicit_update_spans``): its pure
definition over the tile, then its updates' loops. Along a dim an update writes at other than its pure Var (the
scan's ``r.x``) the tile is the Func's whole region, as in Halide, whose box there is the region too. A read along
such a dim may be anything -- data dependent (a LUT-chosen slice), a sum of Vars (``y - t``) -- because whatever it
reads lies in the region (bounds inference) and so in the tile: the reader gathers from the tile (codegen/payload.py
``emit_extract`` on the tile's View). Halide's max_filter computes its ``vert_log`` pyramid (a scan over rows and
slices) per strip of the output, read by ``vert`` (computed per output row, inside the strip) at
``vert_log[x, y - t, c, lut[t]]``. The dims an update writes at its pure Var (x, c there) are read through slices,
so the tile follows the consumer's loops along them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lang.traversal import walk
from .affine import scaled_form

if TYPE_CHECKING:  # annotations only
    from ..lang.func import Func
    from .pipeline import Stage


def whole_dims(stage: Stage) -> set:
    """The dims of ``stage`` some update writes at other than its pure Var: its tile covers its region there."""
    out = set()
    for u in stage.updates:
        for args in (u.args, *(sa for sa, _ in u.stores)):
            out |= {j for j, a in enumerate(args) if not (a.kind == "var" and a.value.name() == stage.vars[j])}
    return out


def _calls(exprs, func: Func) -> list:
    return [n for e in exprs for n in walk(e) if n.kind == "call" and n.value is func]


def gathers_whole_dims_only(reader: Stage, stage: Stage) -> bool:
    """Does ``reader`` read ``stage`` in its pure definition only, each read a unit-stride slice along every dim
    but ``stage``'s whole dims (which may be read at any coordinates)?"""
    whole = whole_dims(stage)
    if not whole or reader.updates and _calls([e for u in reader.updates for e in u.exprs()], stage.func):
        return False
    calls = _calls(reader.values, stage.func)
    if not calls:
        return False
    for n in calls:
        for j, a in enumerate(n.args):
            if j in whole:
                continue
            if not _unit_slice(a):
                return False
    return True


def _unit_slice(a) -> bool:
    """Is coordinate ``a`` ``var + c`` or ``c``?"""
    f = None if any(m.kind == "call" for m in walk(a)) else scaled_form(a)
    return f is not None and f[3] == 1 and (f[0] is None or f[1] == 1)


def whole_dim_reads(values, func: Func, whole: set, region) -> list | None:
    """The reads of ``func`` in ``values`` as analysis/tiling.py's scaled_reads forms, (var or None, 1, c, 1) per
    dim, where a dim in ``whole`` is read anywhere in ``region`` (given as two reads, the region's first and last
    point, as tiling.py ``lut_reads`` does); None if another dim is not a unit-stride slice."""
    reads = []
    for n in _calls(values, func):
        forms = []
        for j, a in enumerate(n.args):
            if j in whole:
                forms.append(None)
                continue
            if not _unit_slice(a):
                return None
            forms.append(scaled_form(a))
        used = [f[0] for f in forms if f is not None and f[0] is not None]
        if len(set(used)) != len(used):
            return None
        first = [f or (None, 1, region.mins[j], 1) for j, f in enumerate(forms)]
        last = [f or (None, 1, region.mins[j] + region.extents[j] - 1, 1) for j, f in enumerate(forms)]
        reads += [first, last]
    return reads
