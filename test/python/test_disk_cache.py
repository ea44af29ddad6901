"""The on-disk cache of compiled pipelines (runtime/disk_cache.py): a second process loads the object instead of
compiling. Everything is checked through the cache's counters and the files, never through timing."""
import json
import os
import threading

import numpy as np
import pytest

from helpers import python_env, run_python

# The tiled-fusion blur (compute_at + parallel: exercises libomp's symbols when linking from disk).
PROGRAM = r"""
import json, sys
import numpy as np
import halide_mlir as hl
from halide_mlir.runtime import disk_cache

rng = np.random.default_rng(7)
a = rng.random((66, 514), dtype=np.float32)
inp = hl.Buffer(a, "input")
x, y, xo, yo, xi, yi = (hl.Var(n) for n in "x y xo yo xi yi".split())
bx, out = hl.Func("blur_x"), hl.Func("blur_y")
bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
out.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 16).parallel(yo)
bx.compute_at(out, xo).vectorize(x, 16)
got = np.asarray(out.realize([512, 64]))
bxr = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / np.float32(3)
ref = (bxr[:-2] + bxr[1:-1] + bxr[2:]) / np.float32(3)
print(json.dumps({"stats": disk_cache.stats, "max_err": float(np.abs(got - ref).max()),
                  "shape": list(got.shape), "mlir_imported": "mlir.ir" in sys.modules}))
"""


def run(cache_dir, **env_extra):
    env = python_env(HALIDE_MLIR_CACHE_DIR=str(cache_dir), HL_NUM_THREADS="2")
    env.pop("HALIDE_MLIR_CACHE", None)
    env.update(env_extra)
    r = run_python(PROGRAM, env=env)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["shape"] == [64, 512]
    assert out["max_err"] < 1e-6, out
    return out


def entries(cache_dir):
    return sorted(str(p) for p in cache_dir.rglob("*.o"))


def test_second_process_loads_from_disk(tmp_path):
    first = run(tmp_path)
    assert first["stats"] == {"hits": 0, "misses": 1, "stores": 1, "corrupt": 0, "errors": 0}
    assert len(entries(tmp_path)) == 1
    second = run(tmp_path)
    assert second["stats"] == {"hits": 1, "misses": 0, "stores": 0, "corrupt": 0, "errors": 0}
    assert not second["mlir_imported"], "a cache hit must not even import the MLIR bindings"
    assert not list(tmp_path.rglob(".tmp-*")), "temporary files left behind"


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage_object"])
def test_corrupt_entry_is_rebuilt(tmp_path, damage):
    run(tmp_path)
    (path,) = entries(tmp_path)
    data = bytearray(open(path, "rb").read())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[len(data) // 2] ^= 0xFF
    elif damage == "empty":
        data = bytearray()
    else:   # a well-formed entry (right header and checksum) holding an object ORC refuses to link
        from halide_mlir.runtime import disk_cache
        obj = b"\x7fELF" + b"\0" * 60
        data = bytearray(disk_cache.pack(os.path.basename(path)[:-2], obj))
    with open(path, "wb") as f:
        f.write(data)
    rebuilt = run(tmp_path)
    assert rebuilt["stats"] == {"hits": 0, "misses": 1, "stores": 1, "corrupt": 1, "errors": 0}
    again = run(tmp_path)
    assert again["stats"]["hits"] == 1 and again["stats"]["corrupt"] == 0


def test_cache_disabled(tmp_path):
    out = run(tmp_path, HALIDE_MLIR_CACHE="0")
    assert out["stats"] == {"hits": 0, "misses": 0, "stores": 0, "corrupt": 0, "errors": 0}
    assert entries(tmp_path) == []


def test_unwritable_cache_dir_still_runs(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    out = run(blocker / "cache")   # makedirs fails: the realize must still succeed
    assert out["stats"]["misses"] == 1 and out["stats"]["stores"] == 0 and out["stats"]["errors"] == 1


def test_concurrent_processes_same_entry(tmp_path):
    results = [None] * 4

    def worker(i):
        results[i] = run(tmp_path)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r is not None for r in results)
    assert all(r["stats"]["corrupt"] == 0 for r in results)
    assert len(entries(tmp_path)) == 1
    assert not list(tmp_path.rglob(".tmp-*"))
    assert run(tmp_path)["stats"]["hits"] == 1


def test_default_location_and_key(tmp_path, monkeypatch):
    from halide_mlir.runtime import disk_cache
    monkeypatch.delenv("HALIDE_MLIR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert disk_cache.cache_dir() == os.path.join(str(tmp_path), "halide_mlir")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert disk_cache.cache_dir() == os.path.join(os.path.expanduser("~"), ".cache", "halide_mlir")
    monkeypatch.setenv("HALIDE_MLIR_CACHE_DIR", str(tmp_path / "x"))
    assert disk_cache.cache_dir() == str(tmp_path / "x")
    for off in ("0", "false", "off"):
        monkeypatch.setenv("HALIDE_MLIR_CACHE", off)
        assert not disk_cache.enabled()
    monkeypatch.setenv("HALIDE_MLIR_CACHE", "1")
    assert disk_cache.enabled()
    k = disk_cache.key("payload", "transform", 2, ["memref"], "passes")
    assert k == disk_cache.key("payload", "transform", 2, ["memref"], "passes")
    assert len({k, disk_cache.key("payload", "transform", 1, ["memref"], "passes"),
                disk_cache.key("payload!", "transform", 2, ["memref"], "passes"),
                disk_cache.key("payload", "transform!", 2, ["memref"], "passes"),
                disk_cache.key("payload", "transform", 2, ["memref"], "passes!"),
                disk_cache.key("payloadt", "ransform", 2, ["memref"], "passes")}) == 6


def test_round_trip_and_damage_in_process(tmp_path, monkeypatch):
    from halide_mlir.runtime import disk_cache
    monkeypatch.setenv("HALIDE_MLIR_CACHE_DIR", str(tmp_path))
    k = "ab" * 32
    assert disk_cache.read(k) is None
    obj = b"\x7fELF" + bytes(range(256)) * 4
    disk_cache.write(k, obj)
    assert disk_cache.read(k) == obj
    path = disk_cache._path(k)
    with open(path, "r+b") as f:   # an entry renamed to another key's name is refused
        f.seek(8)
        f.write(b"\0" * 32)
    before = disk_cache.stats["corrupt"]
    assert disk_cache.read(k) is None
    assert disk_cache.stats["corrupt"] == before + 1
    assert not os.path.exists(path)


def test_cache_is_pruned_least_recently_used_first(tmp_path, monkeypatch):
    """Past HALIDE_MLIR_CACHE_MAX_MB, a store deletes the least recently used entries (a hit counts as a use)."""
    from halide_mlir.runtime import disk_cache
    monkeypatch.setenv("HALIDE_MLIR_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("HALIDE_MLIR_CACHE_MAX_MB", str(10 * 1100 / (1 << 20)))   # room for about 10 entries
    obj = b"\x7fELF" + bytes(1000)
    keys = [f"{i:02x}" * 32 for i in range(12)]
    for i, k in enumerate(keys[:8]):
        disk_cache.write(k, obj)
        os.utime(disk_cache._path(k), (1000 + i, 1000 + i))    # written in this order, long ago
    assert disk_cache.read(keys[0]) == obj                      # used again just now
    for k in keys[8:]:
        disk_cache.write(k, obj)
    left = {k for k in keys if os.path.exists(disk_cache._path(k))}
    assert keys[0] in left and keys[11] in left                 # the recently used and the newest stay
    assert keys[1] not in left                                  # the oldest unused entry went first
    total = sum(os.path.getsize(disk_cache._path(k)) for k in left)
    assert total <= disk_cache.max_bytes()


def test_rebuilt_pipeline_reuses_its_engine():
    """The same pipeline built twice in one process compiles once, though its unrolled loops' descriptions name
    fresh Vars and RDoms (v3, r0) numbered per process (runtime/jit.py compile_cached)."""
    import halide_mlir as hl
    from halide_mlir.runtime import jit

    a = np.arange(40 * 30, dtype=np.float32).reshape(30, 40)

    def build():
        x, y = hl.Var("x"), hl.Var("y")
        r = hl.RDom([hl.Range(0, 4)])
        f = hl.Func("f")
        f[x, y] = hl.f32(0)
        f[x, y] += hl.Buffer(a, "a")[x + r.x, y]
        f.update().unroll(r.x, 2)
        return f

    first = np.asarray(build().realize([32, 30]))
    engines = jit.engines_built()
    again = np.asarray(build().realize([32, 30]))
    assert jit.engines_built() == engines
    assert (first == again).all()
