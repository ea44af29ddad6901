"""Whole-input reductions over Dask: a histogram, a sum, a min or max over an RDom spanning the image.

Every output chunk of a pipeline with such a reduction would redo it over the whole input. Instead the reduction's
RDom is cut into tiles; each tile is one task computing a *partial* result of the Func (its update over the tile,
from the operator's identity), the partials are combined by a tree of tasks, and the rest of the pipeline reads
the combined result as an input. This is Halide's ``rfactor`` split, for the updates it proves associative in
the simplest form: ``f[args] = f[args] op e`` with op one of + - * min max and ``e`` not reading ``f``.

One compiled partial serves every tile of the same shape: the tile's RDom starts at 0 and its position is a Param
per dimension (a task argument). Where the update's reads move with the tile (``Split.shifts``), the code reads
the inputs as for the tile at the RDom's min and each task gets its own tile's windows; otherwise each tile is
compiled with its own windows and its positions as arguments (codegen/relocatable.py), and tiles whose code then
has the same text share it (a boundary condition's stage read at the tile's coordinates: once per tile shape,
and per side where the condition cuts the tiles at the image's edges differently).
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import numpy as np

from ..analysis.bounds import constant_value
from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.expr import Expr, binary, const, to_expr
from ..lang.func import Func, FuncRef
from ..lang.param import Param
from ..lang.rdom import RDom
from ..lang.source import user_site
from ..lang.traversal import walk
from ..lang.types import Int

# op of the update -> (numpy combiner of two partials, the identity a partial starts from)
_OPS = {"add": "add", "sub": "add", "mul": "multiply", "min": "minimum", "max": "maximum"}


@dataclass
class Split:
    func: Func  # the reduction (a stage of the pipeline)
    op: str  # its update's operator (a key of _OPS)
    first: bool  # the Func's own value is the operator's left operand
    args: tuple  # the update's coordinates (inline Funcs substituted: pipeline.py Update)
    other: Expr  # the update's term that does not read the Func
    predicates: list  # its RDom's where() conditions
    rdom: RDom  # the RDom it iterates
    box: list  # the RDom's (min, extent) per dimension
    shifts: dict | None  # input -> per dimension, the RVar index its reads move with (None: not at all);
    #                          None when some read is not at an RVar plus a term free of RVars


def candidates(p, chunk_bounded: list, originals, output_only: bool = False) -> list:
    """The stages that reduce over an original input (an update reads it at coordinates that depend on its RVars)
    and whose region is the same for every chunk (each chunk would compute all of it again), or the output."""
    out, sources = [], list(originals)  # the inputs, and the stages that read them (boundary conditions...)
    for s in p.stages:
        if any(n.kind == "call" and any(n.value is h for h in sources) for e in s.exprs() for n in walk(e)):
            sources.append(s.func)
        if output_only and s.func is not p.output:
            continue
        if not any(u.rvars for u in s.updates):
            continue
        reads = any(
            n.kind == "call"
            and n.value is not s.func
            and any(n.value is h for h in sources)
            and any(m.kind == "rvar" for a in n.args for m in walk(a))
            for u in s.updates
            for e in u.exprs()
            for n in walk(e)
        )
        if reads and (
            s.func is p.output or all(b.regions[s.func] == chunk_bounded[0].regions[s.func] for b in chunk_bounded)
        ):
            out.append(s.func)
    return out


def _same(a: Expr, b: Expr) -> bool:
    """Structural equality of two Exprs (Vars, Params, Funcs and RVars by identity)."""
    if a is b:
        return True
    if a.kind != b.kind or a.type != b.type or len(a.args) != len(b.args) or a.index != b.index:
        return False
    if a.kind == "const":
        if a.value != b.value:
            return False
    elif a.kind in ("var", "rvar"):
        if a.value.name() != b.value.name():
            return False
    elif a.value is not b.value:
        return False
    return all(_same(x, y) for x, y in zip(a.args, b.args))


def _reads(e: Expr, f: Func) -> bool:
    return any(n.kind == "call" and n.value is f for n in walk(e))


def split(stage, inputs) -> Split:
    """How the stage's update splits into per-tile partials; a HalideError naming its Func and why if it
    can't."""
    f = stage.func

    def refuse(why):
        return HalideError(
            f"{user_site()}: Func '{f.name()}' reduces over the whole input, and halide_mlir.dask can't split it into "
            f"per-chunk partial results: {why}. Realize it on one machine and pass its result as an input, or "
            f"realize in one chunk"
        )

    if len(stage.values) != 1:
        raise refuse("it is Tuple-valued (an argmax); only single-valued updates are split")
    if len(stage.updates) != 1:
        raise refuse(f"it has {len(stage.updates)} update definitions; one is split")
    u = stage.updates[0]
    if u.stores:
        raise refuse("its update stores several values per point (hl.scatter/hl.gather)")
    if not u.rvars:
        raise refuse("its update has no RDom")
    v = u.value
    if v.kind not in _OPS:
        raise refuse(f"its update is {v}, not f[args] = f[args] op e with op one of + - * min max")
    sides = [
        k
        for k, a in enumerate(v.args)
        if a.kind == "call" and a.value is f and all(_same(x, y) for x, y in zip(a.args, u.args))
    ]
    if not sides or (v.kind == "sub" and sides[0] != 0):
        raise refuse(
            f"its update {v} does not combine the Func's own value at the same point "
            f"(f[args] = f[args] op e, op one of + - * min max)"
        )
    other = v.args[1 - sides[0]]
    if _reads(other, f) or any(_reads(a, f) for a in u.args) or any(_reads(q, f) for q in u.predicates):
        raise refuse(f"its update {v} reads the Func elsewhere than at the point it writes (a scan)")
    rdom = u.rvars[0].domain()
    box = [
        (
            constant_value(lo, f"The bounds of RDom '{rdom.name()}'"),
            constant_value(ext, f"The bounds of RDom '{rdom.name()}'"),
        )
        for lo, ext in rdom.bounds()
    ]
    return Split(
        f,
        v.kind,
        sides[0] == 0,
        u.args,
        other,
        list(u.predicates),
        rdom,
        box,
        _shifts([*u.args, other, *u.predicates], f, rdom, inputs),
    )


def _moves_with(e: Expr, rdom):
    """``e`` as RVar j of ``rdom`` plus a term free of RVars: j; free of RVars: None; else False."""
    if not any(n.kind == "rvar" for n in walk(e)):
        return None
    if e.kind == "rvar" and e.value.domain() is rdom:
        return e.value.index()
    if e.kind in ("add", "sub"):
        a, b = (_moves_with(x, rdom) for x in e.args)
        if b is None and a is not None:
            return a
        if e.kind == "add" and a is None:
            return b
    return False


def _shifts(exprs, f, rdom, inputs):
    """Per input, per dimension, the RVar its reads move with; None if some read does not move as one RVar
    plus a term free of RVars, or a Func other than the reduction itself is read at RVar coordinates."""
    shifts: dict = {}
    for e in exprs:
        for n in walk(e):
            if n.kind != "call" or n.value is f:
                continue
            moves = [_moves_with(a, rdom) for a in n.args]
            if not any(h is n.value for h in inputs):
                if any(m is not None for m in moves):
                    return None  # a stage read at the tile's coordinates: its region depends on the tile
                continue
            prev = shifts.setdefault(n.value, moves)
            if any(m is False for m in moves) or prev != moves:
                return None
    return shifts


def tiles(box, tile_extents) -> list:
    """The RDom ``box`` cut into tiles: (mins, extents) per tile, r.x fastest."""
    axes = []
    for (lo, ext), t in zip(box, tile_extents):
        t = max(1, min(t, ext))
        axes.append([(m, min(t, lo + ext - m)) for m in range(lo, lo + ext, t)])
    out = []
    for combo in np.ndindex(*[len(a) for a in reversed(axes)]):
        picks = [axes[d][i] for d, i in zip(reversed(range(len(axes))), combo)]
        picks.reverse()
        out.append((tuple(m for m, _ in picks), tuple(e for _, e in picks)))
    return out


def identity(op: str, t):
    if op in ("add", "sub"):
        return const(0, t)
    if op == "mul":
        return const(1, t)
    if t.is_float():
        return const(np.inf if op == "min" else -np.inf, t)
    info = np.iinfo(np.dtype(t.numpy))
    return const(info.max if op == "min" else info.min, t)


def partial(s: Split, extents, first: bool):
    """The Func of one tile's partial result, and the Params of the tile's mins: ``s.func``'s update over an RDom
    of ``extents``, starting from the Func's own pure definition (``first``) or the operator's identity. Where
    ``s.shifts`` is known, inputs are read as for the tile at the RDom's min (the task gets its own tile's window
    there) and the tile's position is a Param only elsewhere; otherwise it is a Param everywhere."""
    f = s.func
    name = f"{f.name()}_partial{'0' if first else ''}_{'x'.join(map(str, extents))}"
    mins = [Param(Int(32), f"{f.name()}_tile_min{i}", 0) for i in range(len(extents))]
    r2 = RDom([(0, e) for e in extents], f"{s.rdom.name()}_tile")
    memo: dict = {}

    def sub(e: Expr, in_input: bool = False) -> Expr:
        key = (id(e), in_input)
        hit = memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        if e.kind == "rvar" and e.value.domain() is s.rdom:
            i = e.value.index()
            r = binary("add", r2[i], const(s.box[i][0], Int(32)) if in_input else mins[i])
        else:
            inner = in_input or (s.shifts is not None and e.kind == "call" and e.value in s.shifts)
            args = tuple(sub(a, inner) for a in e.args)
            r = e if all(a is b for a, b in zip(args, e.args)) else e.copy_with(args)
        memo[key] = (e, r)
        return r

    pure = f._definition()
    p = Func(name)
    p[pure.args] = pure.values[0] if first else identity(s.op, f.output_type())
    for q in s.predicates:
        r2.where(sub(q))
    args = tuple(a.value if a.kind == "var" else sub(a) for a in s.args)
    me, term = FuncRef(p, args)._as_expr(), sub(s.other)
    p[args] = binary(s.op, me, term) if s.first else binary(s.op, term, me)
    return p, mins


def combine(ufunc: str, *parts):
    """One node of the tree that combines partial results."""
    return functools.reduce(getattr(np, ufunc), parts)


def tree(parts: list, ufunc: str, name: str, fan_in: int = 4):
    """The partials combined by a tree of tasks (``fan_in`` at a time): one delayed result."""
    import dask

    level = 0
    while len(parts) > 1:
        parts = [
            dask.delayed(combine, pure=True)(
                ufunc,
                *parts[i : i + fan_in],
                dask_key_name=f"{name}-combine{level}-{i}-{dask.base.tokenize(ufunc, *parts[i : i + fan_in])}",
            )
            for i in range(0, len(parts), fan_in)
        ]
        level += 1
    return parts[0]


@contextlib.contextmanager
def reading(f: Func, buf: Buffer):
    """While compiling the rest of the pipeline, ``f`` is defined as a read of ``buf`` (its combined result)."""
    from ..lang.schedule import touch

    saved = f._pure, f._updates
    args = f._definition().args
    try:
        f._pure, f._updates = None, []
        f._define(args, to_expr(Expr("call", buf.type(), tuple(to_expr(a) for a in args), buf)))
        yield
    finally:
        f._pure, f._updates = saved
        touch()


def placeholder(f: Func, region) -> Buffer:
    """A Buffer standing for ``f``'s combined result over ``region`` (its data comes from the tree's last task)."""
    b = Buffer(
        np.broadcast_to(np.zeros((), np.dtype(f.output_type().numpy)), tuple(reversed(region.extents))),
        f"{f.name()}_combined",
    )
    b.set_min(list(region.mins))
    return b
