"""``Func.debug_to_file`` in a realize (runtime/debug_file.py writes the file): the output's realization is written
after the run; a producer computed at the root is realized over the region the pipeline computes it over (bounds
inference) and written the same way, as Halide writes each realization when it completes. An inline Func writes
nothing, as in Halide; one computed at a consumer's loop (Halide writes its last tile) is refused."""

from __future__ import annotations

from .error import HalideError
from .lang.schedule import LevelKind


def debug_funcs(p) -> list:
    """The stages of pipeline ``p`` whose Funcs have a debug_to_file."""
    return [s for s in p.stages if s.func.__dict__.get("_debug_file")]


def write_debug_files(p, region, outs: list, stages: list) -> None:
    from . import driver
    from .analysis.bounds import infer_bounds
    from .lang.buffer import Buffer
    from .runtime.debug_file import write

    whole = None
    for s in stages:
        f = s.func
        path = f._debug_file
        if f is p.output:
            if len(outs) > 1:
                raise HalideError(f"Func '{f.name()}': debug_to_file of a Tuple-valued Func is not supported")
            write(path, outs[0], f.name())
            continue
        if s.compute.kind == LevelKind.AT:
            raise HalideError(
                f"Func '{f.name()}': debug_to_file of a Func computed at {s.compute.func.name()}.{s.compute.var} is "
                f"not supported by halide_mlir (Halide writes its last tile); compute it at the root"
            )
        whole = whole or infer_bounds(p, region)
        r = whole.region(f)
        bufs = []
        for t in f.types():
            b = Buffer(t, list(r.extents))
            b.set_min(list(r.mins))
            bufs.append(b)
        driver.realize(f, bufs if len(bufs) > 1 else bufs[0])  # (writes the file: f is that pipeline's output)
