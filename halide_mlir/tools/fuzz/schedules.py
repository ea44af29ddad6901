"""The fuzzer's random *legal* schedules for a pipeline drawn by pipelines.py: split with random factors and
tails, tile, reorder, vectorize of the innermost loop with widths 1-64, unroll by at most 8, parallel,
compute_root, compute_at any loop of the consumer including split vars and RVars, or a loop of the consumer's own
consumer around it (chains), store_at / store_root, inline, schedules of update stages.

Consumers are scheduled before their producers, so a producer's compute_at can pick among the loops its
consumer really has. Every choice is a Hypothesis draw, so shrinking simplifies the schedule.
"""

from __future__ import annotations

import collections

from .pipelines import Draws, FuncInfo


def _base(code: str) -> str:
    """A short name for new Vars split off the loop ``code`` (f1_xi -> xi, b0.args()[1] -> a1)."""
    if code.endswith("]"):
        return "a" + code[-2]
    return code.split("_")[-1]


class ScheduleGen(Draws):
    """Draws the schedule of the Funcs ``funcs`` (defined in the order ``order``) whose output is ``output``."""

    def __init__(self, draw, st, funcs: dict[str, FuncInfo], order: list[str]):
        super().__init__(draw, st)
        self.funcs = funcs
        self.order = order
        self.in_update = False
        self.vec = None  # the loop stage_schedule vectorized last
        self.header = []  # module-level lines (the values of the Params)
        self.params = []  # lines declaring the Params (under `if schedule:`)
        self.rvars = {}  # RVars split off RVars (code -> name)
        self.inputs = []  # (name, numpy dtype) of the input Buffers (set by program.py)
        self.prefetched = set()  # inputs a prefetch names: program.py makes them ImageParams (Halide's rule)

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
            loops[p : p + 1] = [(i_, i_, False, factor), (o, o, False, None)]
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
            loops[:] = (
                rv + [(xi, xi, False, fx), (yi, yi, False, fy), (xo, xo, False, None), (yo, yo, False, None)] + rest
            )
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
        self.vec = vec
        return lines

    # --- the directives of issue 16 -----------------------------------------------------------------------------
    def rare(self, n=3) -> bool:
        """True once in n + 1 draws (False is the simpler choice: shrinking drops the directive)."""
        return self.d(self.st.integers(0, n)) == n

    def param(self) -> str:
        """The Param specializations test: one Int(32) Param p0 with two values, so both branches run (check.py
        realizes once per value)."""
        if not self.params:
            self.params = ['p0 = hl.Param(hl.Int(32), "p0", PARAM_VALUES["p0"][0])', 'PARAMS["p0"] = p0']
            self.p_values = (self.integer(0, 9), self.integer(0, 9))
            self.header = [f'PARAM_VALUES = {{"p0": {self.p_values}}}', "PARAMS = {}"]
        return "p0"

    def specialize(self, obj: str, loops: list) -> list:
        """``obj.specialize(cond)`` with loop directives that keep every loop a producer may be computed at (a
        specialization can't move a compute_at): vectorize the innermost loop by a factor, parallel, unroll."""
        p = self.param()
        lo, hi = sorted(self.p_values)
        k = self.integer(lo, hi)  # the two values on either side, when they differ
        conds = [f"{p} > {k}", f"{p} >= {k}", f"{p} == {k}", f"{p} % 2 == 0"]
        cond = self.choice(conds) if lo < hi else f"{p} == {k}"
        sp = f"{obj}.specialize({cond})"
        lines = []
        inner = loops[0]
        if inner[1] is not None and not inner[2] and inner[1] != self.vec and self.flag():
            lines.append(f"{sp}.vectorize({inner[1]}, {self.choice([8, 4, 16, 3])})")
        cands = [l for l in reversed(loops[1:]) if not l[2] and l[1] is not None and l[1] != self.vec]
        if cands and (not lines or self.flag()):
            lines.append(f"{sp}.parallel({cands[0][1]})")
        if not lines:
            lines.append(f"{sp}.unroll({inner[1]}, 2)" if inner[1] is not None else sp)
        if self.rare():  # nested: a second condition inside the first
            lines.append(f"{sp}.specialize({self.choice(conds)})")
        return lines

    def new_rvar(self, code):
        k, name = 2, code
        while name in self.rvars:
            name, k = f"{code}{k}", k + 1
        self.rvars[name] = name
        return name

    def rfactor(self, f: str, ul: list, pure: tuple, new_var) -> list:
        """``f.update(0).rfactor(rv, u)`` (after a split of rv, perhaps) and a schedule of the intermediate:
        computed at the root or at f's outermost loop, its update parallel or vectorized along u."""
        obj = f"{f}.update(0)"
        rv = [l for l in ul if l[2]]
        lines = []
        name, code, _, ext = self.choice(rv)
        if ext is not None and ext > 2 and self.flag():
            o, i_ = self.new_rvar(f"{f}_{code[-1]}o"), self.new_rvar(f"{f}_{code[-1]}i")
            lines.append(f"{obj}.split({code}, {o}, {i_}, {self.choice([4, 2, 3, 8])})")
            code = self.choice([o, i_])
        u = new_var("u")
        intm = f"{f}_intm"
        lines.append(f"{intm} = {obj}.rfactor({code}, {u})")
        if self.flag():
            lines.append(f"{intm}.compute_root()")
        else:
            lines.append(f"{intm}.compute_at({f}, hl.Var.outermost())")
        how = self.choice(["none", "parallel", "vectorize", "both"])
        if how in ("parallel", "both"):
            lines.append(f"{intm}.update(0).parallel({u})")
        if how in ("vectorize", "both"):
            lines.append(f"{intm}.update(0).vectorize({'x' if how == 'both' else u}, {self.choice([8, 4, 16])})")
        if self.flag():
            lines.append(f"{intm}.vectorize(x, {self.choice([8, 4])})")
        if "y" in pure and self.flag():
            lines.append(f"{obj}.parallel(y)")
        return lines

    def atomic(self, f: str, ul: list) -> list:
        """``f.update(0).atomic()`` with a parallel (or vectorized) RVar loop: racing read-modify-writes."""
        obj = f"{f}.update(0)"
        rv = [l for l in ul if l[2]]
        name, code, _, ext = rv[-1] if self.flag() else self.choice(rv)
        lines = [f"{obj}.atomic({'override_associativity_test=True' if self.rare(7) else ''})"]
        if ext is not None and ext > 4 and self.flag():
            o, i_ = self.new_rvar(f"{f}_{code[-1]}o"), self.new_rvar(f"{f}_{code[-1]}i")
            lines.append(f"{obj}.split({code}, {o}, {i_}, {self.choice([4, 8, 5])})")
            lines.append(f"{obj}.parallel({o})")
            if self.rare():
                lines.append(f"{obj}.vectorize({i_})")
        elif self.rare(4):
            lines.append(f"{obj}.vectorize({code}{', 8' if ext is None or ext > 8 else ''})")
        else:
            lines.append(f"{obj}.parallel({code})")
        return lines

    def wrapper(self, f: str, info: FuncInfo, c: str, direct: bool, loops_c: list, vars_: dict) -> list:
        """A wrapper of f (``f.in_(c)``, ``f.in_()``, ``f.clone_in(c)``) computed at the root or at a loop of
        its consumer c, with a loop schedule of its own."""
        kind = self.choice(["in_", "in_c", "clone"] if direct else ["in_"])
        w = f"{f}_w"
        lines = [f"{w} = " + {"in_": f"{f}.in_()", "in_c": f"{f}.in_({c})", "clone": f"{f}.clone_in({c})"}[kind]]
        k = self.choice(list(range(len(loops_c) + 1)))
        if k == len(loops_c):
            lines.append(f"{w}.compute_root()")
        else:
            lines.append(f"{w}.compute_at({c}, {loops_c[k][2]})")
        if self.flag():
            if info.kind == "bc" or kind != "clone":
                a0, a1 = f"{w}.args()[0]", f"{w}.args()[1]"
            else:
                a0, a1 = "x", "y"
            loops = [("_0", a0, False, None), ("_1", a1, False, None)]
            lines += self.stage_schedule(w, w, loops, (a0, a1), vars_)
        return lines

    def schedules(self, output: str) -> list:
        """Draw compute levels and loop schedules, consumers before their producers."""
        vars_ = {}
        level = {}  # func -> inline/root/at
        loops_of = {}  # func -> list of (halide name, code) it offers to compute_at
        at_of = {}  # func -> (consumer, index in loops_of[consumer]) of its compute_at pure loop
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
        self.children = {p[1]: p[0] for i in self.funcs.values() for p in [i.pair] if p}  # child -> parent
        self.siblings = {f for i in self.funcs.values() for f in i.pair}
        self.stage_lines = {}  # func -> (its pure stage's loop directives, its final loops)
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
                if f in self.siblings and lv != "root" and (f in self.children or self.flag()):
                    # siblings at the root (the parent half the time, the child then too): compute_with
                    if f not in self.children or level.get(self.children[f]) == "root":
                        lv = "root"
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
                        if info.kind != "bc" and self.flag():  # a circular buffer (too small: Halide's error)
                            body.append(f"{f}.fold_storage(y, {self.choice([2, 3, 4, 8])})")
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
            self.vec = None
            cw = self.compute_with_parent(f, level, loops) if f in self.children else None
            if cw is not None:
                body += cw
            elif self.flag() or f == output:
                sched = [l for l in self.stage_schedule(f, f, loops, pure, vars_) if l]
                body += sched
                self.stage_lines[f] = (sched, list(loops))
            if info.kind != "bc" and self.rare(5):
                body += self.specialize(f, loops)
            if info.kind != "bc" and self.inputs and self.rare(5):
                body += self.prefetch(f, loops)
            if info.kind != "bc" and self.rare(5):
                body += self.small_directive(f, level[f], loops, f == output)
            offered += [(0, l[0], l[1]) for l in loops if l[1] is not None]
            if info.update_loops:
                ul = list(info.update_loops)
                options = ["none", "loops", "rfactor", "atomic"]
                if info.scan:  # a scan's RVar loop is serial: no rfactor, no atomic
                    options = ["none", "loops", "scan"]
                elif info.kind == "hist" and info.pure_in_update == ("y",):
                    options.append("punroll")
                how = self.choice(options)
                if how in ("scan", "punroll"):
                    body += self.scan_or_scatter(f, info, ul, how, lambda b, f=f: _new_var(vars_, f, b))
                    offered += [(1, l[0], l[1]) for l in ul if l[1] is not None and not l[2]]
                elif how == "loops":
                    self.vec = None
                    body += [
                        l for l in self.stage_schedule(f"{f}.update(0)", f + "u", ul, info.pure_in_update, vars_) if l
                    ]
                    if self.rare(5):
                        body += self.specialize(f"{f}.update(0)", ul)
                    offered += [(1, l[0], l[1]) for l in ul if l[1] is not None]
                elif how == "rfactor":  # f's update loops change: none offered to compute_at
                    body += self.rfactor(f, ul, info.pure_in_update, lambda b, f=f: _new_var(vars_, f, b))
                elif how == "atomic":
                    body += self.atomic(f, ul)
                    offered += [(1, l[0], l[1]) for l in ul if l[1] is not None and not l[2]]
                else:
                    offered += [(1, l[0], l[1]) for l in ul if l[1] is not None]
            loops_of[f] = offered
        # wrappers, drawn last: between a Func computed inline or at the root and its one consumer
        for f in self.order:
            cons = consumers(f)
            if f == output or level[f] not in ("inline", "root") or len(cons) != 1 or not self.rare(4):
                continue
            body += self.wrapper(f, self.funcs[f], cons[0], cons[0] in users[f], loops_of[cons[0]], vars_)
        decl = self.params + [f'{v} = hl.Var("{v}")' for v in vars_] + [f'{v} = hl.RVar("{v}")' for v in self.rvars]
        return decl + body

    # --- issue 16's newer directives -----------------------------------------------------------------------------
    def prefetch(self, obj: str, loops: list) -> list:
        """``obj.prefetch(input, at, from, offset, strategy)``: ``at`` is ``from`` or a loop inside it. The input
        becomes an ImageParam (real Halide's bindings prefetch only those; Halide 21 then drops the prefetch
        with a warning, so only the values are compared)."""
        cands = [l for l in loops if l[1] is not None and not l[2]]
        if not cands:
            return []
        name = self.choice([n for n, _ in self.inputs])
        self.prefetched.add(name)
        j = self.integer(0, len(cands) - 1)
        i = self.integer(0, j)
        strategy = self.choice(["GuardWithIf", "Clamp", "NonFaulting"])
        return [
            f"{obj}.prefetch({name}, {cands[i][1]}, {cands[j][1]}, {self.choice([1, 0, 2, 4, -1])}, "
            f"hl.PrefetchBoundStrategy.{strategy})"
        ]

    def small_directive(self, f: str, lv: str, loops: list, output: bool) -> list:
        """One of issue 16's smaller directives on a Func computed at the root or at a loop: partition policies,
        bound/bound_extent (the output: its region is known), align_bounds/align_extent/align_storage/
        bound_storage (a producer computes or stores more), store_in, memoize (at the root), async_ and
        hoist_storage_root with a ring_buffer. Halide rejects some combinations: those examples are skipped."""
        cands = [l[1] for l in loops if l[1] is not None and not l[2]]
        opts = ["partition", "partition_all"] + (["bound"] if output else ["align", "storage", "store_in", "async"])
        if lv == "root" and not output:
            opts.append("memoize")
        if lv == "at":
            opts.append("ring")
        how = self.choice(opts)
        v = self.choice(["x", "y"])
        if how == "partition" and cands:
            policy = self.choice(["Never", "Always", "Auto"])
            return [f"{f}.partition({self.choice(cands)}, hl.Partition.{policy})"]
        if how in ("partition", "partition_all"):
            return [f"{f}.{self.choice(['never_partition_all', 'always_partition_all'])}()"]
        if how == "bound":
            return [f"{f}.bound(x, 0, W)" if self.flag() else f"{f}.bound_extent(y, H)"]
        if how == "align":
            k = self.choice([2, 4, 8, 3])
            if self.flag():
                return [f"{f}.align_bounds({v}, {k}{', 1' if self.flag() else ''})"]
            return [f"{f}.align_extent({v}, {k})"]
        if how == "storage":
            if self.flag():
                return [f"{f}.align_storage({v}, {self.choice([8, 16, 4])})"]
            return [f"{f}.bound_storage({v}, {self.choice([128, 64])})"]
        if how == "store_in":
            return [f"{f}.store_in(hl.MemoryType.{self.choice(['Heap', 'Stack', 'Auto'])})"]
        if how == "memoize":
            return [f"{f}.memoize()"]
        if how == "async":
            return [f"{f}.async_()"]
        return [f"{f}.async_()", f"{f}.hoist_storage_root()", f"{f}.ring_buffer({self.choice([2, 3])})"]

    def compute_with_parent(self, child: str, level: dict, loops: list):
        """The child of a sibling pair, both at the root: perhaps its parent's loop directives (same Vars) and
        ``child.compute_with(parent, var[, align])`` at a loop of the parent. None: schedule it as usual."""
        parent = self.children[child]
        if level.get(parent) != "root" or level.get(child) != "root" or not self.flag():
            return None
        sched, ploops = self.stage_lines.get(parent, ([], list(loops)))
        copy = not self.rare(4)  # else the child keeps its own loop nest: Halide may reject that (skipped)
        lines = [l.replace(f"{parent}.", f"{child}.", 1) for l in sched] if copy else []
        fusable = [l for l in ploops if l[1] is not None and not l[2] and not l[1].endswith(("v", "_vectorized"))]
        if not fusable:
            return lines
        var = self.choice(fusable)[1]
        align = self.choice(["", "AlignStart", "AlignEnd", "NoAlign", "Auto", "pairs"])
        if align == "pairs":  # per loop, as (Var, LoopAlignStrategy) pairs
            s = self.choice(["AlignStart", "AlignEnd", "NoAlign", "Auto"])
            arg = f", [({var}, hl.LoopAlignStrategy.{s})]"
        else:
            arg = f", hl.LoopAlignStrategy.{align}" if align else ""
        if copy:
            loops[:] = ploops
        return lines + [f"{child}.compute_with({parent}, {var}{arg})"]

    def scan_or_scatter(self, f: str, info: FuncInfo, ul: list, how: str, new_var) -> list:
        """A scan's update vectorized or parallel along its pure Var (``vectorize(x, n)`` on a scan along y,
        ``parallel(y)`` on a scan along x), or a row scatter's update parallel over y with its RVar unrolled."""
        obj = f"{f}.update(0)"
        rv = ul[0][1]
        if how == "scan":
            v = info.pure_in_update[0]
            lines = []
            if v == "x" or self.flag():
                lines.append(f"{obj}.vectorize({v}, {self.choice([8, 4, 16, 3])})")
            if v == "y" or self.flag():
                lines.append(f"{obj}.parallel({v}{', ' + str(self.choice([2, 4])) if self.flag() else ''})")
            if self.flag():
                lines.append(f"{obj}.unroll({rv}, {self.choice([2, 4, 3])})")
            return lines
        lines = [f"{obj}.parallel(y)"]
        if self.flag():
            o, i_ = self.new_rvar(f"{f}_{rv[-1]}o"), self.new_rvar(f"{f}_{rv[-1]}i")
            lines.append(f"{obj}.split({rv}, {o}, {i_}, {self.choice([4, 2, 8])})")
            lines.append(f"{obj}.unroll({i_})")
        else:
            lines.append(f"{obj}.unroll({rv}, {self.choice([2, 4, 3, 8])})")
        return lines

    # --- GPU schedules (issue 18) -------------------------------------------------------------------------------
    def kernel(self, f: str, a0: str, a1: str, vars_: dict):
        """One Func's own kernel: gpu_tile (2-D, or 1-D plus gpu_blocks), gpu_blocks/gpu_threads, or split +
        gpu(). Returns its lines and its innermost block and thread loops (where producers may be computed)."""
        nv = lambda b: _new_var(vars_, f, b)  # noqa: E731
        tx, ty = self.choice([8, 16, 4, 32, 2, 1]), self.choice([8, 4, 16, 1, 2, 32])
        tail = self.choice([None, None, "GuardWithIf", "RoundUp", "ShiftInwards"])
        tl = "" if tail is None else f", hl.TailStrategy.{tail}"
        form = self.choice(["tile2", "tile1", "blocks", "gpu"])
        if form == "blocks":
            return [f"{f}.gpu_blocks({a1}).gpu_threads({a0})"], a1, a0
        xo, xi = nv("bx"), nv("tx")
        if form == "tile1":
            return [f"{f}.gpu_tile({a0}, {xo}, {xi}, {tx}{tl})", f"{f}.gpu_blocks({a1})"], xo, xi
        yo, yi = nv("by"), nv("ty")
        if form == "tile2":
            return [f"{f}.gpu_tile({a0}, {a1}, {xo}, {yo}, {xi}, {yi}, {tx}, {ty}{tl})"], xo, xi
        return (
            [
                f"{f}.split({a0}, {xo}, {xi}, {tx}{tl})",
                f"{f}.split({a1}, {yo}, {yi}, {ty}{tl})",
                f"{f}.reorder({xi}, {yi}, {xo}, {yo})",
                f"{f}.gpu({xo}, {yo}, {xi}, {yi})",
            ],
            xo,
            xi,
        )

    def gpu_schedules(self, output: str) -> list:
        """Every Func computed somewhere gets a GPU schedule (halide_mlir runs no stage of a GPU pipeline on the
        host): its own kernel at the root, or computed at a kernel's innermost block loop (shared memory, with
        gpu_threads perhaps) or innermost thread loop (registers)."""
        vars_, body, kern = {}, [], {}
        users = collections.defaultdict(list)
        for f in self.order:
            for u in self.funcs[f].uses:
                users[u].append(f)
        level = {}
        for f in reversed(self.order):
            info = self.funcs[f]
            bc = info.kind == "bc"
            a0, a1 = (f"{f}.args()[0]", f"{f}.args()[1]") if bc else ("x", "y")
            cons = sorted({c for c in users[f] if level.get(c) != "inline"})
            inl = [c for c in users[f] if level.get(c) == "inline"]
            opts = ["inline", "root"]
            if len(cons) == 1 and not inl and cons[0] in kern:
                opts += ["block", "thread"]
            lv = "root" if f == output else self.choice(opts if not bc or self.rare() else ["inline"])
            level[f] = lv
            if bc and lv == "inline" and self.flag():
                # ours computes an implicitly inline boundary condition read by a tiled consumer at the root (a
                # padded copy), which a GPU pipeline refuses; the explicit compute_inline keeps it inline
                body.append(f"{f}.compute_inline()")
            if lv == "root":
                if f != output:
                    body.append(f"{f}.compute_root()")
                lines, b, t = self.kernel(f, a0, a1, vars_)
                body += lines
                kern[f] = (b, t)
            elif lv == "block":
                c = cons[0]
                body.append(f"{f}.compute_at({c}, {kern[c][0]})")
                if self.flag():
                    body.append(f"{f}.gpu_threads({a0}, {a1})" if self.flag() else f"{f}.gpu_threads({a0})")
                if self.flag():
                    body.append(f"{f}.store_in(hl.MemoryType.GPUShared)")
            elif lv == "thread":
                c = cons[0]
                body.append(f"{f}.compute_at({c}, {kern[c][1]})")
                if self.flag():
                    body.append(f"{f}.store_in(hl.MemoryType.Register)")
        return [f'{v} = hl.Var("{v}")' for v in vars_] + body


def _new_var(vars_, fname, base):
    code, k = f"{fname}_{base}", 2
    while code in vars_:
        code, k = f"{fname}_{base}{k}", k + 1
    vars_[code] = code
    return code
