"""The schedule search space: a *genome* per Func (plain data), decoded into a *plan* (the list of public
schedule calls that realizes it), applied to Funcs or printed as Python code.

A plan is a list of calls ``(func_index, update_index_or_None, method, args)``; args are Var/RVar names
(strings), ints, or ``("func", index)`` for a Func argument (compute_at/store_at). The same plan is applied in
the measuring worker, by ``AutotuneResult.apply()``, and printed by ``plan_code``, so the code the user pastes is
exactly what was measured.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field

from ..lang.func import Func
from ..lang.schedule import FuncSchedule, touch
from ..lang.traversal import walk


# ------------------------------------------------------------------------------------------------ pipeline


@dataclass
class FuncInfo:
    func: Func
    index: int
    name: str
    vars: list  # pure var names, dimension 0 first
    bits: int  # element type width
    is_output: bool
    consumers: list = field(default_factory=list)  # indices of Funcs that call this one directly
    updates: list = field(default_factory=list)  # per update: (pure vars in its args, rvar names)

    @property
    def natural_lanes(self) -> int:
        """Lanes that fill one 512-bit register (16 f32, 32 u16, 64 u8), within 4..64."""
        return max(4, min(64, 512 // max(8, self.bits)))


def pipeline_funcs(output: Func) -> list[FuncInfo]:
    """Every Func the output reaches (inline ones too), producers first, output last."""
    order: list[Func] = []
    seen: set[int] = set()
    calls: dict[int, list[Func]] = {}

    def callees(f: Func) -> list[Func]:
        exprs = [f._definition().value]
        for u in f.updates():
            exprs += [*u.args, u.value, *u.predicates()]
        out = []
        for e in exprs:
            for n in walk(e):
                if (
                    n.kind == "call"
                    and isinstance(n.value, Func)
                    and n.value is not f
                    and not any(n.value is g for g in out)
                ):
                    out.append(n.value)
        return out

    def visit(f: Func):
        if id(f) in seen:
            return
        seen.add(id(f))
        calls[id(f)] = callees(f)
        for g in calls[id(f)]:
            visit(g)
        order.append(f)

    visit(output)
    index = {id(f): i for i, f in enumerate(order)}
    infos = []
    for i, f in enumerate(order):
        ups = []
        for u in f.updates():
            pure = [a.value.name() for a in u.args if a.kind == "var"]
            ups.append((pure, [r.name() for r in u.rvars()]))
        infos.append(
            FuncInfo(
                f,
                i,
                f.name(),
                [v.name() for v in f.args()],
                max(t.bits() for t in f.output_types()),
                f is output,
                updates=ups,
            )
        )
    for f in order:
        for g in calls[id(f)]:
            infos[index[id(g)]].consumers.append(index[id(f)])
    return infos


def reset_schedules(infos: list[FuncInfo]) -> None:
    """Every Func back to Halide's defaults (inline, no directives), update stages too."""
    for info in infos:
        info.func._schedule = FuncSchedule()
        for u in info.func._updates:
            u.schedule = FuncSchedule()
    touch()


def save_schedules(infos: list[FuncInfo]) -> list:
    return [(copy.copy(i.func._schedule), [copy.copy(u.schedule) for u in i.func._updates]) for i in infos]


def restore_schedules(infos: list[FuncInfo], saved: list) -> None:
    for info, (s, ups) in zip(infos, saved):
        s.directives = list(s.directives)
        info.func._schedule = s
        for u, us in zip(info.func._updates, ups):
            us.directives = list(us.directives)
            u.schedule = us
    touch()


def apply_plan(infos: list[FuncInfo], plan: list) -> None:
    """Reset every schedule, then make the plan's calls through the public schedule methods."""
    reset_schedules(infos)
    for fi, ui, method, args in plan:
        target = infos[fi].func if ui is None else infos[fi].func.update(ui)
        real = [
            infos[a[1]].func
            if isinstance(a, (tuple, list)) and a and a[0] == "func"
            else infos[fi].updates[ui][1][a[1]]
            if isinstance(a, (tuple, list)) and a and a[0] == "rvar"
            else a
            for a in args
        ]
        getattr(target, method)(*real)
    touch()


# ------------------------------------------------------------------------------------------------ genome

POW2_X = [8, 16, 32, 64, 128, 256, 512]
POW2_Y = [2, 4, 8, 16, 32, 64, 128]


def _divisors(n: int, lo: int, hi: int) -> list[int]:
    return [d for d in range(lo, min(hi, n) + 1) if n % d == 0]


class Space:
    """Random genomes, mutation and crossover for one pipeline, and decoding to plans."""

    def __init__(self, infos: list[FuncInfo], sizes: list[int], rng: random.Random):
        self.infos, self.sizes, self.rng = infos, list(sizes), rng
        self.out = len(infos) - 1
        names = {v for i in infos for v in i.vars} | {r for i in infos for _, rs in i.updates for r in rs}
        self.fresh = {}
        for v in names:
            o, i = f"{v}o", f"{v}i"
            while o in names or i in names:
                o, i = o + "_", i + "_"
            self.fresh[v] = (o, i)
        # split factors: powers of two plus divisors of the output extents
        self.x_factors = sorted(set(POW2_X) | set(_divisors(sizes[0], 8, 512)[-4:]))
        self.y_factors = sorted(set(POW2_Y) | (set(_divisors(sizes[1], 2, 128)[-4:]) if len(sizes) > 1 else set()))

    # --- genes ----------------------------------------------------------------------------------
    def compute_choices(self, i: int) -> list[str]:
        info = self.infos[i]
        if info.is_output:
            return ["root"]
        if info.updates:
            return ["root", "at"]
        return ["inline", "root", "at"]

    def hosts(self, i: int) -> list[int]:
        info = self.infos[i]
        hs = [self.out]
        if len(info.consumers) == 1 and info.consumers[0] != self.out:
            hs.insert(0, info.consumers[0])
        return hs

    def lanes_choices(self, i: int) -> list[int]:
        n = self.infos[i].natural_lanes
        return sorted({w for w in (n // 4, n // 2, n, 2 * n) if 4 <= w <= 64})

    def random_gene(self, i: int) -> dict:
        r, info = self.rng, self.infos[i]
        g = {
            "compute": r.choice(self.compute_choices(i)),
            "host": r.choice(self.hosts(i)),
            "level": r.randrange(4),
            "store_outer": r.random() < 0.1,
            "fx": r.choice([0] + self.x_factors) if info.vars else 0,
            "fy": r.choice([0] + self.y_factors) if len(info.vars) > 1 else 0,
            "order": r.choice(["tile", "split"]),
            "extra_inner": r.random() < 0.3,
            "vec": r.choice([0] + self.lanes_choices(i) * 2) if info.vars else 0,
            "unroll": r.choice([0, 0, 0, 2, 4]) if len(info.vars) > 1 else 0,
            "par": r.random() < 0.8,
            "updates": [
                {
                    "vec": r.choice([0] + self.lanes_choices(i)) if pure else 0,
                    "rv_outer": r.random() < 0.5 if (pure and rvs) else False,
                    "par": r.random() < 0.5 if len(pure) > 1 else False,
                }
                for pure, rvs in info.updates
            ],
        }
        return g

    def random_genome(self) -> list[dict]:
        return [self.random_gene(i) for i in range(len(self.infos))]

    def seeds(self) -> list[list[dict]]:
        """Reasonable starting points (as the Halide paper's autotuner seeds its population)."""
        out = []
        n = len(self.infos)
        for compute in ("inline", "root", "at"):
            genome = []
            for i, info in enumerate(self.infos):
                c = compute if compute in self.compute_choices(i) else self.compute_choices(i)[0]
                tiled = compute == "at" and info.is_output
                genome.append(
                    {
                        "compute": c,
                        "host": self.out,
                        "level": 1,
                        "store_outer": False,
                        "fx": 256 if tiled else 0,
                        "fy": (32 if tiled else 0) if len(info.vars) > 1 else 0,
                        "order": "tile",
                        "extra_inner": False,
                        "vec": info.natural_lanes if info.vars else 0,
                        "unroll": 0,
                        "par": True,
                        "updates": [
                            {
                                "vec": info.natural_lanes if pure else 0,
                                "rv_outer": bool(pure and rvs),
                                "par": len(pure) > 1,
                            }
                            for pure, rvs in info.updates
                        ],
                    }
                )
            out.append(genome)
        assert all(len(g) == n for g in out)
        return out

    def mutate(self, genome: list[dict], n_changes: int = 1) -> list[dict]:
        g = copy.deepcopy(genome)
        r = self.rng
        for _ in range(n_changes):
            i = r.randrange(len(g))
            fresh = self.random_gene(i)
            keys = [k for k in fresh if k != "updates"] + (["updates"] if fresh["updates"] else [])
            k = r.choice(keys)
            if k in ("fx", "fy") and g[i][k] and r.random() < 0.6:  # local move: halve or double
                cur = g[i][k]
                pool = self.x_factors if k == "fx" else self.y_factors
                g[i][k] = min(pool, key=lambda f: abs(math.log2(f) - math.log2(cur) - r.choice([-1, 1])))
            elif k == "updates":
                j = r.randrange(len(fresh["updates"]))
                uk = r.choice(list(fresh["updates"][j]))
                g[i]["updates"][j][uk] = fresh["updates"][j][uk]
            else:
                g[i][k] = fresh[k]
        return g

    def crossover(self, a: list[dict], b: list[dict]) -> list[dict]:
        """Uniform per Func: each Func's gene from one parent (whole gene, so a Func's tiling stays coherent)."""
        return [copy.deepcopy(x if self.rng.random() < 0.5 else y) for x, y in zip(a, b)]

    # --- decoding -------------------------------------------------------------------------------
    def loops(self, i: int, g: dict) -> tuple[list, dict]:
        """(loop names innermost first, {dim: (outer, inner) for split dims}) of Func i under gene g."""
        info = self.infos[i]
        dims = info.vars
        split = {}
        for d, f in ((0, g["fx"]), (1, g["fy"])):
            if d < len(dims) and f:
                split[dims[d]] = (self.fresh[dims[d]][0], self.fresh[dims[d]][1], f)

        def inner(v):
            return split[v][1] if v in split else v

        if g["order"] == "tile":
            order = [inner(v) for v in dims] + [split[v][0] for v in dims if v in split]
        else:
            order = []
            for v in dims:
                order += [inner(v)] + ([split[v][0]] if v in split else [])
        if g["extra_inner"] and len(dims) > 2:
            extra = [v for v in dims[2:]]
            order = [o for o in order if o not in extra]
            order[1:1] = extra
        return order, split

    def _calls_of(self, i: int, genome: list[dict], computes: dict) -> list:
        """The loop directives of Func i alone (compute_at levels are not needed for them)."""
        g = dict(genome[i], compute="root" if computes[i] != "inline" else "inline")
        sub = [dict(x, compute="inline") for x in genome]
        sub[i] = g
        return [c for c in self.decode(sub, _loops_only=True) if c[0] == i]

    def decode(self, genome: list[dict], _loops_only: bool = False) -> list:
        plan = []
        computes = {}
        for i in range(len(self.infos)):
            g = genome[i]
            c = g["compute"] if g["compute"] in self.compute_choices(i) else self.compute_choices(i)[0]
            computes[i] = c
        for i, info in enumerate(self.infos):
            g = genome[i]
            c = computes[i]
            if c == "inline":
                continue
            calls = []
            if c == "root" and not info.is_output:
                calls.append(("compute_root", ()))
            elif c == "at" and _loops_only:
                pass
            elif c == "at":
                host = g["host"] if g["host"] in self.hosts(i) and computes.get(g["host"]) != "inline" else self.out
                # outermost first; a loop that is vectorized or unrolled whole is not a loop anymore
                whole = {
                    a[0]
                    for hi, ui, m, a in self._calls_of(host, genome, computes)
                    if len(a) == 1 and m in ("vectorize", "unroll")
                }
                host_loops = [v for v in reversed(self.loops(host, genome[host])[0]) if v not in whole]
                level = min(g["level"], len(host_loops) - 1)
                calls.append(("compute_at", (("func", host), host_loops[level])))
                if g["store_outer"] and level > 0:
                    calls.append(("store_at", (("func", host), host_loops[level - 1])))
            order, split = self.loops(i, g)
            dims = info.vars
            for v in dims:
                if v in split:
                    o, inn, f = split[v]
                    calls.append(("split", (v, o, inn, f)))
            default = []
            for v in dims:
                default += [split[v][1], split[v][0]] if v in split else [v]
            if order != default:
                calls.append(("reorder", tuple(order)))
            if g["vec"] and dims:
                w = g["vec"]
                v = order[0] if order[0] in ([split[dims[0]][1]] if dims[0] in split else [dims[0]]) else None
                if v is not None:
                    ext = split[dims[0]][2] if dims[0] in split else 0
                    w = math.gcd(w, ext) if ext and ext % w else w
                    if w >= 4:
                        calls.append(("vectorize", (v,) if ext == w and dims[0] in split else (v, w)))
            if g["unroll"] and len(dims) > 1:
                yv = split[dims[1]][1] if dims[1] in split else dims[1]
                ext = split[dims[1]][2] if dims[1] in split else 0
                if ext == 0 or ext % g["unroll"] == 0:
                    calls.append(("unroll", (yv,) if ext == g["unroll"] else (yv, g["unroll"])))
            if g["par"] and c == "root" and order:
                calls.append(("parallel", (order[-1],)))
            plan += [(i, None, m, a) for m, a in calls]
            for j, (ug, (pure, rvs)) in enumerate(zip(g["updates"], info.updates)):
                ucalls = []
                if ug["rv_outer"] and pure and rvs:  # RVars by position: anonymous RDom names vary per build
                    ucalls.append(("reorder", tuple(pure) + tuple(("rvar", k) for k in range(len(rvs)))))
                if ug["vec"] and pure:
                    ucalls.append(("vectorize", (pure[0], ug["vec"])))
                if ug["par"] and c == "root" and len(pure) > 1:
                    ucalls.append(("parallel", (pure[-1],)))
                plan += [(i, j, m, a) for m, a in ucalls]
        return plan


def plan_key(plan: list) -> str:
    return repr([(fi, ui, m, tuple(a)) for fi, ui, m, a in plan])


# ------------------------------------------------------------------------------------------------ code


def _ident(name: str) -> str:
    s = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    return s if s and not s[0].isdigit() else "_" + s


def _var_code(name: str) -> str:
    return name.replace("$", ".") if "$" in name else _ident(name)


def plan_code(infos: list[FuncInfo], plan: list, hl_name: str = "hl") -> str:
    """Readable Python for a plan, chained per Func, with ``tile`` where a plan's calls amount to one."""
    known = {v for i in infos for v in i.vars}
    new_vars: list[str] = []
    lines: list[str] = []
    groups: list[tuple] = []
    for fi, ui, m, a in plan:
        if groups and groups[-1][0] == (fi, ui):
            groups[-1][1].append((m, a))
        else:
            groups.append(((fi, ui), [(m, a)]))

    def arg(x):
        if isinstance(x, (tuple, list)) and x and x[0] == "func":
            return _ident(infos[x[1]].name)
        if isinstance(x, (tuple, list)) and x and x[0] == "rvar":
            return _var_code(infos[fi].updates[ui][1][x[1]])
        if isinstance(x, str):
            if "$" not in x and x not in known and x not in new_vars:
                new_vars.append(x)
            return _var_code(x)
        return repr(x)

    for (fi, ui), calls in groups:
        parts = []
        k = 0
        while k < len(calls):
            m, a = calls[k]
            if (
                m == "split"
                and k + 2 < len(calls)
                and calls[k + 1][0] == "split"
                and calls[k + 2][0] == "reorder"
                and calls[k + 2][1][:4] == (a[2], calls[k + 1][1][2], a[1], calls[k + 1][1][1])
                and len(calls[k + 2][1]) == 4
            ):
                b = calls[k + 1][1]
                parts.append(f"tile({', '.join(arg(v) for v in (a[0], b[0], a[1], b[1], a[2], b[2]))}, {a[3]}, {b[3]})")
                k += 3
                continue
            parts.append(f"{m}({', '.join(arg(v) for v in a)})")
            k += 1
        head = _ident(infos[fi].name) + ("" if ui is None else f".update({ui})")
        lines.append(head + "." + ".".join(parts))
    decl = []
    if new_vars:
        decl.append(
            f"{', '.join(_ident(v) for v in new_vars)} = {', '.join(f'{hl_name}.Var({v!r})' for v in new_vars)}"
        )
    inline = [
        _ident(i.name)
        for i in infos
        if not i.is_output
        and not any(p[0] == i.index and p[1] is None and p[2] in ("compute_root", "compute_at") for p in plan)
        and not i.updates
    ]
    if inline:
        decl.append(f"# inlined: {', '.join(inline)}")
    return "\n".join(decl + lines) + "\n"
