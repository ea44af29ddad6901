"""store_in(MemoryType) on CPU stages: values against real Halide 21, and where the buffer lives (the lowered IR:
``llvm.alloca`` is the stack, ``llvm.call @malloc`` the heap)."""
import numpy as np
import pytest

import halide_mlir as hl

halide = pytest.importorskip("halide")

_alive = []
TYPES = ["Auto", "Heap", "Stack", "Register"]


def pipeline(mod, mt, sched, w=37, h=23):
    """input -> f (stored in ``mt``) -> g; ``sched(mod, f, g, x, y)`` places f."""
    x, y = mod.Var("x"), mod.Var("y")
    data = ((np.arange(w * h, dtype=np.int32).reshape(h, w) * 7) % 251).astype(np.float32)
    _alive.append(data)  # (Halide's Buffer wraps the array without a copy)
    inp = mod.Buffer(data, name="inp")
    f, g = mod.Func("f"), mod.Func("g")
    f[x, y] = inp[x, y] * 2 + inp[x + 1, y]
    g[x, y] = f[x, y] + f[x + 2, y] + f[x, y + 1]
    sched(mod, f, g, x, y)
    f.store_in(getattr(mod.MemoryType, mt))
    return g


def tiled(m, f, g, x, y):
    xo, yo, xi, yi = (m.Var(n) for n in ("xo", "yo", "xi", "yi"))
    g.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo)
    f.compute_at(g, xo).vectorize(x, 8)


def rows(m, f, g, x, y):
    f.compute_at(g, y)


def root(m, f, g, x, y):
    f.compute_root().parallel(y)


SCHEDULES = {"tiled": tiled, "rows": rows, "root": root}


@pytest.mark.parametrize("mt", TYPES)
@pytest.mark.parametrize("where", ["tiled", "rows", "root"])
def test_values_as_halide(mt, where):
    sched = SCHEDULES[where]
    for size in ([34, 20], [31, 13]):  # (an odd size)
        ours = np.asarray(pipeline(hl, mt, sched).realize(size))
        if mt == "Register" and where != "tiled":
            # Halide needs a constant bound on a Register allocation; its extent here depends on the output's
            # size (Halide: "Was unable to infer constant upper bound" / "has a dynamic size"). Compiled per
            # size, halide_mlir's allocations are all static: taken, compared with Auto's values.
            ref = np.asarray(pipeline(halide, "Auto", sched).realize(size))
        else:
            ref = np.asarray(pipeline(halide, mt, sched).realize(size))
        np.testing.assert_array_equal(ours, ref)


def lowered(mt, sched, size, w=37, h=23):
    return pipeline(hl, mt, sched, w, h).compile_to_lowered_mlir(size)


@pytest.mark.parametrize("where", ["rows", "tiled"])
def test_heap_is_a_malloc_even_when_small(where):
    assert "llvm.call @malloc" not in lowered("Auto", SCHEDULES[where], [34, 20])
    text = lowered("Heap", SCHEDULES[where], [34, 20])
    assert text.count("llvm.call @malloc") == 1 and text.count("llvm.call @free") == 1
    assert "x f32 {alignment = 64 : i64}" not in text  # (no stack buffer left)


def test_stack_beyond_the_automatic_limit_is_an_alloca():
    # f: 258 x 101 f32 = 104 KiB, over lowering.STACK_LIMIT (64 KiB): the heap by default, the stack when asked
    assert "llvm.call @malloc" in lowered("Auto", root, [256, 100], 300, 120)
    for mt in ("Stack", "Register"):
        text = lowered(mt, root, [256, 100], 300, 120)
        assert "llvm.call @malloc" not in text and "x f32 {alignment = 64 : i64}" in text
    ours = np.asarray(pipeline(hl, "Stack", root, 300, 120).realize([256, 100]))
    ref = np.asarray(pipeline(halide, "Stack", root, 300, 120).realize([256, 100]))
    np.testing.assert_array_equal(ours, ref)


def test_stack_beyond_a_threads_share_is_the_heap_and_register_refused():
    # 1026 x 301 f32 = 1.2 MiB > STORE_IN_STACK_LIMIT: Stack falls back to the heap (Halide's pseudostack is a
    # heap buffer beyond 16 KiB); Register, which Halide would put on the stack whatever its size, is refused
    assert "llvm.call @malloc" in lowered("Stack", root, [1024, 300], 1030, 310)
    with pytest.raises(hl.HalideError, match=r"store_in\(MemoryType.Register\): the Func's buffer takes"):
        lowered("Register", root, [1024, 300], 1030, 310)


def test_heap_update_stage():
    def build(mod, mt):
        x = mod.Var("x")
        r = mod.RDom([(0, 5)])
        f, g = mod.Func("f"), mod.Func("g")
        f[x] = x * 3
        f[x] += r.x * x
        g[x] = f[x] + f[x + 1]
        f.compute_root().store_in(getattr(mod.MemoryType, mt))
        return np.asarray(g.realize([19]))

    for mt in ("Heap", "Stack"):
        np.testing.assert_array_equal(build(hl, mt), build(halide, mt))


# --- align_storage -------------------------------------------------------------------------------------------------

def aligned(m, f, g, x, y):
    xo, xi = m.Var("xo"), m.Var("xi")
    g.split(x, xo, xi, 8).vectorize(xi).parallel(y)
    f.compute_root().split(x, xo, xi, 8).vectorize(xi).parallel(y).align_storage(x, 16).align_storage(y, 4)


@pytest.mark.parametrize("sched", [
    lambda m, f, g, x, y: f.compute_root().align_storage(x, 16),
    lambda m, f, g, x, y: f.compute_root().parallel(y).align_storage(x, 7).align_storage(y, 5),
    aligned,
])
def test_align_storage_values_as_halide(sched):
    for size in ([34, 20], [31, 13]):
        for mt in ("Auto", "Heap"):
            ours = np.asarray(pipeline(hl, mt, sched).realize(size))
            np.testing.assert_array_equal(ours, np.asarray(pipeline(halide, mt, sched).realize(size)))


def test_align_storage_pads_the_allocation():
    # f over [0, 31] x [0, 13] for g's 31 x 13 (f reads inp[x + 1]: nothing more): 33 columns -> 48, 14 rows -> 16
    text = hl_stages(pipeline(hl, "Auto", lambda m, f, g, x, y: f.compute_root().align_storage(x, 16)
                              .align_storage(y, 8)), [31, 13])
    assert "memref.alloc() {alignment = 64 : i64} : memref<16x48xf32>" in text, text


def test_align_storage_where_not_applied_warns():
    with pytest.warns(hl.StorageWarning, match="align_storage is not applied: it is computed at a loop"):
        ours = np.asarray(pipeline(hl, "Auto", lambda m, f, g, x, y: (tiled(m, f, g, x, y),
                                                                      f.align_storage(x, 16))).realize([34, 20]))
    ref = np.asarray(pipeline(halide, "Auto", lambda m, f, g, x, y: (tiled(m, f, g, x, y),
                                                                     f.align_storage(x, 16))).realize([34, 20]))
    np.testing.assert_array_equal(ours, ref)


def hl_stages(g, size):
    from halide_mlir.driver import stages

    return stages(g, size).bufferized()


IMG = (np.arange(23 * 40, dtype=np.int32).reshape(23, 40) * 7) % 251


def _gathered(m):
    """f read at computed coordinates: a vector gather of its rows (fuzzer find)."""
    x, y = m.Var("x"), m.Var("y")
    inp = m.Buffer(IMG, "inp")
    f, out = m.Func("f"), m.Func("out")
    f[x, y] = inp[x, y] * 3
    out[x, y] = f[m.clamp(inp[x, y] % 37, 0, 36), m.clamp((inp[x, y] // 37) % 23, 0, 22)] + f[x, y]
    f.compute_root().align_storage(x, 8)
    out.vectorize(y, 4)
    return out


def _scanned(m):
    """f has a scan whose lanes run down the columns: a vector gather/scatter of its rows (fuzzer find)."""
    x, y = m.Var("x"), m.Var("y")
    inp = m.Buffer(IMG, "inp")
    r = m.RDom([(1, 36)])
    f, out = m.Func("f"), m.Func("out")
    f[x, y] = inp[x, y]
    f[r.x, y] = m.max(f[r.x - 1, y], f[r.x, y])
    out[x, y] = f[x, y] + f[x + 1, y]
    f.compute_root().align_storage(x, 8)
    f.update(0).vectorize(y, 3)
    return out


@pytest.mark.parametrize("build, why", [(_gathered, "reads it at computed coordinates"),
                                        (_scanned, "it has update definitions")])
def test_align_storage_where_rows_must_stay_dense(build, why):
    # MLIR's vector.gather/scatter address a buffer by one offset along its innermost dim, across rows: padded
    # rows would be read at the wrong places (half the values were wrong before this check)
    with pytest.warns(hl.StorageWarning, match=f"align_storage is not applied: .*{why}"):
        ours = np.asarray(build(hl).realize([37, 23]))
    np.testing.assert_array_equal(ours, np.asarray(build(halide).realize([37, 23])))
