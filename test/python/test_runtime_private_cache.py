"""A private cache (issue 14, item 4): the disk cache runs the code it loads, so its directory is created 0700,
and one that another user owns or that group or others can write is refused with an UnsafeCacheWarning: nothing is
read or written there, and realize still works (compiled in process)."""

import itertools
import os
import stat
import warnings

import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir.error import UnsafeCacheWarning
from halide_mlir.runtime import disk_cache

_unique = itertools.count(1)


def realize_new_pipeline():
    """A pipeline no other test compiles (so the disk cache is asked), realized and checked against numpy."""
    k = 7919 * next(_unique) + os.getpid() % 1000
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("private_cache")
    f[x, y] = x * 3 + y + k
    np.testing.assert_array_equal(np.asarray(f.realize([8, 4])), np.arange(8)[None, :] * 3 + np.arange(4)[:, None] + k)


def entries(d):
    return [os.path.join(r, n) for r, _, names in os.walk(d) for n in names]


@pytest.fixture
def cache_in(monkeypatch):
    def use(d):
        monkeypatch.setenv("HALIDE_MLIR_CACHE", "1")
        monkeypatch.setenv("HALIDE_MLIR_CACHE_DIR", str(d))
        monkeypatch.setattr(disk_cache, "_private", {})
        return d
    return use


def test_new_cache_dir_is_private(tmp_path, cache_in, monkeypatch):
    d = cache_in(tmp_path / "fresh" / "cache")
    old = os.umask(0o002)   # a permissive umask must not make it group-writable
    try:
        stores = disk_cache.stats["stores"]
        realize_new_pipeline()
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    assert disk_cache.stats["stores"] == stores + 1 and entries(d)
    for sub in os.scandir(d):
        assert stat.S_IMODE(sub.stat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_writable_by_others_is_refused(tmp_path, cache_in, mode):
    d = cache_in(tmp_path / "shared")
    d.mkdir()
    os.chmod(d, mode)
    stats = dict(disk_cache.stats)
    with pytest.warns(UnsafeCacheWarning, match=f"{d}.*group or others can write it"):
        realize_new_pipeline()
    assert disk_cache.stats == stats and not entries(d)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsafeCacheWarning)   # said once, not on every compile
        realize_new_pipeline()
    assert not entries(d)


def test_owned_by_another_user_is_refused(tmp_path, cache_in, monkeypatch):
    d = cache_in(tmp_path / "theirs")
    d.mkdir(mode=0o700)
    if os.getuid() == 0:
        os.chown(d, 65534, 65534)
    else:   # a non-root test can't give a directory away: be someone else instead
        owner = os.stat(d).st_uid
        monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    stats = dict(disk_cache.stats)
    with pytest.warns(UnsafeCacheWarning, match="owned by another user"):
        realize_new_pipeline()
    assert disk_cache.stats == stats and not entries(d)


def test_private_existing_dir_is_used(tmp_path, cache_in):
    d = cache_in(tmp_path / "mine")
    d.mkdir(mode=0o755)   # readable by others is fine: only writing is a danger
    os.chmod(d, 0o755)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsafeCacheWarning)
        realize_new_pipeline()
    assert entries(d)
