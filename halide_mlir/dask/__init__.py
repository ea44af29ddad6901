"""A pipeline realized over Dask, chunk by chunk: ``halide_mlir.dask.realize(f, sizes, chunks)``.

Each output chunk is one task. Bounds inference (analysis/bounds.py) gives the exact region of every input that
chunk reads (Halide's required region: a stencil's halo, a boundary condition's clamp at the image edges); the
task receives that window, sliced lazily from the input's dask array across its chunk boundaries, and runs the
pipeline compiled for the chunk's output window. The compiler sees each input as a ``_Window``: the window's
extents and mins are the compiled code's memref, the whole image's dims are what ``ImageParam.width()`` and the
boundary conditions see, so the values at the image edges are those of a single-machine realize.

Chunks are compiled with their positions as kernel arguments (codegen/relocatable.py) and grouped by the text of
their compiled pipeline (payload and transform script): the client compiles each distinct text once (a stencil:
once per chunk shape, and per side for the chunks a boundary condition cuts at the image's edges) and ships the
objects' bytes once, as one bundle per graph (each task depends on it alone and passes its chunk's positions);
workers link them with halide_mlir/dask/kernel.py, which imports neither MLIR nor the compiler. A task's window
parts are sliced in the task from a flat list of its dependencies (input blocks, halo strips). Params are task
arguments. A worker with a memory limit returns freed memory to the system while it is over Dask's spilling
target (kernel.py ``_trim_under_pressure``), so that spilling brings it under its limit (out of core). Needs
the ``[dask]`` extra (dask, distributed, zarr).
"""

from __future__ import annotations

import contextlib
import os
import threading

import numpy as np

from ..analysis.bounds import Region
from ..error import HalideError, InternalError
from ..lang.buffer import Buffer, BufferDim
from ..lang.func import Func
from ..lang.param import ImageParam
from ..lang.pipeline import Pipeline
from ..lang.schedule import generation
from ..lang.source import user_site
from . import reduction, spec, split
from .kernel import Bundle, Kernel, cut, run_bundled, run_chunk, run_split

__all__ = ["realize", "Kernel", "Bundle", "run_chunk", "run_bundled", "run_split"]


class _Window(Buffer):
    """An input as the compiler sees it for one chunk: storage (extents, mins) of the ``window`` the chunk
    reads, dims (``dim(i)``: what ImageParam.width() and boundary conditions resolve to) of the ``whole`` image.
    Its array is a zero-stride placeholder: nothing is read when compiling."""

    def __init__(self, dtype, window: Region, whole: Region):
        super().__init__(np.broadcast_to(np.zeros((), dtype), tuple(reversed(window.extents))))
        self._mins = list(window.mins)
        self._whole = whole

    def dim(self, i: int) -> BufferDim:
        stride = super().dim(i).stride()  # (checks i)
        return BufferDim(self._whole.mins[i], self._whole.extents[i], stride)

    def extents(self) -> list[int]:
        return list(reversed(self._array.shape))


@contextlib.contextmanager
def _bound(holders: dict):
    """Bind each input (ImageParam or Buffer) to the given _Window while compiling, then restore it."""
    saved = []
    try:
        for h, w in holders.items():
            if isinstance(h, ImageParam):
                saved.append((h, h._buffer))
                h._buffer = w
            else:  # a Buffer is the pipeline's input itself: its storage is swapped (its dims are constants)
                saved.append((h, (h._array, h._mins)))
                h._array, h._mins = w._array, list(w._mins)
        yield
    finally:
        for h, old in reversed(saved):
            if isinstance(h, ImageParam):
                h._buffer = old
            else:
                h._array, h._mins = old


_compile_lock = threading.Lock()


@contextlib.contextmanager
def _threads(n: int):
    """Compile with ``n`` threads per task (settings.py reads HL_NUM_THREADS)."""
    old = os.environ.get("HL_NUM_THREADS")
    os.environ["HL_NUM_THREADS"] = str(n)
    try:
        yield
    finally:
        if old is None:
            del os.environ["HL_NUM_THREADS"]
        else:
            os.environ["HL_NUM_THREADS"] = old


def _lazy(array, holder, what: str):
    """A dask array of ``array`` (dask, zarr or numpy), checked against the input's type and dimensions."""
    import dask.array as da

    if isinstance(array, Buffer):
        array = array.array
    if not isinstance(array, da.Array):
        if type(array).__module__.split(".")[0] == "zarr":
            array = da.from_zarr(array)
        elif hasattr(array, "shape") and hasattr(array, "dtype"):
            array = da.from_array(array, chunks=array.shape if isinstance(array, np.ndarray) else "auto")
        else:
            raise HalideError(f"{user_site()}: {what} must be bound to a dask, zarr or numpy array, not {array!r}")
    t = holder.type()
    if array.dtype != np.dtype(t.numpy):
        raise HalideError(f"{user_site()}: {what} has type {t}, but the array bound to it has dtype {array.dtype}")
    if array.ndim != holder.dimensions():
        raise HalideError(
            f"{user_site()}: {what} has {holder.dimensions()} dimensions, but the array bound to it has {array.ndim}"
        )
    return array


def _chunks(chunks, shape, func):
    """Dask's normalized chunks (a tuple of block sizes per numpy axis), every block positive."""
    from dask.array.core import normalize_chunks

    def bad(why):
        return HalideError(
            f"{user_site()}: chunks {chunks!r} for the output of Func '{func.name()}' (numpy shape {shape}): {why}"
        )

    flat = [chunks] if np.isscalar(chunks) else list(chunks) if isinstance(chunks, (tuple, list)) else []
    for c in flat:
        for v in c if isinstance(c, (tuple, list)) else [c]:
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v <= 0 and v != -1:
                raise bad("chunk sizes must be positive")
    try:
        normal = normalize_chunks(chunks, shape)
    except (ValueError, TypeError) as e:
        raise bad(str(e)) from None
    if any(c <= 0 for axis in normal for c in axis):
        raise bad("chunk sizes must be positive")
    return normal


def realize(func_or_pipeline, sizes, chunks, *, inputs=None, client=None, threads: int = 1):
    """The output of ``func_or_pipeline`` over ``sizes`` (Halide's order, as ``Func.realize``) as a lazy
    ``dask.array.Array`` in numpy's order, chunked by ``chunks`` (numpy's order, any spelling dask accepts), one
    task per chunk. ``np.asarray(result.compute())`` equals ``np.asarray(f.realize(sizes))``.

    Inputs are the pipeline's Buffers and ImageParams; ``inputs`` maps any of them to a dask, zarr or numpy array
    (an ImageParam's whole image; a Buffer's stand-in of the same shape), which is read lazily, window by window.
    ``client``: a ``distributed.Client`` the compiled code is broadcast to ahead of the graph (else it travels in
    the graph). ``threads``: threads per task for the pipeline's parallel loops (1: Dask runs a task per core).
    A Tuple-valued Func gives a tuple of arrays. A reduction over the whole input (a histogram, a sum) is
    computed as partial results over tiles of its RDom (the chunks' shape), combined by a tree of tasks
    (reduction.py).
    """
    from ..runtime.realize import output_region

    func = func_or_pipeline._output() if isinstance(func_or_pipeline, Pipeline) else func_or_pipeline
    if not isinstance(func, Func):
        raise HalideError(f"{user_site()}: halide_mlir.dask.realize takes a Func or a Pipeline, not {func!r}")
    if not func.defined():
        raise HalideError(f"Func '{func.name()}' can't be realized: it has no definition")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise HalideError(f"{user_site()}: threads must be a positive integer, not {threads!r}")
    region = output_region(func, sizes, None)
    normal = _chunks(chunks, tuple(reversed(region.extents)), func)
    from ..analysis.memoize import warn_uncached

    warn_uncached(func, "a Dask pipeline")  # (its tasks run on workers: no cache shared across realizes)
    return _realize(func, region, normal, dict(inputs or {}), client, threads, None)


def _kernel(func, pipeline, r: Region, runtime: str, origins: int = 0) -> Kernel:
    """``func`` compiled for the output region ``r`` (inputs bound as the caller arranged); ``origins``: the
    number of position arguments its payload takes after the Params (codegen/relocatable.py)."""
    from .. import driver
    from ..codegen import relocatable

    types = func.output_types()
    arg_types = (
        ["memref"] * len(pipeline.inputs)
        + [prm.type().mlir if not prm.type().is_bool() else "i8" for prm in pipeline.params]
        + ["i32"] * origins
        + ["memref"] * len(types)
    )
    # (a payload with positions as arguments takes its inputs as strided views: codegen/relocatable.py)
    obj = driver.compile(func, r, arg_types).object_code()
    origins = relocatable.last()
    return Kernel(obj, arg_types, runtime, func.name(), views=origins.views if origins is not None else ())


def _realize(func, region: Region, normal, inputs: dict, client, threads: int, originals):
    from .. import driver
    from ..analysis.bounds import infer_bounds
    from ..codegen.relocatable import relocatable  # (not at import: workers import this package, never codegen)
    from ..settings import parallel_runtime

    p = driver.front_end(func)
    if p.requirements:  # hl.require's conditions (of Params), before any task
        driver.check_requirements(p.requirements)
    params = tuple(prm.get() for prm in p.params)  # an unset Param is an error here, before any task
    for h in inputs:
        if not any(h is i for i in p.inputs) and (originals is None or any(h is o for o in originals)):
            raise HalideError(
                f"{user_site()}: {h!r} is given in inputs but the pipeline of Func '{func.name()}' does not read it"
            )
    if originals is None:
        originals = p.inputs  # the user's inputs (a reduction's combined result is not one)

    # the whole image of each input: its dask array, and its region in Halide's coordinates
    arrays, wholes = {}, {}
    for h in p.inputs:
        what = f"{'ImageParam' if isinstance(h, ImageParam) else 'Input buffer'} '{h.name()}'"
        if h in inputs:
            arr = _lazy(inputs[h], h, what)
            mins = h.mins() if isinstance(h, Buffer) else [0] * arr.ndim
            if isinstance(h, Buffer) and tuple(reversed(h.extents())) != arr.shape:
                raise HalideError(
                    f"{user_site()}: {what} has extents {h.extents()}, but the array given for it has "
                    f"numpy shape {arr.shape}"
                )
        else:
            buf = h.bound_buffer() if isinstance(h, ImageParam) else h
            arr, mins = _lazy(buf, h, what), buf.mins()
        arrays[h] = arr
        wholes[h] = Region(tuple(mins), tuple(reversed(arr.shape)))
    dtypes = {h: np.dtype(h.type().numpy) for h in p.inputs}

    def bind(windows: dict):
        return _bound({h: _Window(dtypes[h], windows[h], wholes[h]) for h in p.inputs})

    # per chunk: its region, the windows bounds inference gives, the text of its compiled pipeline
    nblocks = int(np.prod([len(c) for c in normal]))
    if reduction.candidates(p, [], originals, output_only=True):
        # the output itself reduces over the input: its updates write anywhere in it, so it is split into
        # partial results over the whole output (and rechunked), not computed per chunk
        normal_ = tuple((e,) for e in reversed(region.extents))
    else:
        normal_ = normal
    # the chunks' regions, windows and compiled code, as the last call with the same arguments found them
    # (bounds inference and the payload text of every chunk cost ~10 ms a chunk)
    plan_key = (
        id(func),
        generation[0],
        region,
        normal,
        params,
        threads,
        tuple((wholes[h], dtypes[h].str, arrays[h].chunks) for h in p.inputs),
        _SPLIT[0],
    )
    cached = _plans.get(plan_key) if originals is p.inputs else None
    if cached is not None:
        chunk_regions, chunk_windows, chunk_kernels, kernels = cached
        return _graph(
            func, p, params, normal, chunk_regions, chunk_windows, chunk_kernels, kernels, arrays, wholes, client
        )
    starts = [np.cumsum((0,) + c[:-1]).tolist() for c in normal_]
    blocks = list(np.ndindex(*[len(c) for c in normal_]))
    chunk_regions, chunk_windows, chunk_bounded = [], [], []
    with bind(wholes):
        for idx in blocks:
            offsets = [starts[a][i] for a, i in enumerate(idx)]
            extents = [normal_[a][i] for a, i in enumerate(idx)]
            r = Region(tuple(m + o for m, o in zip(region.mins, reversed(offsets))), tuple(reversed(extents)))
            bounded = infer_bounds(p, r)  # errors (an input too small, unbounded reads) come out here
            # an input no chunk reads (only updates over empty RDoms do) gets a one-element window
            chunk_windows.append(
                {h: bounded.input_regions.get(h, Region(wholes[h].mins, (1,) * len(wholes[h].mins))) for h in p.inputs}
            )
            chunk_regions.append(r)
            chunk_bounded.append(bounded)
        # a reduction over the whole input: partial results per tile, combined, then the rest of the pipeline
        todo = None
        for f in reduction.candidates(p, chunk_bounded, originals):
            try:
                s = reduction.split(p.stage(f), originals)
            except HalideError:
                if nblocks == 1:
                    continue  # one chunk: the single-machine realize, nothing to split
                raise
            tile_extents = [
                normal[len(normal) - 1 - d][0] if d < len(normal) else ext for d, (_, ext) in enumerate(s.box)
            ]
            tiles = reduction.tiles(s.box, tile_extents)
            if len(tiles) > 1 or nblocks > 1:
                todo = (s, tiles, region if f is func else chunk_bounded[0].regions[f])
                break
    if todo is not None:  # (outside bind: the inputs are the user's again)
        s, tiles, f_region = todo
        combined = _reduce(s, tiles, f_region, p, arrays, wholes, bind, client, threads)
        if s.func is func:
            return combined.rechunk(normal)
        buf = reduction.placeholder(s.func, f_region)
        with reduction.reading(s.func, buf):
            return _realize(func, region, normal, {**inputs, buf: combined}, client, threads, originals)

    # Positions are kernel arguments (codegen/relocatable.py): chunks whose payloads have the same text (all
    # chunks of one shape, but those a boundary condition or a coordinate's use cuts differently at the image's
    # edges) share one compiled kernel, each task passing its chunk's positions.
    def windows_of(r):
        b = infer_bounds(p, r)
        return {h: b.input_regions.get(h, Region(wholes[h].mins, (1,) * len(wholes[h].mins))) for h in p.inputs}

    # a big chunk whose window spans several input blocks: an interior piece reading one block in place and
    # slabs around it (split.py), unless its interior's kernel can't take its inputs in place (a gather)
    with bind(wholes):
        chunk_pieces = [
            split.pieces(p.inputs, r, w, arrays, wholes, windows_of) if _SPLIT[0] else None
            for r, w in zip(chunk_regions, chunk_windows)
        ]
    kernels, chunk_kernels = {}, []
    with _compile_lock, _threads(threads):
        runtime = parallel_runtime(threads)

        def compile_piece(r, windows, view_outputs):
            with bind(windows), relocatable(view_outputs) as built:
                c = driver.compile_pipeline(func, r)
                origins = tuple(built[-1].values)
                key = (c.payload, c.transform)
                if key not in kernels:
                    kernels[key] = _kernel(func, p, r, runtime, len(origins))
                    if tuple(built[-1].values) != origins:  # (auto-vectorization's fallback recompiled it)
                        raise InternalError(f"Func '{func.name()}': the kernel's position arguments changed")
            return key, origins, r, windows

        for r, windows, halves in zip(chunk_regions, chunk_windows, chunk_pieces):
            if halves is not None:
                parts = [compile_piece(pr, pw, True) for pr, pw in halves[:1]]
                if all(kernels[parts[0][0]].views):
                    chunk_kernels.append(parts + [compile_piece(pr, pw, True) for pr, pw in halves[1:]])
                    continue
            chunk_kernels.append([compile_piece(r, windows, False)])
    stats["compiles"] += len(kernels)

    if originals is p.inputs:
        while len(_plans) >= _MAX_PLANS:
            _plans.pop(next(iter(_plans)))
        _plans[plan_key] = (chunk_regions, chunk_windows, chunk_kernels, kernels)
    return _graph(func, p, params, normal, chunk_regions, chunk_windows, chunk_kernels, kernels, arrays, wholes, client)


# (id(func), generation, region, chunks, params, threads, inputs, split) -> what _realize found: a repeated realize
# builds its graph without bounds inference or compiling (a new definition or schedule changes the generation)
_plans: dict = {}
_MAX_PLANS = 8


def _graph(func, p, params, normal, chunk_regions, chunk_windows, chunk_kernels, kernels, arrays, wholes, client):
    """The output as dask arrays built from one graph layer: a task per chunk, which reads its window from the
    input blocks it covers whole and from the parts of the others it needs (_pieces): sliced in the task where
    nothing moves between workers, else cut by one task per input block where it lives, so that only halo
    strips travel. ``chunk_kernels``: per chunk, its pieces (kernel key, positions, region, windows): one, or
    an interior and slabs (split.py)."""
    import operator

    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    # every kernel of the graph in one object: a task depends on it alone, whatever the number of its pieces
    bundle = Bundle(kernels.values())
    index = {k: i for i, k in enumerate(kernels)}
    shipped = _ship({"bundle": bundle}, client)["bundle"]
    types = func.output_types()
    out_dtypes = [np.dtype(t.numpy).str for t in types]
    blocks = list(np.ndindex(*[len(c) for c in normal]))
    ins = [arrays[h] for h in p.inputs]
    inline = _inline(client)
    token = tokenize(
        func.name(),
        sorted(k.digest for k in kernels.values()),
        params,
        normal,
        [(a.name, wholes[h]) for a, h in zip(ins, p.inputs)],
        [r for r in chunk_regions],
        inline,
    )
    name = f"halide-{func.name()}-{token}"
    dsk, strips = {}, [None if inline else {} for _ in ins]
    if not hasattr(shipped, "key"):  # without a client the compiled code is a literal of the graph
        dsk[shipped[0]] = spec.data(shipped[0], bundle)
    ref = spec.ref(shipped if hasattr(shipped, "key") else shipped[0])
    for idx, r, pieces in zip(blocks, chunk_regions, chunk_kernels):
        block_shape = tuple(reversed(r.extents))
        parts = [
            _pieces(a, pw[h], wholes[h], strips[i])
            for _, _, _, pw in pieces
            for i, (a, h) in enumerate(zip(ins, p.inputs))
        ]
        if len(pieces) == 1:
            # (the chunk's positions are arguments after the Params)
            args = (index[pieces[0][0]], params + pieces[0][1], [block_shape] * len(types), out_dtypes)
            dsk[(name,) + idx] = (run_bundled, args, parts)
        else:  # an interior and slabs, each written in place into the chunk's block (split.py)
            meta = tuple(
                (
                    index[key],
                    params + origins,
                    tuple(reversed([m - rm for m, rm in zip(pr.mins, r.mins)])),
                    tuple(reversed(pr.extents)),
                )
                for key, origins, pr, _ in pieces
            )
            dsk[(name,) + idx] = (run_split, ([block_shape] * len(types), out_dtypes, meta), parts)
    tasks = {}
    for i, s in enumerate(strips):
        if s is not None:
            tasks.update(_strip_tasks(s, f"{name}-in{i}"))
    for k in blocks:  # (strips placeholders resolved; every window's parts a layout over the task's dependencies)
        fn, args, parts = dsk[(name,) + k]
        deps: dict = {}
        layouts = [_layout(part, deps, tasks) for part in parts]
        dsk[(name,) + k] = spec.call(
            (name,) + k, fn, ref, *map(spec.lit, args), spec.lit(layouts), *[spec.ref(d) for d in deps]
        )
    for key, (skey, bounds) in tasks.items():
        dsk[skey] = spec.call(skey, cut, spec.ref(key), spec.lit(bounds))
    outs = []
    for k, dt in enumerate(out_dtypes):
        if len(types) == 1:
            layer, out_name = dsk, name
        else:
            out_name = f"{name}-{k}"
            layer = {
                (out_name,) + idx: spec.call((out_name,) + idx, operator.getitem, spec.ref((name,) + idx), k)
                for idx in blocks
            }
            layer.update(dsk)
        graph = HighLevelGraph.from_collections(out_name, layer, dependencies=ins)
        outs.append(da.Array(graph, out_name, normal, dtype=np.dtype(dt)))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _ship(kernels: dict, client) -> dict:
    """Per kernel (or Bundle): a Future of it on every worker (with a client; kept for the next realize while it stays
    there), else a 1-tuple of the graph key it will have as a literal."""
    if client is None:
        return {k: (f"halide-{type(kern).__name__.lower()}-{kern.digest}",) for k, kern in kernels.items()}
    out = {}
    for k, kern in kernels.items():
        fut = _shipped.get((id(client), kern.digest))
        if fut is None or fut.status != "finished" or fut.client is not client:
            fut = client.scatter(kern, broadcast=True, hash=False)
            _shipped[(id(client), kern.digest)] = fut
        out[k] = fut
    if len(_shipped) > 4 * _MAX_KERNELS:
        for key in list(_shipped)[: len(_shipped) - _MAX_KERNELS]:
            _shipped.pop(key)
    return out


# Big chunks are split into an interior read in place and border slabs (split.py; HL_DASK_SPLIT=0: off). One
# thread's time per interior chunk, 4x4 chunks of the bench's blur / Gaussian: 2048^2 5.11 -> 4.52 ms and
# 6.35 -> 5.90 (no 17 MB window copy); 1024^2 2-6% (split.MIN_PIXELS leaves smaller chunks whole: 4 more kernels
# per chunk shape for little)
_SPLIT = [os.environ.get("HL_DASK_SPLIT", "1") != "0"]


def _inline(client) -> bool:
    """Windows slice their neighbours' blocks in the task itself (no strips tasks): where nothing moves between
    workers (no client: a local scheduler, or one worker), which saves a task per input block."""
    mode = os.environ.get("HL_DASK_HALO", "")  # (benchmarks: "inline" or "strips" forces one)
    if mode in ("inline", "strips"):
        return mode == "inline"
    return client is None or len(client.scheduler_info(n_workers=2)["workers"]) <= 1


# (id(client), kernel digest) -> its Future on that client's workers
_shipped: dict = {}
_MAX_KERNELS = 1024


def _pieces(array, window: Region, whole: Region, strips: dict | None):
    """The window of an input's dask array as the nested lists (numpy order) of what the task assembles
    (kernel.py ``_assemble``): a block the window covers whole is its key; a part of one is that block sliced
    in the task (``strips`` None: the block is a dependency, whole), or a placeholder ``_Strip`` the graph
    replaces with that part as one of its block's ``strips`` task's outputs (_strip_tasks: a task per input
    block cuts all the halo strips its neighbours read, so only strips travel between workers). A window
    inside one block is that block sliced in the task (a view a kernel taking strided inputs reads in place),
    which then runs where the block lives.

    (A ``piece`` task per part was the scheduler's cost: ~0.5 ms a task, 420 of them against 64 chunks of a
    1024^2 blur took 2.2x the time of slicing in the task.)"""
    lo = [m - wm for m, wm in zip(reversed(window.mins), reversed(whole.mins))]
    ext = list(reversed(window.extents))
    per_axis = []
    for axis, sizes in enumerate(array.chunks):
        start, spans = 0, []
        for b, n in enumerate(sizes):
            a, z = max(lo[axis], start), min(lo[axis] + ext[axis], start + n)
            if a < z:
                spans.append((b, slice(a - start, z - start), a == start and z == start + n))
            start += n
        per_axis.append(spans)
    one = all(len(spans) == 1 for spans in per_axis)

    def nest(axis, bidx, where, whole_block):
        if axis == len(per_axis):
            key = (array.name,) + tuple(bidx)
            if whole_block:
                return _Part(key, None)
            if strips is None or one:
                return _Part(key, tuple(where))
            wheres = strips.setdefault(key, {})
            return _Strip(key, wheres.setdefault(tuple((s.start, s.stop) for s in where), len(wheres)))
        return [nest(axis + 1, bidx + [b], where + [sl], whole_block and full) for b, sl, full in per_axis[axis]]

    nested = nest(0, [], [], True)
    return _single(nested) if one else nested


class _Part:
    """Input block ``key``, or its part ``where`` (slices, numpy order), sliced in the task."""

    __slots__ = ("key", "where")

    def __init__(self, key, where):
        self.key, self.where = key, where


class _Strip:
    """Part ``index`` of the strips the task of input block ``key`` cuts (a placeholder while building)."""

    __slots__ = ("key", "index")

    def __init__(self, key, index: int):
        self.key, self.index = key, index


def _strip_tasks(strips: dict, prefix: str) -> dict:
    """Per input block: the task cutting the parts of it other windows read (kernel.py ``cut``)."""
    from dask.base import tokenize

    out = {}
    for key, wheres in strips.items():
        bounds = tuple(sorted(wheres, key=wheres.get))
        out[key] = (f"{prefix}-strips-{tokenize(key, bounds)}",), bounds
    return out


def _layout(nested, deps: dict, tasks: dict):
    """A window's parts as the task's literal layout (kernel.py ``windows``): ``nested``'s lists as lists, each
    part ``(i, where)``: the task's ``i``-th dependency (numbered in ``deps``, key -> i), whole (None), sliced
    (slices) or its strips task's part ``where`` (an int). One node per task, whatever the number of parts:
    a getitem node per part and a List node per level cost Dask's scheduler and workers time per task."""
    if isinstance(nested, list):
        return [_layout(n, deps, tasks) for n in nested]
    if isinstance(nested, _Strip):
        key = tasks[nested.key][0]
        return (deps.setdefault(key, len(deps)), nested.index)
    return (deps.setdefault(nested.key, len(deps)), nested.where)


def _single(nested):
    while isinstance(nested, list):
        if len(nested) != 1:
            return None
        nested = nested[0]
    return nested


def _slice(array, window: Region, whole: Region):
    """The blocks of the lazy slice of an input's dask array that is ``window`` (Halide's coordinates), as nested
    lists of Delayed the task assembles (kernel.py ``_assemble``). Not the sliced array itself: a dask Array
    given to a delayed call is computed again for each call that takes it (a combined histogram, or an input
    chunk that several windows overlap, would be), whereas blocks are keys of the graph, computed once."""
    sl = tuple(slice(m - wm, m - wm + e) for m, wm, e in zip(window.mins, whole.mins, window.extents))
    blocks = array[tuple(reversed(sl))].to_delayed(optimize_graph=False)
    return blocks.tolist() if blocks.ndim else blocks[()]


def _reduce(s, tiles, f_region: Region, p, arrays, wholes, bind, client, threads):
    """The partial results of the reduction ``s`` over ``tiles`` combined by a tree of tasks: a dask array of
    ``s.func`` over ``f_region``. Compiled once per tile shape (the first tile also starts from the Func's pure
    definition) where the reads move with the tile (``s.shifts``): the code reads the inputs as for a tile at
    the RDom's min, and each task gets its own tile's windows. Otherwise each tile is compiled with its own
    windows and its positions as arguments, once per distinct code (as the chunks of _realize)."""
    import dask
    import dask.array as da

    from .. import driver
    from ..analysis.bounds import infer_bounds
    from ..codegen.relocatable import relocatable
    from ..settings import parallel_runtime

    f = s.func
    dtype = np.dtype(f.output_type().numpy)
    out_shape = tuple(reversed(f_region.extents))
    partials, kernels, parts = {}, {}, []
    run = dask.delayed(run_chunk, pure=True)
    box_mins = [lo for lo, _ in s.box]
    with _compile_lock, _threads(threads):
        runtime = parallel_runtime(threads)
        for k, (mins, extents) in enumerate(tiles):
            which = (extents, k == 0)
            if which not in partials:
                pf, tile_mins = reduction.partial(s, extents, k == 0)
                pp = driver.front_end(pf)
                with bind(wholes):
                    for prm, m in zip(tile_mins, box_mins):
                        prm.set(m)
                    bounded = infer_bounds(pp, f_region)  # the windows of a tile at the RDom's min
                at_min = {
                    h: bounded.input_regions.get(h, Region(wholes[h].mins, (1,) * len(wholes[h].mins)))
                    for h in p.inputs
                }
                partials[which] = (pf, tile_mins, pp, at_min)
            pf, tile_mins, pp, at_min = partials[which]
            for prm, m in zip(tile_mins, mins):
                prm.set(m)
            if s.shifts is not None:
                windows = {}
                for h in p.inputs:
                    w, moves = at_min[h], s.shifts.get(h, [None] * len(at_min[h].mins))
                    windows[h] = Region(
                        tuple(lo + (0 if j is None else mins[j] - box_mins[j]) for lo, j in zip(w.mins, moves)),
                        w.extents,
                    )
                compile_windows = at_min
            else:
                with bind(wholes):
                    bounded = infer_bounds(pp, f_region)
                windows = {
                    h: bounded.input_regions.get(h, Region(wholes[h].mins, (1,) * len(wholes[h].mins)))
                    for h in p.inputs
                }
                compile_windows = windows
            # positions as arguments (codegen/relocatable.py): where the reads do not move with the tile (a
            # boundary condition's stage read at the tile's coordinates), the tile's own windows and stages' regions
            # are compiled, and tiles whose code then has the same text share it, each passing its positions
            with bind(compile_windows), relocatable() as built:
                c = driver.compile_pipeline(pf, f_region)
                origins = tuple(built[-1].values)
                key = (c.payload, c.transform)
                if key not in kernels:
                    kernels[key] = _kernel(pf, pp, f_region, runtime, len(origins))
                    if tuple(built[-1].values) != origins:  # (auto-vectorization's fallback recompiled it)
                        raise InternalError(f"Func '{pf.name()}': the kernel's position arguments changed")
            params = tuple(prm.get() for prm in pp.params) + origins
            slices = [_slice(arrays[h], windows[h], wholes[h]) for h in pp.inputs]
            parts.append((key, params, slices))
    stats["compiles"] += len(kernels)
    shipped = (
        _ship(kernels, client)
        if client is not None
        else {k: dask.delayed(kern, pure=True) for k, kern in kernels.items()}
    )
    tasks = [
        run(
            shipped[key],
            params,
            [out_shape],
            [dtype.str],
            *slices,
            dask_key_name=f"halide-{f.name()}-partial-{dask.base.tokenize(key, params, *slices)}",
        )
        for key, params, slices in parts
    ]
    final = reduction.tree(tasks, reduction._OPS[s.op], f"halide-{f.name()}")
    return da.from_delayed(final, out_shape, dtype=dtype)


# Counters for tests: kernels compiled on the client
stats = {"compiles": 0}
