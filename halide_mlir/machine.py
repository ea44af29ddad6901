"""What the machine can hold: the ceiling a Buffer or a realization's outputs are checked against before they are
allocated. Where the kernel overcommits memory (vm.overcommit_memory=1, or a sparse calloc), allocating more than
the machine has succeeds and the first writes to it get the process killed; checked first, it is a HalideError.
"""

from __future__ import annotations

import os

_cached: list = []


def _meminfo() -> int | None:
    """Physical memory plus swap (/proc/meminfo), else physical memory (sysconf)."""
    try:
        fields = {}
        with open("/proc/meminfo") as f:
            for line in f:
                name, _, rest = line.partition(":")
                fields[name] = int(rest.split()[0]) * 1024
        return fields["MemTotal"] + fields.get("SwapTotal", 0)
    except (OSError, ValueError, IndexError, KeyError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            text = f.read().strip()
        return None if text == "max" else int(text)
    except (OSError, ValueError):
        return None


def _cgroup_limit() -> int | None:
    """The memory limit of this process's cgroup (v2 memory.max plus memory.swap.max, or v1's
    memory.limit_in_bytes), if any."""
    limits = []
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        controllers, path = parts[1].split(","), parts[2].lstrip("/")
        if parts[0] == "0" and not parts[1]:  # v2 (unified)
            base = os.path.join("/sys/fs/cgroup", path)
            mem = _read_int(os.path.join(base, "memory.max"))
            if mem is not None:
                limits.append(mem + (_read_int(os.path.join(base, "memory.swap.max")) or 0))
        elif "memory" in controllers:  # v1: the hierarchy's own path is not always mounted
            for base in (os.path.join("/sys/fs/cgroup/memory", path), "/sys/fs/cgroup/memory"):
                mem = _read_int(os.path.join(base, "memory.limit_in_bytes"))
                if mem is not None:
                    limits.append(mem)
                    break
    return min(limits) if limits else None


def _rlimit() -> int | None:
    try:
        import resource
    except ImportError:
        return None
    values = []
    for name in ("RLIMIT_AS", "RLIMIT_DATA"):
        try:
            soft, _ = resource.getrlimit(getattr(resource, name))
        except (AttributeError, ValueError, OSError):
            continue
        if soft != resource.RLIM_INFINITY and soft > 0:
            values.append(soft)
    return min(values) if values else None


def machine_memory() -> int | None:
    """The most bytes this process can hold at once: physical memory plus swap, or less where a cgroup or an
    rlimit says so (None: unknown, nothing is checked). Worked out once per process."""
    if not _cached:
        known = [v for v in (_meminfo(), _cgroup_limit(), _rlimit()) if v]
        _cached.append(min(known) if known else None)
    return _cached[0]


def too_large(nbytes: int) -> int | None:
    """The machine's limit if ``nbytes`` is more than it, else None."""
    limit = machine_memory()
    return limit if limit is not None and nbytes > limit else None
