"""hl.print / hl.print_when and Func tracing: the lines printed, compared with real Halide 21's line by line.

Halide's Python bindings print through ``py::print`` (Python's sys.stdout), so both sides are captured by
capsys. Each program builds its Funcs from the module it is given; names are unique per test because Halide
numbers a repeated Func name (``f$1``) for the rest of the process.
"""
from __future__ import annotations

import itertools
import re
import uuid

import numpy as np
import pytest

import halide_mlir

halide = pytest.importorskip("halide")

_ids = itertools.count()
# Halide numbers a repeated Func name per process (ts4, then ts4$1 in pipeline ts4_1): names unique to this run
_RUN = uuid.uuid4().hex[:6]


def lines_of(capsys, program, *args) -> list[str]:
    """What ``program(hl, *args)`` prints, for real Halide and for halide_mlir: (theirs, ours)."""
    out = []
    for hl in (halide, halide_mlir):
        capsys.readouterr()
        program(hl, *args)
        out.append(capsys.readouterr().out.splitlines())
    return out


def same_lines(capsys, program, *args) -> list[str]:
    theirs, ours = lines_of(capsys, program, *args)
    # Halide numbers names per process in hash buckets (pipeline ts4_3, Func ts4$3), and ours per name: compare
    # the lines with the numbering of the test's own name taken out
    strip = re.compile(rf"({re.escape(args[0])}\w*?)(?:[_$]\d+)?(?=\.)") if args else None
    if strip is not None:
        theirs, ours = ([strip.sub(r"\1", line) for line in lines] for lines in (theirs, ours))
    assert ours == theirs
    return ours


def test_print_formats(capsys):
    def program(hl, name):
        x = hl.Var("x")
        f = hl.Func(name)
        f[x] = hl.print(hl.cast(hl.UInt(8), x), "is what", "the", 1, "and", hl.f32(3.1415), "saw", hl.f64(-2.5),
                        hl.i8(-3), hl.u64(2**63 + 5), hl.i64(-2**40), hl.f32(1e20), hl.f32(float("inf")),
                        hl.f32(1e-7), x < 1, hl.u16(x) * 1000)
        f.realize([3])
    lines = same_lines(capsys, program, f"pf{next(_ids)}_{_RUN}")
    assert lines[0].startswith("0 is what the 1 and 3.141500 saw -2.500000 -3 9223372036854775813")


def test_print_returns_first_value(capsys):
    def program(hl, name):
        x = hl.Var("x")
        f = hl.Func(name)
        f[x] = hl.print(x * 2, "<- doubled") + 1
        return np.asarray(f.realize([4]))
    name = f"pr{next(_ids)}_{_RUN}"
    theirs = program(halide, name)
    ours = program(halide_mlir, name)
    np.testing.assert_array_equal(ours, theirs)
    assert capsys.readouterr().out.count("doubled") == 8


def test_print_when(capsys):
    def program(hl, name):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func(name)
        f[x, y] = hl.print_when((x == y) | (x == 3), hl.cast(hl.UInt(8), x * y), "is result at", x, y)
        f.realize([5, 4])
    assert len(same_lines(capsys, program, f"pw{next(_ids)}_{_RUN}")) == 7


def test_print_into_redirected_stdout():
    import contextlib
    import io
    x = halide_mlir.Var("x")
    f = halide_mlir.Func(f"rd{next(_ids)}_{_RUN}")
    f[x] = halide_mlir.print_when(x == 3, hl_u8(x * x), "is result at", x)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        f.realize([10])
    assert out.getvalue() == "9 is result at 3\n"


def hl_u8(e):
    return halide_mlir.cast(halide_mlir.UInt(8), e)


def test_print_refuses_string_first():
    with pytest.raises(halide_mlir.HalideError, match="first argument of print"):
        halide_mlir.print("x is", halide_mlir.Var("x"))


@pytest.mark.parametrize("schedule", ["none", "reorder", "split", "fuse", "tile", "vectorize", "tile_vectorize"])
def test_trace_stores_in_loop_order(capsys, schedule):
    def program(hl, name):
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func(name)
        g[x, y] = x + y * 10
        g.trace_stores()
        if schedule == "reorder":
            g.reorder(y, x)
        elif schedule == "split":
            xo, xi = hl.Var("xo"), hl.Var("xi")
            g.split(x, xo, xi, 2)
        elif schedule == "fuse":
            f = hl.Var("fused")
            g.fuse(x, y, f)
        elif schedule == "tile":
            xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
            g.tile(x, y, xo, yo, xi, yi, 2, 2)
        elif schedule == "vectorize":
            g.vectorize(x, 4)
        elif schedule == "tile_vectorize":
            xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
            g.tile(x, y, xo, yo, xi, yi, 4, 2).vectorize(xi)
        g.realize([8, 4])
    lines = same_lines(capsys, program, f"ts{next(_ids)}_{_RUN}")
    assert lines[0].startswith("Begin pipeline") and lines[-1].startswith("End pipeline")


def test_trace_tuple_and_types(capsys):
    def program(hl, name):
        x = hl.Var("x")
        k = hl.Func(name)
        k[x] = (hl.u8(x), hl.f32(x) / 3, hl.f64(x) * 0.25, hl.i16(-x), x > 1)
        k.trace_stores()
        k.realize([3])
    same_lines(capsys, program, f"tt{next(_ids)}_{_RUN}")


def test_trace_loads_and_realizations(capsys):
    def program(hl, name):
        x, y = hl.Var("x"), hl.Var("y")
        f, g = hl.Func(name + "_f"), hl.Func(name + "_g")
        f[x, y] = x + y
        g[x, y] = hl.f32(f[x, y] + f[x + 1, y]) / 3
        f.compute_root()
        f.trace_realizations().trace_stores().trace_loads()
        g.trace_realizations()
        g.realize([2, 2])
    same_lines(capsys, program, f"tl{next(_ids)}_{_RUN}")


def test_trace_update_definitions(capsys):
    """Lesson 9's example: each update's loads and stores, in order."""
    def program(hl, name):
        x, y = hl.Var("x"), hl.Var("y")
        g = hl.Func(name)
        g[x, y] = x + y
        g[2, 1] = 42
        g[x, 0] = g[x, 1]
        g.trace_loads()
        g.trace_stores()
        g.realize([4, 4])
    same_lines(capsys, program, f"tu{next(_ids)}_{_RUN}")


def test_trace_reduction(capsys):
    def program(hl, name):
        x = hl.Var("x")
        r = hl.RDom([(0, 3)])
        f = hl.Func(name)
        f[x] = x
        f[x] += r.x * x
        f.trace_stores()
        f.realize([3])
    same_lines(capsys, program, f"tr{next(_ids)}_{_RUN}")


def test_trace_compute_at(capsys):
    """Lesson 8's producer computed per row of its consumer: the producer's rows, then the consumer's row."""
    def program(hl, name):
        x, y = hl.Var("x"), hl.Var("y")
        p, c = hl.Func(name + "_p"), hl.Func(name + "_c")
        p[x, y] = x * y
        c[x, y] = p[x, y] + p[x, y + 1] + p[x + 1, y]
        p.compute_at(c, y)
        p.trace_stores()
        c.trace_stores()
        c.realize([3, 3])
    same_lines(capsys, program, f"tc{next(_ids)}_{_RUN}")


def test_trace_realizations_at_a_loop_refused():
    hl = halide_mlir
    x, y = hl.Var("x"), hl.Var("y")
    p, c = hl.Func(f"ra{next(_ids)}_{_RUN}"), hl.Func(f"rb{next(_ids)}_{_RUN}")
    p[x, y] = x * y
    c[x, y] = p[x, y + 1]
    p.compute_at(c, y).trace_realizations()
    with pytest.raises(halide_mlir.HalideError, match="trace_realizations"):
        c.realize([3, 3])


def test_traced_pipeline_from_disk_cache(tmp_path, monkeypatch, capsys):
    """The callbacks are linked when a cached object is loaded: a second engine of the same pipeline (from the
    disk cache, no compile) prints the same lines."""
    from halide_mlir.runtime import disk_cache, jit
    monkeypatch.setenv("HALIDE_MLIR_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("HALIDE_MLIR_CACHE", "1")

    def build():
        hl = halide_mlir
        x = hl.Var("x")
        f = hl.Func("disk_traced")
        f[x] = hl.print_when(x == 1, x * 7, "seven at", x)
        f.trace_stores()
        return f
    from halide_mlir.lang import func as func_module
    monkeypatch.setattr(func_module, "_name_counts", {})
    build().realize([2])
    first = capsys.readouterr().out
    jit._engines.clear()
    hits = disk_cache.stats["hits"]
    monkeypatch.setattr(func_module, "_name_counts", {})   # (as a fresh process would name it: disk_traced)
    build().realize([2])
    assert disk_cache.stats["hits"] == hits + 1
    assert capsys.readouterr().out == first
    assert "7 seven at 1" in first and "Store disk_traced.0(1) = 7" in first
