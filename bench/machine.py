"""What this machine can do: CPU model, memory bandwidth, FMA peak.

* Bandwidth: the best of several ``np.copyto`` of a large array (``copy_mb`` MB, far above the caches), counted as
  2 × size bytes (one read, one write). With more than one thread the array is copied in equal chunks by a thread
  pool (numpy releases the GIL while copying) and the better of the two measurements is used.
* FMA peak: a real-Halide pipeline over a small buffer that stays in L1/L2. Each element runs ``chains`` independent
  chains of ``steps`` dependent ``a = a * m_i + c`` steps (``m_i``, ``c`` are Params, one ``m_i`` per chain,
  so neither Halide's simplifier nor LLVM's reassociation can merge steps or chains; Halide fuses each into
  one FMA; ``chains`` = 12 covers the FMA latency × the FMA ports of current x86 cores; 16 steps keep the loop body
  small: 256 steps measured 20% lower), vectorized 16 wide (one zmm of f32) and parallel over rows
  with the harness's thread setting. FLOPs = 2 × chains × steps × elements. It is compiled with Halide, before any
  MLIR engine exists in the process.
"""

from __future__ import annotations

import concurrent.futures
import os
import platform
import time

import numpy as np


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def bandwidth_gbs(threads: int, copy_mb: int = 256, repeats: int = 5) -> float:
    """Copy bandwidth in GB/s (1e9 bytes/s), read + write counted."""
    n = copy_mb * (1 << 20) // 4
    src = np.random.default_rng(0).random(n, dtype=np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # fault the pages in

    def best(copy) -> float:
        t_best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            copy()
            t_best = min(t_best, time.perf_counter() - t)
        return 2 * src.nbytes / t_best / 1e9

    result = best(lambda: np.copyto(dst, src))
    if threads > 1:
        bounds = np.linspace(0, n, threads + 1).astype(int)
        chunks = [(dst[a:b], src[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:

            def parallel_copy():
                list(pool.map(lambda c: np.copyto(*c), chunks))

            result = max(result, best(parallel_copy))
    return result


def fma_peak_gflops(
    halide, threads: int, steps: int = 16, chains: int = 12, width: int = 512, rows: int | None = None, repeats: int = 7
) -> float:
    """Measured peak of f32 FMAs in GFLOP/s with Halide (see the module docstring)."""
    hl = halide
    rows = rows or 64 * max(1, threads)
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("fma_peak")
    base = hl.cast(hl.Float(32), x + y) * hl.f32(1e-3)
    accs = [base + hl.f32(i * 0.01) for i in range(chains)]
    # Params, not constants: Halide's simplifier folds (a * m + c) * m + c with constant m, c into one step; one
    # multiplier per chain: with a shared one LLVM (fast-math reassociation) merges chains that differ by a constant
    ms = [hl.Param(hl.Float(32), f"m{i}", 0.999 - 1e-4 * i) for i in range(chains)]
    c = hl.Param(hl.Float(32), "c", 0.001)
    for _ in range(steps):
        accs = [a * m + c for a, m in zip(accs, ms)]
    total = accs[0]
    for a in accs[1:]:
        total = total + a
    f[x, y] = total
    f.vectorize(x, 16).parallel(y)
    f.compile_jit()
    out = f.realize([width, rows])
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        f.realize(out)
        best = min(best, time.perf_counter() - t)
    return 2.0 * chains * steps * width * rows / best / 1e9


def describe(threads: int) -> dict:
    flags = cpu_flags()
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count() or 1,
        "avx512": "avx512f" in flags,
        "threads": threads,
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "python": platform.python_version(),
    }
