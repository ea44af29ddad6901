"""A 3×3 box blur with repeat_edge realized over a Dask cluster, chunk by chunk, from a zarr image to a zarr image.

    python examples/dask_blur.py [ROWS COLS [CHUNK]]      (default 4096 4096 1024; needs the [dask] extra)

The input is a zarr array (chunks of 1000×1000 on purpose: not the output's chunking). Each output chunk is one
task that reads exactly the window bounds inference gives for it (the chunk plus a 1-pixel halo, clamped at the
image edges), sliced lazily from the input across zarr chunks; the client compiles the pipeline once per distinct
chunk code and ships the object code; the two workers link it without MLIR. The result is streamed to a zarr
store, then checked against a single-machine ``realize`` and numpy.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time

import numpy as np

import halide_mlir as hl


def blur3(inp):
    x, y = hl.Var("x"), hl.Var("y")
    clamped = hl.BoundaryConditions.repeat_edge(inp)
    blur_x, blur_y = hl.Func("blur_x"), hl.Func("blur_y")
    blur_x[x, y] = (clamped[x - 1, y] + clamped[x, y] + clamped[x + 1, y]) / 3
    blur_y[x, y] = (blur_x[x, y - 1] + blur_x[x, y] + blur_x[x, y + 1]) / 3
    return blur_y


def main(rows: int = 4096, cols: int = 4096, chunk: int = 1024) -> None:
    import dask.array as da
    import distributed
    import zarr

    import halide_mlir.dask as hd

    with (
        tempfile.TemporaryDirectory(prefix="dask_blur-") as d,
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=logging.ERROR
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        image = np.random.default_rng(0).random((rows, cols), dtype=np.float32)
        src = zarr.open_array(f"{d}/in.zarr", mode="w", shape=image.shape, chunks=(1000, 1000), dtype=image.dtype)
        src[...] = image

        inp = hl.ImageParam(hl.Float(32), 2, "input")
        blur = blur3(inp)
        t = time.perf_counter()
        out = hd.realize(blur, [cols, rows], (chunk, chunk), inputs={inp: src}, client=client)
        print(
            f"graph of {out.npartitions} tasks, {hd.stats['compiles']} compiled kernels: "
            f"{time.perf_counter() - t:.2f} s"
        )
        t = time.perf_counter()
        da.to_zarr(out, f"{d}/out.zarr")
        print(f"realized to zarr on 2 workers: {time.perf_counter() - t:.2f} s")

        result = zarr.open_array(f"{d}/out.zarr", mode="r")[...]
        inp.set(hl.Buffer(image))
        local = np.asarray(blur.realize([cols, rows]))
        p = np.pad(image, 1, mode="edge")
        bx = (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) / np.float32(3)
        reference = (bx[:-2] + bx[1:-1] + bx[2:]) / np.float32(3)
        print(
            f"max |dask - realize| = {np.abs(result - local).max():.2g}, "
            f"max |dask - numpy| = {np.abs(result - reference).max():.2g}"
        )
        if not (np.array_equal(result, local) and np.allclose(result, reference, rtol=1e-6, atol=1e-6)):
            sys.exit("MISMATCH: the Dask result differs from the single-machine realize or from numpy")


if __name__ == "__main__":
    main(*[int(a) for a in sys.argv[1:]])
