"""``hl.BoundaryConditions``: Funcs that are defined everywhere, built from a bounded source.

Each returns a new Func over implicit Vars whose coordinates are remapped (clamped, wrapped, mirrored) into
the source's bounds, as Halide's do. Unlike Halide, the new Func is computed as a padded copy by default
(compute_root): consumers then read the interior through plain slices instead of paying a clamp per tap.
Where Halide would run the inlined Func in a parallel loop of a consumer, the copy's rows run in parallel too
(analysis/plan.py _implicit_parallel), and its region is computed in pieces cut at the source's bounds
(analysis/plan.py partition): a dense copy inside, broadcasts of the edges outside. A consumer computed
in such pieces itself (at the root, one generic: analysis/pipeline.py partitionable) reads the condition
inlined instead, as Halide does, with no copy in between; so does a consumer that reads a clamping condition only at
its own coordinates (analysis/pipeline.py _pointwise). Scheduling it (e.g. ``compute_inline()``) overrides all that.
"""

from __future__ import annotations

from ..error import HalideError
from .buffer import Buffer
from .expr import Expr, cast, to_expr
from .func import Func
from .operators import clamp, select
from .param import ImageParam
from .source import user_site
from .var import Var


def _bounds(source, bounds, what: str):
    if isinstance(source, (Buffer, ImageParam)):
        dims = source.dimensions()
        if bounds is None:
            bounds = [(source.dim(i).min(), source.dim(i).extent()) for i in range(dims)]
    elif isinstance(source, Func):
        dims = source.dimensions()
        if bounds is None:
            raise HalideError(
                f"{user_site()}: BoundaryConditions.{what} of Func '{source.name()}' needs explicit "
                f"bounds, e.g. [(0, width), (0, height)]"
            )
    else:
        raise HalideError(
            f"{user_site()}: BoundaryConditions.{what} takes a Buffer, ImageParam or Func, not {source!r}"
        )
    bounds = list(bounds)
    if len(bounds) > dims:
        raise HalideError(f"{user_site()}: BoundaryConditions.{what}: {len(bounds)} bounds for a {dims}-D source")
    bounds += [None] * (dims - len(bounds))
    out = []
    for b in bounds:
        if (
            b is None
            or (hasattr(b, "min") and b.min is None)
            or (isinstance(b, (tuple, list)) and any(isinstance(v, Expr) and not v.defined() for v in b))
        ):
            out.append(None)
            continue
        lo, ext = (b.min, b.extent) if hasattr(b, "extent") else b
        out.append((to_expr(lo), to_expr(ext)))
    return dims, out


def _make(source, bounds, what: str, remap, outside=None) -> Func:
    dims, bounds = _bounds(source, bounds, what)
    args = [Var(f"_{i}") for i in range(dims)]
    coords = [
        a._as_expr() if b is None else remap(a._as_expr(), cast(a._as_expr().type, b[0]), cast(a._as_expr().type, b[1]))
        for a, b in zip(args, bounds)
    ]
    value = source[tuple(coords)]
    value = value._as_expr() if hasattr(value, "_as_expr") else value
    if outside is not None:
        value = outside(args, bounds, value)
    f = Func(f"{what}_{source.name()}")
    f[tuple(args)] = value
    f.compute_root()  # the padded copy (see the module docstring)
    f.schedule().padded_copy = tuple(bounds)
    return f


def repeat_edge(f, bounds=None) -> Func:
    return _make(f, bounds, "repeat_edge", lambda x, lo, ext: clamp(x, lo, lo + ext - 1))


def constant_exterior(f, exterior, bounds=None) -> Func:
    def outside(args, bounds, inner):
        out = None
        for a, b in zip(args, bounds):
            if b is None:
                continue
            lo, ext = b
            o = (a < lo) | (a >= lo + ext)
            out = o if out is None else out | o
        v = to_expr(exterior)
        v = cast(inner.type, v) if v.type != inner.type else v
        return inner if out is None else select(out, v, inner)

    return _make(f, bounds, "constant_exterior", lambda x, lo, ext: clamp(x, lo, lo + ext - 1), outside)


def repeat_image(f, bounds=None) -> Func:
    return _make(f, bounds, "repeat_image", lambda x, lo, ext: (x - lo) % ext + lo)


def mirror_image(f, bounds=None) -> Func:
    """Reflect across the edges, repeating the edge pixel: ... 2 1 0 | 0 1 2 ... w-1 | w-1 w-2 ..."""

    def remap(x, lo, ext):
        m = (x - lo) % (ext * 2)
        # the clamp changes no value; it lets bounds inference see the result stays inside the source
        return _inside(x, lo, ext, clamp(select(m < ext, m, ext * 2 - 1 - m), 0, ext - 1) + lo)

    return _make(f, bounds, "mirror_image", remap)


def _inside(x, lo, ext, reflected):
    """``x`` where it lies in [lo, lo + ext), else ``reflected`` (the same values there): bounds inference then
    gives a tile at an image edge the region it reads (analysis/interval.py narrows x in each branch), not the
    whole row that the reflection's modulo of a range crossing the edge would."""
    return select(x < lo, reflected, select(x < lo + ext, x, reflected))


def mirror_interior(f, bounds=None) -> Func:
    """Reflect across the edges without repeating them: ... 2 1 | 0 1 2 ... w-1 | w-2 ..."""

    def remap(x, lo, ext):
        period = hl_max_expr(ext * 2 - 2, 1)
        m = (x - lo) % period
        return _inside(x, lo, ext, clamp(select(m < ext, m, period - m), 0, ext - 1) + lo)

    return _make(f, bounds, "mirror_interior", remap)


def hl_max_expr(a, b) -> Expr:
    from .operators import max as hl_max

    return hl_max(a, b)


class BoundaryConditions:
    """``hl.BoundaryConditions.repeat_edge(...)`` and friends, as in Halide's Python bindings."""

    repeat_edge = staticmethod(repeat_edge)
    constant_exterior = staticmethod(constant_exterior)
    repeat_image = staticmethod(repeat_image)
    mirror_image = staticmethod(mirror_image)
    mirror_interior = staticmethod(mirror_interior)
