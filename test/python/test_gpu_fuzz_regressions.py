"""GPU schedules the schedule fuzzer found failing on the way to PTX (seed 2424), each reduced: compiled to PTX
(no device needed) and its kernels' code checked for values on the host (driver_gpu.realize_on_host) against
real Halide's CPU output."""
import re

import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir import driver, driver_gpu

halide = pytest.importorskip("halide")

W, H = 37, 23
DATA = np.random.default_rng(1).uniform(-4, 4, (H + 4, W + 4)).astype(np.float32)
U8 = np.random.default_rng(2).integers(0, 256, (H, W), dtype=np.uint8)


def entries(ptx: str) -> list:
    return re.findall(r"\.entry (\w+)\(", ptx)


def check(build, data):
    """build(hl, data, schedule) -> output Func. Ours: PTX, then values on the host; Halide: the CPU result."""
    ours = build(hl, data, True)
    ptx = driver.stages(ours, [W, H]).text("ptx")
    got = np.asarray(driver_gpu.realize_on_host(ours, [W, H]))
    want = np.asarray(build(halide, data, False).realize([W, H]))
    np.testing.assert_array_equal(got, want)
    return ptx


def copy_stage(hl, data, schedule, tile=1):
    x, y, bx, by, tx, ty = (hl.Var(n) for n in "x y bx by tx ty".split())
    inp = hl.Buffer(data, "inp")
    f = hl.Func("f")
    f[x, y] = inp[x + 2, y + 2]
    if schedule:
        f.split(x, bx, tx, 1, hl.TailStrategy.GuardWithIf).split(y, by, ty, tile, hl.TailStrategy.GuardWithIf)
        f.reorder(tx, ty, bx, by).gpu(bx, by, tx, ty)
    return f


@pytest.mark.parametrize("tile", [1, 8])
def test_a_stage_that_only_copies_is_loops_in_the_kernel(monkeypatch, tile):
    # A one-point tile of a plain copy: the identity generic folds away and its slices bufferized to a strided
    # memref.copy, which NVVM lowered to a call to the host's memrefCopy ("does not reference a symbol", or an
    # unrealized_conversion_cast with bare pointers).
    monkeypatch.setenv("HL_JIT_TARGET", "host-cuda")
    ptx = check(lambda h, d, s: copy_stage(h, d, s, tile), DATA)
    assert entries(ptx) == ["kernel_f"]
    assert "memrefCopy" not in ptx and "ld.global" in ptx and "st.global" in ptx


def dead_producer(hl, data, schedule):
    x, y, bx, tx = (hl.Var(n) for n in "x y bx tx".split())
    inp = hl.Buffer(data, "inp")
    f0, f1 = hl.Func("f0"), hl.Func("f1")
    f0[x, y] = inp[x, y] * 3
    f1[x, y] = f0[x, y] - f0[x, y]   # u8: 0, whatever f0 is; nothing reads f0's kernel's result
    if schedule:
        f1.gpu_blocks(y).gpu_threads(x)
        f0.compute_root().gpu_tile(x, bx, tx, 16, hl.TailStrategy.GuardWithIf).gpu_blocks(y)
    return f1


def test_a_kernel_whose_result_nothing_reads_is_dropped(monkeypatch):
    # f0's launch was erased as dead code before outlining, and the kernels' names (by position) no longer
    # matched: "expected 2 GPU kernels, outlining made 1".
    monkeypatch.setenv("HL_JIT_TARGET", "host-cuda")
    ptx = check(dead_producer, U8)
    assert entries(ptx) == ["kernel_f1"]


def boundary(kind):
    def build(hl, data, schedule):
        x, y, xo, yo, xi, yi = (hl.Var(n) for n in "x y xo yo xi yi".split())
        inp = hl.Buffer(data[:H, :W], "inp")
        if kind == "constant_exterior":
            b = hl.BoundaryConditions.constant_exterior(inp, -2.25)
        else:
            b = getattr(hl.BoundaryConditions, kind)(inp)
        f = hl.Func("f")
        f[x, y] = b[x / 2 - 1, y + 2] + b[(x + 1) / 2, y - 1] * 2
        if schedule:
            f.gpu_tile(x, y, xo, yo, xi, yi, 16, 8, hl.TailStrategy.RoundUp)
        return f

    return build


@pytest.mark.parametrize("kind", ["constant_exterior", "repeat_edge", "mirror_image", "mirror_interior"])
def test_a_boundary_condition_is_inlined_in_the_kernel(monkeypatch, kind):
    # A boundary condition left to its default is a padded copy at the root on the CPU; in a GPU pipeline it
    # was a stage with no GPU schedule, refused ("has no GPU schedule"). Halide inlines it; so do we, there.
    monkeypatch.setenv("HL_JIT_TARGET", "host-cuda")
    ptx = check(boundary(kind), DATA)
    assert entries(ptx) == ["kernel_f"]
