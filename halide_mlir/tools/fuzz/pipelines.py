"""The fuzzer's random pipelines: inputs (raw or through a boundary condition), then a chain of 1-4 stages --
pointwise, stencils with random taps (one may downsample), sums and minimum/maximum over small RDoms (inline or
as update definitions), histogram-like scatters with clamped indices -- over u8/u16/i16/i32/f32 with casts.

Every choice is a Hypothesis draw (simplest option first), so shrinking simplifies the pipeline. The generator
writes the lines of ``build(hl, schedule)`` and records, per Func, what schedules.py needs: its kind, the Funcs
it reads, the loops of its update.
"""

from __future__ import annotations

import dataclasses

W, H = 37, 23  # realize size: not a multiple of any vector width or tile
PAD = 100  # raw (no boundary condition) inputs are this much bigger on every side

TYPES = {  # name: (hl type code, numpy dtype, is_float, min, max)
    "u8": ("hl.UInt(8)", "uint8", False, 0, 255),
    "u16": ("hl.UInt(16)", "uint16", False, 0, 65535),
    "i16": ("hl.Int(16)", "int16", False, -32768, 32767),
    "i32": ("hl.Int(32)", "int32", False, -(1 << 31), (1 << 31) - 1),
    "f32": ("hl.Float(32)", "float32", True, None, None),
}
I32_LIMIT = 1 << 30  # keep every i32 value below this: Halide treats signed 32-bit overflow as undefined


def _ty(t: str) -> str:
    return TYPES[t][0]


def _is_float(t: str) -> bool:
    return TYPES[t][2]


def _wrap_bound(t: str, bound: float) -> float:
    """The magnitude bound of a value of type t, given the bound of what was computed (narrow ints wrap)."""
    if _is_float(t) or t == "i32":
        return bound
    lo, hi = TYPES[t][3], TYPES[t][4]
    return min(bound, max(abs(lo), hi))


@dataclasses.dataclass
class Source:
    """Something a stage reads: an input Buffer (raw, read at +PAD) or a Func (boundary condition or stage)."""

    code: str
    type: str
    bound: float
    raw: bool = False

    def at(self, ix: str, iy: str) -> str:
        if self.raw:
            return f"{self.code}[{ix} + {PAD}, {iy} + {PAD}]"
        return f"{self.code}[{ix}, {iy}]"


@dataclasses.dataclass
class FuncInfo:
    name: str
    kind: str  # bc, point, sum, max, hist
    type: str
    uses: list  # names of the Funcs it reads
    update_loops: list = None  # [(name, code, is_rvar, extent)] innermost first, if it has an update
    update_uses_rvars: bool = False
    pure_in_update: tuple = ()  # pure Vars of the update's loop nest
    scan: str = ""  # a scan's direction ("x" or "y": the RVar walks that dimension)
    pair: tuple = ()  # a stage reading two siblings (parent, child) that may be computed with each other


def _off(v: str, d: int, stride=1) -> str:
    if stride == "/2":  # a pyramid's upsampling read: f(x / 2, y / 2) (the tap before the halving)
        return f"({_off(v, d)}) / 2" if d else f"{v} / 2"
    v = v if stride == 1 else f"{stride} * {v}"
    return v if d == 0 else (f"{v} + {d}" if d > 0 else f"{v} - {-d}")


class Draws:
    """Hypothesis draws, shared by the pipeline and the schedule generators."""

    def __init__(self, draw, st):
        self.draw = draw
        self.st = st

    def d(self, strategy, label=None):
        return self.draw(strategy, label) if label else self.draw(strategy)

    def integer(self, lo, hi):
        return self.d(self.st.integers(lo, hi))

    def choice(self, options):
        return self.d(self.st.sampled_from(options))

    def flag(self, p_true_hint=None):
        return self.d(self.st.booleans())


class PipelineGen(Draws):
    """Draws one pipeline: ``inputs()``, then ``stage(i, ...)`` for each stage. ``alg``: the lines of build();
    ``funcs`` / ``order``: what each Func is, in definition order."""

    def __init__(self, draw, st):
        super().__init__(draw, st)
        self.alg: list[str] = []
        self.funcs: dict[str, FuncInfo] = {}
        self.order: list[str] = []
        self.kinds: list[str] = []
        self.gpu = False  # draw a GPU pipeline (set by program.py)
        self.strided = False  # one stage may read at 2x / 3x (downsampling); more would grow regions 2^k

    # --- inputs -------------------------------------------------------------------------------------------------
    def inputs(self) -> list[Source]:
        srcs = []
        self.inputs_spec = []
        n = 1 + self.flag()
        for i in range(n):
            t = self.choice(["u8", "i16", "u16", "f32"])
            access = self.choice(["repeat_edge", "raw", "constant_exterior", "mirror_image"])
            seed = self.integer(0, 3)
            name = f"in{i}"
            raw = access == "raw"
            self.inputs_spec.append((name, TYPES[t][1], seed, raw))
            self.alg.append(f'{name} = hl.Buffer({name.upper()}, "{name}")')
            bound = 4.0 if _is_float(t) else max(abs(TYPES[t][3]), TYPES[t][4])
            if raw:
                srcs.append(Source(name, t, bound, raw=True))
                continue
            bc = f"b{i}"
            if access == "constant_exterior":
                value = self.choice([0, 7, -3]) if not _is_float(t) else self.choice([0.0, 0.5, -2.25])
                if t in ("u8", "u16") and value < 0:
                    value = 1
                self.alg.append(f"{bc} = hl.BoundaryConditions.constant_exterior({name}, {value})")
            else:
                self.alg.append(f"{bc} = hl.BoundaryConditions.{access}({name})")
            self.funcs[bc] = FuncInfo(bc, "bc", t, [])
            self.order.append(bc)
            srcs.append(Source(bc, t, bound))
        return srcs

    # --- expressions --------------------------------------------------------------------------------------------
    def leaf(self, t: str, src: Source, ix: str, iy: str):
        code = src.at(ix, iy)
        bound = src.bound
        if t == "i32" and bound > (1 << 16):
            code, bound = f"hl.cast(hl.Int(16), {code})", 32768
        return f"hl.cast({_ty(t)}, {code})", _wrap_bound(t, bound)

    def expr(self, t: str, leaves, depth: int):
        """A random Expr of type t over the leaf generator ``leaves()`` -> (code, bound)."""
        if depth == 0:
            return leaves()
        ops = ["leaf", "add", "sub", "mul", "min", "max", "select", "div", "mod", "abs", "sqrt"]
        ops += ["intrinsic", "mux", "lerp", "f64", "select_chain"]  # issue 15's ops (appended: simplest draws stay)
        op = self.choice(ops)
        if op == "leaf":
            return leaves()
        if op in ("intrinsic", "mux", "lerp", "f64"):
            return self.everyday(op, t, leaves, depth)
        if op == "select_chain":  # Halide's select(c0, v0, c1, v1, ..., default)
            vals = [self.expr(t, leaves, depth - 1) for _ in range(self.integer(3, 4))]
            conds = [
                f"{vals[k][0]} {self.choice(['<', '>', '<=', '=='])} {vals[k + 1][0]}" for k in range(len(vals) - 1)
            ]
            args = [a for k in range(len(conds)) for a in (conds[k], vals[k][0])] + [vals[-1][0]]
            return f"hl.select({', '.join(args)})", max(b for _, b in vals)
        a, ba = self.expr(t, leaves, depth - 1)
        f = _is_float(t)
        if op in ("add", "sub", "min", "max", "select"):
            b, bb = self.expr(t, leaves, depth - 1)
            if op == "add" or op == "sub":
                bound = ba + bb
                if t == "i32" and bound > I32_LIMIT:
                    return f"hl.min({a}, {b})", max(ba, bb)
                return f"({a} {'+' if op == 'add' else '-'} {b})", _wrap_bound(t, bound)
            if op in ("min", "max"):
                return f"hl.{op}({a}, {b})", max(ba, bb)
            cmp = self.choice(["<", ">", "<=", "=="])
            return f"hl.select({a} {cmp} {b}, {a}, {b})", max(ba, bb)
        if op == "mul":
            c = self.choice([0.5, 2.0, 1.5, 0.25]) if f else self.choice([2, 3, 5])
            bound = ba * abs(c)
            if t == "i32" and bound > I32_LIMIT:
                return a, ba
            return f"({a} * {c})", _wrap_bound(t, bound)
        if op == "div":
            c = self.choice([2.0, 4.0]) if f else self.choice([2, 3, 4, 7])
            return f"({a} / {c})", ba
        if op == "mod":
            if f:
                return a, ba
            c = self.choice([3, 4, 7, 16])
            return f"({a} % {c})", c
        if op == "abs":  # Halide's abs of a signed int is unsigned: cast back
            return (f"hl.abs({a})" if f else f"hl.cast({_ty(t)}, hl.abs({a}))"), ba
        # sqrt
        if f:
            return f"hl.sqrt(hl.abs({a}))", max(ba, 1.0)
        return a, ba

    def everyday(self, op: str, t: str, leaves, depth: int):
        """Halide's intrinsics (widening, saturating, halving, rounding shifts, bit counts), mux, lerp,
        saturating_cast and float64 arithmetic, with the value bounds the rest of the generator keeps."""
        a, ba = self.expr(t, leaves, depth - 1)
        b, bb = self.expr(t, leaves, depth - 1)
        f, ty = _is_float(t), _ty(t)
        if op == "lerp" and t == "i32":
            # Halide 21's lerp of negative Int(32) values is wrong when one comes through a float cast:
            # lerp(i32(f32(v)), v, u8(111)) is 21921 for v = i32(i16(-15088)), not v; so not drawn for Int(32)
            op = "mux"
        if op == "mux":  # the index from the coordinates: a float-derived index could differ in its last bit
            return f"hl.mux((x + y) % {self.choice([2, 3, 4])}, [{a}, {b}])", max(ba, bb)
        if op == "lerp":
            if f:
                return f"hl.lerp({a}, {b}, {self.choice([0.0, 0.25, 0.5, 1.0])})", max(ba, bb)
            w = self.choice(["hl.cast(hl.UInt(8), x * 37 + y)", "hl.cast(hl.UInt(16), x * 997)", "hl.u8(255)"])
            return f"hl.lerp({a}, {b}, {w})", max(ba, bb)
        if op == "f64":  # through float64 and back (x 0.75: exact in float64, so the truncation is exact)
            return f"hl.cast({ty}, hl.f64({a}) * 0.75 + hl.f64({b}) * 0.25)", max(ba, bb)
        if f:
            return f"hl.saturating_cast(hl.Float(32), hl.f64({a}) * 1.5)", ba * 1.5
        which = self.choice(
            [
                "saturating_add",
                "saturating_sub",
                "halving_add",
                "rounding_halving_add",
                "halving_sub",
                "absd",
                "widening_mul",
                "saturating_cast",
                "rounding_shift_right",
                "widening_shift_left",
                "mul_shift_right",
                "popcount",
                "count_leading_zeros",
                "count_trailing_zeros",
                "widening_add",
                "widening_sub",
                "rounding_mul_shift_right",
            ]
        )
        lo, hi = TYPES[t][3], TYPES[t][4]
        full = max(abs(lo), hi) if t != "i32" else I32_LIMIT
        clamp = (lambda c: f"hl.clamp({c}, {-I32_LIMIT}, {I32_LIMIT})") if t == "i32" else (lambda c: c)
        if which in ("saturating_add", "saturating_sub"):
            return clamp(f"hl.{which}({a}, {b})"), min(ba + bb, full)
        if which in ("halving_add", "rounding_halving_add"):
            return f"hl.{which}({a}, {b})", max(ba, bb)
        if which == "halving_sub":  # unsigned results below zero wrap
            return f"hl.halving_sub({a}, {b})", (ba + bb) / 2 + 1 if t in ("i16", "i32") else full
        if which == "absd":  # unsigned of the same width: cast back
            return f"hl.cast({ty}, hl.absd({a}, {b}))", _wrap_bound(t, ba + bb) if t != "i32" else min(ba + bb, full)
        if which in ("widening_add", "widening_sub"):  # then narrowed back, saturating
            return clamp(f"hl.saturating_cast({ty}, hl.{which}({a}, {b}))"), min(ba + bb, full)
        if which == "widening_mul":
            return clamp(f"hl.saturating_cast({ty}, hl.widening_mul({a}, {b}))"), min(ba * bb, full)
        if which == "saturating_cast":
            return clamp(f"hl.saturating_cast({ty}, hl.f32({a}) * 1.5 - 7)"), min(ba * 1.5 + 7, full)
        if which == "rounding_shift_right":
            k = self.integer(1, 3)
            return f"hl.rounding_shift_right({a}, {k})", ba / (1 << k) + 1
        if which == "widening_shift_left":  # then narrowed back, saturating
            return clamp(f"hl.saturating_cast({ty}, hl.widening_shift_left({a}, {self.integer(0, 3)}))"), full
        if which in ("mul_shift_right", "rounding_mul_shift_right"):
            q = self.integer(0, 8)
            return clamp(f"hl.{which}({a}, {b}, {q})"), min(ba * bb / (1 << q) + 1, full)
        return f"hl.{which}({a})", 32

    # --- stages ---------------------------------------------------------------------------------------------------
    def stage_type(self, srcs) -> str:
        t = self.choice(["i32", "u8", "u16", "i16", "f32"])
        if any(_is_float(s.type) for s in srcs):
            t = "f32"  # no float -> int casts: reordered float sums could then differ by one
        return t

    def stage(self, i: int, prev: list[Source], inputs: list[Source]) -> Source:
        name = f"f{i}"
        # a GPU pipeline: pure definitions only (updates are not supported on the GPU yet, docs/gpu.md)
        kinds = ["point", "stencil"] if self.gpu else ["point", "stencil", "sum", "max", "hist"]
        if not self.gpu and self.integer(0, 5) == 5:  # issue 16's scans and compute_with siblings (appended)
            kinds = ["scan", "pair"]
        kind = self.choice(kinds)
        srcs = list(prev)
        if i > 0 and self.flag():
            srcs.append(self.choice(inputs))
        t = self.stage_type(srcs)
        uses = [s.code for s in srcs if not s.raw]
        info = FuncInfo(name, kind, t, uses)
        self.kinds.append(f"{name}:{kind}:{t}")

        if kind in ("point", "stencil"):
            ntaps = 1 if kind == "point" else self.integer(1, 4)
            taps = [(0, 0)] if kind == "point" else [(self.integer(-2, 2), self.integer(-2, 2)) for _ in range(ntaps)]
            sx = sy = 1
            if kind == "stencil" and not self.strided:  # downsampling: f[2 * x + dx, ...]; "/2": upsampling
                sx, sy = self.choice([1, 2, 3, "/2"]), self.choice([1, 1, 2, "/2"])
                self.strided = sx != 1 or sy != 1

            def leaves():
                s = self.choice(srcs)
                dx, dy = self.choice(taps)
                return self.leaf(t, s, _off("x", dx, sx), _off("y", dy, sy))

            code, bound = self.expr(t, leaves, self.integer(0, 3))
            if kind == "stencil" and len(taps) > 1:  # make sure several taps are read
                extra = []
                for dx, dy in taps[1:]:
                    c, b = self.leaf(t, self.choice(srcs), _off("x", dx, sx), _off("y", dy, sy))
                    extra.append((c, b))
                for c, b in extra:
                    if t == "i32" and bound + b > I32_LIMIT:
                        code, bound = f"hl.max({code}, {c})", max(bound, b)
                    else:
                        code, bound = f"({code} + {c})", _wrap_bound(t, bound + b)
            self.alg.append(f'{name} = hl.Func("{name}")')
            self.alg.append(f"{name}[x, y] = hl.cast({_ty(t)}, {code})")
            out_bound = _wrap_bound(t, bound)

        elif kind in ("sum", "max"):
            src = self.choice(srcs)
            dims = self.integer(1, 2)
            rng = [(self.integer(-2, 0), self.integer(1, 3)) for _ in range(dims)]
            r = f"r{i}"
            self.alg.append(f'{r} = hl.RDom([{", ".join(f"({m}, {e})" for m, e in rng)}], "{r}")')
            ix = f"x + {r}.x"
            iy = f"y + {r}.y" if dims == 2 else "y"
            term, tb = self.leaf(t, src, ix, iy)
            if self.flag():
                term, tb = self.expr(t, lambda: self.leaf(t, src, ix, iy), 1)
            size = 1
            for _, e in rng:
                size *= e
            form = self.choice(["inline", "update"])
            self.alg.append(f'{name} = hl.Func("{name}")')
            if kind == "sum":
                out_bound = _wrap_bound(t, tb * size)
                if t == "i32" and tb * size > I32_LIMIT:
                    term = f"hl.cast(hl.Int(32), hl.cast(hl.Int(16), {term}))"
                    out_bound = 32768 * size
                if form == "inline":
                    self.alg.append(f"{name}[x, y] = hl.sum({term})")
                else:
                    self.alg.append(f"{name}[x, y] = hl.cast({_ty(t)}, 0)")
                    self.alg.append(f"{name}[x, y] += {term}")
            else:
                which = self.choice(["maximum", "minimum"])
                out_bound = tb
                if form == "inline":
                    self.alg.append(f"{name}[x, y] = hl.{which}({term})")
                else:
                    init, _ = self.leaf(t, src, _off("x", rng[0][0]), _off("y", rng[1][0]) if dims == 2 else "y")
                    self.alg.append(f"{name}[x, y] = {init}")
                    self.alg.append(f"{name}[x, y] = hl.{which[:3]}({name}[x, y], {term})")
            if form == "update":
                rl = [(f"{r}$x", f"{r}.x", True, rng[0][1])]
                if dims == 2:
                    rl.append((f"{r}$y", f"{r}.y", True, rng[1][1]))
                info.update_loops = rl + [("x", "x", False, None), ("y", "y", False, None)]
                info.pure_in_update = ("x", "y")

        elif kind == "scan":  # a recurrence along x or y over the pure definition (a scan over pure Vars)
            src = self.choice(srcs)
            d = self.choice(["y", "x"])
            r = f"r{i}"
            n = (H if d == "y" else W) - 1
            self.alg.append(f'{r} = hl.RDom([(1, {n})], "{r}")')
            init, out_bound = self.leaf(t, src, "x", "y")
            self.alg.append(f'{name} = hl.Func("{name}")')
            self.alg.append(f"{name}[x, y] = {init}")
            cur = f"{name}[x, {r}.x]" if d == "y" else f"{name}[{r}.x, y]"
            prev_ = f"{name}[x, {r}.x - 1]" if d == "y" else f"{name}[{r}.x - 1, y]"
            op = self.choice(["max", "halving", "mix"])
            if _is_float(t):
                rhs = {"max": f"hl.max({prev_}, {cur})", "halving": f"({prev_} + {cur}) * 0.5"}.get(
                    op, f"{prev_} * 0.25 + {cur} * 0.75"
                )
            else:
                rhs = {"max": f"hl.max({prev_}, {cur})", "halving": f"hl.halving_add({prev_}, {cur})"}.get(
                    op, f"hl.min({prev_}, {cur})"
                )
            self.alg.append(f"{cur} = {rhs}")
            info.scan = d
            info.update_loops = [(f"{r}$x", f"{r}.x", True, n), ("x" if d == "y" else "y",) * 2 + (False, None)]
            info.pure_in_update = ("x",) if d == "y" else ("y",)

        elif kind == "pair":  # two siblings read by this stage, at different offsets (different extents)
            pn, cn = f"{name}p", f"{name}c"
            bounds = []
            for sib in (cn, pn):  # the child is defined first: schedules.py schedules the parent before it
                src = self.choice(srcs)
                code, b = self.leaf(t, src, _off("x", self.integer(-1, 1)), _off("y", self.integer(-1, 1)))
                if self.flag():
                    code, b = self.expr(t, lambda src=src: self.leaf(t, src, "x", "y"), 1)
                self.alg.append(f'{sib} = hl.Func("{sib}")')
                self.alg.append(f"{sib}[x, y] = hl.cast({_ty(t)}, {code})")
                self.funcs[sib] = FuncInfo(sib, "point", t, [s.code for s in srcs if not s.raw])
                self.order.append(sib)
                bounds.append(_wrap_bound(t, b))
            sx, sy = self.integer(0, 3), self.integer(-2, 2)
            self.alg.append(f'{name} = hl.Func("{name}")')
            if t == "i32":
                self.alg.append(f"{name}[x, y] = hl.max({pn}[x, y], {cn}[{_off('x', sx)}, {_off('y', sy)}])")
                out_bound = max(bounds)
            else:
                self.alg.append(f"{name}[x, y] = {pn}[x, y] + {cn}[{_off('x', sx)}, {_off('y', sy)}]")
                out_bound = _wrap_bound(t, sum(bounds))
            info.uses = [pn, cn]
            info.pair = (pn, cn)

        else:  # hist: a scatter with clamped indices
            ints = [s for s in srcs if not _is_float(s.type)]
            src = ints[0] if ints else None  # srcs[0] is the previous stage (or an input)
            if t not in ("i32", "u16", "f32", "u8"):
                t = info.type = "i32"
            form = self.choice(["rows", "full"])
            r = f"r{i}"
            if form == "rows":
                self.alg.append(f'{r} = hl.RDom([(0, W)], "{r}")')
                at = (f"{r}.x", "y")
            else:
                self.alg.append(f'{r} = hl.RDom([(0, W), (0, H)], "{r}")')
                at = (f"{r}.x", f"{r}.y")
            if src is not None:
                base = f"hl.cast(hl.Int(32), {src.at(*at)})"
                how = self.choice(["mod", "div", "lin"])
                idx = {
                    "mod": f"{base} % {self.choice([W, 7, 16, 41])}",
                    "div": f"{base} / {self.choice([4, 16, 256])}",
                    "lin": f"{base} * 3 - 5",
                }[how]
            else:
                idx = f"({r}.x * 7 + 3) % {W}"
            ix = f"hl.clamp({idx}, 0, W - 1)"
            iy = (
                "y"
                if form == "rows"
                else (
                    f"hl.clamp({at[1]} + {self.integer(-3, 3)}, 0, H - 1)"
                    if src is None or self.flag()
                    else f"hl.clamp({base} / 8, 0, H - 1)"
                )
            )
            weight, wb = "1", 1
            wsrc = src if src is srcs[0] else srcs[0]  # always read the previous stage
            if wsrc is not src or self.flag():
                weight, wb = self.leaf(t, wsrc, *at)
                if t == "i32" and wb > (1 << 15):
                    weight, wb = f"hl.cast(hl.Int(32), hl.cast(hl.Int(8), {wsrc.at(*at)}))", 128
            self.alg.append(f'{name} = hl.Func("{name}")')
            self.alg.append(f"{name}[x, y] = hl.cast({_ty(t)}, 0)")
            self.alg.append(f"{name}[{ix}, {iy}] += {weight if weight != '1' else f'hl.cast({_ty(t)}, 1)'}")
            out_bound = _wrap_bound(t, wb * W * H)
            info.uses = sorted({s.code for s in (src, wsrc) if s is not None and not s.raw})
            if form == "rows":
                info.update_loops = [(f"{r}$x", f"{r}.x", True, W), ("y", "y", False, None)]
                info.pure_in_update = ("y",)
            else:
                info.update_loops = [(f"{r}$x", f"{r}.x", True, W), (f"{r}$y", f"{r}.y", True, H)]
            t = info.type

        self.funcs[name] = info
        self.order.append(name)
        return Source(name, t, out_bound)
