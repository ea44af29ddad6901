"""Which of a consumer's loops the payload spells out itself, for compute_at with exact producer bounds.

``fuse_into_containing_op`` fuses one producer tile per *use* inside the loop; a consumer reading three taps of its
producer would get three overlapping tiles (docs/mlir-pitfalls.md#fuse-once-per-use). So for a consumer with
producers computed at its loops, the payload emits the loops down to the deepest compute_at level itself, and
inside each level reads each producer through ONE slice covering all the taps of that level's iterations (bounds
inference over the tile). Inner loops are still made by the transform script.

Producers come in two kinds (consumers first, as bounds inference goes):

* *viewed*: a producer that reads no other producer computed at these loops (unsharp's gray), or that
  can't be computed in them (it has update definitions, or a reader outside them), keeps its generic(s)
  outside the loops; the payload takes one slice of it per level (the union of what its readers
  there need) and the script fuses it into the loop with ``fuse_into_containing_op``: a single use, so one
  tile with exactly Halide's bounds.
* *computed*: a producer reading other producers of these loops (unsharp's blur_y and ratio) would be
  fused by the script into the loop first, and the producers it reads would then have one use per tap of
  its fused copy, which the payload cannot shape. So the payload computes its tile itself at its level,
  reading its producers through their slices (views) there; the script only applies its schedule.

*Sliding windows*: a producer stored outside the serial loop it is computed at (``store_at(c, yo)
.compute_at(c, yi)``, ``store_root()``), whose tile moves along that loop's dimension by less than its
extent, keeps what earlier iterations computed, as Halide's sliding window does: the payload computes the
rows the first iteration needs but does not compute itself just before the loop ("warm-up"), then in each
iteration only the rows no earlier iteration computed, into one buffer carried through the loop, and the
consumer reads its window of that buffer. A chain of such producers (Harris's gray -> Ix) slides together. Every
tile has a static shape. Where it can, the buffer is folded to the rows in flight (analysis/folding.py), else it
spans the whole loop. A window that can't slide here (scaled reads, below) is computed once per iteration of its
storage loop instead, over every row the loops inside need (``_unslid_windows``).

*Scaled reads* (``f[x / 2]``, ``f[2 * x + 1]``, Span.num/den): the tile is bounds inference's interval, its start
computed per iteration and clamped into the producer's region, its extent the largest any start gives. Such a
producer is computed (a tile of its own: the consumer gathers from it, codegen/divided_gathers.py, or reads it
through a strided slice). Stages computed at a loop of a computed producer that read such tiles (camera_pipe's
demosaiced at curved's x) are computed at that producer's level too (tile_plan).

Where a producer is read by a Func outside the payload loops or not through slices, it falls back to plain
fusion (one copy per tap). Tiles use Halide's ShiftInwards: the last tile of a dimension is shifted back
inside the region rather than made smaller, so every tile has a static shape (pure Funcs give the same
values either way).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import warnings
from dataclasses import dataclass, field, replace

from ..lang.traversal import walk
from .affine import affine_form, lut_forms, scaled_forms, slice_forms
from .folding import fold_windows
from .pyramid import plan_pyramids, windows as pyramid_windows
from .scan_tiles import whole_dim_reads, whole_dims
from ..error import InternalError, StorageWarning
from ..lang.schedule import LoopKind
from .loop_nest import Loop, serialize_nested_parallel, stage_loops, vector_block
from .pipeline import as_generic

if TYPE_CHECKING:  # annotations only
    from ..lang.func import Func
    from .bounds import Bounded
    from .pipeline import Stage


@dataclass(frozen=True)
class Level:
    loop: Loop
    trip: int  # iterations of this loop
    parent_size: int  # elements of the loop's dimension covered by one iteration of the enclosing level
    size: int  # elements covered by one iteration of this loop (static, ShiftInwards)
    collapsed: bool = False  # runs in one scf.forall with the next level (nested parallel loops, loop_nest.py)


@dataclass(frozen=True)
class Span:
    """What one dimension of a producer's tile covers: the consumer tile's dimension ``dim`` from its start
    + ``lo`` to its end + ``hi``; or, when ``dim`` is None, the fixed coordinates ``lo`` to ``hi``. A scaled span
    (``num``/``den`` not 1, reads like ``f[2 * x]`` or ``f[x / 2]``) covers ``(num * start + lo) / den`` to
    ``(num * end + hi) / den`` (flooring), start and end the consumer tile's absolute coordinates: bounds
    inference's interval; its tiles have the largest extent any start gives (``extent``), each start clamped
    into the producer's region (codegen/tiled.py)."""

    dim: int | None
    lo: int
    hi: int
    num: int = 1
    den: int = 1

    @property
    def scaled(self) -> bool:
        return self.dim is not None and (self.num, self.den) != (1, 1)

    def extent(self, size: int) -> int:
        """Its elements for a consumer tile of ``size`` (the most over every alignment of the start)."""
        return -(-(self.num * (size - 1) + self.hi - self.lo) // self.den) + 1


@dataclass(frozen=True)
class Slide:
    """A producer's sliding window over payload level ``level``: its Halide dim ``dim`` follows the loop's
    dimension; each iteration's window is ``extent`` wide and moves by ``step`` (< extent)."""

    level: int
    dim: int
    extent: int
    step: int
    fold: int | None = None  # rows of its circular buffer (analysis/folding.py); None: the buffer spans the loop

    @property
    def warm_up(self) -> int:
        """Rows computed before the loop: the first window minus what its iteration computes."""
        return self.extent - self.step


@dataclass
class TilePlan:
    region: object  # the consumer's Region
    levels: list  # Level per payload loop, outermost first
    producers: dict  # level index -> [producer Stage] computed there, in realization order
    computed: set  # the producer Funcs whose tiles the payload computes (codegen/tiled.py)
    viewed: set  # the producer Funcs read through one slice per level and fused by the script
    spans: dict  # Func -> Span per dim of its tile, for computed and viewed producers
    tile_sizes: tuple  # per Halide dim: the tile the consumer's generic inside the innermost level computes
    loops: list  # all the consumer's loops (nested parallel loops collapsed or serial)
    slides: dict  # Func -> Slide, for the computed producers with a sliding window
    pyramids: dict = field(default_factory=dict)  # Func -> Pyramid (analysis/pyramid.py), computed row by row
    bounds: dict = None  # Func -> (mins, extents) of its whole region, for producers with scaled spans
    gpu: object = None  # analysis/gpu.py's GpuTiling when the loops are a GPU kernel's blocks and threads
    spelled: int = 0  # how many of the stage's loops the levels stand for (a fused parallel loop is one)

    def sizes_at(self, level: int) -> list:
        """The consumer's tile extents inside payload level ``level`` (per Halide dim)."""
        sizes = list(self.region.extents)
        for lev in self.levels[: level + 1]:
            sizes[lev.loop.dim] = lev.size
        return sizes

    def level_of(self, func: Func) -> int:
        return next(li for li, prods in self.producers.items() if any(p.func is func for p in prods))

    def producer_tile(self, func: Func) -> tuple[tuple, tuple]:
        """(mins, extents) of one tile of a computed or viewed producer, per Halide dim; where a span follows
        a consumer dim, the min is relative to that dim's tile start (the loop offsets are added at run time)."""
        sizes = self.sizes_at(self.level_of(func))
        mins, extents = [], []
        for s in self.spans[func]:
            if s.dim is None:
                mins.append(s.lo)
                extents.append(s.hi - s.lo + 1)
            elif s.scaled:  # the start is computed per iteration (scaled_start); its extent is static
                mins.append(0)
                extents.append(min(s.extent(sizes[s.dim]), self.bounds[func][1][len(extents)]))
            else:
                mins.append(self.region.mins[s.dim] + s.lo)
                extents.append(sizes[s.dim] + s.hi - s.lo)
        return tuple(mins), tuple(extents)

    def scaled_start(self, func: Func, j: int) -> tuple:
        """How dim ``j`` of a scaled span's tile starts: (num, lo + num * the consumer region's min, den, lowest,
        highest): ``clamp((num * offset + that) / den, lowest, highest)``, offset the consumer tile's start
        relative to its region; clamped so the tile lies inside the producer's region, as ShiftInwards does."""
        s = self.spans[func][j]
        _, extents = self.producer_tile(func)
        (pmins, pextents) = self.bounds[func]
        return s.num, s.lo + s.num * self.region.mins[s.dim], s.den, pmins[j], pmins[j] + pextents[j] - extents[j]

    def computed_tile(self, func: Func) -> tuple[tuple, tuple]:
        """(mins, extents) of what one iteration computes: the tile, or a sliding window's new rows (a pyramid
        window's: one row, computed as often as needed)."""
        if func in self.pyramids:
            return self.pyramids[func].row()
        mins, extents = self.producer_tile(func)
        slide = self.slides.get(func)
        if slide is None:
            return mins, extents
        mins, extents = list(mins), list(extents)
        mins[slide.dim] += slide.warm_up
        extents[slide.dim] = slide.step
        return tuple(mins), tuple(extents)


def slice_reads(bounded: Bounded, stage: Stage, func: Func) -> list | None:
    """The coordinates of every read of ``func`` in ``stage``'s pure definition as linear forms (Var or None,
    constant), or None if some read is not a slice (Vars plus constants, each Var at most once)."""
    reads = []
    for n in (m for v in bounded.bodies[stage.func] for m in walk(v)):
        if n.kind != "call" or n.value is not func:
            continue
        forms = slice_forms(n)
        if forms is None:
            return None
        reads.append(forms)
    return reads


def scaled_reads(bounded: Bounded, stage: Stage, func: Func) -> list | None:
    """Every read of ``func`` in ``stage``'s pure definition as (Var or None, a, c, d): ``(a * var + c) / d``;
    None if some read is not of that form."""
    reads = []
    for n in (m for v in bounded.bodies[stage.func] for m in walk(v)):
        if n.kind != "call" or n.value is not func:
            continue
        forms = scaled_forms(n)
        if forms is None:
            return None
        reads.append(forms)
    return reads


def _read_span(r: Span, a: int, c: int, d: int) -> Span | None:
    """The span of coordinates ``(a * u + c) / d`` for ``u`` in reader span ``r``."""
    if r.dim is None:
        return Span(None, (a * r.lo + c) // d, (a * r.hi + c) // d)
    if r.den == 1:
        return Span(r.dim, a * r.lo + c, a * r.hi + c, a * r.num, d)
    if a == 1:  # (q / den + c) / d is (q + c * den) / (den * d) exactly (interpolate's pyramid)
        return Span(r.dim, r.lo + c * r.den, r.hi + c * r.den, r.num, r.den * d)
    # a * (q / den) + c lies in [(a * q - a * (den - 1)) / den + c, a * q / den + c]: a span at most a - 1 wider
    # (camera_pipe's denoised[2 * x], x in deinterleaved's tile, itself read at x / 2)
    return Span(r.dim, a * r.lo - a * (r.den - 1) + c * r.den, a * r.hi + c * r.den, a * r.num, r.den * d)


def _union_spans(spans: list | None, reader, reader_spans, reads, fixed) -> list | None:
    """Grow a producer's spans by a reader's slice reads (None when a dimension would follow two consumer
    dimensions, or a tiled consumer dimension and fixed coordinates: no static tile shape). ``fixed`` maps the
    consumer dims no payload loop tiles to their (min, max): a span following one of those is fixed coordinates
    too, so it can merge with constant reads (nl_means reads ``f[x, y, c]`` and ``f[x, y, 3]``: one tile)."""
    for forms in reads:
        spans = spans or [None] * len(forms)
        for j, (v, k, c, d) in enumerate(forms):
            if v is None:
                s = Span(None, c // d, c // d)
            else:
                s = _read_span(reader_spans[reader.vars.index(v)], k, c, d)
                if s is None:
                    return None
            a = spans[j]
            if a is not None and (a.dim != s.dim or (a.num, a.den) != (s.num, s.den)):
                a, s = _fixed_span(a, fixed), _fixed_span(s, fixed)
                if a.dim is not None or s.dim is not None:
                    return None  # two consumer dims, or two scales of one (a tile growing with the loop)
            spans[j] = s if a is None else Span(s.dim, min(a.lo, s.lo), max(a.hi, s.hi), s.num, s.den)
    return spans


def _fixed_span(s: Span, fixed: dict) -> Span:
    """A span following an untiled consumer dim as the fixed coordinates it covers (else unchanged)."""
    if s.dim is None or s.dim not in fixed:
        return s
    lo, hi = fixed[s.dim]
    return Span(None, (s.num * lo + s.lo) // s.den, (s.num * hi + s.hi) // s.den)


def tile_plan(bounded: Bounded, stage: Stage) -> TilePlan | None:
    """The payload loops of ``stage`` and how its producers are computed in them (module docstring). Stages
    computed at a loop of a producer computed here (camera_pipe's demosaiced at curved's x, curved at the strip
    loop) are computed by the payload at that producer's level too, before it (the script then fuses them into
    its loop), where one of them reads a producer of these loops: else it could only read that producer's
    tile through plain fusion. Only if that makes them and the producers they are computed in ``computed``."""
    p = bounded.pipeline
    if stage.updates:
        return None
    if stage.func is not p.output and stage.compute.at_loop():
        return None  # a consumer that is itself fused somewhere stays one generic
    level_var = {
        s.func: s.compute.var
        for s in p.stages
        if s.compute.at_loop() and s.func is not p.output and s.compute.func is stage.func
    }
    nested = {}
    for s in reversed(p.stages):  # consumers first: a stage's loop is placed before its producers
        if s.compute.at_loop() and s.func not in level_var and s.compute.func in (level_var.keys() | nested.keys()):
            nested[s.func] = s.compute.func
            level_var[s.func] = level_var[s.compute.func]
    plan = _nested_tile_plan(bounded, stage, level_var, nested)
    hoisted = _unslid_windows(plan, stage) if plan is not None else {}
    if not hoisted:
        return plan
    # the windows that can't slide are computed once at their storage level, and with them the stages
    # computed at their loops (nested, consumers first)
    moved = {**level_var, **hoisted}
    for f, c in nested.items():
        moved[f] = moved[c]
    again = _nested_tile_plan(bounded, stage, moved, nested)
    if again is None or not all(f in again.computed for f in hoisted):
        return plan
    _warn_unfolded(stage, hoisted)
    return again


def _nested_tile_plan(bounded: Bounded, stage: Stage, level_var: dict, nested: dict) -> TilePlan | None:
    reads_direct = any(
        n.kind == "call" and n.value in level_var and n.value not in nested
        for f in nested
        for v in bounded.bodies[f]
        for n in walk(v)
    )
    if reads_direct:
        plan = _tile_plan(bounded, stage, level_var)
        if plan is not None and all(f in plan.computed and c in plan.computed for f, c in nested.items()):
            return plan
    return _tile_plan(bounded, stage, {f: v for f, v in level_var.items() if f not in nested})


def _unslid_windows(plan: TilePlan, stage: Stage) -> dict:
    """Func -> the payload loop to compute it at instead: the producers stored at a loop outside the serial
    loop they are computed at (``store_at(c, yo).compute_at(c, yi)``) whose window can't slide in the payload
    (_slide: a tile read at ``2 * y`` or ``y / 2``, or one reading such tiles: camera_pipe's denoised,
    deinterleaved, g_r, g_b and curved). Recomputed per iteration, each row would be computed as many times as
    windows overlap (camera_pipe: 2 to 5 times; 3x Halide's time); Halide's sliding window computes each row
    once, as computing them at the storage level does, over the rows all iterations need, in the buffer the
    storage level holds anyway. The loops in between must be serial, as for Halide's sliding window."""
    names = [lev.loop.name for lev in plan.levels]
    out = {}
    for li, prods in plan.producers.items():
        for prod in prods:
            f = prod.func
            store = f.schedule().store
            if f not in plan.computed or f in plan.slides or f in plan.pyramids or store is None:
                continue
            if not store.at_loop() or store.func is not stage.func or store.var not in names:
                continue
            ls = names.index(store.var)
            between = plan.levels[ls + 1 : li + 1]
            if (
                ls < li
                and plan.levels[li].trip > 1
                and all(lev.loop.kind == LoopKind.SERIAL and not lev.collapsed for lev in between)
            ):
                out[f] = store.var
    return out


def _warn_unfolded(stage: Stage, hoisted: dict) -> None:
    """A fold_storage of a window computed at its storage level is not applied (its buffer spans the loop)."""
    for f, var in hoisted.items():
        for dim, fold in f.schedule().folds.items():
            warnings.warn(
                f"{fold.site}: Func '{f.name()}': fold_storage({dim}, {fold.factor}) is not applied: its window "
                f"can't slide along {stage.name}'s loops, so it is computed once per iteration of {var}, where it "
                "is stored; its buffer spans that loop (same values, more memory)",
                StorageWarning,
                stacklevel=2,
            )


def _tile_plan(bounded: Bounded, stage: Stage, level_var: dict) -> TilePlan | None:
    """tile_plan with the producers ``level_var`` names, each computed at the consumer's loop it maps to."""
    p = bounded.pipeline
    producers = [s for s in p.stages if s.func in level_var]
    if not producers:
        return None
    if len(bounded.bodies[stage.func]) > 1 or any(len(bounded.bodies[prod.func]) > 1 for prod in producers):
        return None  # Tuple-valued Funcs keep the plain compute_at path
    direct = [
        prod
        for prod in producers
        if any(n.kind == "call" and n.value is prod.func for n in walk(bounded.bodies[stage.func][0]))
    ]
    if not direct:
        return None
    region = bounded.region(stage.func)
    at_loops = {
        lv.var
        for s in p.stages
        for lv in (s.compute, s.func.schedule().store)
        if lv is not None and lv.at_loop() and lv.func is stage.func
    }
    loops = serialize_nested_parallel(
        stage_loops(stage.name, stage.vars, region.extents, stage.directives), False, at_loops
    )
    names = [l.name for l in loops]
    depth = max(names.index(level_var[prod.func]) for prod in producers)
    spelled = depth + 1  # the stage's loops the payload spells out (a fused parallel loop is one of them)
    loops = _unfuse_parallel(loops[:spelled]) + loops[spelled:]
    names = [l.name for l in loops]
    depth = max(names.index(level_var[prod.func]) for prod in producers)
    vec = [l for l in loops if l.kind == LoopKind.VECTORIZED]
    if any(
        len(l.parts) > 1
        or l.kind == LoopKind.VECTORIZED
        or any(l.dim == d and l.stride < s for v in vec for d, s in v.parts)
        for l in loops[: depth + 1]
    ):
        return None  # (the loops finer than a vectorized one become its lanes: codegen/transform.py)
    sizes = list(region.extents)
    levels = []
    for i, l in enumerate(loops[: depth + 1]):
        parent = sizes[l.dim]
        size = min(l.stride, parent)
        collapsed = l.kind == LoopKind.PARALLEL and i < depth and loops[i + 1].kind == LoopKind.PARALLEL
        levels.append(Level(l, -(-parent // l.stride), parent, size, collapsed))
        sizes[l.dim] = size
    # consumer dims no payload loop tiles: spans along them are fixed coordinates (_union_spans)
    tiled = {lev.loop.dim for lev in levels}
    fixed = {d: (m, m + e - 1) for d, (m, e) in enumerate(zip(region.mins, region.extents)) if d not in tiled}
    spans = {stage.func: [Span(d, 0, 0) for d in range(len(stage.vars))]}
    readers = {stage.func: stage}  # the stages whose reads happen inside the payload loops
    computed, viewed = set(), set()
    at_funcs = {prod.func for prod in producers}
    for prod in reversed(producers):  # consumers before producers
        s, gathered = [], False
        for c in (c for c in prod.consumers if c.func in readers):
            reads = scaled_reads(bounded, c, prod.func)
            if reads is None and not bounded.updates[c.func] and not bounded.updates[prod.func]:
                reads = lut_reads(bounded, c, prod.func)  # a tile of its own, read through gathers
                gathered = gathered or reads is not None
            if reads is None and not all(as_generic(prod, u) for u in bounded.updates[prod.func]):
                # a scan's tile holds its whole region along the dims its updates write at RVars: read anyhow there
                reads = whole_dim_reads(bounded.bodies[c.func], prod.func, whole_dims(prod), bounded.region(prod.func))
            if reads is not None and bounded.updates[c.func]:
                more = update_reads(bounded, c, prod.func)
                reads = None if more is None else reads + more
            gathered = gathered or any(a > 1 or d > 1 for forms in reads or [] for _, a, _, d in forms)
            s = None if reads is None else _union_spans(s, c, spans[c.func], reads, fixed)
            if s is None:
                break
        if not s:
            continue  # plain fusion
        explicit = not all(as_generic(prod, u) for u in bounded.updates[prod.func])
        if explicit:  # a scatter or scan: computed here or not at all (placement.py sends it to the root)
            s = _explicit_update_spans(bounded, prod, s, gathered, readers)
            if s is None:
                continue
            spans[prod.func] = s
            computed.add(prod.func)
            readers[prod.func] = prod
            continue
        spans[prod.func] = s
        reads_at_loops = any(
            n.kind == "call" and n.value in at_funcs and n.value is not prod.func
            for v in [*bounded.bodies[prod.func], *(e for u in bounded.updates[prod.func] for e in u.exprs())]
            for n in walk(v)
        )
        # a tile read through gathers is computed by the payload into a tensor of its own: the vectorizer
        # linearizes a gather over the tensor's static shape, wrong for a slice of the whole producer; and
        # fuse_into_containing_op can't fuse a producer into a strided slice. A Func with reduction updates
        # reading producers of these loops (nl_means's sum over the search window, reading blur_d) is
        # computed too: its generics over the tile, in the payload (codegen/tiled.py), reading their tiles
        if (
            (reads_at_loops or gathered)
            and (
                not bounded.updates[prod.func]
                or (reads_at_loops and not gathered and _tiled_updates(bounded, prod, at_funcs))
            )
            and all(c.func in readers for c in prod.consumers)
        ):
            computed.add(prod.func)
            readers[prod.func] = prod
        else:
            viewed.add(prod.func)
    at = {}
    for prod in producers:
        at.setdefault(names.index(level_var[prod.func]), []).append(prod)
    slides = {}
    for prod in (s for s in producers if s.compute.func is stage.func):  # producers first: a window may be
        # computed from other windows of the same loop
        slide = _slide(bounded, stage, prod, levels, names.index(level_var[prod.func]), spans.get(prod.func), readers)
        if slide is None:
            continue
        reads = {
            n.value
            for v in bounded.bodies[prod.func]
            for n in walk(v)
            if n.kind == "call" and n.value in at_loops and n.value is not prod.func
        }
        if prod.func in viewed or all(r in slides and slides[r].level == slide.level for r in reads):
            slides[prod.func] = slide
            viewed.discard(prod.func)
            computed.add(prod.func)  # the payload computes its warm-up and its new rows
    slides = fold_windows(stage, producers, levels, slides)
    pyramids = _pyramids(bounded, stage, levels, names, region)
    computed |= set(pyramids)
    return TilePlan(
        region,
        levels,
        at,
        computed,
        viewed,
        {k: tuple(v) for k, v in spans.items() if k in computed | viewed},
        tuple(sizes),
        loops,
        slides,
        pyramids,
        bounds={
            k: (bounded.region(k).mins, bounded.region(k).extents)
            for k, v in spans.items()
            if k in computed | viewed and any(s.scaled for s in v)
        },
        spelled=spelled,
    )


def lut_reads(bounded: Bounded, stage: Stage, func: Func) -> list | None:
    """The reads of ``func`` in ``stage``'s pure definition as scaled_reads' forms, where some coordinates are
    data dependent (affine.py lut_forms): along those the tile is the producer's whole region (Halide's bounds
    of a coordinate it can't bound but by the region), given as two reads, its first and its last point. None if
    a read is of neither form."""
    region = bounded.region(func)
    reads = []
    for n in (m for v in bounded.bodies[stage.func] for m in walk(v)):
        if n.kind != "call" or n.value is not func:
            continue
        forms = scaled_forms(n) or lut_forms(n)
        if forms is None:
            return None
        if None not in forms:
            reads.append(forms)
            continue
        first = [f or (None, 1, region.mins[j], 1) for j, f in enumerate(forms)]
        last = [f or (None, 1, region.mins[j] + region.extents[j] - 1, 1) for j, f in enumerate(forms)]
        reads += [first, last]
    return reads


def update_reads(bounded: Bounded, stage: Stage, func: Func) -> list | None:
    """The reads of ``func`` in ``stage``'s reduction updates as scaled_reads' forms: a coordinate ``v + rv + c``
    (a pure Var, plus RVars with positive coefficients, plus a constant) covers ``v + c`` plus the RVars' range,
    given as two reads, its first and its last point (_union_spans takes their union). None if a read is not of
    that form (codegen/updates.py reads it through a slice of the producer's tile only then)."""
    reads = []
    for u in bounded.updates[stage.func]:
        rng = {r.name(): bounded.rvar_range(r) for r in u.rvars}
        dims = {v: v for v in stage.vars} | {r: r for r in rng}
        for n in (m for e in [*u.values, *u.predicates] for m in walk(e)):
            if n.kind != "call" or n.value is not func:
                continue
            lo, hi = [], []
            for a in n.args:
                form = affine_form(a, dims, dict.fromkeys(dims, 0))
                if form is None or any(m.kind == "call" for m in walk(a)):
                    return None
                coef, c = form
                pure = [d for d, k in coef.items() if k and d in stage.vars]
                if len(pure) > 1 or any(coef[d] != 1 for d in pure) or any(coef[d] < 0 for d in coef if d in rng):
                    return None
                v = pure[0] if pure else None
                lo.append((v, 1, c + sum(k * rng[d][0] for d, k in coef.items() if d in rng), 1))
                hi.append((v, 1, c + sum(k * (rng[d][0] + rng[d][1] - 1) for d, k in coef.items() if d in rng), 1))
            reads += [lo, hi]
    return reads


def _tiled_updates(bounded: Bounded, prod: Stage, at_funcs: set) -> bool:
    """Can the payload compute ``prod``'s updates over a tile (codegen/updates.py emit_reduction, tile=): one
    value, reduction updates (generics) reading the producers of these loops at affine coordinates (through
    slices of their tiles: update_reads' form)."""
    if len(bounded.bodies[prod.func]) != 1 or not all(as_generic(prod, u) for u in bounded.updates[prod.func]):
        return False
    if not all(update_reads(bounded, prod, f) is not None for f in at_funcs if f is not prod.func):
        return False
    for u in bounded.updates[prod.func]:  # other reads: slices or tensor.extracts, not a negative coefficient
        dims = {v: v for v in prod.vars} | {r.name(): r.name() for r in u.rvars}
        for n in (m for e in [*u.values, *u.predicates] for m in walk(e)):
            if n.kind != "call" or n.value is prod.func or any(m.kind == "call" for a in n.args for m in walk(a)):
                continue
            forms = [affine_form(a, dims, dict.fromkeys(dims, 0)) for a in n.args]
            for coef, _ in (f for f in forms if f is not None) if None not in forms else ():
                used = [k for k in coef.values() if k]
                if used != [1] and any(k < 0 for k in used):
                    return False
    return True


def _explicit_update_spans(bounded, prod, spans, gathered, readers) -> list | None:
    """The tile of a Func with explicit-loop updates (a scatter, a scan) computed by these loops, or None: its
    pure definition over the tile, then each update's loops over the tile's pure coordinates (Halide's
    per-iteration computation). A dim an update writes at other than its pure Var (``h[x, y, zi, c]``: z, data
    dependent; a scan's RVar) is the Func's whole region along it, which holds every point the update writes
    (bounds.py) and every point the consumer reads in any iteration: Halide's box is the union of the two, per
    iteration."""
    if gathered or not all(c.func in readers for c in prod.consumers):
        return None
    region = bounded.region(prod.func)
    spans = list(spans)
    for u in bounded.updates[prod.func]:
        for j, a in ((j, a) for args in (u.args, *(sa for sa, _ in u.stores)) for j, a in enumerate(args)):
            if a.kind == "var" and a.value.name() == prod.vars[j]:
                continue
            lo, hi = region.mins[j], region.mins[j] + region.extents[j] - 1
            if spans[j].dim is None:
                lo, hi = min(lo, spans[j].lo), max(hi, spans[j].hi)
            spans[j] = Span(None, lo, hi)
    return spans


def _pyramids(bounded, stage, levels, names, region) -> dict:
    """The pyramid windows computed at these loops (analysis/pyramid.py), with their folds."""
    found = {
        f: w
        for f, w in pyramid_windows(bounded.pipeline, lambda s: bounded.bodies[s.func]).items()
        if w[0].func is stage.func
    }
    out = {}
    for li in sorted({names.index(bounded.pipeline.stage(f).compute.var) for f in found}):
        group = {f: w for f, w in found.items() if names.index(bounded.pipeline.stage(f).compute.var) == li}
        planned = plan_pyramids(group, levels, li, region, {f: bounded.region(f) for f in group}, stage.name)
        if not planned:
            raise InternalError(
                f"Func '{stage.name}': the pyramid windows {sorted(f.name() for f in group)} computed at its loop "
                f"{levels[li].loop.name} read rows outside their regions or not in order",
                stage="plan",
            )
        out.update(planned)
    return out


def _unfuse_parallel(loops: list) -> list:
    """A fuse()d parallel loop (stencil_chain's ``tile(...).fuse(xo, yo, t).parallel(t)``) as one loop per part,
    outer first, each parallel: the payload runs them as one collapsed forall (Level.collapsed), which visits the
    same tiles as the fused loop; the innermost keeps the fused loop's name (compute_at/store_at refer to it).
    Without this the consumer would fall back to plain fusion, one producer copy per tap, per level of a chain."""
    out = []
    for l in loops:
        exts = l.part_extents
        dims = [d for d, _ in l.parts]
        if l.kind != LoopKind.PARALLEL or len(l.parts) < 2 or len(exts) != len(l.parts) or None in exts:
            out.append(l)
            continue
        if len(set(dims)) != len(dims):
            out.append(l)
            continue
        for k, (part, e) in enumerate(zip(l.parts, exts)):
            last = k == len(l.parts) - 1
            name = l.name if last else f"{l.name}$part{k}"
            out.append(replace(l, name=name, parts=(part,), extent=e, part_extents=()))
    return out


def _slide(bounded, stage, prod, levels, li, spans, readers) -> Slide | None:
    """Halide's sliding window, where the payload can keep it (see the module docstring): a pure producer
    read only inside these loops, reading nothing computed in them, stored outside the serial loop it is
    computed at, along a dimension its own schedule leaves as one plain loop (not x, which is vectorized).
    It may read other sliding windows of the same loop (Harris's Ix reads gray): with every window a uniform
    translation of the loop's offset, the new rows of a reader need exactly up to the last (new) rows of the
    windows it reads, and its warm-up exactly their warm-ups (tile_plan checks that)."""
    store = prod.func.schedule().store
    if store is None or spans is None or bounded.updates[prod.func] or any(s.scaled for s in spans):
        return None
    names = [lev.loop.name for lev in levels]
    if store.at_loop() and store.func is stage.func and (store.var not in names or names.index(store.var) >= li):
        return None  # stored at the loop it is computed at (or inside it): nothing to keep
    if not all(c.func in readers for c in prod.consumers):
        return None
    lev = levels[li]
    if lev.loop.kind != LoopKind.SERIAL or lev.trip < 2:
        return None
    dims = [j for j, s in enumerate(spans) if s.dim == lev.loop.dim]
    if len(dims) != 1 or dims[0] == 0:
        return None
    j = dims[0]
    own = [
        l
        for l in stage_loops(prod.name, prod.vars, [1] * len(prod.vars), prod.directives)
        if any(d == j for d, _ in l.parts)
    ]
    if len(own) != 1 or own[0].parts != ((j, 1),) or own[0].kind not in (LoopKind.SERIAL, LoopKind.PARALLEL):
        return None
    extent = lev.size + spans[j].hi - spans[j].lo
    if extent <= lev.loop.stride:
        return None
    return Slide(li, j, extent, lev.loop.stride)


def slice_fused(bounded: Bounded, stage: Stage, consumer_loops: list) -> bool:
    """Is ``stage`` fused into a consumer's loop (not a tile plan's) and read there only through slices, by
    that consumer or by stages fused at the same loop? Then every fused copy (fuse_into_containing_op: the part
    one iteration reads) covers at most what the first full iteration does (computed_region): a tile plus
    constant halos. Its vectors then span that, not the whole region (camera_pipe's demosaiced, vectorize(x)
    at curved.x: 64 lanes, not 130, whose gathers took LLVM a minute)."""
    p = bounded.pipeline
    level = stage.compute
    if stage.func is p.output or not level.at_loop() or bounded.updates[stage.func]:
        return False
    names = [l.name for l in consumer_loops]
    if level.var not in names:
        return False
    vec = [i for i, l in enumerate(consumer_loops) if l.kind == LoopKind.VECTORIZED]
    if vec:  # computed at a vector's loop or a lane of it: the copy is at the loop around the block, larger
        _, lanes, _ = vector_block(consumer_loops, vec[0])
        if level.var in [consumer_loops[vec[0]].name, *(l.name for l in lanes)]:
            return False
    todo, seen = [stage], set()
    while todo:
        s = todo.pop()
        if id(s) in seen:
            continue
        seen.add(id(s))
        for c in s.consumers:
            if slice_reads(bounded, c, s.func) is None:
                return False
            if c.func is level.func:
                continue
            if not c.compute.at_loop() or c.compute.func is not level.func or c.compute.var != level.var:
                return False
            if bounded.updates[c.func]:
                return False
            todo.append(c)
    return True
