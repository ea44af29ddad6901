"""The memoization cache (Halide's runtime/cache.cpp): memoized Funcs' Buffers by key (analysis/memoize.py),
least recently used first out once they hold more than the cache size (Halide's default: 1 MB), and an eviction
key per entry. ``hl.memoization_cache_set_size``, ``hl.memoization_cache_evict`` and
``hl.memoization_cache_cleanup`` are Halide's runtime functions of the same names (halide_memoization_cache_*),
which its Python bindings do not expose."""

from __future__ import annotations

from collections import OrderedDict

DEFAULT_SIZE = 1 << 20
_size = [DEFAULT_SIZE]
_entries: OrderedDict = OrderedDict()  # key -> (buffers, bytes, eviction key value)
stats = {"hits": 0, "misses": 0}


def lookup(key):
    e = _entries.get(key)
    if e is None:
        stats["misses"] += 1
        return None
    stats["hits"] += 1
    _entries.move_to_end(key)
    return e[0]


def store(key, buffers: list, eviction) -> None:
    _entries[key] = (buffers, sum(b.array.nbytes for b in buffers), eviction)
    _entries.move_to_end(key)
    _prune(keep=key)


def _prune(keep=None) -> None:
    total = sum(e[1] for e in _entries.values())
    for k in list(_entries):
        if total <= _size[0]:
            break
        if k != keep:  # (the entry just stored is about to be read: Halide keeps entries in use too)
            total -= _entries.pop(k)[1]


def memoization_cache_set_size(size: int) -> None:
    """The most bytes the cache holds (0: Halide's default, 1 MB)."""
    _size[0] = int(size) if int(size) > 0 else DEFAULT_SIZE
    _prune()


def memoization_cache_evict(eviction_key: int) -> None:
    """Drop the entries of Funcs memoized with ``hl.EvictionKey`` of this value."""
    for k in [k for k, e in _entries.items() if e[2] is not None and e[2] == int(eviction_key)]:
        del _entries[k]


def memoization_cache_cleanup() -> None:
    """Drop every entry."""
    _entries.clear()
