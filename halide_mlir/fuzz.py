"""Property-based schedule fuzzer (issue 6): a schedule must never change what a pipeline computes.

Hypothesis draws a random pipeline -- pointwise stages, stencils with random taps (negative offsets too; one
stencil may read at 2x / 3x, downsampling), chains
of 1-4 Funcs, reductions over RDoms (sums over small windows, minimum/maximum, histogram-like scatters with
clamped indices), u8/u16/i16/i32/f32 values with casts, inputs read raw or through
``hl.BoundaryConditions.repeat_edge / constant_exterior / mirror_image`` -- together with a random *legal* schedule
(split with random factors and tails, tile, reorder, vectorize of the innermost loop with widths 1-64, unroll by at
most 8, parallel, compute_root, compute_at any loop of the consumer including split vars and RVars, or a loop of
the consumer's own consumer around it (chains), store_at / store_root, inline, schedules of update stages). Each example is rendered as standalone Python source whose
``build(hl, schedule)`` takes the module, so the same program runs under real Halide (``import halide``) and under
halide_mlir. An example passes when

* halide_mlir's scheduled result equals its unscheduled result, and both equal real Halide's result with the same
  schedule (integers bit-exact, floats within rtol 1e-4 / atol 1e-5 x the output's largest magnitude);

it is *skipped* when real Halide rejects the program or schedule (unless ours accepts it and computes something
different from the unscheduled pipeline); it counts as *unsupported* when ours raises ``hl.HalideError`` on what
Halide accepts. Any other exception, any mismatch, and any crash (segfault, abort, hang) is a failure.

halide_mlir runs in a persistent worker process (multiprocessing 'spawn' + a pipe; restarted when it dies), so a
segfault is reported with its reproducer instead of killing the fuzzer. Real Halide runs in a second worker at
the same time (2 cores), so one of its own hangs or crashes (seen: an example it ran for minutes) costs one
timeout and is filed as a skip, not a stalled run.

    python -m halide_mlir.fuzz --examples 2000 --seed 1

prints progress, then ``N examples, M mismatches, K crashes`` (+ unsupported / skipped counts), then shrinks one
example of every distinct failure with Hypothesis and prints it as a standalone Python reproducer.
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import hashlib
import multiprocessing as mp
import os
import sys
import textwrap
import time
import traceback
import warnings

import numpy as np

W, H = 37, 23   # realize size: not a multiple of any vector width or tile
PAD = 100       # raw (no boundary condition) inputs are this much bigger on every side
RTOL, ATOL = 1e-4, 1e-5
TIMEOUT = 120.0  # seconds for one example in the worker before it counts as a hang

# ----------------------------------------------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------------------------
# Programs: drawn with Hypothesis, rendered as Python source
# ----------------------------------------------------------------------------------------------------------------

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
    kind: str                 # bc, point, sum, max, hist
    type: str
    uses: list                # names of the Funcs it reads
    update_loops: list = None  # [(name, code, is_rvar, extent)] innermost first, if it has an update
    update_uses_rvars: bool = False
    pure_in_update: tuple = ()  # pure Vars of the update's loop nest


@dataclasses.dataclass
class Program:
    inputs: list        # (name, numpy dtype, seed, raw)
    algorithm: list     # lines of build()
    schedule: list      # lines of build() under `if schedule:`
    output: str
    description: str    # one line: stage kinds and types

    def source(self) -> str:
        out = ["import numpy as np", "", f"W, H = {W}, {H}", ""]
        for name, dtype, seed, raw in self.inputs:
            shape = f"(H + {2 * PAD}, W + {2 * PAD})" if raw else "(H, W)"
            arr = name.upper()
            if np.dtype(dtype).kind == "f":
                out.append(f"{arr} = np.random.default_rng({seed}).uniform(-4, 4, {shape}).astype(np.{dtype})")
            else:
                info = np.iinfo(dtype)
                out.append(f"{arr} = np.random.default_rng({seed}).integers({info.min}, {info.max}, {shape}, "
                           f"endpoint=True).astype(np.{dtype})")
        out += ["", "", "def build(hl, schedule=True):"]
        body = ['x, y = hl.Var("x"), hl.Var("y")']
        body += self.algorithm
        if self.schedule:
            body.append("if schedule:")
            body += ["    " + l for l in self.schedule]
        body.append(f"return {self.output}")
        out += ["    " + l for l in body]
        return "\n".join(out) + "\n"


def _base(code: str) -> str:
    """A short name for new Vars split off the loop ``code`` (f1_xi -> xi, b0.args()[1] -> a1)."""
    if code.endswith("]"):
        return "a" + code[-2]
    return code.split("_")[-1]


def _off(v: str, d: int, stride: int = 1) -> str:
    v = v if stride == 1 else f"{stride} * {v}"
    return v if d == 0 else (f"{v} + {d}" if d > 0 else f"{v} - {-d}")


class _Gen:
    """Draws one program. Every choice goes through Hypothesis (simplest option first), so shrinking simplifies
    the program and the schedule."""

    def __init__(self, draw, st):
        self.draw = draw
        self.st = st
        self.alg: list[str] = []
        self.funcs: dict[str, FuncInfo] = {}
        self.order: list[str] = []
        self.kinds: list[str] = []
        self.strided = False      # one stage may read at 2x / 3x (downsampling); more would grow regions 2^k
        self.in_update = False

    def d(self, strategy, label=None):
        return self.draw(strategy, label) if label else self.draw(strategy)

    def integer(self, lo, hi):
        return self.d(self.st.integers(lo, hi))

    def choice(self, options):
        return self.d(self.st.sampled_from(options))

    def flag(self, p_true_hint=None):
        return self.d(self.st.booleans())

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
        op = self.choice(["leaf", "add", "sub", "mul", "min", "max", "select", "div", "mod", "abs", "sqrt"])
        if op == "leaf":
            return leaves()
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

    # --- stages ---------------------------------------------------------------------------------------------------
    def stage_type(self, srcs) -> str:
        t = self.choice(["i32", "u8", "u16", "i16", "f32"])
        if any(_is_float(s.type) for s in srcs):
            t = "f32"  # no float -> int casts: reordered float sums could then differ by one
        return t

    def stage(self, i: int, prev: list[Source], inputs: list[Source]) -> Source:
        name = f"f{i}"
        kind = self.choice(["point", "stencil", "sum", "max", "hist"])
        srcs = list(prev)
        if i > 0 and self.flag():
            srcs.append(self.choice(inputs))
        t = self.stage_type(srcs)
        uses = [s.code for s in srcs if not s.raw]
        info = FuncInfo(name, kind, t, uses)
        self.kinds.append(f"{name}:{kind}:{t}")

        if kind in ("point", "stencil"):
            ntaps = 1 if kind == "point" else self.integer(1, 4)
            taps = [(0, 0)] if kind == "point" else [
                (self.integer(-2, 2), self.integer(-2, 2)) for _ in range(ntaps)]
            sx = sy = 1
            if kind == "stencil" and not self.strided:   # downsampling: f[2 * x + dx, ...]
                sx, sy = self.choice([1, 2, 3]), self.choice([1, 1, 2])
                self.strided = sx > 1 or sy > 1

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
            self.alg.append(f"{name} = hl.Func(\"{name}\")")
            self.alg.append(f"{name}[x, y] = hl.cast({_ty(t)}, {code})")
            out_bound = _wrap_bound(t, bound)

        elif kind in ("sum", "max"):
            src = self.choice(srcs)
            dims = self.integer(1, 2)
            rng = [(self.integer(-2, 0), self.integer(1, 3)) for _ in range(dims)]
            r = f"r{i}"
            self.alg.append(f"{r} = hl.RDom([{', '.join(f'({m}, {e})' for m, e in rng)}], \"{r}\")")
            ix = f"x + {r}.x"
            iy = f"y + {r}.y" if dims == 2 else "y"
            term, tb = self.leaf(t, src, ix, iy)
            if self.flag():
                term, tb = self.expr(t, lambda: self.leaf(t, src, ix, iy), 1)
            size = 1
            for _, e in rng:
                size *= e
            form = self.choice(["inline", "update"])
            self.alg.append(f"{name} = hl.Func(\"{name}\")")
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

        else:  # hist: a scatter with clamped indices
            ints = [s for s in srcs if not _is_float(s.type)]
            src = ints[0] if ints else None  # srcs[0] is the previous stage (or an input)
            if t not in ("i32", "u16", "f32", "u8"):
                t = info.type = "i32"
            form = self.choice(["rows", "full"])
            r = f"r{i}"
            if form == "rows":
                self.alg.append(f"{r} = hl.RDom([(0, W)], \"{r}\")")
                at = (f"{r}.x", "y")
            else:
                self.alg.append(f"{r} = hl.RDom([(0, W), (0, H)], \"{r}\")")
                at = (f"{r}.x", f"{r}.y")
            if src is not None:
                base = f"hl.cast(hl.Int(32), {src.at(*at)})"
                how = self.choice(["mod", "div", "lin"])
                idx = {"mod": f"{base} % {self.choice([W, 7, 16, 41])}",
                       "div": f"{base} / {self.choice([4, 16, 256])}",
                       "lin": f"{base} * 3 - 5"}[how]
            else:
                idx = f"({r}.x * 7 + 3) % {W}"
            ix = f"hl.clamp({idx}, 0, W - 1)"
            iy = "y" if form == "rows" else (
                f"hl.clamp({at[1]} + {self.integer(-3, 3)}, 0, H - 1)" if src is None or self.flag()
                else f"hl.clamp({base} / 8, 0, H - 1)")
            weight, wb = "1", 1
            wsrc = src if src is srcs[0] else srcs[0]  # always read the previous stage
            if wsrc is not src or self.flag():
                weight, wb = self.leaf(t, wsrc, *at)
                if t == "i32" and wb > (1 << 15):
                    weight, wb = f"hl.cast(hl.Int(32), hl.cast(hl.Int(8), {wsrc.at(*at)}))", 128
            self.alg.append(f"{name} = hl.Func(\"{name}\")")
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

    # --- schedules ------------------------------------------------------------------------------------------------
    def factor(self):
        return self.choice([2, 4, 8, 3, 5, 16, 7, 1, 13, 32, 64, 10])

    def tail(self):
        options = [None, None, None, "GuardWithIf", "RoundUp", "ShiftInwards"]
        if self.in_update:  # Halide: ShiftInwards would change an update's meaning
            options = options[:-1]
        tail = self.choice(options)
        return "" if tail is None else f", hl.TailStrategy.{tail}"

    def stage_schedule(self, obj: str, fname: str, loops: list, pure: tuple, vars_: dict) -> list:
        """Loop directives for one stage. ``loops``: [(halide name, code, is_rvar, extent)] innermost first; it
        is updated in place to the stage's final loop nest. New Vars go to ``vars_`` (code -> name)."""
        lines = []
        self.in_update = obj.endswith(")")

        def new_var(base):
            code = f"{fname}_{base}"
            k = 2
            while code in vars_:
                code = f"{fname}_{base}{k}"
                k += 1
            vars_[code] = code
            return code

        def pos(code):
            return next(i for i, l in enumerate(loops) if l[1] == code)

        def split(code, factor, tl):
            o, i_ = new_var(_base(code) + "o"), new_var(_base(code) + "i")
            lines.append(f"{obj}.split({code}, {o}, {i_}, {factor}{tl})")
            p = pos(code)
            loops[p:p + 1] = [(i_, i_, False, factor), (o, o, False, None)]
            return o, i_

        purel = [l[1] for l in loops if not l[2] and l[1] in pure]
        how = self.choice(["none", "split", "tile", "split2"])
        if how == "split" and purel:
            split(self.choice(purel), self.factor(), self.tail())
        elif how == "tile" and len(purel) == 2:
            fx, fy, tl = self.factor(), self.factor(), self.tail()
            xo, yo, xi, yi = new_var("xo"), new_var("yo"), new_var("xi"), new_var("yi")
            lines.append(f"{obj}.tile({purel[0]}, {purel[1]}, {xo}, {yo}, {xi}, {yi}, {fx}, {fy}{tl})")
            # tile = split x, split y, reorder(xi, yi, xo, yo): rvars (if any) stay innermost
            rv = [l for l in loops if l[2]]
            rest = [l for l in loops if not l[2] and l[1] not in purel]
            loops[:] = rv + [(xi, xi, False, fx), (yi, yi, False, fy), (xo, xo, False, None),
                             (yo, yo, False, None)] + rest
        elif how == "split2" and purel:
            o, i_ = split(self.choice(purel), self.choice([16, 32, 12, 64]), self.tail())
            split(i_, self.choice([4, 2, 8, 3]), self.tail())

        if len(loops) > 1 and self.flag():  # reorder: any permutation that keeps the RVars' relative order
            pure_loops = [l for l in loops if not l[2]]
            if pure_loops:
                perm = self.d(self.st.permutations(list(range(len(loops)))))
                if [loops[k] for k in perm if loops[k][2]] == [l for l in loops if l[2]]:
                    new = [loops[k] for k in perm]
                    if new != loops:
                        lines.append(f"{obj}.reorder({', '.join(l[1] for l in new)})")
                        loops[:] = new

        vec = None
        if self.flag() and not loops[0][2]:  # vectorize the innermost loop
            code, ext = loops[0][1], loops[0][3]
            form = self.choice(["factor", "direct", "split"])
            if form == "direct" and ext is not None and ext <= 64:
                lines.append(f"{obj}.vectorize({code})")
                vec = code
            elif form == "split":
                w = self.choice([8, 4, 16, 2, 3, 5, 1, 32, 64, 7])
                v = new_var(_base(code) + "v")
                lines.append(f"{obj}.split({code}, {code}, {v}, {w}{self.tail()})")
                lines.append(f"{obj}.vectorize({v})")
                loops.insert(0, (v, v, False, w))
                vec = v
            else:
                w = self.choice([8, 4, 16, 2, 3, 5, 1, 32, 64, 7])
                lines.append(f"{obj}.vectorize({code}, {w}{self.tail()})")
                vec = code + "_vectorized"
                loops.insert(0, (vec, None, False, w))

        if self.flag():  # unroll a loop that is not vectorized
            cands = [l for l in loops if l[1] is not None and l[1] != vec and l[0] != vec]
            if cands:
                l = self.choice(cands)
                if l[3] is not None and l[3] <= 8 and self.flag():
                    lines.append(f"{obj}.unroll({l[1]})")
                else:
                    k = self.choice([2, 4, 3, 8, 5])
                    lines.append(f"{obj}.unroll({l[1]}, {k}{self.tail() if not l[2] else ''})")
                    if l[2]:
                        pass  # a split RVar: its loops are not offered to compute_at
                    else:
                        p = loops.index(l)
                        loops.insert(p, (l[1] + "_unrolled", None, False, k))

        if self.flag():  # parallel over a pure loop, outermost by preference
            cands = [l for l in reversed(loops) if not l[2] and l[1] is not None and l[1] != vec]
            if cands:
                l = cands[0] if self.flag() else self.choice(cands)
                if self.flag():
                    lines.append(f"{obj}.parallel({l[1]})")
                else:
                    k = self.choice([4, 2, 8, 3])
                    lines.append(f"{obj}.parallel({l[1]}, {k}{self.tail()})")
                    loops.insert(loops.index(l), (l[1] + "_task", None, False, k))
        return lines

    def schedules(self, output: str) -> list:
        """Draw compute levels and loop schedules, consumers before their producers."""
        lines = []
        vars_ = {}
        level = {}      # func -> inline/root/at
        loops_of = {}   # func -> list of (halide name, code) it offers to compute_at
        at_of = {}      # func -> (consumer, index in loops_of[consumer]) of its compute_at pure loop
        users = collections.defaultdict(list)
        for f in self.order:
            for u in self.funcs[f].uses:
                users[u].append(f)

        def consumers(f):
            out = []
            for u in users[f]:
                if level.get(u) == "inline":
                    out += consumers(u)
                else:
                    out.append(u)
            return sorted(set(out))

        body = []
        for f in reversed(self.order):
            info = self.funcs[f]
            if f == output:
                level[f] = "root"
            else:
                cons = consumers(f)
                opts = ["inline", "root", "at"]
                if len(cons) != 1:
                    opts = ["inline", "root"]
                lv = self.choice(opts)
                level[f] = lv
                if lv == "root":
                    body.append(f"{f}.compute_root()")
                elif lv == "at":
                    c = cons[0]
                    ks = list(range(len(loops_of[c]) + 1))
                    if c in at_of and self.flag():
                        # a chain: at a loop of the consumer's own consumer, at or outside the consumer's
                        c, inner = at_of[c]
                        ks = [k for k in range(inner, len(loops_of[c])) if loops_of[c][k][0] == 0]
                        ks.append(len(loops_of[c]))
                    cl = loops_of[c]
                    k = self.choice(ks)
                    if k == len(cl):
                        body.append(f"{f}.compute_at({c}, hl.Var.outermost())")
                        where = None
                    else:
                        stage, name, code = cl[k]
                        body.append(f"{f}.compute_at({c}, {code})")
                        where = k
                        if stage == 0:
                            at_of[f] = (c, k)
                    if self.flag():  # store it further out
                        if where is None or self.flag():
                            body.append(f"{f}.store_root()")
                        else:
                            stage = cl[where][0]
                            outer = [e for e in cl[where:] if e[0] == stage]
                            body.append(f"{f}.store_at({c}, {self.choice(outer)[2]})")
                elif info.kind != "bc" and self.d(self.st.integers(0, 3)) == 3:
                    body.append(f"{f}.compute_inline()")
            if level[f] == "inline":
                continue
            offered = []
            if info.kind == "bc":  # BoundaryConditions Funcs are defined over implicit Vars _0, _1
                a0, a1 = f"{f}.args()[0]", f"{f}.args()[1]"
                loops = [("_0", a0, False, None), ("_1", a1, False, None)]
                pure = (a0, a1)
            else:
                loops = [("x", "x", False, None), ("y", "y", False, None)]
                pure = ("x", "y")
            if self.flag() or f == output:
                body += [l for l in self.stage_schedule(f, f, loops, pure, vars_) if l]
            offered += [(0, l[0], l[1]) for l in loops if l[1] is not None]
            if info.update_loops:
                ul = list(info.update_loops)
                if self.flag():
                    body += [l for l in self.stage_schedule(f"{f}.update(0)", f + "u", ul, info.pure_in_update,
                                                            vars_) if l]
                offered += [(1, l[0], l[1]) for l in ul if l[1] is not None]
            loops_of[f] = offered
        decl = [f'{v} = hl.Var("{v}")' for v in vars_]
        return decl + body


def draw_program(draw) -> Program:
    import hypothesis.strategies as st
    g = _Gen(draw, st)
    inputs = g.inputs()
    n = g.integer(1, 4)
    prev = [g.choice(inputs)] if len(inputs) == 1 or not g.flag() else list(inputs)
    src = None
    for i in range(n):
        src = g.stage(i, prev, inputs)
        prev = [src]
    out = f"f{n - 1}"
    sched = g.schedules(out)
    return Program(g.inputs_spec, g.alg, sched, out, " ".join(g.kinds))


def programs():
    """The Hypothesis strategy of programs."""
    import hypothesis.strategies as st
    return st.composite(lambda draw: draw_program(draw))()


# ----------------------------------------------------------------------------------------------------------------
# Running one example
# ----------------------------------------------------------------------------------------------------------------

def _load(source: str):
    ns = {"__name__": "fuzz_case"}
    exec(compile(source, "<fuzz case>", "exec"), ns)
    return ns


def _run_one(hl, ns, schedule: bool):
    """('ok', array) or ('error', type name, message, is_halide_error)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if hasattr(hl, "AutoVectorizeWarning"):  # ours fell back to scalar code: a bug to report
                warnings.simplefilter("error", hl.AutoVectorizeWarning)
            f = ns["build"](hl, schedule)
            out = f.realize([W, H])
            return ("ok", np.array(np.asarray(out), copy=True))
    except Exception as e:  # noqa: BLE001 -- classified by the caller
        is_hl = isinstance(e, getattr(hl, "HalideError", ()))
        msg = str(e) if is_hl else "".join(traceback.format_exception(type(e), e, e.__traceback__)[-6:])
        return ("error", type(e).__name__, msg, is_hl)


def _serve(conn, handle) -> None:
    """A worker's loop: each message in gets ``handle(message)`` back; None or a closed pipe ends it."""
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        conn.send(handle(msg))


def _worker_main(conn):
    """halide_mlir's worker: a source in, (unscheduled, scheduled) results out."""
    import halide_mlir as hl

    def handle(source):
        try:
            ns = _load(source)
            return _run_one(hl, ns, False), _run_one(hl, ns, True)
        except Exception as e:  # noqa: BLE001
            return (("error", type(e).__name__, str(e), False),) * 2
    _serve(conn, handle)


def _reference_main(conn, quiet: bool):
    """Real Halide's worker: (source, schedule) in, its result out. ``quiet``: its warnings (printed to
    sys.stdout by the bindings, and to fd 2 by the C++ side) go nowhere."""
    if quiet:
        import io
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        sys.stdout = sys.stderr = io.StringIO()

    def handle(msg):
        res = run_reference(*msg)
        if quiet:
            sys.stdout.seek(0)
            sys.stdout.truncate()
        return res
    _serve(conn, handle)


class Worker:
    """A persistent process running ``main`` (halide_mlir's by default). ``submit`` then ``result``; a dead or
    hung worker is restarted."""

    def __init__(self, recycle: int = 300, main=_worker_main, args: tuple = ()):
        self.main, self.args = main, args
        self.ctx = mp.get_context("spawn")
        self.proc = None
        self.conn = None
        self.jobs = 0
        self.recycle = recycle

    def _start(self):
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        pp = os.environ.get("PYTHONPATH", "")
        if here not in pp.split(os.pathsep):
            os.environ["PYTHONPATH"] = here + (os.pathsep + pp if pp else "")
        # every example is a new pipeline: don't fill the on-disk compile cache with them (and always compile)
        os.environ.setdefault("HALIDE_MLIR_CACHE", "0")
        parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=self.main, args=(child, *self.args), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent
        self.jobs = 0

    def stop(self):
        if self.proc is not None:
            try:
                self.conn.send(None)
            except (OSError, AttributeError):
                pass
            self.proc.join(5)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
        self.proc = None

    def submit(self, source: str):
        if self.proc is None or not self.proc.is_alive() or self.jobs >= self.recycle:
            self.stop()
            self._start()
        self.jobs += 1
        self.conn.send(source)

    def result(self, timeout: float = TIMEOUT):
        """The worker's answer, or ('crash', description) if it died or hung."""
        try:
            if self.conn.poll(timeout):
                return self.conn.recv()
            why = f"hang: no answer within {timeout:.0f} s"
            self.proc.kill()
        except (EOFError, OSError):
            why = None
        self.proc.join()
        code = self.proc.exitcode
        if why is None:
            why = f"worker died with exit code {code}" + (
                f" (signal {-code})" if code is not None and code < 0 else "")
        self.proc = None
        return ("crash", why)


_worker = None
_reference_worker = None


def worker() -> Worker:
    global _worker
    if _worker is None:
        _worker = Worker()
        import atexit
        atexit.register(_worker.stop)
    return _worker


def reference_worker() -> Worker:
    global _reference_worker
    if _reference_worker is None:
        _reference_worker = Worker(main=_reference_main, args=(QUIET_REFERENCE,))
        import atexit
        atexit.register(_reference_worker.stop)
    return _reference_worker


@dataclasses.dataclass
class Outcome:
    status: str     # pass, skip, unsupported, mismatch, crash, error
    detail: str = ""
    signature: str = ""

    @property
    def failed(self) -> bool:
        return self.status in ("mismatch", "crash", "error")


def compare(ref: np.ndarray, got: np.ndarray):
    """None if equal under the fuzzer's rules, else a description of the difference."""
    if ref.shape != got.shape:
        return f"shape {got.shape} != {ref.shape}"
    if ref.dtype != got.dtype:
        return f"dtype {got.dtype} != {ref.dtype}"
    if ref.dtype.kind == "f":
        # Sums of large terms that cancel differ by rounding at the scale of the terms, not of the result
        # (Halide's simplifier orders float arithmetic differently): scale atol by the output's magnitude.
        finite = np.abs(ref[np.isfinite(ref)])
        atol = max(ATOL, ATOL * float(finite.max())) if finite.size else ATOL
        bad = ~np.isclose(got, ref, rtol=RTOL, atol=atol, equal_nan=True)
    else:
        bad = got != ref
    if not bad.any():
        return None
    idx = np.argwhere(bad)
    first = tuple(int(i) for i in idx[0])
    return (f"{len(idx)} of {ref.size} values differ; first at [y, x] = {list(first)}: "
            f"expected {ref[first]!r}, got {got[first]!r}")


def run_reference(source: str, schedule: bool = True):
    import halide
    try:
        ns = _load(source)
    except Exception as e:  # noqa: BLE001
        return ("error", type(e).__name__, str(e), False)
    return _run_one(halide, ns, schedule)


QUIET_REFERENCE = False  # the CLI silences real Halide's warnings


def _reference(source: str, schedule: bool = True):
    """Real Halide's result in its worker; a hang or a crash of Halide itself comes back as an error."""
    rw = reference_worker()
    rw.submit((source, schedule))
    res = rw.result()
    if res[0] == "crash":
        return ("error", "crash", f"real Halide did not finish ({res[1]})", False)
    return res


# HalideErrors that wrap an MLIR failure (codegen produced something MLIR could not schedule/lower): counted as
# unsupported like deliberate refusals, but listed separately -- they are halide_mlir bugs or gaps.
INTERNAL = ("MLIR rejected", "applying the schedule failed", "bufferization failed", "lowering to LLVM failed",
            "JIT compilation failed")


def _diagnostic_key(msg: str) -> str:
    """The first MLIR diagnostic of an internal failure, without numbers: tells distinct failures apart."""
    import re
    for line in msg.splitlines():
        m = re.search(r'(?:error|Diagnostic message at [^:]*):(?:\s*"[^"]*":\d+:\d+:)?\s*(.*)', line)
        if m and m.group(1).strip():
            return re.sub(r"\d+", "#", m.group(1).strip())[:70]
    return _first_line(msg)[:70]


def check(source: str, w: Worker | None = None) -> Outcome:
    """Run one example (ours and real Halide in their workers, concurrently) and classify it."""
    w = w or worker()
    w.submit(source)
    rw = reference_worker()
    rw.submit((source, True))
    res = w.result()
    ref = rw.result()
    if ref[0] == "crash":
        ref = ("error", "crash", f"real Halide did not finish ({ref[1]})", False)
    if res[0] == "crash":
        return Outcome("crash", res[1], "crash")
    unsched, sched = res
    if ref[0] == "error":  # Halide rejects the program or the schedule
        if sched[0] == "ok" and unsched[0] == "ok":
            diff = compare(unsched[1], sched[1])
            if diff:
                return Outcome("mismatch", f"real Halide rejects this ({ref[1]}: {ref[2].strip()[:300]}); ours "
                                           f"accepts it and the scheduled result differs from the unscheduled "
                                           f"one: {diff}", "mismatch:rejected-schedule")
        for r in (sched, unsched):
            if r[0] == "error" and not r[3]:
                return Outcome("error", f"ours raised {r[1]} (real Halide also rejected it: {ref[1]})\n{r[2]}",
                               f"error:{r[1]}")
        return Outcome("skip", f"real Halide: {ref[1]}: {ref[2].strip().splitlines()[0][:200] if ref[2].strip() else ''}")
    expected = ref[1]
    for what, r in (("unscheduled", unsched), ("scheduled", sched)):
        if r[0] == "error" and not r[3]:
            return Outcome("error", f"ours ({what}) raised {r[1]}:\n{r[2]}", f"error:{r[1]}")
    for what, r in (("unscheduled", unsched), ("scheduled", sched)):
        if r[0] == "error":
            internal = r[2].startswith(INTERNAL)
            return Outcome("unsupported", f"ours ({what}): {r[2].strip()}",
                           f"unsupported:internal:{_diagnostic_key(r[2])}" if internal else "unsupported:refused")
    for what, r in (("unscheduled", unsched), ("scheduled", sched)):
        diff = compare(expected, r[1])
        if diff:
            # Halide can disagree with itself: when its unscheduled pipeline gives exactly our (scheduled and
            # unscheduled) values, the schedule changed Halide's result, not ours
            plain = _reference(source, schedule=False)
            if plain[0] == "ok" and not compare(plain[1], unsched[1]) and not compare(plain[1], sched[1]):
                return Outcome("skip", f"real Halide's scheduled result differs from its own unscheduled one, "
                                       f"which ours equals ({diff})")
            return Outcome("mismatch", f"ours ({what}) vs real Halide: {diff}", f"mismatch:{what}")
    return Outcome("pass")


def reproducer(source: str, outcome: Outcome | None = None) -> str:
    """The example as a standalone script: runs real Halide and halide_mlir and prints both."""
    head = ""
    if outcome is not None:
        head = "".join(f"# {l}\n" for l in f"{outcome.status}: {outcome.detail}".splitlines()[:12])
    tail = textwrap.dedent(f"""

        if __name__ == "__main__":
            import halide
            import halide_mlir
            expected = np.asarray(build(halide).realize([W, H]))
            got = np.asarray(build(halide_mlir).realize([W, H]))
            unscheduled = np.asarray(build(halide_mlir, schedule=False).realize([W, H]))
            for name, a in (("halide", expected), ("ours", got), ("ours unscheduled", unscheduled)):
                print(name, a.dtype, a.shape)
                print(a[:4, :8])
            close = np.allclose if expected.dtype.kind == "f" else np.array_equal
            kw = dict(rtol={RTOL}, atol={ATOL}) if expected.dtype.kind == "f" else {{}}
            print("ours == halide:", close(got, expected, **kw), "  unscheduled == halide:",
                  close(unscheduled, expected, **kw))
        """)
    return head + source + tail


# ----------------------------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------------------------

def _hypothesis_settings(n: int, phases):
    from hypothesis import HealthCheck, settings
    return settings(max_examples=n, deadline=None, database=None, phases=phases, derandomize=False,
                    suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False)


def _digest(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


def reduce_schedule(source: str, signature: str, w: Worker | None = None) -> tuple[str, Outcome]:
    """Greedy clean-up after Hypothesis' shrinking: drop schedule lines (and then unused Var declarations) one
    at a time while the example still fails with the same signature."""
    lines = source.split("\n")
    start = lines.index("    if schedule:") + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("        "))
    best = check(source, w)
    changed = True
    while changed:
        changed = False
        for i in range(end - 1, start - 1, -1):
            cand = lines[:i] + lines[i + 1:]
            if end - 1 == start:  # keep the block non-empty
                cand = lines[:i] + ["        pass"] + lines[i + 1:]
            o = check("\n".join(cand), w)
            if o.signature == signature:
                lines, best, changed = cand, o, True
                end = next(j for j in range(start, len(lines)) if not lines[j].startswith("        "))
    return "\n".join(lines), best


class FuzzFailure(Exception):
    def __init__(self, source, outcome):
        super().__init__(f"{outcome.status}: {outcome.detail}")
        self.source = source
        self.outcome = outcome


def _first_line(s: str) -> str:
    s = s.strip()
    return s.splitlines()[0][:160] if s else ""


def run(examples: int, seed: int, shrink: int = 3, out_dir: str | None = None, verbose: bool = False,
        stream=sys.stdout, shrink_internal: bool = False) -> dict:
    from hypothesis import Phase, given, seed as hseed

    counts = collections.Counter()
    unsupported = collections.Counter()
    skipped = collections.Counter()
    failures = []           # (index, source, outcome)
    passing = set()         # digests of examples that did not fail (skipped when replaying for shrinking)
    kinds = collections.Counter()
    sched_ops = collections.Counter()
    start = time.time()
    w = worker()
    state = {"i": 0}

    def account(source, prog):
        for k in prog.description.split():
            kinds[k.split(":")[1]] += 1
        for l in prog.schedule:
            for op in ("compute_root", "compute_at", "store_at", "store_root", "compute_inline", "split", "tile",
                       "reorder", "vectorize", "unroll", "parallel", "update(0)", "TailStrategy", "outermost"):
                if op in l:
                    sched_ops[op] += 1

    @hseed(seed)
    @_hypothesis_settings(examples, [Phase.generate])
    @given(programs())
    def count(prog):
        source = prog.source()
        i = state["i"] = state["i"] + 1
        account(source, prog)
        o = check(source, w)
        counts[o.status] += 1
        if o.status == "unsupported":
            internal = o.signature.startswith("unsupported:internal")
            counts["internal"] += internal
            msg = o.detail.split(": ", 1)[-1]
            if internal:  # the MLIR diagnostic is the interesting part
                msg = " | ".join(l.strip() for l in msg.splitlines()[:4] if l.strip())
            import re  # group messages that differ only in names, numbers and source lines
            key = re.sub(r"\(at <fuzz case>:\d+\)|<fuzz case>\S*|\d+", "#", _first_line(msg))
            key = re.sub(r"'(f\d|constant_exterior_in|repeat_edge_in|mirror_image_in)[^']*'", r"'\1..'", key)
            key = re.sub(r"(f\d|r\d)[\w$.]*", r"\1..", key)
            unsupported[("[MLIR failure] " if internal else "") + key] += 1
            if out_dir:
                os.makedirs(out_dir, exist_ok=True)
                with open(os.path.join(out_dir, f"unsupported_{i:05d}{'_internal' if internal else ''}.py"),
                          "w") as fh:
                    fh.write(reproducer(source, o))
        elif o.status == "skip":
            skipped[_first_line(o.detail)] += 1
        if o.failed or (shrink_internal and o.signature.startswith("unsupported:internal")):
            failures.append((i, source, o))
        if o.failed:
            print(f"[{i}] {o.status.upper()}: {_first_line(o.detail)}", file=stream, flush=True)
            if verbose:
                print(reproducer(source, o), file=stream, flush=True)
            if out_dir:
                os.makedirs(out_dir, exist_ok=True)
                with open(os.path.join(out_dir, f"case_{i:05d}_{o.status}.py"), "w") as fh:
                    fh.write(reproducer(source, o))
        if not o.failed and not o.signature.startswith("unsupported:internal"):
            passing.add(_digest(source))
        if i % 25 == 0:
            el = time.time() - start
            print(f"[{i}/{examples}] {el:.0f}s ({i / el:.2f}/s) pass={counts['pass']} "
                  f"mismatch={counts['mismatch']} crash={counts['crash']} error={counts['error']} "
                  f"unsupported={counts['unsupported']} skip={counts['skip']}", file=stream, flush=True)

    count()
    n = state["i"]
    elapsed = time.time() - start
    mism, crashes, errors = counts["mismatch"], counts["crash"], counts["error"]
    print(f"\nstage kinds drawn: {dict(kinds)}", file=stream)
    print(f"schedule calls drawn: {dict(sched_ops)}", file=stream)
    print(f"\nunsupported by halide_mlir ({counts['unsupported']}, of which {counts['internal']} MLIR failures):",
          file=stream)
    for m, c in unsupported.most_common(25):
        print(f"  {c:5d}  {m}", file=stream)
    print(f"skipped, real Halide rejected ({counts['skip']}):", file=stream)
    for m, c in skipped.most_common(10):
        print(f"  {c:5d}  {m}", file=stream)
    print(f"\n{n} examples in {elapsed:.0f} s: {counts['pass']} passed, {counts['unsupported']} unsupported, "
          f"{counts['skip']} skipped (Halide rejected), {errors} errors", file=stream)
    print(f"{n} examples, {mism} mismatches, {crashes} crashes ({counts['unsupported']} unsupported, "
          f"{errors} other exceptions)", file=stream, flush=True)

    # Shrink one example of every distinct failure signature: replay the same seeded generation (examples
    # known to pass are not run again), raise on the first example with that signature, let Hypothesis shrink.
    minimized = []
    sigs = []
    for i, source, o in failures:
        if o.signature not in [s for s, _ in sigs]:
            sigs.append((o.signature, i))
    for sig, first in sigs[:shrink]:
        print(f"\nshrinking '{sig}' (first seen at example {first}) ...", file=stream, flush=True)
        t0 = time.time()

        def make_replay(sig):
            @hseed(seed)
            @_hypothesis_settings(examples, [Phase.generate, Phase.shrink])
            @given(programs())
            def replay(prog):
                source = prog.source()
                if _digest(source) in passing:
                    return
                o = check(source, w)
                if o.signature == sig:
                    raise FuzzFailure(source, o)
            return replay

        replay = make_replay(sig)

        try:
            replay()
        except FuzzFailure as e:
            small, o = reduce_schedule(e.source, sig, w)
            rep = reproducer(small, o)
            minimized.append((sig, rep))
            print(f"minimal reproducer ({time.time() - t0:.0f} s):\n{'-' * 78}\n{rep}{'-' * 78}", file=stream,
                  flush=True)
            if out_dir:
                with open(os.path.join(out_dir, f"min_{len(minimized)}_{sig.split(':')[0]}.py"), "w") as fh:
                    fh.write(rep)
        else:
            print("  (not reproduced on replay)", file=stream)
    if failures:
        print(f"\n{n} examples, {mism} mismatches, {crashes} crashes ({counts['unsupported']} unsupported, "
              f"{errors} other exceptions)", file=stream, flush=True)
    return {"examples": n, "mismatches": mism, "crashes": crashes, "errors": errors,
            "unsupported": counts["unsupported"], "skipped": counts["skip"], "passed": counts["pass"],
            "failures": failures, "minimized": minimized}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m halide_mlir.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shrink", type=int, default=3, help="shrink this many distinct failures (default 3)")
    ap.add_argument("--out", default=None, help="write every failing example (and minimized ones) here")
    ap.add_argument("--verbose", action="store_true", help="print the full source of every failure")
    ap.add_argument("--shrink-internal", action="store_true",
                    help="also shrink HalideErrors that wrap an MLIR failure (counted as unsupported)")
    ap.add_argument("--show", type=int, default=None, help="print the program drawn as example N and exit")
    args = ap.parse_args(argv)
    if args.show is not None:
        from hypothesis import Phase, given, seed as hseed
        seen = []

        @hseed(args.seed)
        @_hypothesis_settings(args.show, [Phase.generate])
        @given(programs())
        def show(prog):
            seen.append(prog.source())
        show()
        print(seen[-1])
        return 0
    global QUIET_REFERENCE
    QUIET_REFERENCE = True
    r = run(args.examples, args.seed, args.shrink, args.out, args.verbose, shrink_internal=args.shrink_internal)
    worker().stop()
    reference_worker().stop()
    return 1 if (r["mismatches"] or r["crashes"] or r["errors"]) else 0


if __name__ == "__main__":
    sys.exit(main())
