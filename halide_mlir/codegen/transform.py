"""The schedule → one ``transform.named_sequence @__transform_main`` that ``mlir-opt`` runs as it is.

A printer of the stage plans (analysis/plan.py): each definition's loop schedule (analysis/loop_schedule.py:
which loops are tiled and by what, the vector sizes) becomes ``tile_using_for``/``tile_using_forall`` ops
outermost first, ``fuse_into_containing_op`` for the producers computed at a loop, ``structured.vectorize`` with
explicit vector sizes, and the deferred unrolls (run on the bufferized IR by ``@halide_unroll``).
"""

from __future__ import annotations

import functools
import os
import re

from ..analysis.loop_nest import Loop
from ..analysis.loop_schedule import LoopSchedule, unroll_what
from ..analysis.plan import PipelinePlan, StagePlan
from ..error import HalideError, InternalError
from ..lang.schedule import DirectiveKind, LoopKind
from .mlir_text import loop_attr, mlir_string, update_loop_attr

HEADER = "module attributes {transform.with_named_sequence} {"
_LIBRARY_DIRS = [
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "transforms"),
    os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "transforms"),
]


@functools.lru_cache(maxsize=None)
def library_sequence(name: str) -> str:
    """The text of ``transform.named_sequence @name`` from the transform libraries."""
    for d in _LIBRARY_DIRS:
        if not os.path.isdir(d):
            continue
        for fname in sorted(os.listdir(d)):
            if not fname.endswith(".mlir"):
                continue
            with open(os.path.join(d, fname)) as f:
                text = f.read()
            m = re.search(r"^(\s*)transform\.named_sequence @" + re.escape(name) + r"\b.*?^\1\}\n", text, re.M | re.S)
            if m:
                return m.group(0)
    raise InternalError(f"transform library sequence @{name} not found in {_LIBRARY_DIRS}", stage="transform")


ANY = "!transform.any_op"
# the script's second entry point: the unrolls, run on the bufferized IR (runtime/jit.py bufferize)
UNROLL_SEQUENCE = "halide_unroll"


class ScriptBuilder:
    def __init__(self):
        self.lines: list[str] = []
        self.n = 0
        self.libraries: dict[str, str] = {}
        self.unrolls: list = []
        self.inputs: tuple = ()  # the pipeline's inputs, in argument order (tag_prefetches)
        self.prefetch_ids = 0
        self.unroll_lines: list[str] = []  # the body of UNROLL_SEQUENCE
        self.peels: list[str] = []  # loop handles whose partial last tile is peeled (loop_schedule.py _peel)
        self.loop_handles: dict = {}  # (stage, loop name) -> the loop a stage's tiling made

    def fresh(self, prefix="h") -> str:
        self.n += 1
        return f"%{prefix}{self.n}"

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def match_stage(self, name: str, update: int | None = None) -> str:
        """The pure definition's generic, or update ``update``'s."""
        h = self.fresh("stage" if update is None else "update")
        attrs = (
            f"hl.func = {mlir_string(name)}"
            if update is None
            else f"hl.update_of = {mlir_string(name)}, hl.update = {update} : i64"
        )
        self.emit(
            f'{h} = transform.structured.match ops{{["linalg.generic"]}} attributes '
            f"{{{attrs}}} in %root : ({ANY}) -> {ANY}"
        )
        return h

    def tile(self, op: str, sizes: list[int], parallel: bool, interchange=None) -> tuple[str, str]:
        """Tile ``op``; returns (tiled op, innermost new loop). Serial tiling makes one scf.for per non-zero
        size, nested in dimension order unless ``interchange`` says otherwise; parallel makes one scf.forall."""
        tiled, loop = self.fresh("tiled"), self.fresh("loop")
        sizes_txt = ", ".join(map(str, sizes))
        if parallel:
            self.emit(
                f"{tiled}, {loop} = transform.structured.tile_using_forall {op} tile_sizes [{sizes_txt}] "
                f": ({ANY}) -> ({ANY}, {ANY})"
            )
            return tiled, loop
        loops = [self.fresh("loop") for s in sizes if s]
        order = f" interchange = [{', '.join(map(str, interchange))}]" if interchange else ""
        self.emit(
            f"{tiled}, {', '.join(loops)} = transform.structured.tile_using_for {op} tile_sizes "
            f"[{sizes_txt}]{order} : ({ANY}) -> ({', '.join([ANY] * (len(loops) + 1))})"
        )
        return tiled, loops[-1]

    def unroll(self, loop: str, factor: int, what: str) -> None:
        """Deferred to the end of the script (see ``flush_unrolls``). ``what``: the loop for messages."""
        self.unrolls.append((loop, factor, what))

    def flush_unrolls(self) -> None:
        """Unrolling runs after bufferization: unrolled tensor IR (a chain of extract/insert slices per copy)
        made one-shot-bufferize most of the compile time (conv_layer: 200 of 330 ms; 40 ms unrolled after).
        The schedule only tags each loop with a unique ``hl.unroll`` id (attributes survive bufferization);
        ``@halide_unroll`` (UNROLL_SEQUENCE, same script; ``mlir-opt --one-shot-bufferize
        --transform-interpreter=entry-point=halide_unroll`` after the schedule) finds the loops by it and
        unrolls them, innermost first (they were recorded consumers-first, outer-first): unrolling clones a
        loop's body, so an outer loop goes after the loops inside it. A loop the clean-up proved to run once is
        folded away with its tag, as unrolling would have. Edge tiles have a dynamic trip count: unroll-by-
        factor adds the epilogue loop for them. Each loop also carries ``hl.unroll_of`` (the Func and loop)
        for runtime/jit.py's checks that it is unrolled as asked (a factor that is not the loop's trip count
        leaves it rolled, or partly: MLIR does not complain)."""
        for loop, factor, what in reversed(self.unrolls):
            k = len(self.unroll_lines) // 2
            param, found, desc = self.fresh("unroll"), self.fresh("loop"), self.fresh("unroll_of")
            self.emit(f"{param} = transform.param.constant {k} : i64 -> !transform.param<i64>")
            self.emit(f'transform.annotate {loop} "hl.unroll" = {param} : {ANY}, !transform.param<i64>')
            self.emit(f"{desc} = transform.param.constant {mlir_string(what)} -> !transform.any_param")
            self.emit(f'transform.annotate {loop} "hl.unroll_of" = {desc} : {ANY}, !transform.any_param')
            self.unroll_lines += [
                f'    {found} = transform.structured.match ops{{["scf.for"]}} attributes {{hl.unroll = {k} : i64}} '
                f"in %root : ({ANY}) -> {ANY}",
                f"    transform.loop.unroll {found} {{factor = {factor}}} : {ANY}",
            ]
        self.unrolls = []

    def flush_peels(self) -> None:
        """Peeled last, after every producer fused into the loop has its own schedule (tiled, vectorized) and
        the unrolls inside are tagged: the peeled tail is a clone of the loop body, schedule and tags included
        (a loop peeled earlier would leave the clone's producers unscheduled). The full tiles' ``affine.min``
        folds to the stride, so their shapes and masks become static (the clean-up's canonicalization)."""
        for loop in self.peels:
            cast, main, rest = self.fresh("for"), self.fresh("main"), self.fresh("tail")
            self.emit(f'{cast} = transform.cast {loop} : {ANY} to !transform.op<"scf.for">')
            self.emit(f'{main}, {rest} = transform.loop.peel {cast} : (!transform.op<"scf.for">) -> ({ANY}, {ANY})')
        self.peels = []

    def match_loop(self, stage_name: str, loop: Loop) -> str:
        """A loop the payload spelled out (codegen/tiled.py), by its ``hl.loop`` attribute."""
        h = self.fresh("loop")
        op = "scf.forall" if loop.kind == LoopKind.PARALLEL else "scf.for"
        self.emit(
            f'{h} = transform.structured.match ops{{["{op}"]}} attributes '
            f"{{{loop_attr(stage_name, loop.name)}}} "
            f"in %root : ({ANY}) -> {ANY}"
        )
        return h

    def merge_slices(self) -> None:
        f = self.fresh("fn")
        self.emit(f'{f} = transform.structured.match ops{{["func.func"]}} in %root : ({ANY}) -> {ANY}')
        self.emit(f"transform.apply_patterns to {f} {{")
        self.emit("  transform.apply_patterns.tensor.merge_consecutive_insert_extract_slice")
        self.emit(f"}} : {ANY}")

    def vectorize(self, op: str, sizes: list[int]) -> None:
        vs = f" vector_sizes [{', '.join(map(str, sizes))}]" if sizes else ""
        self.emit(f"transform.structured.vectorize {op}{vs} {{vectorize_nd_extract}} : {ANY}")

    def fold_unit_dims(self, op: str, loop: str | None) -> str:
        """Drop the unit dims of the (only) generic in ``loop`` (the innermost loop around ``op``); returns
        a handle to the folded generic. The patterns replace the op and drop its attributes, so it is matched
        again by kind inside the loop. Reshapes, not rank-reducing slices: MLIR 22.1.8 miscompiles with
        _via_slices (docs/mlir-pitfalls.md#fold-unit-dims-via-slices; LLVM makes the same register-tiled loop
        of either)."""
        if loop is None:
            loop = self.fresh("fn")
            self.emit(f'{loop} = transform.get_parent_op {op} {{op_name = "func.func"}} : ({ANY}) -> {ANY}')
        # one loop per fused copy of the producer (a Func read at two places is fused twice); apply_patterns
        # takes one op, so each in turn
        each, folded, found = self.fresh("each"), self.fresh("folded"), self.fresh("found")
        self.emit(f"{folded} = transform.foreach {loop} : {ANY} -> {ANY} {{")
        self.emit(f"^bb0({each}: {ANY}):")
        self.emit(f"  transform.apply_patterns to {each} {{")
        self.emit("    transform.apply_patterns.linalg.fold_unit_extent_dims_via_reshapes")
        self.emit(f"  }} : {ANY}")
        self.emit(f'  {found} = transform.structured.match ops{{["linalg.generic"]}} in {each} : ({ANY}) -> {ANY}')
        self.emit(f"  transform.yield {found} : {ANY}")
        self.emit("}")
        return folded

    def cleanup(self) -> None:
        f = self.fresh("fn")
        self.emit(f'{f} = transform.structured.match ops{{["func.func"]}} in %root : ({ANY}) -> {ANY}')
        self.include("halide_cleanup", f)

    def include(self, sequence: str, handle: str) -> None:
        """Call a named sequence from transforms/*.mlir; its text is copied into the script."""
        self.libraries[sequence] = library_sequence(sequence)
        self.emit(f"transform.include @{sequence} failures(propagate) ({handle}) : ({ANY}) -> ()")

    def text(self) -> str:
        body = "\n".join(self.lines)
        libs = "".join(self.libraries.values())
        after = ""
        if self.unroll_lines:
            after = (
                f"  transform.named_sequence @{UNROLL_SEQUENCE}(%root: {ANY} {{transform.readonly}}) {{\n"
                + "\n".join(self.unroll_lines)
                + "\n    transform.yield\n  }\n"
            )
        return (
            f"{HEADER}\n{libs}  transform.named_sequence @__transform_main(%root: {ANY} "
            f"{{transform.readonly}}) {{\n{body}\n    transform.yield\n  }}\n{after}}}\n"
        )


def schedule_stage(sb: ScriptBuilder, schedule: LoopSchedule, op: str | None, fuse_at, compound: bool = False) -> None:
    """Print a definition's loop schedule (analysis/loop_schedule.py): tile each loop, fuse the compute_at
    producers into theirs, vectorize, unroll.

    ``op`` is the definition's handle (None: match it by name); ``fuse_at(loop_name, loop_handle)`` fuses the
    producers computed at that loop and returns the (possibly replaced) loop handle.

    ``compound``: the op reads through sums of loop dims (``input[x + r.y]``, updates.py), which the
    vectorizer refuses (docs/mlir-pitfalls.md#offset-indexing-maps). Every loop but the vectorized one is
    materialized first, so each such sum is of unit dims (RVar loops tile their dim to 1): folding the unit
    dims away leaves projected permutations, and the folded op is vectorized over the dims that remain.
    """
    if not schedule.scheduled:
        return  # Halide's default: serial loops in dimension order, which linalg-to-loops produces
    if schedule.computed_before:
        fuse_at.computed_before(schedule.computed_before)
    op = op or sb.match_stage(schedule.name)
    unrolled, peeled = [], []
    last_loop = None
    # a compound update folds the unit dims of the generics in its innermost loop and vectorizes them: producers
    # fused into that loop itself (placement.py update_home) are fused after that, so the fold and the vectorizer
    # see only the update's op (the producers' copies are scheduled through their own handles afterwards).
    # Producers at outer loops are fused as usual, before the inner loops exist (their copies stay outside).
    tiled = [i for i, t in enumerate(schedule.loops) if t.tile_sizes is not None]
    innermost = tiled[-1] if tiled else None
    deferred = [] if compound and fuse_at.wanted() else None

    def fuse(i, name, loop, also):
        if deferred is None or innermost is None or i < innermost:
            return fuse_at(name, loop, also=also)
        deferred.append((name, loop, also))
        return loop

    for i, t in enumerate(schedule.loops):
        if t.tile_sizes is None:  # one iteration over the tile of a loop outside: its producers go there
            if last_loop is None:
                fuse_at.computed_before([t.loop.name, *t.also])
                continue
            loop = fuse(i, t.loop.name, last_loop, t.also)
            unrolled = [(loop if u == last_loop else u, *e) for u, *e in unrolled]  # (fusing replaces the loop)
            peeled = [loop if u == last_loop else u for u in peeled]
            last_loop = loop
            continue
        op, loop = sb.tile(op, list(t.tile_sizes), t.loop.kind == LoopKind.PARALLEL, t.interchange)
        loop = fuse(i, t.loop.name, loop, t.also)
        sb.loop_handles[(schedule.name, t.loop.name)] = loop  # (compute_with fuses it: fuse_siblings)
        last_loop = loop
        if t.loop.kind == LoopKind.UNROLLED:
            unrolled.append((loop, t.trip, t.unroll_what))
        if t.peel:
            peeled.append(loop)
    if deferred is None:
        fuse_at.check_done()
    if schedule.prefetches:
        tag_prefetches(sb, schedule)
    if schedule.vector_sizes is not None:
        sizes = list(schedule.vector_sizes)
        if compound:
            op = sb.fold_unit_dims(op, last_loop)
            sizes = [s for s in sizes if s != 1]
        if sizes or not compound:  # (a compound op vectorized over one lane, e.g. a split of a dim of extent 1,
            sb.vectorize(op, sizes)  # folds to a 0-d op, which the vectorizer refuses: it is its only lane)
    moved: dict = {}  # a loop handle the deferred fusions replaced -> the new one
    for name, loop, also in deferred or ():
        loop = moved.get(loop, loop)
        new = moved[loop] = fuse_at(name, loop, also=also)
        unrolled = [(new if u == loop else u, *e) for u, *e in unrolled]
        peeled = [new if u == loop else u for u in peeled]
        sb.loop_handles = {k: (new if v == loop else v) for k, v in sb.loop_handles.items()}
    if deferred is not None:
        fuse_at.check_done()
    # unroll last: the loop bodies are vector code by now, and inner tiling never replaced these loops
    for loop, extent, what in unrolled:
        sb.unroll(loop, extent, what)
    sb.peels += peeled


def tag_prefetches(sb: ScriptBuilder, schedule: LoopSchedule) -> None:
    """Each prefetch's ``at`` loop carries ``hl.prefetch`` ("id:input:offset:strategy", ';'-separated) and its
    ``from`` loop ``hl.prefetch_from_<id>``: codegen/prefetch.py emits the prefetches after bufferization."""
    at_loops: dict = {}
    for p in schedule.prefetches:
        k = sb.prefetch_ids = sb.prefetch_ids + 1
        arg = next(i for i, h in enumerate(sb.inputs) if h is p.holder)
        at_loops.setdefault(p.at, []).append(f"{k}:{arg}:{p.offset}:{p.strategy.value}")
        sb.emit(f'transform.annotate {sb.loop_handles[(schedule.name, p.from_)]} "hl.prefetch_from_{k}" : {ANY}')
    for at, entries in at_loops.items():
        desc = sb.fresh("prefetch")
        sb.emit(f"{desc} = transform.param.constant {mlir_string(';'.join(entries))} -> !transform.any_param")
        sb.emit(
            f'transform.annotate {sb.loop_handles[(schedule.name, at)]} "hl.prefetch" = {desc} : {ANY}, '
            f"!transform.any_param"
        )


class FuseAt:
    """compute_at: after the consumer's loop ``var`` exists, ``fuse_into_containing_op`` each producer
    computed there. The fused copies' handle is kept so the producer's own schedule applies to them."""

    def __init__(self, sb: ScriptBuilder, consumer: StagePlan, producers: list[StagePlan], fused: dict, loops=None):
        self.sb, self.consumer, self.producers, self.fused = sb, consumer, producers, fused
        # the consumer's loop names, outermost first (``loops``: an update's, for the producers computed in it)
        self.order = [l.name for l in (consumer.loops if loops is None else loops)]
        self.done: set = set()  # producer Funcs computed (fused, or before the consumer's loops)
        self.inside: dict = {}  # producer Func -> the loop handle its fused copies are in

    def wanted(self) -> bool:
        return bool(self.producers)

    def at(self, loop_name: str) -> bool:
        """Is some producer computed at this loop?"""
        return any(p.compute.var == loop_name for p in self.producers)

    def computed_before(self, loop_names) -> None:
        """The producers computed at these loops are computed before the consumer's loops (not fused)."""
        self.done |= {p.func for p in self.producers if p.compute.var in loop_names}

    def movers(self, loop_name: str, here: list) -> list:
        """The producers computed at loops inside ``loop_name`` that read, directly or through each other, one
        computed at it. fuse_into_containing_op fuses a producer where it is read inside the loop, so those
        readers are fused into this loop first (and into their own loops later): then the producers here
        have their uses inside it, and are computed once per iteration of it, as in Halide."""
        if loop_name not in self.order:
            return []
        depth = self.order.index(loop_name)
        deeper = [
            p
            for p in self.producers
            if p.func not in self.done
            and p not in here
            and p.compute.var in self.order
            and self.order.index(p.compute.var) > depth
        ]
        reached, movers = list(here), []
        grew = True
        while grew:
            grew = False
            for q in deeper:
                if q not in movers and any(c is q.stage for r in reached for c in r.stage.consumers):
                    movers.append(q)
                    reached.append(q)
                    grew = True
        return movers

    def __call__(self, loop_name: str, loop: str, views: set = frozenset(), also=()) -> str:
        """``views``: producers the payload already reads through one slice inside this loop; ``also``: loops
        that are not materialized (vector lanes), whose producers are computed in this one."""
        here = [p for p in self.producers if p.compute.var == loop_name or p.compute.var in also]
        movers = self.movers(loop_name, here)
        entered = loop
        moved = []
        for p in reversed(self.producers):  # consumers before the producers they read
            if p not in here and p not in movers:
                continue
            if self.inside.get(p.func) == entered:  # (moved in already, for a reader: see movers)
                self.done.add(p.func)
                moved.append(p)
                continue
            # a Func with updates is a chain of generics: fuse the last one, then the ones it reads
            for i in [*reversed(range(len(p.updates))), None]:
                key = (p.func, -1 if i is None else i)
                producer = self.fused.get(key) or self.sb.match_stage(p.name, i)
                if p.func not in views:
                    # the tap slices were taken outside the loop; folding them into the tile's slices puts
                    # the producer's uses inside the loop, where fuse_into_containing_op looks for them
                    # (one fused copy per tap: see analysis/tiling.py for the case that avoids this)
                    self.sb.merge_slices()
                fused, new_loop = self.sb.fresh("fused"), self.sb.fresh("loop")
                self.sb.emit(
                    f"{fused}, {new_loop} = transform.structured.fuse_into_containing_op {producer} into "
                    f"{loop} : ({ANY}, {ANY}) -> ({ANY}, {ANY})"
                )
                loop = new_loop
                self.fused[key] = fused
            moved.append(p)
            if p in here:
                self.done.add(p.func)
        for p in moved:
            self.inside[p.func] = loop
        return loop

    def check_done(self) -> None:
        for p in self.producers:
            if p.func not in self.done:
                raise HalideError(
                    f"Func '{p.stage.name}' is computed at loop '{p.compute.var}' of Func "
                    f"'{self.consumer.stage.name}', which has no such loop"
                )


def unroll_update_loops(sb: ScriptBuilder, stage, u) -> None:
    """A scatter's or scan's unrolled loops, tagged by the payload (its serial ones, in a parallel nest too)."""
    if any(len(l.parts) > 1 for l in u.loops):
        return
    for loop in u.loops:
        if loop.kind == LoopKind.UNROLLED:
            h = sb.fresh("loop")
            sb.emit(
                f'{h} = transform.structured.match ops{{["scf.for"]}} attributes '
                f"{{{update_loop_attr(stage.name, u.update.index, loop.name)}}} in %root : ({ANY}) -> {ANY}"
            )
            sb.unroll(h, loop.extent, unroll_what(stage.name, loop, u.directives))


def fuse_siblings(sb: ScriptBuilder, fusions: list) -> None:
    """compute_with: the child's loops fused into the parent's, outermost first (analysis/compute_with.py). The
    fused loop replaces both; the inner loops of each are then siblings in its body."""
    if any(len(f.late) < len(f.levels) for f in fusions):  # fuse_sibling wants the same SSA values as bounds
        fn = sb.fresh("fn")
        sb.emit(f'{fn} = transform.structured.match ops{{["func.func"]}} in %root : ({ANY}) -> {ANY}')
        sb.emit(f"transform.apply_cse to {fn} : {ANY}")
    # the levels fused after bufferization (codegen/compute_with.py) are tagged first: fusing the outer loops
    # consumes their handles, and with them the handles of the loops inside
    for k, f in enumerate(fusions):
        for j, name in enumerate(f.levels):
            if name not in f.late:
                continue
            for role, p, shift in (("parent", f.parent, 0), ("child", f.child, f.shift)):
                last = j == len(f.levels) - 1
                desc = sb.fresh("fuse_with")
                value = f"{j}:{role}:{shift if last else 0}:{int(f.guarded and last)}"
                sb.emit(f"{desc} = transform.param.constant {mlir_string(value)} -> !transform.any_param")
                sb.emit(
                    f'transform.annotate {sb.loop_handles[(p.name, name)]} "hl.compute_with_{k}" = {desc} : '
                    f"{ANY}, !transform.any_param"
                )
    for f in fusions:
        # the loop later in the payload is the source: the fused loop goes there, where the operands of both are
        # defined (the earlier one's body runs first in it)
        first, second = sorted((f.child, f.parent), key=lambda p: p.index)
        for name in f.levels:
            if name in f.late:
                continue
            target, source = sb.loop_handles[(first.name, name)], sb.loop_handles[(second.name, name)]
            fused = sb.fresh("fused")
            sb.emit(f"{fused} = transform.loop.fuse_sibling {target} into {source} : ({ANY}, {ANY}) -> {ANY}")
            sb.loop_handles[(first.name, name)] = sb.loop_handles[(second.name, name)] = fused


def build_transform(plan: PipelinePlan) -> str:
    """The transform script: each stage's plan printed as transform ops, consumers first (a producer fused
    into a consumer's loop is scheduled through the handle of its fused copies)."""
    sb = ScriptBuilder()
    sb.inputs = plan.pipeline.inputs  # (prefetches name the input they read: tag_prefetches)
    fused: dict = {}  # (producer Func, update index or -1) -> handle of its copies fused into a consumer loop
    for stage in reversed(plan.stages):
        fuse_at = FuseAt(sb, stage, stage.producers, fused)
        if stage.tile is None:
            schedule_stage(sb, stage.schedule, fused.get((stage.func, -1)), fuse_at)
        else:
            # the payload already has the loops down to the deepest compute_at level (analysis/tiling.py)
            # innermost level first: a producer computed at an outer loop may be read only by producers
            # fused deeper in, whose copies must be in place before it can be fused
            unrolled = []
            levels = [lev for lev in stage.tile.levels if not lev.collapsed]  # (in the forall of the next one)
            handles = [sb.match_loop(stage.name, lev.loop) for lev in levels]
            for lev, handle in reversed(list(zip(levels, handles))):
                loop = fuse_at(lev.loop.name, handle, stage.tile.viewed)
                sb.loop_handles[(stage.name, lev.loop.name)] = loop  # (tag_prefetches)
                if lev.loop.kind == LoopKind.UNROLLED:
                    unrolled.append((loop, lev.trip, unroll_what(stage.name, lev.loop, stage.directives)))
            schedule_stage(sb, stage.schedule, sb.match_stage(stage.name), fuse_at)
            for loop, trip, what in unrolled:
                sb.unroll(loop, trip, what)
        for u in stage.updates:
            if not u.reduction:  # explicit loops in the payload (codegen/updates.py): only the unrolls are left
                if any(d.kind == DirectiveKind.PREFETCH for d in u.directives):
                    raise HalideError(
                        f"Func '{stage.name}': prefetch in update {u.update.index}, a scatter or scan, is not "
                        f"supported yet"
                    )
                unroll_update_loops(sb, stage, u)
                continue
            op = fused.get((stage.func, u.update.index))
            if op is None and (u.directives or u.producers):
                op = sb.match_stage(stage.name, u.update.index)
            schedule_stage(sb, u.schedule, op, FuseAt(sb, stage, u.producers, fused, u.loops), u.compound)
    fuse_siblings(sb, plan.fusions)
    sb.flush_unrolls()
    sb.flush_peels()
    sb.cleanup()
    return sb.text()
