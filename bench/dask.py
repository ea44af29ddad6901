"""``python -m bench.dask [--size N] [--chunk C] [--workers 1,2] [--rounds R]``: halide_mlir on Dask vs dask-image.

A 3x3 box blur and a 5x5 Gaussian (sigma 1, truncate 2: radius 2) of an N x N float32 image (default 16384),
as a user would run them: a ``distributed.LocalCluster`` of 1 then 2 worker processes, one thread each, the input
persisted in C x C chunks (default 2048), the output persisted on the workers (never gathered). halide_mlir:
``halide_mlir.dask.realize`` of a separable pipeline with ``mirror_image`` (scipy's ``reflect``); dask-image:
``ndfilters.uniform_filter(x, 3)`` and ``gaussian_filter(x, 1.0, truncate=2)`` (``map_overlap`` around scipy).
Outputs are checked equal on sampled blocks (edges included). Reported per case: best wall time of R rounds
(halide_mlir's includes building the graph: bounds inference per chunk, compiled code already cached),
1 -> 2 worker scaling, bytes moved between workers, and per chunk: the kernel alone (in this process), the
task on the worker (window assembly + kernel, from the task stream), the wall time per chunk per worker and the
CPU time per chunk of all the processes (client and scheduler, workers; includes the gc between rounds).
"""

from __future__ import annotations

import argparse
import gc
import logging
import time

import numpy as np


def blur3(hl, img):
    x, y = hl.Var("x"), hl.Var("y")
    c = hl.BoundaryConditions.mirror_image(img)
    bx, by = hl.Func("bench_blur_x"), hl.Func("bench_blur")
    bx[x, y] = (c[x - 1, y] + c[x, y] + c[x + 1, y]) * np.float32(1 / 3)
    by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) * np.float32(1 / 3)
    bx.compute_at(by, y).vectorize(x, 16)
    by.vectorize(x, 16)
    return by


def gauss5(hl, img):
    k = np.exp(-0.5 * np.arange(-2, 3) ** 2)
    w = (k / k.sum()).astype(np.float32)
    x, y = hl.Var("x"), hl.Var("y")
    c = hl.BoundaryConditions.mirror_image(img)
    gx, gy = hl.Func("bench_gauss_x"), hl.Func("bench_gauss")
    gx[x, y] = sum(c[x + i, y] * w[i + 2] for i in range(-2, 3))
    gy[x, y] = sum(gx[x, y + i] * w[i + 2] for i in range(-2, 3))
    gx.compute_at(gy, y).vectorize(x, 16)
    gy.vectorize(x, 16)
    return gy


def _kernel_time(hl, build, chunk, rounds):
    """The compiled pipeline over one interior chunk, in this process (single thread): best of ``rounds``."""
    a = np.random.default_rng(0).random((chunk + 8, chunk + 8), dtype=np.float32)
    img = hl.ImageParam(hl.Float(32), 2, "kt_in")
    img.set(hl.Buffer(a))
    f = build(hl, img)
    out = hl.Buffer(hl.Float(32), [chunk, chunk])
    out.set_min([4, 4])
    f.realize(out)
    best = np.inf
    for _ in range(rounds * 3):
        t = time.perf_counter()
        f.realize(out)
        best = min(best, time.perf_counter() - t)
    return best


def _cpu(client) -> float:
    """CPU seconds used so far by this process (the client and the LocalCluster's scheduler) and the workers:
    on a shared machine a steadier measure of the work per chunk than the wall time."""
    return time.process_time() + sum(client.run(time.process_time).values())


def _wall(run, rounds, client):
    best, result = np.inf, None
    for _ in range(rounds):
        del result
        gc.collect()
        client.run(gc.collect)
        t = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - t)
    return best, result


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--chunk", type=int, default=2048)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    import os

    os.environ.setdefault("HL_NUM_THREADS", "1")
    import dask.array as da
    import distributed
    from dask_image import ndfilters

    import halide_mlir as hl
    import halide_mlir.dask as hd

    n, c = args.size, args.chunk
    nchunks = (-(-n // c)) ** 2
    cases = [
        ("blur 3x3", blur3, lambda x: ndfilters.uniform_filter(x, 3)),
        ("gaussian 5x5", gauss5, lambda x: ndfilters.gaussian_filter(x, 1.0, truncate=2)),
    ]
    kernel = {name: _kernel_time(hl, build, c, args.rounds) for name, build, _ in cases}
    rows = []
    for workers in [int(w) for w in args.workers.split(",")]:
        with (
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
                memory_limit=0,
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            x = da.random.default_rng(1).random((n, n), dtype=np.float32, chunks=c).persist()
            distributed.wait(x)
            img = hl.ImageParam(hl.Float(32), 2, "bench_in")
            for name, build, theirs in cases:
                f = build(hl, img)
                hd.realize(f, [n, n], (c, c), inputs={img: x}, client=client)  # compile (then cached)

                def ours():
                    out = hd.realize(f, [n, n], (c, c), inputs={img: x}, client=client).persist()
                    distributed.wait(out)
                    return out

                def dask_image():
                    out = theirs(x).persist()
                    distributed.wait(out)
                    return out

                for impl, run in (("halide_mlir", ours), ("dask-image", dask_image)):
                    moved0 = sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())
                    cpu0 = _cpu(client)
                    with distributed.get_task_stream(client) as ts:
                        wall, out = _wall(run, args.rounds, client)
                    cpu = (_cpu(client) - cpu0) / args.rounds
                    moved = sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())
                    durations = sorted(
                        sum(s["stop"] - s["start"] for s in t["startstops"] if s["action"] == "compute")
                        for t in ts.data
                    )
                    big = durations[-nchunks * args.rounds :]  # the heaviest tasks: one per chunk per round
                    rows.append(
                        dict(
                            case=name,
                            impl=impl,
                            workers=workers,
                            wall=wall,
                            moved=(moved - moved0) / args.rounds,
                            task=float(np.median(big)),
                            per_chunk=wall * workers / nchunks,
                            cpu=cpu / nchunks,
                        )
                    )
                    if impl == "halide_mlir":
                        ref_out = out
                    else:
                        for r0, c0 in [(0, 0), (n // 2 - 100, n // 2 - 100), (n - 300, n - 300)]:
                            np.testing.assert_allclose(
                                ref_out[r0 : r0 + 300, c0 : c0 + 300].compute(),
                                out[r0 : r0 + 300, c0 : c0 + 300].compute(),
                                rtol=1e-5,
                                atol=1e-6,
                            )
                    del out
                del ref_out
    print(
        f"{n}x{n} float32, {c}^2 chunks ({nchunks}), one thread per worker; kernel alone per chunk: "
        + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in kernel.items())
    )
    print(
        "| case | impl | workers | wall s | vs dask-image | scaling 1->2 | MB moved | task ms/chunk "
        "| wall ms/chunk/worker | overhead vs kernel | CPU ms/chunk (all processes) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        other = next(
            o for o in rows if o["case"] == r["case"] and o["workers"] == r["workers"] and o["impl"] == "dask-image"
        )
        one = next((o for o in rows if o["case"] == r["case"] and o["impl"] == r["impl"] and o["workers"] == 1), None)
        scaling = f"{one['wall'] / r['wall']:.2f}x" if one is not None and r["workers"] == 2 else ""
        overhead = f"{(r['per_chunk'] / kernel[r['case']] - 1) * 100:.0f}%" if r["impl"] == "halide_mlir" else ""
        print(
            f"| {r['case']} | {r['impl']} | {r['workers']} | {r['wall']:.2f} | "
            f"{other['wall'] / r['wall']:.1f}x | {scaling} | {r['moved'] / 1e6:.0f} | {r['task'] * 1e3:.1f} | "
            f"{r['per_chunk'] * 1e3:.1f} | {overhead} | {r['cpu'] * 1e3:.1f} |"
        )


if __name__ == "__main__":
    main()
