"""halide_mlir.dask: a pipeline realized over a real distributed.LocalCluster (2 worker processes), chunk by
chunk; each result equals the single-machine realize and numpy."""

import logging
import sys

import numpy as np
import pytest

import halide_mlir as hl
from helpers import box_blur, box_blur_numpy, lesson8

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
zarr = pytest.importorskip("zarr")
hd = pytest.importorskip("halide_mlir.dask")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as c:
        yield c


def _blur3(inp, name):
    """A 3x3 box blur of ``inp`` with repeat_edge, centered: (x - 1 .. x + 1)."""
    x, y = hl.Var("x"), hl.Var("y")
    c = hl.BoundaryConditions.repeat_edge(inp)
    bx, by = hl.Func(f"{name}_x"), hl.Func(name)
    bx[x, y] = (c[x - 1, y] + c[x, y] + c[x + 1, y]) / 3
    by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3
    return by


def _blur3_numpy(a):
    p = np.pad(a, 1, mode="edge")
    bx = (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) / np.float32(3)
    return (bx[:-2] + bx[1:-1] + bx[2:]) / np.float32(3)


# chunkings of a 40x50 image: dividing it, not dividing it, one row (smaller than a 3x3 stencil's halo)
CHUNKINGS = [(20, 25), (13, 17), (1, 50)]


@pytest.mark.parametrize("chunks", [(16, 24), (23, 31), (1, 50)], ids=["divides", "ragged", "smaller-than-halo"])
def test_blur_repeat_edge_from_zarr(client, tmp_path, chunks):
    rng = np.random.default_rng(1)
    a = rng.random((48, 72), dtype=np.float32)
    store = zarr.open_array(str(tmp_path / "in.zarr"), mode="w", shape=a.shape, chunks=(20, 30), dtype=a.dtype)
    store[...] = a
    inp = hl.ImageParam(hl.Float(32), 2, "inp")
    by = _blur3(inp, "blur")
    out = hd.realize(by, [72, 48], chunks, inputs={inp: store}, client=client)
    assert isinstance(out, da.Array) and out.chunks == da.core.normalize_chunks(chunks, a.shape)
    got = out.compute()
    inp.set(hl.Buffer(a))
    # (1 ulp apart at some edges: LLVM contracts a*b+c into an FMA or not depending on the code's shape)
    np.testing.assert_allclose(got, np.asarray(by.realize([72, 48])), rtol=3e-7, atol=1e-7)
    np.testing.assert_allclose(got, _blur3_numpy(a), rtol=1e-6)
    # the compiled code was loaded, never compiled, on the workers: no MLIR, no compiler there
    seen = client.run(lambda: sorted(m for m in sys.modules if m == "mlir" or m.startswith(("mlir.", "halide_mlir.")
                                                                                          )))
    for modules in seen.values():
        assert "mlir" not in modules and "halide_mlir.driver" not in modules, modules
        assert not [m for m in modules if m.startswith(("halide_mlir.codegen", "mlir."))], modules
    # workers with a memory limit (LocalCluster's default) give freed memory back when it is short (kernel.py)
    assert all(client.run(lambda dask_worker: "halide_mlir-trim" in dask_worker.periodic_callbacks).values())


def test_buffer_input_unsharp_with_param(client):
    """A Buffer input (no ImageParam), a Param as a task argument: a second value compiles nothing."""
    rng = np.random.default_rng(2)
    a = rng.random((40, 50), dtype=np.float32)
    buf = hl.Buffer(a)
    amount = hl.Param(hl.Float(32), "amount", 1.5)
    x, y = hl.Var("x"), hl.Var("y")
    blur = _blur3(buf, "soft")
    sharp = hl.Func("sharp")
    sharp[x, y] = buf[x, y] + amount * (buf[x, y] - blur[x, y])
    ref = np.asarray(sharp.realize([50, 40]))
    for chunks in CHUNKINGS[:2]:
        got = hd.realize(sharp, [50, 40], chunks, client=client).compute()
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(got, a + np.float32(1.5) * (a - _blur3_numpy(a)), rtol=1e-5, atol=1e-6)
    got = hd.realize(sharp, [50, 40], (20, 20), client=client).compute()
    from halide_mlir.runtime import jit
    engines = jit.loaded_engine_count()
    amount.set(-0.5)
    got = hd.realize(sharp, [50, 40], (20, 20), client=client).compute()
    assert jit.loaded_engine_count() == engines   # Params are arguments: no new compile
    np.testing.assert_allclose(got, np.asarray(sharp.realize([50, 40])), rtol=1e-6, atol=1e-6)


def test_downsample_box_blur_and_mins(client):
    """A pyramid level (stride-2 reads; integers: exactly equal), a valid-region blur (no boundary condition)."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 65536, (36, 48), dtype=np.uint16)
    inp = hl.ImageParam(hl.UInt(16), 2, "lvl_in")
    x, y = hl.Var("x"), hl.Var("y")
    c = hl.BoundaryConditions.repeat_edge(inp)
    down = hl.Func("down")
    down[x, y] = (c[2 * x, 2 * y] + c[2 * x + 1, 2 * y] + c[2 * x, 2 * y + 1] + c[2 * x + 1, 2 * y + 1]) / 4
    outs = [hd.realize(down, [24, 18], chunks, inputs={inp: da.from_array(a, chunks=(9, 10))}, client=client)
            for chunks in [(6, 8), (5, 7), (1, 24)]]   # divides, ragged, a row (each reads 2 input rows)
    inp.set(hl.Buffer(a))
    ref = np.asarray(down.realize([24, 18]))
    for got in client.compute(outs, sync=True):
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got, (a[0::2, 0::2] + a[0::2, 1::2] + a[1::2, 0::2] + a[1::2, 1::2]) // 4)

    b = rng.random((30, 40), dtype=np.float32)
    _, by, _, _ = box_blur(hl, hl.Buffer(b), ("vx", "vy"))
    got = hd.realize(by, [38, 28], (10, 12), client=client).compute()
    np.testing.assert_allclose(got, box_blur_numpy(b), rtol=1e-6)


def test_coordinates_and_tuples(client):
    """Lesson 8 reads x and y: its positions are the kernels' arguments, same values. A Tuple gives a tuple of
    arrays."""
    _, consumer, x, y = lesson8(hl, "dask")
    ref = np.asarray(consumer.realize([20, 14]))
    outs = [hd.realize(consumer, [20, 14], chunks, client=client) for chunks in [(7, 10), (5, 6), (1, 20)]]
    for got in client.compute(outs, sync=True):
        np.testing.assert_allclose(got, ref, rtol=1e-6)
    t = hl.Func("pair")
    t[x, y] = (x + y, hl.cast(hl.Float(32), x) * 0.5)
    first, second = hd.realize(t, [9, 6], (4, 5))
    np.testing.assert_array_equal(first.compute(scheduler="sync"), np.add.outer(np.arange(6), np.arange(9)))
    np.testing.assert_array_equal(second.compute(scheduler="sync"), np.broadcast_to(np.arange(9) * 0.5, (6, 9)))


def test_errors_before_any_task():
    inp = hl.ImageParam(hl.Float(32), 2, "err_in")
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("needs_halo")
    f[x, y] = inp[x, y] + inp[x + 1, y]
    small = da.zeros((8, 8), dtype=np.float32, chunks=4)
    with pytest.raises(hl.HalideError, match="chunk sizes must be positive"):
        hd.realize(f, [7, 8], (0, 4), inputs={inp: small})
    with pytest.raises(hl.HalideError, match="beyond the max"):
        hd.realize(f, [8, 8], (4, 4), inputs={inp: small})
    with pytest.raises(hl.HalideError, match="has type float32|dtype"):
        hd.realize(f, [7, 8], (4, 4), inputs={inp: small.astype(np.uint8)})
    p = hl.Param(hl.Int(32), "unset_p")
    g = hl.Func("with_param")
    g[x, y] = inp[x, y] + p
    with pytest.raises(hl.HalideError, match="unset_p"):
        hd.realize(g, [7, 8], (4, 4), inputs={inp: small})
    # a coordinate read from data: int32 values could be anywhere
    idx = hl.ImageParam(hl.Int(32), 2, "idx_in")
    dd = hl.Func("data_dependent")
    dd[x, y] = inp[idx[x, y], y]
    with pytest.raises(hl.HalideError, match="err_in"):
        hd.realize(dd, [8, 8], (4, 4), inputs={inp: small, idx: da.zeros((8, 8), dtype=np.int32, chunks=4)})


def _hist_eq(img, n, name):
    """Histogram equalization of a uint8 image of ``n`` pixels (Halide's apps/hist: histogram, CDF, remap)."""
    x, y = hl.Var("x"), hl.Var("y")
    r = hl.RDom(img)
    hist = hl.Func(f"{name}_hist")
    hist[x] = 0
    hist[hl.cast(hl.Int(32), img[r.x, r.y])] += 1
    rc = hl.RDom([(1, 255)])
    cdf = hl.Func(f"{name}_cdf")
    cdf[x] = hist[x]
    cdf[rc.x] = cdf[rc.x - 1] + hist[rc.x]
    eq = hl.Func(name)
    eq[x, y] = hl.cast(hl.UInt(8), hl.min(255, cdf[hl.cast(hl.Int(32), img[x, y])] * 255 / n))
    hist.compute_root()
    cdf.compute_root()
    return eq, hist


def test_histogram_equalization(client):
    """The histogram is computed as partial histograms per tile, summed by a tree of tasks, then the CDF and the
    remap run per chunk: equal to the single-machine realize for every chunking."""
    rng = np.random.default_rng(6)
    a = (rng.normal(100, 30, (40, 50)).clip(0, 255)).astype(np.uint8)
    img = hl.ImageParam(hl.UInt(8), 2, "heq_in")
    eq, hist = _hist_eq(img, a.size, "heq")
    hd.stats["compiles"] = 0
    outs = [hd.realize(eq, [50, 40], chunks, inputs={img: da.from_array(a, chunks=(16, 16))}, client=client)
            for chunks in CHUNKINGS]
    compiles = hd.stats["compiles"]
    prefix = "halide-heq_hist-partial-"
    keys = {k[:len(prefix) + 32] for k in outs[1].__dask_graph__() if isinstance(k, str) and k.startswith(prefix)}
    assert len(keys) == 4 * 3   # one partial histogram per 13x17 tile of the RDom
    got = client.compute(outs, sync=True)
    img.set(hl.Buffer(a))
    ref = np.asarray(eq.realize([50, 40]))
    for g in got:
        np.testing.assert_array_equal(g, ref)
    # the histogram alone, as the output: partials over tiles of the output's chunk size, rechunked
    h = hd.realize(hist, [256], (100,), inputs={img: da.from_array(a, chunks=(16, 16))}, client=client)
    assert h.chunks == ((100, 100, 56),)
    np.testing.assert_array_equal(h.compute(), np.bincount(a.ravel(), minlength=256))
    # one compiled partial per tile shape (and the first tile's, which starts from the pure definition)
    assert compiles < 40, compiles


def test_whole_input_reductions():
    """A sum (of floats, starting from a non-zero value) and a max whose term reads the image through a boundary
    condition and the Func's own coordinate; an update that is a scan, and a Tuple (argmax): clear errors."""
    rng = np.random.default_rng(7)
    a = rng.integers(0, 200, (21, 30), dtype=np.uint8)
    img = hl.ImageParam(hl.UInt(8), 2, "red_in")
    x, y = hl.Var("x"), hl.Var("y")
    r = hl.RDom(img)
    total = hl.Func("total")
    total[()] = hl.f32(0.5)
    total[()] += hl.cast(hl.Float(32), img[r.x, r.y])
    norm = hl.Func("norm")
    norm[x, y] = hl.cast(hl.Float(32), img[x, y]) / total[()]
    got = hd.realize(norm, [30, 21], (8, 7), inputs={img: a}).compute(scheduler="sync")
    np.testing.assert_allclose(got, a / (a.sum(dtype=np.float64) + 0.5), rtol=1e-5)

    c = hl.BoundaryConditions.repeat_edge(img)
    rb = hl.RDom([(-2, 34), (-1, 23)])
    mx = hl.Func("mx")
    mx[x] = hl.u8(0)
    mx[x] = hl.max(mx[x], c[rb.x, rb.y] + hl.cast(hl.UInt(8), x * 20))
    got = hd.realize(mx, [4], (2,), inputs={img: a}).compute(scheduler="sync")
    img.set(hl.Buffer(a))
    np.testing.assert_array_equal(got, np.asarray(mx.realize([4])))

    scan = hl.Func("scan")
    scan[x] = hl.u32(0)
    scan[rb.x] = scan[rb.x - 1] + c[rb.x, 0]
    uses = hl.Func("uses_scan")
    uses[x, y] = scan[x] + hl.cast(hl.UInt(32), img[x, y])
    with pytest.raises(hl.HalideError, match="Func 'scan' reduces over the whole input.*can't split.*"
                                             "does not combine the Func's own value"):
        hd.realize(uses, [30, 21], (8, 8), inputs={img: a})
    am = hl.Func("argmax")
    am[()] = (0, hl.u8(0))
    am[()] = (hl.select(img[r.x, r.y] > am[()][1], r.x, am[()][0]), hl.max(am[()][1], img[r.x, r.y]))
    at = hl.Func("at_max")
    at[x, y] = am[()][0] + x
    with pytest.raises(hl.HalideError, match="Func 'argmax'.*Tuple-valued"):
        hd.realize(at, [30, 21], (8, 8), inputs={img: a})


def _slow_copy(block):
    import time
    time.sleep(0.25)
    return block.copy()


def _held(name, dask_worker=None):
    return sum(1 for k in list(dask_worker.data.keys()) if isinstance(k, tuple) and k[0] == name)


def test_worker_killed_mid_run(client):
    """A worker dies holding finished chunks while others still run: Dask reruns its tasks elsewhere (or on its
    restarted self), the result is complete and equal, nothing is compiled again (on the client; the workers
    never compile), and no worker links a kernel twice."""
    import os
    import time
    from halide_mlir.dask import kernel
    rng = np.random.default_rng(4)
    a = rng.random((64, 96), dtype=np.float32)
    inp = hl.ImageParam(hl.Float(32), 2, "fault_in")
    by = _blur3(inp, "fault_blur")
    slow_input = da.from_array(a, chunks=(16, 24)).map_blocks(_slow_copy, dtype=a.dtype)
    out = hd.realize(by, [96, 64], (16, 24), inputs={inp: slow_input}, client=client)
    compiles = hd.stats["compiles"]
    future = client.compute(out)
    # kill a worker once it holds a finished chunk (not after a fixed delay: on a loaded machine that was before
    # any task ran, or after the last)
    victim = sorted(client.scheduler_info()["workers"])[0]
    deadline = time.monotonic() + 60
    while not client.run(_held, out.name, workers=[victim]).get(victim) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not future.done(), "the graph finished before a worker was killed"
    client.run(os._exit, 1, workers=[victim], on_error="ignore")   # the nanny restarts it
    got = future.result(timeout=120)
    np.testing.assert_allclose(got, _blur3_numpy(a), rtol=1e-6)
    assert hd.stats["compiles"] == compiles
    client.wait_for_workers(2, timeout=60)
    seen = client.run(lambda: [m for m in sys.modules if m == "mlir" or m.startswith(("halide_mlir.driver",
                                                                                      "halide_mlir.codegen"))])
    assert all(not modules for modules in seen.values()), seen
    loads = client.run(lambda: (kernel.stats["loads"], len(kernel._loaded)))
    assert all(n == linked for n, linked in loads.values()), loads


def _peak_rss() -> int:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.mark.slow   # (~40 s on 2 shared cores: 384 MB written, blurred through spilling workers, read back)
def test_out_of_core_zarr_to_zarr(tmp_path):
    """A 384 MB zarr image through 2 workers limited to 320 MB each (Dask spills at 70%, pauses a worker at 80%
    until its process memory falls), streamed to a zarr output: it completes (it stalled while the workers' heap
    kept freed memory: both paused for good), no worker's peak memory reaches its limit, and the output equals
    the single-machine realize."""
    import time
    rows, cols = 8192, 12288
    limit = 320 << 20
    src, dst = str(tmp_path / "in.zarr"), str(tmp_path / "out.zarr")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit=limit, silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as c:
        # (uncompressed: the codec's time is not what is tested)
        da.random.default_rng(5).random((rows, cols), dtype=np.float32, chunks=1024).to_zarr(src, compressors=None)
        inp = hl.ImageParam(hl.Float(32), 2, "big_in")
        by = _blur3(inp, "big_blur")
        out = hd.realize(by, [cols, rows], (1024, 1536), inputs={inp: zarr.open_array(src, mode="r")}, client=c)
        t = time.perf_counter()
        da.to_zarr(out, dst, compressors=None)
        print(f"\n{rows}x{cols} f32 through 2 workers of {limit >> 20} MB: {time.perf_counter() - t:.1f} s; "
              "peak worker RSS (MB):", sorted(p >> 20 for p in c.run(_peak_rss).values()))
        peaks = c.run(_peak_rss)
    assert all(peak < limit for peak in peaks.values()), peaks
    a = zarr.open_array(src, mode="r")[...]
    inp.set(hl.Buffer(a))
    ref = np.asarray(by.realize([cols, rows]))
    got = zarr.open_array(dst, mode="r")[...]
    # (assert_allclose's reporting takes ~15 s over 100M elements; 1 ulp apart where LLVM contracts an FMA)
    bad = np.abs(got - ref) > 1e-7 + 3e-7 * np.abs(ref)
    assert not bad.any(), (np.argwhere(bad)[:5], got[bad][:5], ref[bad][:5])


def test_only_halo_strips_travel(client):
    """A mirror_image blur over 16 chunks of 256x256 f32 (256 KiB each) spread over 2 workers: each task reads its
    own block and gets copies of its neighbours' 1-pixel strips. What moves between workers stays well under half the
    image (windows up to the rest of the image moved before); not under one block: the scheduler may still run a
    task away from its block (work stealing), which moves that block."""
    n, c = 1024, 256
    x = da.random.default_rng(3).random((n, n), dtype=np.float32, chunks=c).persist()
    distributed.wait(x)
    img = hl.ImageParam(hl.Float(32), 2, "halo_in")
    xv, yv = hl.Var("x"), hl.Var("y")
    m = hl.BoundaryConditions.mirror_image(img)
    bx, by = hl.Func("halo_bx"), hl.Func("halo_by")
    bx[xv, yv] = m[xv - 1, yv] + m[xv, yv] + m[xv + 1, yv]
    by[xv, yv] = bx[xv, yv - 1] + bx[xv, yv] + bx[xv, yv + 1]
    hd.realize(by, [n, n], (c, c), inputs={img: x}, client=client).persist()   # (compiles, ships the code)

    def moved():
        return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())
    before = moved()
    out = hd.realize(by, [n, n], (c, c), inputs={img: x}, client=client).persist()
    distributed.wait(out)
    assert moved() - before < n * n * 4 // 2
    # every window is the chunk plus its halo, clipped at the image's edges
    plan = next(v for k, v in hd._plans.items() if k[2].extents == (n, n))
    for r, windows in zip(plan[0], plan[1]):
        (w,) = windows.values()
        assert all(we <= re + 2 for we, re in zip(w.extents, r.extents)), (r, w)
    a = x.compute()
    p = np.pad(a, 1, mode="symmetric")
    ref = p[:-2] + p[1:-1] + p[2:]
    ref = ref[:, :-2] + ref[:, 1:-1] + ref[:, 2:]
    np.testing.assert_allclose(out.compute(), ref, rtol=1e-5)



def test_persisted_input_odd_chunkings(client):
    """A persisted input on 2 workers (halos cut by strips tasks where the blocks live): values equal to numpy
    at the edges, for chunks that are the input's blocks, that are not, and one row high (smaller than the
    3-row window); the graph's nodes are Dask's task spec where it has one (spec.py)."""
    from halide_mlir.dask import spec
    rng = np.random.default_rng(14)
    a = rng.random((70, 90), dtype=np.float32)
    img = hl.ImageParam(hl.Float(32), 2, "own_in")
    by = _blur3(img, "own_blur")
    x = client.persist(da.from_array(a, chunks=(16, 20)))
    distributed.wait(x)
    for chunks in [(16, 20), (9, 31), (1, 45)]:
        out = hd.realize(by, [90, 70], chunks, inputs={img: x}, client=client)
        if spec.Task is not None:
            graph = out.__dask_graph__()
            assert all(isinstance(graph[k], spec.Task) for k in dask.core.flatten(out.__dask_keys__()))
        np.testing.assert_allclose(out.compute(), _blur3_numpy(a), rtol=3e-7, atol=1e-7)


def _shapes(normal):
    import itertools
    return len(set(itertools.product(*[set(c) for c in normal])))


def test_one_compile_per_chunk_shape(client):
    """A translation-invariant blur (no boundary condition: the input covers every window) compiles once per
    distinct chunk shape, its positions passed to each task (codegen/relocatable.py); with mirror_image, the
    chunks at the image's edges (clipped windows) get kernels of their own, the interior ones share one."""
    rng = np.random.default_rng(8)
    a = rng.random((62, 82), dtype=np.float32)
    _, by, _, _ = box_blur(hl, hl.Buffer(a), ("sx", "sy"))
    ref = box_blur_numpy(a)
    for chunks in [(20, 16), (13, 17), (60, 1)]:
        hd.stats["compiles"] = 0
        out = hd.realize(by, [80, 60], chunks, client=client)
        assert hd.stats["compiles"] == _shapes(out.chunks), (chunks, hd.stats["compiles"])
        np.testing.assert_allclose(out.compute(), ref, rtol=1e-6)
    img = hl.ImageParam(hl.Float(32), 2, "mir_in")
    xv, yv = hl.Var("x"), hl.Var("y")
    m = hl.BoundaryConditions.mirror_image(img)
    mx, my = hl.Func("mir_bx"), hl.Func("mir_by")
    mx[xv, yv] = m[xv - 1, yv] + m[xv, yv] + m[xv + 1, yv]
    my[xv, yv] = mx[xv, yv - 1] + mx[xv, yv] + mx[xv, yv + 1]
    mx.compute_at(my, yv).vectorize(xv, 8)
    b = rng.random((96, 96), dtype=np.float32)
    hd.stats["compiles"] = 0
    out = hd.realize(my, [96, 96], (16, 16), inputs={img: da.from_array(b, chunks=32)}, client=client)
    assert hd.stats["compiles"] <= 9, hd.stats["compiles"]   # 36 chunks: corners, edges, interior at most
    p = np.pad(b, 1, mode="symmetric")
    r = p[:-2] + p[1:-1] + p[2:]
    np.testing.assert_allclose(out.compute(), r[:, :-2] + r[:, 1:-1] + r[:, 2:], rtol=1e-5)


@pytest.mark.parametrize("bc", ["none", "repeat_edge", "constant_exterior", "mirror_interior"])
def test_coordinates_with_boundary_conditions(client, bc):
    """``f[x, y] = x + y * input[x, y]`` (and a stencil through a boundary condition): chunks of one shape
    share a kernel, but each computes its own coordinates; equal to the single-machine realize for chunkings
    that do and do not divide the image."""
    rng = np.random.default_rng(9)
    a = rng.integers(-50, 50, (30, 44), dtype=np.int32)
    inp = hl.ImageParam(hl.Int(32), 2, f"co_in_{bc}")
    x, y = hl.Var("x"), hl.Var("y")
    src = inp if bc == "none" else (hl.BoundaryConditions.constant_exterior(inp, 7) if bc == "constant_exterior"
                                    else getattr(hl.BoundaryConditions, bc)(inp))
    f = hl.Func(f"co_{bc}")
    if bc == "none":
        f[x, y] = x + y * inp[x, y]
    else:
        f[x, y] = x + y * src[x, y] - 3 * src[x - 2, y + 1] + src[x + 1, y - 2] * (x - y)
    arr = da.from_array(a, chunks=(8, 11))
    outs, counts = [], []
    for chunks in [(10, 11), (7, 9), (30, 5)]:
        hd.stats["compiles"] = 0
        outs.append(hd.realize(f, [44, 30], chunks, inputs={inp: arr}, client=client))
        counts.append(hd.stats["compiles"])
    got = client.compute(outs, sync=True)
    inp.set(hl.Buffer(a))
    ref = np.asarray(f.realize([44, 30]))
    if bc == "none":
        np.testing.assert_array_equal(ref, np.arange(44)[None, :] + np.arange(30)[:, None] * a)
    for g in got:
        np.testing.assert_array_equal(g, ref)
    # fewer kernels than chunks: the positions are arguments (12, 20 and 9 chunks)
    assert counts[0] < 12 and counts[1] < 20 and counts[2] < 9, counts


@pytest.mark.parametrize("kind", ["reduction", "pure_update", "scan"])
def test_updates_share_a_kernel(client, kind):
    """Positions inside update definitions are kernel arguments too (codegen/updates.py): a Func with an update
    that reads its coordinates (a reduction over an RDom, a pure update) or scans along y compiles once per chunk
    shape (the scan: once per chunk row, whose slice of the scanned Func moves), not once per chunk."""
    rng = np.random.default_rng(10)
    a = rng.random((52, 70), dtype=np.float32)
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func(f"upd_{kind}")
    f[x, y] = hl.Buffer(a)[x, y]
    if kind == "reduction":
        r = hl.RDom([(0, 3)])
        f[x, y] += hl.Buffer(a)[x + r, y + 1] * hl.cast(hl.Float(32), y - x)
    elif kind == "pure_update":
        f[x, y] = f[x, y] * 2 + hl.cast(hl.Float(32), x + y)
    else:
        r = hl.RDom([(1, 47)])
        f[x, r] = f[x, r - 1] + f[x, r] * hl.cast(hl.Float(32), x)
    g = hl.Func(f"upd_{kind}_out")
    g[x, y] = f[x, y] + hl.cast(hl.Float(32), y)
    hd.stats["compiles"] = 0
    out = hd.realize(g, [64, 48], (16, 16), client=client)
    assert hd.stats["compiles"] <= (3 if kind == "scan" else 1), hd.stats["compiles"]   # 12 chunks
    np.testing.assert_allclose(out.compute(), np.asarray(g.realize([64, 48])), rtol=1e-6)


def test_halo_sliced_in_the_task(client, monkeypatch):
    """Windows that slice their neighbours' blocks inside the task (what one worker gets: no strips tasks) give
    the same values as the strips tasks (several workers), at the image's edges too."""
    rng = np.random.default_rng(11)
    a = rng.random((50, 61), dtype=np.float32)
    img = hl.ImageParam(hl.Float(32), 2, "inl_in")
    by = _blur3(img, "inl_blur")
    arr = da.from_array(a, chunks=(16, 20))
    keys = {}
    for mode in ["inline", "strips"]:
        monkeypatch.setenv("HL_DASK_HALO", mode)
        out = hd.realize(by, [61, 50], (16, 20), inputs={img: arr}, client=client)
        keys[mode] = [k for k in out.__dask_graph__() if isinstance(k, tuple) and "-strips-" in k[0]]
        np.testing.assert_allclose(out.compute(), _blur3_numpy(a), rtol=3e-7, atol=1e-7)
    assert not keys["inline"] and 0 < len(keys["strips"]) <= 4 * 4   # (at most one per input block)


def test_reduction_through_boundary_condition_compiles_per_tile_shape(client):
    """A max over an RDom read through a boundary condition (the condition's stage is computed per tile, at the
    tile's coordinates): its tiles are compiled with their positions as arguments, once per tile shape and side
    of the image (35 tiles: 9 kinds, and the first tile's, which starts from the pure definition), not per tile."""
    rng = np.random.default_rng(12)
    a = rng.integers(0, 200, (40, 60), dtype=np.uint8)
    img = hl.ImageParam(hl.UInt(8), 2, "redbc_in")
    x, y = hl.Var("x"), hl.Var("y")
    c = hl.BoundaryConditions.repeat_edge(img)
    rb = hl.RDom([(-2, 64), (-1, 43)])
    mx = hl.Func("redbc_max")
    mx[x] = hl.u8(0)
    mx[x] = hl.max(mx[x], c[rb.x, rb.y] + hl.cast(hl.UInt(8), x * 20))
    out = hl.Func("redbc_out")
    out[x, y] = mx[x % 4] + img[x, y]
    hd.stats["compiles"] = 0
    got = hd.realize(out, [60, 40], (10, 10), inputs={img: da.from_array(a, chunks=(16, 16))}, client=client)
    assert hd.stats["compiles"] <= 11, hd.stats["compiles"]   # (and one for the 24 chunks of the output)
    prefix = "halide-redbc_max-partial-"
    assert len({k for k in got.__dask_graph__() if isinstance(k, str) and k.startswith(prefix)}) == 35
    img.set(hl.Buffer(a))
    np.testing.assert_array_equal(got.compute(), np.asarray(out.realize([60, 40])))


def test_chunks_split_into_interior_and_slabs(client, monkeypatch):
    """HL_DASK_SPLIT: a chunk whose window spans several input blocks is computed as an interior that reads the
    block under it in place and slabs around it, each kernel writing its part of the block (strided outputs):
    the same values as the whole chunk, at the image's edges and with chunks that are not the input's blocks."""
    from halide_mlir.dask import split
    rng = np.random.default_rng(13)
    a = rng.random((48, 64), dtype=np.float32)
    img = hl.ImageParam(hl.Float(32), 2, "split_in")
    x, y = hl.Var("x"), hl.Var("y")
    c = hl.BoundaryConditions.repeat_edge(img)
    g = hl.Func("split_g")
    g[x, y] = c[x - 2, y] + 2 * c[x + 1, y - 1] + c[x, y + 2]
    monkeypatch.setattr(hd, "_SPLIT", [True])
    monkeypatch.setattr(split, "MIN_PIXELS", 64)
    p = np.pad(a, 2, mode="edge")
    ref = p[2:-2, :-4] + 2 * p[1:-3, 3:-1] + p[4:, 2:-2]
    for chunks in [(16, 16), (12, 20)]:
        out = hd.realize(g, [64, 48], chunks, inputs={img: da.from_array(a, chunks=(16, 16))}, client=client)
        if chunks == (16, 16):   # an interior chunk (with (12, 20), only chunks whose interior is most of them)
            node = out.__dask_graph__()[out.__dask_keys__()[1][1]]
            assert (node.func if hasattr(node, "func") else node[0]) is hd.run_split
        np.testing.assert_allclose(out.compute(), ref, rtol=1e-6)
