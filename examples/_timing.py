"""Timing helper shared by the examples."""

import time


def best_of(fn, n: int) -> float:
    """Best wall time of ``n`` calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)
