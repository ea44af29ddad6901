"""Reverse-mode automatic differentiation: Halide's ``propagate_adjoints`` and ``Derivative``.

A front-end transformation, as Halide's (src/Derivative.cpp): it reads the definitions of the Funcs an output
depends on and builds new Funcs (the adjoints); the rest of the compiler sees ordinary Funcs. Funcs are visited
consumers first and, within a Func, from its last update down to its pure definition. For each definition the
adjoint of its value is pushed through the expression (chain rule) down to the calls it makes; a call
``g(args)`` adds its adjoint to ``g``'s adjoint Func at ``args``: at the inverted coordinate where an argument is
``x + c`` (a gather becomes a gather), otherwise as a scatter, an update over an RDom of the current Func's
bounds (and of the definition's own RDom). An update of ``f`` hands ``f``'s adjoint to the previous definition
with the points it overwrote masked to 0, and adds the adjoint of its self-reference ``f(args)`` back there; a
scan reading ``f(r - c)`` runs backwards instead. Tuple-valued Funcs get Tuple-valued adjoints.

Bounds (the scatter RDoms and the clamps of gathered reads) are Exprs of the output bounds, RDom bounds,
Params and image sizes where the index arithmetic is simple, numbers otherwise (docs/autodiff.md). What could
give a wrong gradient is refused with a HalideError naming the Func and the user's line.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..error import HalideError
from ..lang.buffer import Buffer
from ..lang.expr import Expr, cast, const, to_expr
from ..lang.func import Func
from ..lang.param import ImageParam, Param
from ..lang.rdom import RDom, Range
from ..lang.source import user_site
from ..lang.traversal import replace_nodes, walk
from ..lang.types import Bool, Float, Int
from ..lang.var import Var
from .interval import Interval, bounds as interval_of

_fresh = itertools.count()
# An index range wider than this is the type's whole range: an access bounds inference could not bound.
_UNBOUNDED = 1 << 30


# --- public API --------------------------------------------------------------------------------------------------
class Derivative:
    """The adjoint Funcs of every Func (pure definition and each update), Buffer, ImageParam and Param an output
    depends on. ``d[f]`` is the adjoint of f's pure definition, ``d[f, i]`` of its update ``i``; ``d[b]``,
    ``d[p]``, ``d[image_param]`` of the leaves. What the output does not depend on differentiably is an
    undefined ``Func()``, as in Halide."""

    def __init__(self, funcs: dict, leaves: dict, keep: list):
        self._funcs = funcs  # (id(Func), update index or -1) -> adjoint Func
        self._leaves = leaves  # id(Buffer/ImageParam/Param) -> adjoint Func
        self._keep = keep  # the Funcs and leaves whose ids are the keys (alive as long as the keys are used)

    def __getitem__(self, key) -> Func:
        if isinstance(key, tuple):
            if len(key) != 2 or not isinstance(key[0], Func) or not isinstance(key[1], (int, np.integer)):
                raise HalideError(
                    f"{user_site()}: Derivative[...] takes a Func, (Func, update index), a Buffer, "
                    f"an ImageParam or a Param, not {key!r}"
                )
            return self._funcs.get((id(key[0]), int(key[1])), Func())
        if isinstance(key, Func):
            found = self._funcs.get((id(key), -1))
            if found is not None:
                return found
            leaf = _wrapped_leaf(key)  # hl.Func(image_param): Halide's bindings read images through such a Func
            return self._leaves.get(id(leaf), Func()) if leaf is not None else Func()
        if isinstance(key, (Buffer, ImageParam, Param)):
            return self._leaves.get(id(key), Func())
        raise HalideError(
            f"{user_site()}: Derivative[...] takes a Func, (Func, update index), a Buffer, an "
            f"ImageParam or a Param, not {type(key).__name__}"
        )


def propagate_adjoints(output, adjoint=None, output_bounds=None) -> Derivative:
    """``propagate_adjoints(output)`` (the output's adjoint is 1 at the point 0 of each dimension: a scalar
    loss), ``propagate_adjoints(output, adjoint_buffer)`` (a float32 Buffer, 0 outside it) or
    ``propagate_adjoints(output, adjoint_func, output_bounds)`` (``output_bounds`` a list of ``hl.Range`` or
    (min, extent) pairs)."""
    from ..lang.boundary import constant_exterior

    if not isinstance(output, Func) or not output.defined():
        raise HalideError(f"{user_site()}: propagate_adjoints takes a defined Func as its output, not {output!r}")
    from .memoize import closure

    for g in closure(output):
        if any(u.stores for u in g.updates()):
            raise HalideError(
                f"{user_site()}: propagate_adjoints: Func '{g.name()}' has an update with several stores per point "
                f"(hl.scatter/hl.gather), which halide_mlir does not differentiate"
            )
    dims = output.dimensions()
    out_type = output.output_types()[0]
    # Halide's output box: [min, min + extent] for each (min, extent) it is given (one point more than the
    # extent), and the Buffer form passes (min, min + extent - 1) as the pair; kept as Halide has them.
    if adjoint is None:
        if output_bounds is not None:
            raise HalideError(f"{user_site()}: propagate_adjoints(output, output_bounds) needs an adjoint Func")
        adj = Func("adjoint")
        adj[tuple(output.args())] = const(1, out_type)
        pairs = [(0, 0)] * dims
    elif isinstance(adjoint, (Buffer, np.ndarray)):
        buf = adjoint if isinstance(adjoint, Buffer) else Buffer(np.ascontiguousarray(adjoint))
        if buf.type() != Float(32) or buf.dimensions() != dims or output_bounds is not None:
            raise HalideError(
                f"{user_site()}: propagate_adjoints(output, buffer) takes a float32 Buffer with the output's "
                f"{dims} dimensions; got {buf.type()} with {buf.dimensions()}"
            )
        pairs = [(buf.dim(d).min(), buf.dim(d).min() + buf.dim(d).extent() - 1) for d in range(dims)]
        adj = constant_exterior(buf, 0.0)
    elif isinstance(adjoint, Func):
        if output_bounds is None:
            raise HalideError(f"{user_site()}: propagate_adjoints(output, adjoint) needs the output bounds")
        if adjoint.dimensions() != dims:
            raise HalideError(f"{user_site()}: output dimensions and adjoint dimensions must match")
        if len(output_bounds) != dims:
            raise HalideError(f"{user_site()}: output_bounds and adjoint dimensions must match")
        pairs = [_range_pair(b) for b in output_bounds]
        adj = adjoint
    else:
        raise HalideError(f"{user_site()}: propagate_adjoints' adjoint is a Func or a float32 Buffer, not {adjoint!r}")
    box = [_SymInterval(_i32(lo), _iadd(_i32(lo), _i32(ext))) for lo, ext in pairs]
    return _Reverse(output, adj, box).run()


def _range_pair(b) -> tuple:
    lo, ext = (b.min, b.extent) if isinstance(b, Range) else b
    lo, ext = to_expr(lo), to_expr(ext)
    if lo.type.is_float() or ext.type.is_float():
        raise HalideError(f"{user_site()}: propagate_adjoints' output bounds must be integers, got ({lo}, {ext})")
    return lo, ext


# --- bounds as Exprs: a box that depends on Params or image sizes follows them when the adjoints are realized ---
class _SymInterval:
    __slots__ = ("lo", "hi")

    def __init__(self, lo: Expr, hi: Expr):
        self.lo, self.hi = lo, hi

    def union(self, o: "_SymInterval") -> "_SymInterval":
        return _SymInterval(_imin(self.lo, o.lo), _imax(self.hi, o.hi))


def _i32(v) -> Expr:
    return cast(Int(32), to_expr(v))


def _ifold(kind: str, a: Expr, b: Expr, fn) -> Expr:
    if a.kind == "const" and b.kind == "const":
        return const(fn(a.value, b.value), Int(32))
    return Expr(kind, Int(32), (a, b))


def _iadd(a: Expr, b: Expr) -> Expr:
    if _is_const(b, 0):
        return a
    return _ifold("add", a, b, lambda x, y: x + y)


def _isub(a: Expr, b: Expr) -> Expr:
    if _is_const(b, 0):
        return a
    return _ifold("sub", a, b, lambda x, y: x - y)


def _imin(a: Expr, b: Expr) -> Expr:
    return a if _same(a, b) else _ifold("min", a, b, min)


def _imax(a: Expr, b: Expr) -> Expr:
    return a if _same(a, b) else _ifold("max", a, b, max)


def _sym_bounds(e: Expr, env: dict):
    """The range of the int32 index ``e`` as (lo, hi) Exprs of Params and image sizes, when each Var or RVar
    ranges over its ``env`` entry; None where it is not simple (the caller falls back to numbers)."""
    k = e.kind
    if k == "const" and not e.type.is_float():
        c = _i32(e)
        return _SymInterval(c, c)
    if k in ("var", "rvar"):
        return env.get(e.value.name())
    if k in ("param", "buffer_dim") and not e.type.is_float():
        c = _i32(e)
        return _SymInterval(c, c)
    if k == "cast" and not e.type.is_float() and not e.args[0].type.is_float():
        if e.type.bits() >= e.args[0].type.bits() and e.type.is_int():
            return _sym_bounds(e.args[0], env)
        return None
    if k in ("add", "sub", "min", "max", "mul", "div", "select"):
        ops = e.args[1:] if k == "select" else e.args
        a, b = (_sym_bounds(x, env) for x in ops)
        if k == "mul" and a is not None and a.lo.kind == "const" and _same(a.lo, a.hi):
            a, b = b, a  # the constant factor second
        if k in ("mul", "div"):
            if a is None or b is None or b.lo.kind != "const" or not _same(b.lo, b.hi):
                return None
            c = b.lo.value
            if k == "div" and c <= 0:
                return None
            op = "mul" if k == "mul" else "div"

            def scale(v):
                return _ifold(op, v, const(c, Int(32)), (lambda x, y: x * y) if op == "mul" else (lambda x, y: x // y))

            return _SymInterval(scale(a.lo), scale(a.hi)) if c >= 0 else _SymInterval(scale(a.hi), scale(a.lo))
        if a is None or b is None:
            return None
        if k == "add":
            return _SymInterval(_iadd(a.lo, b.lo), _iadd(a.hi, b.hi))
        if k == "sub":
            return _SymInterval(_isub(a.lo, b.hi), _isub(a.hi, b.lo))
        if k == "min":
            return _SymInterval(_imin(a.lo, b.lo), _imin(a.hi, b.hi))
        if k == "max":
            return _SymInterval(_imax(a.lo, b.lo), _imax(a.hi, b.hi))
        return a.union(b)
    return None


def _number(v) -> Expr:
    """A bound interval arithmetic gave as a number; one it could not give (a float, the type's whole range)
    becomes _UNBOUNDED, which the bounds check refuses."""
    return const(v if isinstance(v, int) and abs(v) < _UNBOUNDED else _UNBOUNDED, Int(32))


def _value_of(e: Expr):
    """The number an index bound has now (Params' values, bound images' sizes)."""
    from .pipeline import resolve_buffer_dims

    iv = interval_of(resolve_buffer_dims(e), {})
    return iv.lo if iv.lo == iv.hi else None


def _wrapped_leaf(f: Func):
    """The Buffer or ImageParam that ``hl.Func(image)`` reads at its own coordinates, else None."""
    if not f.defined() or f.updates() or f.num_values() > 1:
        return None
    v = f.value()
    if v.kind == "call" and isinstance(v.value, (Buffer, ImageParam)):
        names = [a.name() for a in f.args()]
        if all(a.kind == "var" and a.value.name() == n for a, n in zip(v.args, names)):
            return v.value
    return None


# --- expression helpers (with the little folding that keeps adjoints readable and finds 0/1 self-adjoints) ---
def _is_const(e: Expr, v) -> bool:
    return e.kind == "const" and e.value == v


def _add(a: Expr, b: Expr) -> Expr:
    if _is_const(a, 0):
        return b
    if _is_const(b, 0):
        return a
    if a.kind == "const" and b.kind == "const":
        return const(a.value + b.value, a.type)
    return Expr("add", a.type, (a, b))


def _neg(a: Expr) -> Expr:
    return const(-a.value, a.type) if a.kind == "const" else Expr("sub", a.type, (const(0, a.type), a))


def _mul(a: Expr, b: Expr) -> Expr:
    if _is_const(a, 0) or _is_const(b, 0):
        return const(0, a.type)
    if _is_const(a, 1):
        return b
    if _is_const(b, 1):
        return a
    if a.kind == "const" and b.kind == "const":
        return const(a.value * b.value, a.type)
    return Expr("mul", a.type, (a, b))


def _div(a: Expr, b: Expr) -> Expr:
    if _is_const(a, 0):
        return a
    if _is_const(b, 1):
        return a
    return Expr("div", a.type, (a, b))


def _sel(c: Expr, t: Expr, f: Expr) -> Expr:
    if _is_const(t, 0) and _is_const(f, 0):
        return t
    return Expr("select", t.type, (c, t, f))


def _un(kind: str, a: Expr) -> Expr:
    return Expr(kind, a.type, (a,))


def _partials(e: Expr, adj: Expr) -> list:
    """(operand, its adjoint) for each float operand of ``e``, given the adjoint of ``e`` (the chain rule)."""
    k, a = e.kind, e.args
    t = e.type
    one, zero = const(1, t), const(0, t)
    if k == "cast":
        return [(a[0], cast(a[0].type, adj))]
    if k == "add":
        return [(a[0], adj), (a[1], adj)]
    if k == "sub":
        return [(a[0], adj), (a[1], _neg(adj))]
    if k == "mul":
        return [(a[0], _mul(adj, a[1])), (a[1], _mul(adj, a[0]))]
    if k == "div":
        return [(a[0], _div(adj, a[1])), (a[1], _div(_mul(_neg(adj), a[0]), _mul(a[1], a[1])))]
    if k == "mod":  # a - b * floor(a / b)
        return [(a[0], adj), (a[1], _mul(_neg(adj), _un("floor", Expr("div", t, (a[0], a[1])))))]
    if k in ("min", "max"):  # Halide's: both operands get the adjoint where they are equal
        cmp = "le" if k == "min" else "ge"
        return [
            (a[0], _sel(Expr(cmp, Bool(), (a[0], a[1])), adj, zero)),
            (a[1], _sel(Expr(cmp, Bool(), (a[1], a[0])), adj, zero)),
        ]
    if k == "select":
        return [(a[1], _sel(a[0], adj, zero)), (a[2], _sel(a[0], zero, adj))]
    if k == "abs":
        return [(a[0], _mul(adj, _sel(Expr("gt", Bool(), (a[0], zero)), one, const(-1, t))))]
    x = a[0] if a else None
    if k == "sqrt":
        return [(x, _mul(adj, _div(const(0.5, t), _un("sqrt", x))))]
    if k == "exp":
        return [(x, _mul(adj, _un("exp", x)))]
    if k == "log":
        return [(x, _div(adj, x))]
    if k == "sin":
        return [(x, _mul(adj, _un("cos", x)))]
    if k == "cos":
        return [(x, _mul(_neg(adj), _un("sin", x)))]
    if k == "tan":
        c = _un("cos", x)
        return [(x, _div(adj, _mul(c, c)))]
    if k == "asin":
        return [(x, _div(adj, _un("sqrt", Expr("sub", t, (one, _mul(x, x))))))]
    if k == "acos":
        return [(x, _div(_neg(adj), _un("sqrt", Expr("sub", t, (one, _mul(x, x))))))]
    if k == "atan":
        return [(x, _div(adj, _add(one, _mul(x, x))))]
    if k == "sinh":
        return [(x, _mul(adj, _un("cosh", x)))]
    if k == "cosh":
        return [(x, _mul(adj, _un("sinh", x)))]
    if k == "tanh":
        c = _un("cosh", x)
        return [(x, _div(adj, _mul(c, c)))]
    if k in ("floor", "ceil", "round", "trunc", "reinterpret", "random"):
        return []  # piecewise constant (or bits): zero derivative, as Halide's
    if k == "pow":
        y = a[1]
        return [
            (x, _mul(_mul(adj, y), Expr("pow", t, (x, Expr("sub", t, (y, one)))))),
            (y, _mul(_mul(adj, e), _un("log", x))),
        ]
    if k == "atan2":  # atan2(y, x)
        y, xx = a
        r2 = _add(_mul(y, y), _mul(xx, xx))
        return [(y, _mul(adj, _div(xx, r2))), (xx, _mul(adj, _div(_neg(y), r2)))]
    if k == "print":  # hl.print(value, ...) is its first value
        return [(a[1], adj)]
    return None  # not differentiable here: the caller refuses it


def _backprop(value: Expr, seed: Expr, where: str) -> list:
    """Push ``seed`` (the adjoint of ``value``) down to the leaves: [(call or param node, its adjoint)].
    Nodes shared by several parents are visited once, after all their parents, as Halide's sort_expressions."""
    order, seen = [], set()
    stack = [(value, False)]
    while stack:  # post-order over the DAG of float nodes
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen or n.type is None or not n.type.is_float():
            continue
        seen.add(id(n))
        stack.append((n, True))
        if n.kind not in ("call", "param"):
            stack.extend((c, False) for c in n.args)
    adjoints = {id(value): seed}
    leaves = []
    for n in reversed(order):
        adj = adjoints.pop(id(n), None)
        if adj is None:
            continue
        if n.kind in ("call", "param"):
            leaves.append((n, adj))
            continue
        if n.kind in ("const", "var", "rvar"):
            continue
        parts = _partials(n, adj)
        if parts is None:
            raise HalideError(f"{where}: can't differentiate '{n.kind}' ({n}); propagate_adjoints does not support it")
        for child, c_adj in parts:
            if child.type.is_float():
                prev = adjoints.get(id(child))
                adjoints[id(child)] = c_adj if prev is None else _add(prev, c_adj)
    return leaves


def _var_names(e: Expr) -> set:
    return {n.value.name() for n in walk(e) if n.kind == "var"}


def _same(a: Expr, b: Expr) -> bool:
    """Structural equality of two Exprs."""
    if a is b:
        return True
    if a.kind != b.kind or a.type != b.type or len(a.args) != len(b.args) or a.index != b.index:
        return False
    if a.kind in ("var",):
        if a.value.name() != b.value.name():
            return False
    elif a.kind == "rvar":
        if a.value.domain() is not b.value.domain() or a.value.index() != b.value.index():
            return False
    elif a.kind in ("call", "param"):
        if a.value is not b.value:
            return False
    elif a.value != b.value:
        return False
    return all(_same(x, y) for x, y in zip(a.args, b.args))


def _offset_of(e: Expr, var: str):
    """``c`` if ``e`` is ``var + c`` (``c`` free of ``var``), else None."""
    if e.kind == "var" and e.value.name() == var:
        return const(0, e.type)
    if e.kind in ("add", "sub"):
        a, b = e.args
        if var in _var_names(a) and var not in _var_names(b):
            c = _offset_of(a, var)
            return None if c is None else Expr(e.kind, e.type, (c, b))
        if e.kind == "add" and var in _var_names(b) and var not in _var_names(a):
            c = _offset_of(b, var)
            return None if c is None else Expr("add", e.type, (c, a))
    return None


# --- the transformation --------------------------------------------------------------------------------------
class _Reverse:
    def __init__(self, output: Func, adjoint: Func, out_box: list):
        self.output, self.adjoint, self.out_box = output, adjoint, out_box
        self.funcs: dict = {}  # (id(Func), update) -> adjoint Func
        self.leaves: dict = {}  # id(leaf) -> adjoint Func
        self.leaf_objs: dict = {}

    # Funcs in realization order (producers first) and the leaves they read
    def _order(self) -> list:
        order, seen = [], set()

        def visit(f: Func) -> None:
            seen.add(id(f))
            for e in _exprs(f):
                for n in walk(e):
                    if n.kind == "call" and isinstance(n.value, Func) and n.value is not f:
                        if id(n.value) not in seen:
                            visit(n.value)
                    elif n.kind == "call" and isinstance(n.value, (Buffer, ImageParam)) or n.kind == "param":
                        if n.type.is_float():
                            self.leaf_objs.setdefault(id(n.value), n.value)
            order.append(f)

        visit(self.output)
        return order

    def _bounds(self, order: list) -> dict:
        """The box of each Func (per pure dimension, a _SymInterval of Exprs) the output's box needs, as Halide's
        inference_bounds: consumers first. Bounds stay Exprs of Params and image sizes where the index
        arithmetic is simple; elsewhere they are the numbers interval arithmetic gives now."""
        from .pipeline import resolve_buffer_dims

        boxes = {id(self.output): list(self.out_box)}
        for f in reversed(order):
            box = boxes.get(id(f))
            for d, iv in enumerate(box):
                lo, hi = _value_of(iv.lo), _value_of(iv.hi)
                if not all(isinstance(v, int) and abs(v) < _UNBOUNDED for v in (lo, hi)):
                    raise HalideError(
                        f"{_site(f, -1)}: Access to function or buffer {f.name()} at dimension {d} is not bounded. "
                        f"We can only differentiate bounded accesses."
                    )
            env = {v.name(): iv for v, iv in zip(f.args(), box)}
            for u in f.updates():
                for r in u.rvars():
                    lo, ext = (_i32(v) for v in r.domain().bounds()[r.index()])
                    env[r.name()] = _SymInterval(lo, _isub(_iadd(lo, ext), const(1, Int(32))))
            numeric = {name: Interval(_value_of(iv.lo), _value_of(iv.hi)) for name, iv in env.items()}  # (the fallback)
            for e in _exprs(f):
                for n in walk(e):
                    if n.kind != "call" or n.value is f or not isinstance(n.value, Func):
                        continue
                    ivs = []
                    for a in n.args:
                        iv = _sym_bounds(a, env)
                        if iv is None:
                            num = interval_of(resolve_buffer_dims(a), numeric)
                            iv = _SymInterval(_number(num.lo), _number(num.hi))
                        ivs.append(iv)
                    prev = boxes.get(id(n.value))
                    boxes[id(n.value)] = ivs if prev is None else [p.union(i) for p, i in zip(prev, ivs)]
        return boxes

    def run(self) -> Derivative:
        order = self._order()
        if self.output.num_values() > 1:
            raise HalideError(
                f"{_site(self.output, -1)}: propagate_adjoints: the output Func '{self.output.name()}' returns a "
                f"Tuple; differentiate one of its elements (a Func of it) instead"
            )
        self.boxes = self._bounds(order)
        for f in order:  # the stubs: 0 everywhere, the output's last definition the given adjoint
            args = tuple(f.args())
            for u in range(-1, len(f.updates())):
                d = Func(f"{f.name()}_{u + 1}_d_def__")
                if f is self.output and u == len(f.updates()) - 1:
                    d[args] = _call(self.adjoint, [a._as_expr() for a in args])
                else:
                    d[args] = _zeros(f)
                self.funcs[(id(f), u)] = d
        for key, leaf in self.leaf_objs.items():
            d = Func(f"{leaf.name()}_im_0_d_def__" if isinstance(leaf, ImageParam) else f"{leaf.name()}_d__")
            ndims = 0 if isinstance(leaf, Param) else leaf.dimensions()
            args = tuple(Var(f"v{i}") for i in range(ndims))
            d[args] = const(0, leaf.type())
            self.leaves[key] = d
        for f in reversed(order):
            for u in range(len(f.updates()) - 1, -1, -1):
                self._update(f, u)
            self._definition(f)
        return Derivative(self.funcs, self.leaves, [*order, *self.leaf_objs.values()])

    def _definition(self, f: Func) -> None:
        d = self.funcs[(id(f), -1)]
        args = [a._as_expr() for a in f.args()]
        where = _site(f, -1)
        for k, value in enumerate(f.values()):
            for leaf, adj in _backprop(value, _call(d, args, k), where):
                self._scatter(f, -1, leaf, adj)

    def _update(self, f: Func, u: int) -> None:
        upd = f.updates()[u]
        where = f"{_site(f, u)}: update definition {u} of Func '{f.name()}'"
        types = f.output_types()
        n = len(types)
        lhs = list(upd.args)
        # The checks Halide makes before propagating: adjoints may not read f (they would see its final values,
        # not the ones the update read), and a reduction's adjoint to itself must be 0 or 1. A read of f at
        # another point than the one written is a scan: only the shape _scan_read accepts is differentiated.
        # (each Tuple element's value with a seed of 1; self_adj[j][k]: element k's adjoint to its read of f[j])
        probes = [_backprop(v, const(1, types[k]), where) for k, v in enumerate(upd.values)]
        probe = [la for p in probes for la in p]
        reads = [leaf for leaf, _ in probe if leaf.kind == "call" and leaf.value is f]
        scan = None
        if reads and not all(_same(a, b) for a, b in zip(reads[0].args, lhs)):
            scan = _scan_read(f, upd, lhs, reads, where)
        self_adj = [[const(0, types[j]) for _ in range(n)] for j in range(n)]
        for k, p in enumerate(probes):
            for leaf, adj in p:
                if leaf.kind == "call" and leaf.value is f:
                    self_adj[leaf.index][k] = _add(self_adj[leaf.index][k], adj)
        for leaf, adj in probe:
            # (a scan's adjoints may read f where it read it: the final values there, unless a later update
            # changes them)
            last = u == len(f.updates()) - 1
            ok_read = scan is not None and last
            if any(
                n.kind == "call" and n.value is f and not (ok_read and any(_same_args(n, rd) for rd, _ in scan))
                for n in walk(adj)
            ):
                raise HalideError(
                    f"{where}: Can't take the gradients of {f.name()}, which depend on intermediate values. "
                    f"Use a scan (which saves intermediate results) instead."
                )
            if leaf.kind == "call" and leaf.value is f:
                if scan is None and not all(_same(a, b) for a, b in zip(leaf.args, lhs)):
                    raise HalideError(
                        f"{where}: it reads {f.name()} at ({', '.join(map(str, leaf.args))}), not where it writes; "
                        f"propagate_adjoints of such scans is not supported by halide_mlir yet"
                    )
        # a reduction may only pass each element's adjoint on unchanged (1) or stop it (0)
        identity_like = all(
            _is_const(self_adj[j][k], 0) or (j == k and _is_const(self_adj[j][k], 1))
            for j in range(n)
            for k in range(n)
        )
        if upd.rvars() and scan is None and not identity_like:
            raise HalideError(
                f"{where}: Can't take the gradients of {f.name()}, which depend on intermediate values. "
                f"Use a scan (which saves intermediate results) instead."
            )
        cur = self.funcs[(id(f), u)]
        args = tuple(f.args())
        pure_lhs = len(lhs) == len(args) and all(
            a.kind == "var" and a.value.name() == v.name() for a, v in zip(lhs, args)
        )
        leaves = [la for k, v in enumerate(upd.values) for la in _backprop(v, _call(cur, lhs, k), where)]
        totals = [const(0, t) for t in types]  # the adjoint each element of f's read of itself gets
        for leaf, adj in leaves:
            if leaf.kind == "call" and leaf.value is f:
                totals[leaf.index] = _add(totals[leaf.index], adj)
        if scan is not None:
            self._scan_backwards(f, upd, lhs, scan, leaves, cur)
        prev = Func(f"{f.name()}_{u}_d_def__")
        if pure_lhs:  # every point is overwritten
            prev[args] = _zeros(f)
        else:
            prev[args] = _values([_call(cur, [a._as_expr() for a in args], k) for k in range(n)])
            prev[_lhs(lhs)] = _zeros(f)
        self.funcs[(id(f), u - 1)] = prev
        if scan is None and not all(_is_const(t, 0) for t in totals):
            # the overwritten points' adjoint flows to what they were
            if pure_lhs:
                prev._define(args, _values(totals))
            else:
                prev[_lhs(lhs)] = _values(totals)
        for leaf, adj in leaves:
            if not (leaf.kind == "call" and leaf.value is f):
                self._scatter(f, u, leaf, adj)

    def _scan_backwards(self, f: Func, upd, lhs: list, scan: list, leaves: list, cur: Func) -> None:
        """Iteration r of the scan hands the adjoint of what it wrote, complete once the later iterations that
        read it have run, to the points it read: the adjoint's own scan over the RDom reversed. The other
        leaves then read ``cur`` complete."""
        t = f.output_types()[0]
        adjs = [const(0, t) for _ in scan]  # the adjoint of each read of f, by offset
        for leaf, adj in leaves:
            for k, (rd, _) in enumerate(scan):
                if leaf.kind == "call" and leaf.value is f and _same_args(leaf, rd):
                    adjs[k] = _add(adjs[k], adj)
        if all(_is_const(a, 0) for a in adjs):
            return
        r = upd.rvars()[0]
        lo, ext = _i32(r.min()), _i32(r.extent())
        hi = lo + ext - 1

        def at(e: Expr, v: Expr) -> Expr:  # e with r replaced by v
            return replace_nodes(e, lambda n: v if n.kind == "rvar" and n.value is r else None)

        flip = RDom([Range(lo, ext)])
        rev = lo * 2 + ext - 1 - flip.x  # r from its last value down to its first
        if len(scan) == 1:  # push: cur[r - c] += what iteration r passes back (where() predicates allowed)
            (rd, _), adj = scan[0], adjs[0]
            for pred in r.domain().predicates():
                flip.where(at(pred, rev))
            pts = [at(a, rev) for a in rd.args]
            cur[_lhs(pts)] = Expr("add", t, (_call(cur, pts), at(adj, rev)))
            return
        # several offsets: pull, cur[r] += what the iterations r + c pass back, then push what the first
        # iterations read below the RDom (points the scan does not write)
        pts = [at(a, rev) for a in lhs]
        total = _call(cur, pts)
        for (_, c), adj in zip(scan, adjs):
            later = Expr("min", Int(32), (rev + c, hi))  # (clamped: the select's other side is evaluated too)
            total = Expr("add", t, (total, _sel(rev + c <= hi, at(adj, later), const(0, t))))
        cur[_lhs(pts)] = total
        for (rd, c), adj in zip(scan, adjs):
            first = RDom([Range(lo, Expr("min", Int(32), (const(c, Int(32)), ext)))])
            below = [at(a, first.x._as_expr()) for a in rd.args]
            cur[_lhs(below)] = Expr("add", t, (_call(cur, below), at(adj, first.x._as_expr())))

    def _scatter(self, f: Func, u: int, leaf: Expr, adj: Expr) -> None:
        """Add ``adj`` (an Expr over f's pure Vars and the definition's RVars) to the adjoint of the leaf at the
        leaf's call arguments."""
        if isinstance(leaf.value, Func):
            target = self.funcs[(id(leaf.value), len(leaf.value.updates()) - 1)]
        else:
            target = self.leaves[id(leaf.value)]
        cur = self.funcs[(id(f), u)]
        pure = [v.name() for v in f.args()]
        box = self.boxes[id(f)]
        upd = f.updates()[u] if u >= 0 else None
        call_args = list(leaf.args)
        placeholders = [Var(f"__adu{next(_fresh)}") for _ in call_args]
        inverse: dict = {}  # pure var name -> its Expr in the placeholders
        lhs = list(call_args)
        for j, a in enumerate(call_args):
            names = [v for v in pure if v in _var_names(a)]
            if len(names) != 1 or names[0] in inverse:
                continue
            x = names[0]
            c = _offset_of(a, x)
            if c is None or _var_names(c) & set(pure):
                continue
            i = pure.index(x)
            xe = f.args()[i]._as_expr()
            clamped = Expr("max", xe.type, (Expr("min", xe.type, (xe, box[i].hi)), box[i].lo))

            # other uses of x read inside f's box; the current adjoint's own coordinate stays exact (it is
            # 0 outside the points it was propagated to)
            def clamp_uses(n, x=x, i=i, clamped=clamped):
                if n.kind == "var" and n.value.name() == x:
                    return clamped
                if n.kind == "call" and n.value is cur and n.args[i].kind == "var" and n.args[i].value.name() == x:
                    return n.copy_with(
                        tuple(arg if k == i else replace_nodes(arg, clamp_uses) for k, arg in enumerate(n.args))
                    )
                return None

            adj = replace_nodes(adj, clamp_uses)
            inverse[x] = Expr("sub", xe.type, (placeholders[j]._as_expr(), c))
            lhs[j] = placeholders[j]._as_expr()

        def inverted(n):
            return inverse.get(n.value.name()) if n.kind == "var" else None

        for j, a in enumerate(lhs):
            if not (a.kind == "var" and a.value is placeholders[j]):
                lhs[j] = replace_nodes(a, inverted)
        adj = replace_nodes(adj, inverted)
        # pure Vars left (not inverted) are scattered over f's box, together with the definition's own RDom
        left = [v for v in pure if v not in inverse and (v in _var_names(adj) or any(v in _var_names(a) for a in lhs))]
        own = upd.rvars() if upd is not None else []
        preds = list(upd.predicates()) if upd is not None else []
        if left or own:
            spans = [box[pure.index(v)] for v in left]
            dims = [(iv.lo, _iadd(_isub(iv.hi, iv.lo), const(1, Int(32)))) for iv in spans]
            dims += [(r.min(), r.extent()) for r in own]
            rdom = RDom([Range(lo, ext) for lo, ext in dims])
            new_of_var = {v: rdom[k]._as_expr() for k, v in enumerate(left)}
            new_of_rvar = {(id(r.domain()), r.index()): rdom[len(left) + k]._as_expr() for k, r in enumerate(own)}

            def to_rdom(n):
                if n.kind == "var":
                    return new_of_var.get(n.value.name())
                if n.kind == "rvar":
                    return new_of_rvar.get((id(n.value.domain()), n.value.index()))
                return None

            adj = replace_nodes(adj, to_rdom)
            lhs = [replace_nodes(a, to_rdom) for a in lhs]
            used = {id(n.value) for e in (adj, *lhs) for n in walk(e) if n.kind == "rvar"}
            for k in range(rdom.dimensions()):
                # an RVar nothing reads still counts the update's iterations: a condition that always holds
                rv = rdom[k]
                if id(rv) not in used:
                    cond = Expr("ge", Bool(), (rv._as_expr(), to_expr(rv.min())))
                    adj = Expr("select", adj.type, (cond, adj, const(0, adj.type)))
            for p in preds:
                p = replace_nodes(replace_nodes(p, inverted), to_rdom)
                rdom.where(replace_nodes(p, _placeholder_to(placeholders, target)))
        to_target = _placeholder_to(placeholders, target)
        adj = replace_nodes(adj, to_target)
        lhs = [replace_nodes(a, to_target) for a in lhs]
        self._accumulate(target, lhs, adj, leaf.index)

    def _accumulate(self, target: Func, lhs: list, adj: Expr, index: int) -> None:
        targs = target.args()
        pure = len(lhs) == len(targs) and all(
            a.kind == "var" and a.value.name() == v.name() for a, v in zip(lhs, targs)
        )
        reduces = any(n.kind == "rvar" for e in (adj, *lhs) for n in walk(e))
        if pure and not reduces and not target.updates():
            values = list(target.values())
            values[index] = _add(values[index], adj)
            target._define(tuple(targs), values[0] if len(values) == 1 else tuple(values))
            return
        values = [_call(target, lhs, k) for k in range(target.num_values())]
        values[index] = Expr("add", adj.type, (values[index], adj))
        target[_lhs(lhs)] = _values(values)


def _same_args(call: Expr, other: Expr) -> bool:
    return all(_same(a, b) for a, b in zip(call.args, other.args))


def _scan_read(f: Func, upd, lhs: list, reads: list, where: str) -> list:
    """The reads of a scan update the adjoint can run backwards, as [(read, c)], else a HalideError: one RVar
    ``r`` (a 1-D RDom), written at ``r`` in one coordinate and read there at ``r - c`` (constants c >= 1; several
    offsets only without where() predicates), every other coordinate read where it is written. Each point is
    then written once, by one iteration, and read only by later ones: the adjoint of what iteration r wrote is
    complete once the iterations after it have run (Halide's "non-overwriting scans"; Halide 21 gets these
    gradients wrong when the self-adjoint is 1)."""
    refuse = HalideError(
        f"{where}: it reads {f.name()} at ({', '.join(map(str, reads[0].args))}), not where it writes; "
        f"propagate_adjoints differentiates such scans only over a 1-D RDom r, written at r and read at r - c "
        f"(c >= 1) in one coordinate"
    )
    rvars = upd.rvars()
    if f.num_values() > 1 or len(rvars) != 1:
        raise refuse
    r = rvars[0]
    if any(n.kind == "rvar" for e in lhs if not (e.kind == "rvar" and e.value is r) for n in walk(e)):
        raise refuse
    found: list = []
    for read in reads:
        if any(_same_args(read, other) for other, _, _ in found):
            continue
        diff = [j for j, (a, b) in enumerate(zip(read.args, lhs)) if not _same(a, b)]
        if len(diff) != 1:
            raise refuse
        w, rd = lhs[diff[0]], read.args[diff[0]]
        if not (w.kind == "rvar" and w.value is r) or rd.kind not in ("sub", "add"):
            raise refuse
        a, c = rd.args
        if not (a.kind == "rvar" and a.value is r and c.kind == "const"):
            raise refuse
        c = c.value if rd.kind == "sub" else -c.value
        if c < 1 or (found and diff[0] != found[0][2]):
            raise refuse
        found.append((read, c, diff[0]))
    if len(found) > 1 and r.domain().predicates():
        raise refuse
    return [(read, c) for read, c, _ in found]


def _placeholder_to(placeholders: list, target: Func):
    names = {p.name(): target.args()[j]._as_expr() for j, p in enumerate(placeholders)}
    return lambda n: names.get(n.value.name()) if n.kind == "var" else None


def _lhs(lhs: list) -> tuple:
    """Update coordinates as Func.__setitem__ takes them: Vars where a coordinate is a pure Var."""
    return tuple(a.value if a.kind == "var" else a for a in lhs)


def _call(f: Func, args, k: int = 0) -> Expr:
    """``f[args]``, or its element ``k`` for a Tuple-valued Func."""
    ref = f[tuple(_lhs(list(args)))]
    return ref[k] if f.num_values() > 1 else to_expr(ref)


def _zeros(f: Func):
    return _values([const(0, t) for t in f.output_types()])


def _values(values: list):
    """A definition's value: one Expr, or a Tuple of them."""
    return values[0] if len(values) == 1 else tuple(values)


def _exprs(f: Func) -> list:
    out = list(f.values())
    for u in f.updates():
        out += [*u.args, *u.values, *u.predicates()]
    return out


def _site(f: Func, u: int):
    d = f.updates()[u] if u >= 0 else f._definition()
    return d.site if d.site is not None else f"Func '{f.name()}'"


__all__ = ["Derivative", "propagate_adjoints"]
