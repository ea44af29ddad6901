"""Engine lifetimes (issue 14, item 1): destroying one compiled pipeline's engine, in any order and while others
run in other threads, leaves the runtime the others share (the async runtime's thread pool, libomp) working.

Each case runs in a fresh interpreter, so a crash is a failure rather than the end of the test run; the disk
cache is off there so every engine is an MLIR ExecutionEngine (the kind that ran the libraries' teardown)."""

import pytest

from helpers import python_env, run_python

PROGRAM = """
import gc, itertools, threading
import numpy as np
import halide_mlir as hl
from halide_mlir import driver
from halide_mlir.runtime import jit

x, y = hl.Var("x"), hl.Var("y")
funcs = []
for k in range(4):
    f = hl.Func(f"life{k}")
    f[x, y] = x * (k + 1) + y
    f.parallel(y)
    funcs.append(f)

def ref(k):
    return np.arange(64)[None, :] * (k + 1) + np.arange(48)[:, None]

def check(k, times=20):
    for _ in range(times):
        np.testing.assert_array_equal(np.asarray(funcs[k].realize([64, 48])), ref(k))

for order in itertools.permutations(range(3)):
    for k in range(4):
        check(k, 1)
    assert jit.loaded_engine_count() == 4, jit.loaded_engine_count()
    engines = {k: driver._compiled[key]() for k in range(4)
               for key in driver._compiled if key[0] == id(funcs[k]) and driver._compiled[key]() is not None}
    keep = engines.pop(3)
    runner = threading.Thread(target=check, args=(3, 200))   # the survivor runs while the others go
    runner.start()
    for k in order:
        for key in [key for key, c in jit._engines.items() if c is engines[k]]:
            del jit._engines[key]
        driver._repeats.clear()
        del engines[k]
        gc.collect()
        check(3, 5)
    runner.join()
    for k in range(3):
        check(k, 2)   # compiled again after their engines went
print("ok")
"""


@pytest.mark.parametrize("runtime", ["async", "openmp"])
def test_engines_destroyed_in_any_order_while_others_run(runtime):
    env = python_env()
    env.update(HALIDE_MLIR_PARALLEL_RUNTIME=runtime, HL_NUM_THREADS="2", HALIDE_MLIR_CACHE="0")
    r = run_python(PROGRAM, env=env, timeout=600)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), (r.returncode, r.stdout[-2000:], r.stderr[-3000:])
