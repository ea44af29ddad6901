"""Scalar Halide Exprs → arith/math ops inside a linalg.generic region, with Halide's semantics.

Integer division and modulo are Euclidean and x/0 == x%0 == 0, as in Halide; the divisor is made safe
before dividing so the JIT never traps (x86 idiv faults on 0 and on INT_MIN / -1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import math

import numpy as np

from ..error import InternalError
from ..lang.debugging import per_occurrence
from ..lang.traversal import Structures
from ..lang.types import Bool, Int, Type
from .mlir_text import constant_literal

if TYPE_CHECKING:  # annotations only
    from collections.abc import Callable

    from ..lang.expr import Expr

_CMP_SIGNED = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}
_CMP_UNSIGNED = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "eq": "eq", "ne": "ne"}
_CMP_FLOAT = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}
_MATH = {
    "sqrt": "sqrt",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "exp": "exp",
    "log": "log",
    "floor": "floor",
    "ceil": "ceil",
    "round": "roundeven",
    "trunc": "trunc",
}


_BIT_COUNT = ("popcount", "clz", "ctz")


class BodyEmitter:
    """Emits one region's ops. ``leaf(e)`` resolves Vars, Params and calls (the caller knows operands)."""

    def __init__(
        self, lines: list[str], fresh: Callable[[str], str], loc: str, leaf: Callable[[Expr], str | None]
    ) -> None:
        self.lines, self.fresh, self.loc, self.leaf = lines, fresh, loc, leaf
        self.memo: dict = {}
        # Inlining copies a Func's definition into every call site, so a chain of inline Funcs that each read the
        # previous one several times is a tree exponentially larger than its program (fuzz seed 3030: 163k lines of
        # payload, a transform interpreter that never ended); emitting each distinct subtree once is Halide's CSE.
        # A print (a side effect) and a traced load (an event per call, as Halide's) stay themselves. Shared with
        # nested emitters (the numbers mean the same there).
        self.structures = Structures(per_occurrence)
        self.consts: dict = {}
        self.trace_lanes = 1  # the lanes of a traced vector event (analysis/tracing.py)
        self.strict = False  # inside hl.strict_float

    def op(self, text: str, prefix: str = "v") -> str:
        name = self.fresh(prefix)
        self.lines.append(f"{name} = {text} {self.loc}")
        return name

    def index_sum(self, terms: list) -> str | None:
        """``sum(iv * stride)`` as an i32 over ``terms`` [(index value, stride)]: a coordinate from its loops'
        induction variables (None for no terms)."""
        v = None
        for iv, st in terms:
            t = self.op(f"arith.index_cast {iv} : index to i32", "x")
            if st != 1:
                t = self.op(f"arith.muli {t}, {self.const(st, Int(32))} : i32", "x")
            v = t if v is None else self.op(f"arith.addi {v}, {t} : i32", "x")
        return v

    def const(self, value: int | float | bool, t: Type) -> str:
        key = (constant_literal(value, t), t.mlir)
        if key not in self.consts:
            typed = key[0] if t.is_bool() else f"{key[0]} : {t.mlir}"  # `true`/`false` are i1 already
            self.consts[key] = self.op(f"arith.constant {typed}", "c")
        return self.consts[key]

    def bit_count(self, kind: str, a: str, t: Type) -> str:
        """popcount / count_leading_zeros / count_trailing_zeros in plain arith ops (bit-parallel sums; clz
        smears the leading one down, ctz isolates the lowest one). Not math.ctpop/ctlz/cttz: MLIR 22's
        MathToLLVM cannot lower them on the 2-D vectors the vectorizer makes (vector<1x16xi16>), and LLVM
        turns these sequences into vpopcnt/lzcnt where the CPU has them."""
        w, ty = t.bits(), t.mlir

        def c(v: int) -> str:
            v &= (1 << w) - 1
            return self.const(v - (1 << w) if t.is_int() and v >> (w - 1) else v, t)

        def bin_(op: str, x: str, y: str) -> str:
            return self.op(f"arith.{op} {x}, {y} : {ty}")

        ones = c(-1)
        if kind == "clz":
            for s in (1, 2, 4, 8, 16, 32):
                if s < w:
                    a = bin_("ori", a, bin_("shrui", a, c(s)))
            a = bin_("xori", a, ones)
        elif kind == "ctz":
            lowest = bin_("andi", a, bin_("subi", c(0), a))
            a = bin_("addi", lowest, ones)  # the bits below the lowest one (all ones for 0)
        pattern = sum(1 << i for i in range(0, w, 2))  # 0x55..
        a = bin_("subi", a, bin_("andi", bin_("shrui", a, c(1)), c(pattern)))
        pattern = sum(3 << i for i in range(0, w, 4))  # 0x33..
        a = bin_("addi", bin_("andi", a, c(pattern)), bin_("andi", bin_("shrui", a, c(2)), c(pattern)))
        a = bin_("andi", bin_("addi", a, bin_("shrui", a, c(4))), c(sum(15 << i for i in range(0, w, 8))))
        if w > 8:  # the bytes' counts summed into the top byte
            a = bin_("shrui", bin_("muli", a, c(sum(1 << i for i in range(0, w, 8)))), c(w - 8))
        return a

    def nested(self) -> "BodyEmitter":
        """An emitter for a region inside this one (an ``scf.if``): it sees the values emitted so far, and what it
        emits (constants too) stays inside."""
        inner = BodyEmitter(self.lines, self.fresh, self.loc, self.leaf)
        inner.memo = dict(self.memo)
        inner.structures = self.structures
        inner.trace_lanes = self.trace_lanes
        inner.strict = self.strict
        return inner

    def emit(self, e: Expr) -> str:
        key = self.structures.of(e)
        key = (key, True) if self.strict else key  # (a subtree shared with a strict_float one: emitted twice)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._emit(e)
        return hit

    def _emit(self, e) -> str:
        k, t = e.kind, e.type
        if k == "const":
            return self.const(e.value, t)
        if k in ("var", "rvar", "param", "call"):
            return self.leaf(e)
        if k == "print":  # hl.print / hl.print_when (codegen/trace.py)
            from .trace import emit_print

            return emit_print(self, e)
        if k == "cast":
            return self.cast(self.emit(e.args[0]), e.args[0].type, t)
        if k == "select":
            c, a, b = (self.emit(x) for x in e.args)
            return self.op(f"arith.select {c}, {a}, {b} : {t.mlir}")
        if k in _MATH:
            return self.op(f"math.{_MATH[k]} {self.emit(e.args[0])} : {t.mlir}")
        if k == "abs":
            src = e.args[0].type
            if src.is_float():
                return self.op(f"math.absf {self.emit(e.args[0])} : {src.mlir}")
            return self.iabs(self.emit(e.args[0]), src)
        if k in ("is_nan", "is_inf", "is_finite"):
            a, src = self.emit(e.args[0]), e.args[0].type
            if k == "is_nan":
                return self.op(f"arith.cmpf uno, {a}, {a} : {src.mlir}")
            mag = self.op(f"math.absf {a} : {src.mlir}")
            pred = "oeq" if k == "is_inf" else "olt"  # olt is false for NaN too
            return self.op(f"arith.cmpf {pred}, {mag}, {self.const(math.inf, src)} : {src.mlir}")
        if k in _BIT_COUNT:  # hl.popcount / count_leading_zeros / count_trailing_zeros (lang/intrinsics.py)
            return self.bit_count(k, self.emit(e.args[0]), t)
        if k == "strict_float":  # hl.strict_float: the subtree without FMA contraction or reciprocals
            outer, self.strict = self.strict, True
            try:
                return self.emit(e.args[0])
            finally:
                self.strict = outer
        if k == "reinterpret":
            return self.op(f"arith.bitcast {self.emit(e.args[0])} : {e.args[0].type.mlir} to {t.mlir}")
        if k in ("div_rtz", "mod_rtz"):
            return self.round_to_zero(k, self.emit(e.args[0]), self.emit(e.args[1]), t)
        if k == "not":
            a = self.emit(e.args[0])
            ones = self.const(True, t) if t.is_bool() else self.const(-1, t)
            return self.op(f"arith.xori {a}, {ones} : {t.mlir}")
        a, b = self.emit(e.args[0]), self.emit(e.args[1])
        at = e.args[0].type
        if k in _CMP_FLOAT:
            if at.is_float():
                return self.op(f"arith.cmpf {_CMP_FLOAT[k]}, {a}, {b} : {at.mlir}")
            pred = (_CMP_SIGNED if at.is_signed() else _CMP_UNSIGNED)[k]
            return self.op(f"arith.cmpi {pred}, {a}, {b} : {at.mlir}")
        if k == "pow":
            return self.op(f"math.powf {a}, {b} : {t.mlir}")
        if k == "atan2":
            return self.op(f"math.atan2 {a}, {b} : {t.mlir}")
        if k == "div":
            return self.div(e, a, b, t)
        if k == "mod":
            return self.mod(e, a, b, t)
        if (
            k in ("shl", "shr")
            and e.args[1].type.is_signed()
            and not (e.args[1].kind == "const" and e.args[1].value >= 0)
        ):
            return self.signed_shift(k, a, b, t)
        if k in ("min", "max") and t.is_float():
            # Halide's Min / Max of floats (CodeGen_LLVM): select(a < b, a, b) / select(a > b, a, b), one minps /
            # maxps on x86, where arith.minnumf / maxnumf (the non-NaN operand) add a NaN test and a blend per op
            # (max_filter's 53-tap maximum: 1.5x). With a NaN, Halide's own result depends on how LLVM commutes
            # the operands: no promise either way
            c = self.op(f"arith.cmpf {'olt' if k == 'min' else 'ogt'}, {a}, {b} : {t.mlir}")
            return self.op(f"arith.select {c}, {a}, {b} : {t.mlir}")
        simple = {
            "add": ("addf", "addi", "addi"),
            "sub": ("subf", "subi", "subi"),
            "mul": ("mulf", "muli", "muli"),
            "min": (None, "minsi", "minui"),
            "max": (None, "maxsi", "maxui"),
            "land": (None, "andi", "andi"),
            "lor": (None, "ori", "ori"),
            "and": (None, "andi", "andi"),
            "or": (None, "ori", "ori"),
            "xor": (None, "xori", "xori"),
            "shl": (None, "shli", "shli"),
            "shr": (None, "shrsi", "shrui"),
        }.get(k)
        if simple is None:
            raise InternalError(f"no lowering for Expr kind '{k}'", stage="payload")
        name = simple[0] if t.is_float() else simple[1] if t.is_signed() else simple[2]
        # like Halide, let LLVM fuse a * b + c into one FMA (contract only: no reassociation)
        flags = " fastmath<contract>" if name in ("addf", "subf", "mulf") and not self.strict else ""
        return self.op(f"arith.{name} {a}, {b}{flags} : {t.mlir}")

    def iabs(self, a: str, t: Type) -> str:
        """|a| as a select: math.absi has no LLVM lowering on the 2-D vectors the vectorizer makes."""
        zero = self.const(0, t)
        neg = self.op(f"arith.cmpi slt, {a}, {zero} : {t.mlir}")
        minus = self.op(f"arith.subi {zero}, {a} : {t.mlir}")
        return self.op(f"arith.select {neg}, {minus}, {a} : {t.mlir}")

    def signed_shift(self, k: str, a: str, b: str, t: Type) -> str:
        """Halide: a negative shift amount shifts the other way."""
        right = "shrsi" if t.is_signed() else "shrui"
        fwd, back = ("shli", right) if k == "shl" else (right, "shli")
        zero = self.const(0, t)
        neg = self.op(f"arith.cmpi slt, {b}, {zero} : {t.mlir}")
        mag = self.op(f"arith.subi {zero}, {b} : {t.mlir}")
        v_fwd = self.op(f"arith.{fwd} {a}, {b} : {t.mlir}")
        v_back = self.op(f"arith.{back} {a}, {mag} : {t.mlir}")
        return self.op(f"arith.select {neg}, {v_back}, {v_fwd} : {t.mlir}")

    def round_to_zero(self, k: str, a: str, b: str, t: Type) -> str:
        """C's division/remainder; the divisor is made safe first (x / 0 == 0, and INT_MIN / -1 wraps)."""
        zero, one = self.const(0, t), self.const(1, t)
        special = self.op(f"arith.cmpi eq, {b}, {zero} : {t.mlir}")
        if t.is_signed():
            ism1 = self.op(f"arith.cmpi eq, {b}, {self.const(-1, t)} : {t.mlir}")
            special = self.op(f"arith.ori {special}, {ism1} : i1")
        safe = self.op(f"arith.select {special}, {one}, {b} : {t.mlir}")
        op = ("divsi" if k == "div_rtz" else "remsi") if t.is_signed() else ("divui" if k == "div_rtz" else "remui")
        r = self.op(f"arith.{op} {a}, {safe} : {t.mlir}")
        if not t.is_signed():
            is0 = self.op(f"arith.cmpi eq, {b}, {zero} : {t.mlir}")
            return self.op(f"arith.select {is0}, {zero}, {r} : {t.mlir}")
        is0 = self.op(f"arith.cmpi eq, {b}, {zero} : {t.mlir}")
        ism1 = self.op(f"arith.cmpi eq, {b}, {self.const(-1, t)} : {t.mlir}")
        # b == -1: the quotient is -a (wrapping), the remainder 0
        alt = self.op(f"arith.subi {zero}, {a} : {t.mlir}") if k == "div_rtz" else zero
        r = self.op(f"arith.select {ism1}, {alt}, {r} : {t.mlir}")
        return self.op(f"arith.select {is0}, {zero}, {r} : {t.mlir}")

    # --- Halide's integer division -------------------------------------------------------------
    def _const_divisor(self, e):
        d = e.args[1]
        return d.value if d.kind == "const" else None

    def div(self, e: Expr, a: str, b: str, t: Type) -> str:
        if t.is_float():
            c = self._const_divisor(e)
            if c is not None and c != 0 and math.isfinite(c) and not self.strict:
                # Halide multiplies by the reciprocal (rounded to the type) instead: x / 65535.0 differs in
                # the last bit for some x, enough to move an i32() cast or a LUT index
                r = float(np.float32(1) / np.float32(c)) if t.bits() == 32 else 1.0 / c
                return self.op(f"arith.mulf {a}, {self.const(r, t)} fastmath<contract> : {t.mlir}")
            return self.op(f"arith.divf {a}, {b} : {t.mlir}")
        zero = self.const(0, t)
        cb = self._const_divisor(e)
        if not t.is_signed():
            if cb is not None:
                return zero if cb == 0 else self.op(f"arith.divui {a}, {b} : {t.mlir}")
            is0 = self.op(f"arith.cmpi eq, {b}, {zero} : {t.mlir}")
            safe = self.op(f"arith.select {is0}, {self.const(1, t)}, {b} : {t.mlir}")
            q = self.op(f"arith.divui {a}, {safe} : {t.mlir}")
            return self.op(f"arith.select {is0}, {zero}, {q} : {t.mlir}")
        if cb is not None:
            if cb == 0:
                return zero
            if cb == -1:
                return self.op(f"arith.subi {zero}, {a} : {t.mlir}")
            q = self.op(f"arith.divsi {a}, {b} : {t.mlir}")
            r = self.op(f"arith.remsi {a}, {b} : {t.mlir}")
            neg = self.op(f"arith.cmpi slt, {r}, {zero} : {t.mlir}")
            adj = self.op(f"arith.{'subi' if cb > 0 else 'addi'} {q}, {self.const(1, t)} : {t.mlir}")
            return self.op(f"arith.select {neg}, {adj}, {q} : {t.mlir}")
        one = self.const(1, t)
        is0 = self.op(f"arith.cmpi eq, {b}, {zero} : {t.mlir}")
        ism1 = self.op(f"arith.cmpi eq, {b}, {self.const(-1, t)} : {t.mlir}")
        special = self.op(f"arith.ori {is0}, {ism1} : i1")
        safe = self.op(f"arith.select {special}, {one}, {b} : {t.mlir}")
        q = self.op(f"arith.divsi {a}, {safe} : {t.mlir}")
        r = self.op(f"arith.remsi {a}, {safe} : {t.mlir}")
        neg = self.op(f"arith.cmpi slt, {r}, {zero} : {t.mlir}")
        pos_b = self.op(f"arith.cmpi sgt, {safe}, {zero} : {t.mlir}")
        step = self.op(f"arith.select {pos_b}, {self.const(-1, t)}, {one} : {t.mlir}")
        q_adj = self.op(f"arith.addi {q}, {step} : {t.mlir}")
        q = self.op(f"arith.select {neg}, {q_adj}, {q} : {t.mlir}")
        negated = self.op(f"arith.subi {zero}, {a} : {t.mlir}")
        q = self.op(f"arith.select {ism1}, {negated}, {q} : {t.mlir}")
        return self.op(f"arith.select {is0}, {zero}, {q} : {t.mlir}")

    def mod(self, e: Expr, a: str, b: str, t: Type) -> str:
        if t.is_float():  # Halide: a - b * floor(a / b)
            q = self.op(f"arith.divf {a}, {b} : {t.mlir}")
            fq = self.op(f"math.floor {q} : {t.mlir}")
            p = self.op(f"arith.mulf {b}, {fq} : {t.mlir}")
            return self.op(f"arith.subf {a}, {p} : {t.mlir}")
        zero = self.const(0, t)
        cb = self._const_divisor(e)
        if cb is not None and cb in (0, -1, 1):
            return zero
        if cb is not None:
            safe = b
        else:
            special = self.op(f"arith.cmpi eq, {b}, {zero} : {t.mlir}")
            if t.is_signed():
                ism1 = self.op(f"arith.cmpi eq, {b}, {self.const(-1, t)} : {t.mlir}")
                special = self.op(f"arith.ori {special}, {ism1} : i1")
            safe = self.op(f"arith.select {special}, {self.const(1, t)}, {b} : {t.mlir}")
        if not t.is_signed():
            return self.op(f"arith.remui {a}, {safe} : {t.mlir}")
        r = self.op(f"arith.remsi {a}, {safe} : {t.mlir}")
        neg = self.op(f"arith.cmpi slt, {r}, {zero} : {t.mlir}")
        mag = self.iabs(safe, t)
        r_adj = self.op(f"arith.addi {r}, {mag} : {t.mlir}")
        return self.op(f"arith.select {neg}, {r_adj}, {r} : {t.mlir}")

    # --- conversions ---------------------------------------------------------------------------
    def cast(self, v: str, src: Type, dst: Type) -> str:
        if src == dst or (src.mlir == dst.mlir and not dst.is_bool()):
            return v
        if dst.is_bool():  # Halide 21 keeps the low bit (of the truncated value, for floats)
            if src.is_float():
                wide = "i64" if src.bits() == 64 else "i32"
                v = self.op(f"arith.fptosi {v} : {src.mlir} to {wide}")
                return self.op(f"arith.trunci {v} : {wide} to i1")
            return self.op(f"arith.trunci {v} : {src.mlir} to i1")
        if src.is_float() and dst.is_float():
            op = "extf" if dst.bits() > src.bits() else "truncf"
            return self.op(f"arith.{op} {v} : {src.mlir} to {dst.mlir}")
        if src.is_float():
            return self.op(f"arith.{'fptosi' if dst.is_signed() else 'fptoui'} {v} : {src.mlir} to {dst.mlir}")
        if dst.is_float():
            op = "sitofp" if src.is_signed() and not src.is_bool() else "uitofp"
            return self.op(f"arith.{op} {v} : {src.mlir} to {dst.mlir}")
        if dst.bits() > src.bits():
            op = "extsi" if src.is_signed() and not src.is_bool() else "extui"
            return self.op(f"arith.{op} {v} : {src.mlir} to {dst.mlir}")
        return self.op(f"arith.trunci {v} : {src.mlir} to {dst.mlir}")

    def to_storage(self, v: str, t: Type) -> str:
        return self.op(f"arith.extui {v} : i1 to i8") if t.is_bool() else v

    def from_storage(self, v: str, t: Type) -> str:
        return self.op(f"arith.trunci {v} : i8 to i1") if t.is_bool() else v


BOOL = Bool()
