"""Parallel loops run on OpenMP (libomp from the cmeel-libomp wheel) with HL_NUM_THREADS threads, or on MLIR's
async runtime with HALIDE_MLIR_PARALLEL_RUNTIME=async (codegen/lowering.py); both give the serial results."""
import numpy as np
import pytest

import halide_mlir as hl
from helpers import box_blur, in_threads, python_env, run_python


def _run(code: str, **env) -> str:
    r = run_python(code, env=python_env(HALIDE_MLIR_CACHE="0", **env))
    assert r.returncode == 0, f"rc {r.returncode}:\n{r.stdout}\n{r.stderr[-3000:]}"
    return r.stdout


@pytest.mark.parametrize("threads", [1, 3])
def test_hl_num_threads_sets_the_team_size(threads):
    """A parallel loop starts HL_NUM_THREADS - 1 worker threads (the caller is the first); the JIT's own
    llvm-worker threads aside."""
    out = _run("""
        import os
        import numpy as np
        import halide_mlir as hl

        def workers():
            return sum(not open(f"/proc/self/task/{t}/comm").read().startswith("llvm-worker")
                       for t in os.listdir("/proc/self/task"))

        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = x + y
        f.vectorize(x, 16).parallel(y)
        before = workers()
        out = np.asarray(f.realize([64, 64]))
        assert (out == np.add.outer(np.arange(64), np.arange(64))).all()
        print(workers() - before)
    """, HL_NUM_THREADS=str(threads))
    assert int(out) == threads - 1


def _blur(a, strip):
    """Integer arithmetic, so "the serial result" means bit-identical: in float, LLVM may contract a multiply
    into an add (FMA) in one copy of a loop body and not in another (the async runtime keeps two copies of a
    parallel body, and which one runs a block varies from call to call), a last-bit difference."""
    bx, out, x, y = box_blur(hl, hl.Buffer(a, "input"))
    yo, yi = hl.Var("yo"), hl.Var("yi")
    out.split(y, yo, yi, strip).vectorize(x, 16).parallel(yo)
    bx.compute_at(out, yo).vectorize(x, 16)
    return out


@pytest.mark.parametrize("runtime", ["openmp", "async"])
@pytest.mark.parametrize("threads", ["2", "3"])
def test_runtimes_give_the_serial_result(monkeypatch, runtime, threads):
    """Uneven splits (7 strips of 5 rows, the last one short, over 2 or 3 threads), realized repeatedly."""
    a = np.random.default_rng(7).integers(0, 4096, (35, 50), dtype=np.uint16)
    monkeypatch.setenv("HL_NUM_THREADS", "1")
    want = np.asarray(_blur(a, 5).realize([48, 33]))
    monkeypatch.setenv("HL_NUM_THREADS", threads)
    monkeypatch.setenv("HALIDE_MLIR_PARALLEL_RUNTIME", runtime)
    f = _blur(a, 5)
    for _ in range(20):
        np.testing.assert_array_equal(np.asarray(f.realize([48, 33])), want)


def test_unknown_runtime_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HL_NUM_THREADS", "2")
    monkeypatch.setenv("HALIDE_MLIR_PARALLEL_RUNTIME", "tbb")
    with pytest.raises(hl.HalideError, match="HALIDE_MLIR_PARALLEL_RUNTIME='tbb': expected one of openmp, async"):
        _blur(np.zeros((10, 10), dtype=np.uint16), 4).realize([8, 8])


@pytest.mark.parametrize("runtime", ["openmp", "async"])
def test_parallel_pipelines_from_several_python_threads(monkeypatch, runtime):
    """Four Python threads (ctypes releases the GIL) each run parallel loops at once: with OpenMP each caller is
    the master of its own team; every call's result is the serial one."""
    rng = np.random.default_rng(8)
    arrays = [rng.integers(0, 4096, (66, 130), dtype=np.uint16) for _ in range(4)]
    funcs = [_blur(a, 8) for a in arrays]
    monkeypatch.setenv("HL_NUM_THREADS", "1")
    wants = [np.asarray(f.realize([128, 64])).copy() for f in funcs]
    monkeypatch.setenv("HL_NUM_THREADS", "2")
    monkeypatch.setenv("HALIDE_MLIR_PARALLEL_RUNTIME", runtime)
    for f in funcs:   # compiled here, before the threads
        f.realize([128, 64])

    def job(i):
        def run():
            out = hl.Buffer(hl.UInt(16), [128, 64])
            for _ in range(200):
                funcs[i].realize(out)
                np.testing.assert_array_equal(np.asarray(out), wants[i])
        return run

    in_threads([job(i) for i in range(4)], timeout=120)
