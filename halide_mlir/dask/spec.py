"""The nodes of halide_mlir.dask's graphs, built as Dask's task spec (``dask._task_spec``) where it has one.

Dask converts a graph of tuple tasks to its task spec on every compute, element by element: for the chunk tasks
of ``halide_mlir.dask.realize`` (nested lists of window parts, tuples of shapes, offsets and positions) that took
~4 ms a task on the shared 2-core machine, 284 ms for the 64 chunks of the bench's 3x3 blur: longer than its
kernels. Nodes built directly are taken as they are; literals are data nodes, never searched for keys. With a
dask older than the task spec (2024.12) they are the tuples it converts.
"""

from __future__ import annotations

try:
    from dask._task_spec import DataNode, List, Task, TaskRef
except ImportError:  # (older dask: tuple tasks)
    Task = None


def ref(key):
    """The output of the graph's ``key`` (a Future is one already)."""
    if Task is None or isinstance(key, TaskRef):
        return key
    return TaskRef(key)


def lit(value):
    """``value`` as it is (never parsed for keys)."""
    return value if Task is None else DataNode(None, value)


def data(key, value):
    """A graph entry holding ``value``."""
    return value if Task is None else DataNode(key, value)


def call(key, func, *args):
    """``func(*args)``, a graph entry under ``key`` or (key None) a node inside another task."""
    return (func, *args) if Task is None else Task(key, func, *args)


def listed(items):
    """A list of nodes, evaluated to the list of their values."""
    return list(items) if Task is None else List(*items)
