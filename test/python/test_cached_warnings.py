"""A SlowPathWarning a compile emits is emitted again when the compiled code comes from a cache: the disk cache
stores the warnings with the object (runtime/disk_cache.py), and an engine shared by a pipeline built again in the
same process (runtime/jit.py compile_cached) emits its compile's warnings again, naming the new pipeline's lines."""
import re
import warnings

import numpy as np

import halide_mlir as hl
from halide_mlir import driver
from halide_mlir.runtime import disk_cache, jit

IMG = np.random.default_rng(5).integers(0, 255, (29, 37), endpoint=True).astype(np.uint8)


def unroll_here(p, y):
    p.unroll(y)
    return UNROLL_LINE


UNROLL_LINE = unroll_here.__code__.co_firstlineno + 1


def build(unroll=None):
    """test_unroll.py's unroll that does not happen: p's y loop runs 4 iterations, unrolled by 5 (where
    ``unroll`` says, or here). Each build names its Funcs as a fresh process would (p, not p$1)."""
    from halide_mlir.lang import func
    func._name_counts.clear()
    x, y, yo, yi = (hl.Var(v) for v in "x y yo yi".split())
    inp = hl.Buffer(IMG, "in0")
    p, q, c, out = hl.Func("p"), hl.Func("q"), hl.Func("c"), hl.Func("out")
    p[x, y] = hl.i32(inp[hl.clamp(x, 0, 36), hl.clamp(y, 0, 28)]) * 3
    q[x, y] = p[x, y] + p[x + 1, y + 1]
    c[x, y] = q[x, y] * 2 + 1
    out[x, y] = c[x, y] - c[x, y + 1]
    out.split(y, yo, yi, 8)
    c.compute_at(out, yo).split(y, yo, yi, 4)
    p.compute_at(c, yo)
    if unroll is None:
        p.unroll(y)
    else:
        unroll(p, y)
    q.compute_at(c, yi)
    return out


def reference():
    i = IMG.astype(np.int64)
    ys, xs = np.meshgrid(np.arange(27), np.arange(35), indexing="ij")
    pv = lambda yy, xx: i[np.clip(yy, 0, 28), np.clip(xx, 0, 36)] * 3  # noqa: E731
    cv = lambda yy: (pv(yy, xs) + pv(yy + 1, xs + 1)) * 2 + 1  # noqa: E731
    return cv(ys) - cv(ys + 1)


def realize_warnings(out):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", hl.UnrollWarning)
        result = np.asarray(out.realize([35, 26]))
    assert np.array_equal(result, reference()[:26])
    return [str(w.message) for w in caught if issubclass(w.category, hl.UnrollWarning)]


def forget_in_memory():
    jit._engines.clear()
    driver._compiled.clear()
    driver._repeats.clear()


def test_unroll_warning_survives_the_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("HALIDE_MLIR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("HALIDE_MLIR_CACHE", raising=False)
    forget_in_memory()
    hits, misses = disk_cache.stats["hits"], disk_cache.stats["misses"]
    first = realize_warnings(build())          # compiled, stored with its warning
    assert disk_cache.stats["misses"] == misses + 1
    assert len(first) == 1 and re.search(r"test_cached_warnings\.py:\d+: Func 'p': unrolled loop 'y' is not "
                                         r"fully unrolled: it runs 4 iterations", first[0]), first

    built = jit.engines_built()
    again = realize_warnings(build())          # the same text: the in-memory engine, its warning again
    assert jit.engines_built() == built and again == first

    forget_in_memory()
    from_disk = realize_warnings(build())      # nothing compiled: the disk cache's object and its warning
    assert disk_cache.stats["hits"] == hits + 1 and disk_cache.stats["misses"] == misses + 1
    assert from_disk == first

    # the same pipeline with its unroll on another line: the same engine, the warning names that line
    moved = realize_warnings(build(unroll_here))
    assert len(moved) == 1 and f"test_cached_warnings.py:{UNROLL_LINE}: Func 'p'" in moved[0], moved
    assert moved[0].split(": Func")[1] == first[0].split(": Func")[1]
    forget_in_memory()
    assert realize_warnings(build(unroll_here)) == moved
    assert disk_cache.stats["hits"] == hits + 2
    forget_in_memory()
