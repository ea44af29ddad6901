"""Memory and threads (issue 6): repeated realizes do not leak, stack use does not grow with the image,
and realize/compile are safe from several Python threads at once.

Calls into compiled code go through ctypes, which releases the GIL: two threads' pipelines really run at
the same time (test_compiled_code_runs_without_the_gil checks it), so these tests exercise true concurrency.
"""

import gc
import os
import threading
import time

import numpy as np
import pytest

from helpers import box_blur, box_blur_numpy, in_threads, run_python
from oracle import image_f32, ours


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def blur(hl, arr, name="blur", vec=16):
    """The 3x3 separable box blur of the README: blur_x compute_root, both vectorized."""
    bx, by, x, y = box_blur(hl, hl.Buffer(arr, f"{name}_in"), names=(f"{name}_x", name))
    bx.compute_root().vectorize(x, vec)
    by.vectorize(x, vec)
    return by


IMG = image_f32(258, 258, seed=11)
EXPECTED = box_blur_numpy(IMG)


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

def test_thousand_realizes_do_not_grow_rss():
    hl = ours()
    f = blur(hl, IMG)
    out = None
    for _ in range(50):  # warm-up: compile, caches, allocator pools
        out = f.realize([256, 256])
    np.testing.assert_allclose(np.asarray(out), EXPECTED, rtol=1e-5, atol=1e-6)
    gc.collect()
    before = rss_bytes()
    for _ in range(1000):
        out = f.realize([256, 256])
    del out
    gc.collect()
    grown = rss_bytes() - before
    assert grown < (1 << 20), f"RSS grew by {grown / 1024:.0f} KiB over 1000 realizes"


def test_thousand_realizes_into_one_buffer_do_not_grow_rss():
    hl = ours()
    f = blur(hl, IMG, name="blur_into")
    out = hl.Buffer(hl.Float(32), [256, 256])
    for _ in range(50):
        f.realize(out)
    gc.collect()
    before = rss_bytes()
    for _ in range(1000):
        f.realize(out)
    gc.collect()
    grown = rss_bytes() - before
    np.testing.assert_allclose(np.asarray(out), EXPECTED, rtol=1e-5, atol=1e-6)
    assert grown < (1 << 20), f"RSS grew by {grown / 1024:.0f} KiB over 1000 realizes"


def _run_isolated(code: str, stack_bytes: int):
    """Run `code` in a fresh interpreter (so a segfault is reported, not fatal), with the stack limited the
    way a default shell limits it."""
    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_STACK, (stack_bytes, stack_bytes))
    return run_python(code, preexec_fn=limit)


LARGE = 16384


def test_16k_by_16k_realize_runs_under_the_default_8mb_stack():
    """Stack use must not grow with the image (no per-row/tile allocas left in loops): a 16k x 16k f32
    pointwise pipeline with a compute_root intermediate (1 GiB each) under an 8 MiB stack limit."""
    r = _run_isolated(f"""
        import numpy as np, resource, time
        import halide_mlir as hl
        assert resource.getrlimit(resource.RLIMIT_STACK)[0] == 8 << 20
        n = {LARGE}
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("g")
        g[x, y] = hl.f32(x % 251) + hl.f32(y % 13)
        g.compute_root().vectorize(x, 16).parallel(y)
        f = hl.Func("f")
        f[x, y] = g[x, y] * 2.0 + 1.0
        f.vectorize(x, 16).parallel(y)
        t = time.perf_counter()
        out = np.asarray(f.realize([n, n]))
        xs, ys = np.array([0, 1, 250, 251, n - 1]), np.array([0, 12, 13, n - 1, 7000])
        want = ((xs % 251).astype(np.float32) + (ys % 13).astype(np.float32)) * 2 + 1
        got = out[ys, xs]
        assert np.array_equal(got, want), (got, want)
        assert out.shape == (n, n)
        print("ok", round(time.perf_counter() - t, 2))
    """, stack_bytes=8 << 20)
    assert r.returncode == 0, f"crashed or failed (rc {r.returncode}):\n{r.stdout}\n{r.stderr[-3000:]}"
    assert r.stdout.startswith("ok"), r.stdout


def test_16k_by_16k_serial_realize_runs_under_the_default_8mb_stack():
    """The same without parallel loops (everything on the main thread's stack), u8 so it stays quick."""
    r = _run_isolated(f"""
        import numpy as np
        import halide_mlir as hl
        n = {LARGE}
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func("g")
        g[x, y] = hl.u8((x + y) % 200)
        g.compute_root().vectorize(x, 32)
        f = hl.Func("f")
        f[x, y] = g[x, y] + 1
        f.vectorize(x, 32)
        out = np.asarray(f.realize([n, n]))
        assert out[0, 0] == 1 and out[5, 7] == 13 and out[n - 1, n - 1] == (2 * n - 2) % 200 + 1
        print("ok")
    """, stack_bytes=8 << 20)
    assert r.returncode == 0, f"crashed or failed (rc {r.returncode}):\n{r.stdout}\n{r.stderr[-3000:]}"


# ---------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------

def test_realize_from_two_threads_on_different_pipelines():
    hl = ours()
    other = image_f32(130, 66, seed=12)
    pipelines = [(blur(hl, IMG, "tb1"), [256, 256], EXPECTED),
                 (blur(hl, other, "tb2", vec=8), [128, 64], box_blur_numpy(other))]
    for f, sizes, _ in pipelines:  # compile first: this test is about running concurrently
        f.realize(sizes)

    def job(f, sizes, want):
        def run():
            for _ in range(100):
                np.testing.assert_allclose(np.asarray(f.realize(sizes)), want, rtol=1e-5, atol=1e-6)
        return run

    in_threads([job(*p) for p in pipelines])


def test_realize_from_two_threads_on_the_same_compiled_pipeline():
    hl = ours()
    f = blur(hl, IMG, "same")
    f.realize([256, 256])

    def run():
        for _ in range(100):
            np.testing.assert_allclose(np.asarray(f.realize([256, 256])), EXPECTED, rtol=1e-5, atol=1e-6)

    in_threads([run, run, run])


def test_realize_from_threads_into_their_own_buffers_with_shifted_mins():
    hl = ours()
    f = blur(hl, IMG, "shifted")

    def job(mx, my):
        def run():
            out = hl.Buffer(hl.Float(32), [64, 32])
            out.set_min([mx, my])
            for _ in range(50):
                f.realize(out)
                np.testing.assert_allclose(np.asarray(out), EXPECTED[my:my + 32, mx:mx + 64], rtol=1e-5,
                                           atol=1e-6)
        return run

    in_threads([job(0, 0), job(100, 50), job(192, 224)])


def test_compiling_from_two_threads_at_once():
    """Different pipelines compile concurrently (each thread builds and realizes its own), and the same
    pipeline asked for by two threads compiles once and is shared."""
    hl = ours()
    from halide_mlir.runtime import jit
    arrays = [image_f32(40 + 8 * i, 24 + 4 * i, seed=20 + i) for i in range(4)]

    def job(i):
        def run():
            f = blur(hl, arrays[i], f"conc{i}", vec=4 * (i + 1))
            h, w = arrays[i].shape
            np.testing.assert_allclose(np.asarray(f.realize([w - 2, h - 2])), box_blur_numpy(arrays[i]),
                                       rtol=1e-5, atol=1e-6)
        return run

    in_threads([job(i) for i in range(4)])

    shared = blur(hl, arrays[0], "conc_shared", vec=64)   # a schedule no other test compiles
    before = jit.engines_built()
    results = []

    def same():
        results.append(np.asarray(shared.realize([38, 22])).copy())

    in_threads([same, same, same])
    assert jit.engines_built() == before + 1, "the same pipeline was compiled more than once"
    for r in results:
        np.testing.assert_allclose(r, box_blur_numpy(arrays[0]), rtol=1e-5, atol=1e-6)


def test_compiled_code_runs_without_the_gil():
    """While one thread is inside compiled code, Python threads keep running (ctypes drops the GIL)."""
    hl = ours()
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("slow")
    e = hl.f32(x)
    for i in range(30):
        e = hl.sin(e) + hl.f32(y % (i + 2))
    f[x, y] = e
    f.vectorize(x, 16)
    f.realize([64, 64])  # compile
    start = time.perf_counter()
    f.realize([2048, 512])
    alone = time.perf_counter() - start
    if alone < 0.05:
        pytest.skip(f"the pipeline is too quick ({alone:.3f}s) to measure")

    ticks = [0]
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        f.realize([2048, 512])
    finally:
        done.set()
        t.join()
    # with the GIL held for the whole call the ticker would get ~1 tick
    assert ticks[0] >= 5, f"only {ticks[0]} ticks during {alone:.3f}s of compiled code: the GIL was held"
