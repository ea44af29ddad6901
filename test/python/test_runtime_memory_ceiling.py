"""Memory ceilings (issue 14, item 2): compiled code does not accumulate. At most HALIDE_MLIR_MAX_ENGINES engines
(default 64) stay loaded, the least recently called evicted first, so a process that builds and realizes many
distinct pipelines (a service, the autotuner) stays bounded. Measured (HALIDE_MLIR_CACHE=0, every pipeline
compiled): 1,000 distinct two-stage pipelines with the default bound plateau at ~345 MB resident, +2 MB from the
100th to the 1,000th (45 s); without the bound, +312 MB from the 50th to the 200th (~2.1 MB a pipeline).

The ceiling stated: 1,000 pipelines end under 512 MB resident and grow under 64 MB after the 100th (marked slow:
about a minute on 2 cores). Unmarked, 100 pipelines under a bound of 8 engines (~6 s) grow under 30 MB after the
30th (unbounded: ~150 MB)."""

import pytest

from helpers import python_env, run_python

PROGRAM = """
import os, sys
import numpy as np
import halide_mlir as hl
from halide_mlir.runtime import jit

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

n, settle = int(sys.argv[1]), int(sys.argv[2])
x, y = hl.Var("x"), hl.Var("y")
a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
inp = hl.Buffer(a, "ceiling_in")
for i in range(n):
    g = hl.Func("ceiling_g")
    g[x, y] = inp[x, y] * (i + 1)
    f = hl.Func("ceiling_f")
    f[x, y] = g[x, y] + g[hl.min(x + 1, 63), y] + i
    g.compute_root()
    for _ in range(2):
        out = np.asarray(f.realize([64, 64]))
    assert out[3, 5] == a[3, 5] * (i + 1) + a[3, 6] * (i + 1) + i, i
    assert jit.loaded_engine_count() <= jit.max_engines()
    if i + 1 == settle:
        settled = rss_mb()
print("RESULT", settled, rss_mb(), jit.engines_built())
"""


def run_pipelines(n: int, settle: int, max_engines: int):
    env = python_env(HALIDE_MLIR_MAX_ENGINES=str(max_engines), HALIDE_MLIR_CACHE="0")
    r = run_python(f"import sys; sys.argv = ['x', '{n}', '{settle}']\n" + PROGRAM, env=env, timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    settled, end, built = (float(v) for v in r.stdout.split("RESULT")[1].split())
    assert built == n
    return settled, end


def test_hundred_distinct_pipelines_stay_bounded():
    settled, end = run_pipelines(100, 30, max_engines=8)
    assert end - settled < 30, f"{end - settled:.0f} MB more after 70 more pipelines under a bound of 8 engines"
    assert end < 512, f"{end:.0f} MB resident after 100 pipelines"


@pytest.mark.slow
def test_thousand_distinct_pipelines_stay_under_the_ceiling():
    settled, end = run_pipelines(1000, 100, max_engines=64)
    assert end - settled < 64, f"{end - settled:.0f} MB more after 900 more pipelines"
    assert end < 512, f"{end:.0f} MB resident after 1,000 pipelines"
