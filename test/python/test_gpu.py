"""The CUDA backend: Targets, GPU schedules compiled to PTX (no device needed), Halide's errors, and execution on a
CUDA device (``@pytest.mark.gpu``: skipped with a reason where there is none)."""
import re

import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir import driver
from halide_mlir.runtime import cuda

halide = pytest.importorskip("halide")

needs_device = pytest.mark.skipif(cuda.device_count() == 0,
                                  reason="no CUDA device (libcuda missing or no GPU): execution tests need one")


def entries(ptx: str) -> list:
    return re.findall(r"\.entry (\w+)\(", ptx)


def params(ptx: str, kernel: str) -> int:
    body = re.search(r"\.entry " + kernel + r"\((.*?)\)", ptx, re.S).group(1)
    return body.count(".param")


# --- targets ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["x86-64-linux-cuda", "x86-64-linux-cuda-cuda_capability_80",
                                  "x86-64-linux-cuda-cuda_capability_86", "x86-64-linux-avx2-cuda-sse41"])
def test_target_strings_match_halide(text):
    ours, theirs = hl.Target(text), halide.Target(text)
    assert ours.to_string() == theirs.to_string()
    assert ours.has_gpu_feature() == theirs.has_gpu_feature()
    assert ours.has_feature(hl.TargetFeature.CUDA) == theirs.has_feature(halide.TargetFeature.CUDA)


def test_target_features():
    t = hl.Target("host-cuda-cuda_capability_90")   # sm_90 (H100): in Halide's sources, not in the 21.0 wheel
    assert t.has_gpu_feature() and t.cuda_capability() == 90
    assert not hl.Target("x86-64-linux-cuda_capability_80").has_gpu_feature()   # a capability alone is no GPU
    host = hl.get_host_target()
    assert not host.has_gpu_feature()
    assert host.with_feature(hl.TargetFeature.CUDA).has_gpu_feature()
    assert not host.with_feature(hl.TargetFeature.CUDA).without_feature(hl.TargetFeature.CUDA).has_gpu_feature()
    assert hl.host_supports_target_device(host)
    assert hl.host_supports_target_device(hl.Target("host-cuda")) == (cuda.device_count() > 0)
    with pytest.raises(hl.HalideError, match="Did not understand Halide target host-cuda_nope"):
        hl.Target("host-cuda_nope")


def test_jit_target_from_environment(monkeypatch):
    monkeypatch.setenv("HL_JIT_TARGET", "host-cuda")
    assert hl.get_jit_target_from_environment().has_gpu_feature()
    monkeypatch.delenv("HL_JIT_TARGET")
    assert not hl.get_jit_target_from_environment().has_gpu_feature()


# --- pipelines -------------------------------------------------------------------------------------------------

x, y, c, i, xo, yo, xi, yi = hl.vars("x y c i xo yo xi yi")


def blur(w, h, root=False):
    data = np.random.default_rng(1).random((h + 2, w + 2), dtype=np.float32)
    inp = hl.Buffer(data, name="input")
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    by.gpu_tile(x, y, xo, yo, xi, yi, 32, 8)
    if root:
        bx.compute_root().gpu_tile(x, y, xi, yi, 16, 16)
    return by, data


def hl_host(func, sizes):
    from halide_mlir import driver_gpu
    return driver_gpu.realize_on_host(func, sizes)


def lesson12(w=50, h=40, shared=False):
    rng = np.random.default_rng(2)
    data = rng.integers(0, 256, (3, h, w), dtype=np.uint8)
    inp = hl.Buffer(data, name="rgb")
    lut, padded, padded16, sharpen, curved = [hl.Func(n) for n in "lut padded padded16 sharpen curved".split()]
    lut[i] = hl.u8(hl.clamp(hl.pow(i / 255.0, hl.f32(1.2)) * 255.0, 0, 255))
    padded[x, y, c] = inp[hl.clamp(x, 0, inp.width() - 1), hl.clamp(y, 0, inp.height() - 1), c]
    padded16[x, y, c] = hl.u16(padded[x, y, c])
    sharpen[x, y, c] = padded16[x, y, c] * 2 - (padded16[x - 1, y, c] + padded16[x, y - 1, c] +
                                                padded16[x + 1, y, c] + padded16[x, y + 1, c]) / 4
    curved[x, y, c] = lut[sharpen[x, y, c]]
    lut.compute_root()
    block, thread = hl.Var("block"), hl.Var("thread")
    lut.split(i, block, thread, 16).gpu_blocks(block).gpu_threads(thread)
    curved.reorder(c, x, y).bound(c, 0, 3)
    curved.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    if shared:   # lesson 12's schedule: padded per block, in shared memory, by 10x10 threads
        padded.compute_at(curved, xo).gpu_threads(x, y)
    return curved, data


def test_blur_ptx():
    by, _ = blur(128, 64)
    ptx = driver.stages(by, [128, 64]).text("ptx")
    assert entries(ptx) == ["kernel_blur_y"]
    assert params(ptx, "kernel_blur_y") == 2          # the input and the output, bare pointers
    assert ptx.count("ld.global") == 9 and ptx.count("st.global") == 1
    assert "bar.sync" not in ptx
    assert ".maxntid 32, 8, 1" in ptx and ".target sm_80" in ptx


def test_compute_root_stages_are_kernels_and_edges_are_guarded():
    by, _ = blur(125, 60, root=True)   # neither size a multiple of the tiles
    ptx = driver.stages(by, [125, 60]).text("ptx")
    assert entries(ptx) == ["kernel_blur_x", "kernel_blur_y"]
    assert params(ptx, "kernel_blur_x") == 2 and params(ptx, "kernel_blur_y") == 2
    assert "bar.sync" not in ptx


def test_lesson12_style_ptx(monkeypatch):
    monkeypatch.setenv("HL_JIT_TARGET", "host-cuda-cuda_capability_86")
    curved, _ = lesson12()
    comp = driver.stages(curved, [50, 40, 3])
    ptx = comp.text("ptx")
    assert entries(ptx) == ["kernel_lut", "kernel_curved"]
    assert params(ptx, "kernel_lut") == 1 and params(ptx, "kernel_curved") == 3   # lut; rgb, lut, output
    assert ".target sm_86" in ptx and "bar.sync" not in ptx
    assert "#gpu.block<y>, #gpu.block<x>" in comp.transform and "#gpu.thread<y>, #gpu.thread<x>" in comp.transform


def test_gpu_tile_3d_and_single_thread():
    f = hl.Func("f")
    f[x, y, c] = x + y * 3 + c * 7
    zo, zi = hl.Var("zo"), hl.Var("zi")
    f.gpu_tile(x, y, c, xo, yo, zo, xi, yi, zi, 8, 4, 2, hl.TailStrategy.GuardWithIf)
    comp = driver.stages(f, [20, 10, 3])
    assert "num_threads [2, 4, 8] (mapping = [#gpu.thread<z>, #gpu.thread<y>, #gpu.thread<x>])" in comp.transform
    assert ".maxntid 8, 4, 2" in comp.text("ptx")
    s = hl.Func("s")
    s[x] = x * 2
    s.gpu_single_thread()
    ptx = driver.stages(s, [10]).text("ptx")
    assert entries(ptx) == ["kernel_s"] and ".maxntid 1, 1, 1" in ptx


def test_gpu_blocks_threads_explicit():
    f = hl.Func("f")
    f[x, y] = hl.f32(x) * 0.5 + y
    f.split(x, xo, xi, 64).gpu_blocks(xo, y).gpu_threads(xi)
    f.reorder(xi, xo, y)
    comp = driver.stages(f, [256, 16])
    assert "tile_sizes [1, 64] (mapping = [#gpu.block<y>, #gpu.block<x>])" in comp.transform
    assert ".maxntid 64, 1, 1" in comp.text("ptx")


# --- compute_at inside a kernel: shared memory and registers --------------------------------------------------

def blur_compute_at(w, h, where, memory=None):
    data = np.random.default_rng(1).random((h + 2, w + 2), dtype=np.float32)
    inp = hl.Buffer(data, name="input")
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    by.gpu_tile(x, y, xo, yo, xi, yi, 32, 8)
    if where == "block":
        bx.compute_at(by, xo).gpu_threads(x, y)
    else:
        bx.compute_at(by, xi)
    if memory is not None:
        bx.store_in(memory)
    b = (data[:, :-2] + data[:, 1:-1] + data[:, 2:]) / np.float32(3)
    return by, (b[:-2] + b[1:-1] + b[2:]) / np.float32(3)


@pytest.mark.parametrize("memory", [None, hl.MemoryType.GPUShared])
def test_compute_at_a_block_loop_is_shared_memory(memory):
    by, ref = blur_compute_at(125, 60, "block", memory)
    comp = driver.stages(by, [125, 60])
    ptx = comp.text("ptx")
    assert entries(ptx) == ["kernel_blur_y"] and params(ptx, "kernel_blur_y") == 2
    # blur_x's 10x32 tile (8 rows + 2 of halo) in shared memory, one barrier between it and blur_y
    assert re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx) == [str(10 * 32 * 4)]
    assert ptx.count("bar.sync") == 1
    assert ptx.count("st.shared") == 1 and ptx.count("ld.shared") == 3 and ptx.count("ld.global") == 3
    assert ".maxntid 32, 10, 1" in ptx   # blur_x's threads: 10 rows
    # the kernel's code, run on the host with the foralls as loops, gives the values
    np.testing.assert_allclose(np.asarray(hl_host(by, [125, 60])), ref[:60, :125], rtol=1e-6)


def test_compute_at_a_thread_loop_is_registers():
    by, ref = blur_compute_at(125, 60, "thread", hl.MemoryType.Register)
    ptx = driver.stages(by, [125, 60]).text("ptx")
    assert entries(ptx) == ["kernel_blur_y"]
    assert ".shared" not in ptx and ".local" not in ptx and "bar.sync" not in ptx
    assert ptx.count("ld.global") == 9 and ".maxntid 32, 8, 1" in ptx
    np.testing.assert_allclose(np.asarray(hl_host(by, [125, 60])), ref[:60, :125], rtol=1e-6)


def halide_lesson12(data, w, h):
    hc = halide.Buffer(data)   # Halide's CPU output of the same algorithm
    hx_, hy_, hc_, hi_ = halide.vars("x y c i")
    lut, padded, padded16, sharpen, curved_h = [halide.Func(n) for n in "lut padded padded16 sharpen curved".split()]
    lut[hi_] = halide.u8(halide.clamp(halide.pow(hi_ / 255.0, halide.f32(1.2)) * 255.0, 0, 255))
    padded[hx_, hy_, hc_] = hc[halide.clamp(hx_, 0, hc.width() - 1), halide.clamp(hy_, 0, hc.height() - 1), hc_]
    padded16[hx_, hy_, hc_] = halide.u16(padded[hx_, hy_, hc_])
    sharpen[hx_, hy_, hc_] = padded16[hx_, hy_, hc_] * 2 - (
        padded16[hx_ - 1, hy_, hc_] + padded16[hx_, hy_ - 1, hc_] + padded16[hx_ + 1, hy_, hc_] +
        padded16[hx_, hy_ + 1, hc_]) / 4
    curved_h[hx_, hy_, hc_] = lut[sharpen[hx_, hy_, hc_]]
    lut.compute_root()
    return np.asarray(curved_h.realize([w, h, 3]))


def test_lesson12_padded_in_shared_memory():
    curved, data = lesson12(shared=True)
    ptx = driver.stages(curved, [50, 40, 3]).text("ptx")
    assert entries(ptx) == ["kernel_lut", "kernel_curved"]
    assert re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx) == ["300"]   # 10 x 10 x 3 u8
    assert ptx.count("bar.sync") == 1 and ".maxntid 10, 10, 1" in ptx
    np.testing.assert_array_equal(np.asarray(hl_host(curved, [50, 40, 3])), halide_lesson12(data, 50, 40))


def test_store_in_on_a_cpu_stage_is_refused():
    f = hl.Func("stored_in")
    f[x] = x
    f.store_in(hl.MemoryType.GPUShared)  # (Heap, Stack and Register are placed on the CPU: test_store_in.py)
    with pytest.raises(hl.HalideError, match="store_in\\(MemoryType.GPUShared\\) is honored only on GPU stages"):
        f.realize([4])
    f.store_in(hl.MemoryType.Auto)
    assert list(np.asarray(f.realize([4]))) == [0, 1, 2, 3]
    with pytest.raises(hl.HalideError, match="takes a hl.MemoryType"):
        f.store_in("shared")


# --- Halide's errors -------------------------------------------------------------------------------------------

def test_gpu_schedule_on_cpu_target_is_halides_error():
    # (a name no other test gives a Func: Halide numbers a repeated one, f$27)
    f, g = hl.Func("gpu_on_cpu"), halide.Func("gpu_on_cpu")
    f[x, y] = x + y
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    hx, hy, hxo, hyo, hxi, hyi = halide.vars("x y xo yo xi yi")
    g[hx, hy] = hx + hy
    g.gpu_tile(hx, hy, hxo, hyo, hxi, hyi, 8, 8)
    with pytest.raises(halide.HalideError) as theirs:
        g.realize([16, 16], halide.get_host_target())
    with pytest.raises(hl.HalideError) as ours:
        f.realize([16, 16], hl.get_host_target())
    # (Halide's names are unique per process: an earlier Func of this name in the run makes this one gpu_on_cpu$1)
    prefix = r"Schedule for Func gpu_on_cpu(\$\d+)? requires <Default_GPU> but no compatible target feature is enabled"
    assert re.search(prefix, str(theirs.value)) and re.search(prefix, str(ours.value))


@pytest.mark.skipif(cuda.device_count() > 0, reason="a CUDA device is present")
def test_cuda_target_without_a_device_is_halides_error():
    f = hl.Func("f")
    f[x, y] = x + y
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    f.compile_jit(hl.Target("host-cuda"))     # compiles, as in Halide; running needs the driver
    with pytest.raises(hl.HalideError, match="CUDA API not found: cuInit|CUDA error"):
        f.realize([16, 16], hl.Target("host-cuda"))
    g = hl.Func("g")                           # no GPU schedule: runs on the CPU, as in Halide
    g[x, y] = x + y
    assert g.realize([4, 4], hl.Target("host-cuda"))[1, 2] == 3


def test_unsupported_gpu_schedules_are_refused(monkeypatch):
    monkeypatch.setenv("HL_JIT_TARGET", "host-cuda")
    inp = hl.Buffer(np.zeros((20, 20), np.float32), name="input")
    p, q = hl.Func("p"), hl.Func("q")
    p[x, y] = inp[x, y] * 2
    q[x, y] = p[x, y] + 1
    q.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    p.compute_at(q, yi)   # an outer thread loop: neither shared memory nor registers
    with pytest.raises(hl.HalideError, match="not supported yet by halide_mlir's GPU backend"):
        driver.stages(q, [16, 16])
    p.compute_at(q, xo).store_in(hl.MemoryType.Register)
    with pytest.raises(hl.HalideError, match="computed at a GPU block loop: it lives in shared memory"):
        driver.stages(q, [16, 16])
    p.store_in(hl.MemoryType.Auto).compute_at(q, xi).gpu_threads(x)
    with pytest.raises(hl.HalideError, match="each thread computes its own"):
        driver.stages(q, [16, 16])
    p2, q2 = hl.Func("p2"), hl.Func("q2")
    p2[x, y] = inp[x, y] * 2
    q2[x, y] = p2[x, y] + 1
    q2.gpu_tile(x, y, xo, yo, xi, yi, 8, 8)
    p2.compute_root()   # a host stage in a GPU pipeline
    with pytest.raises(hl.HalideError, match="has no GPU schedule"):
        driver.stages(q2, [16, 16])
    r = hl.Func("r")
    r[x, y] = x + y
    r.gpu_tile(x, y, xo, yo, xi, yi, 64, 32)
    with pytest.raises(hl.HalideError, match="2048 GPU threads per block"):
        driver.stages(r, [128, 64])


# --- on a device -----------------------------------------------------------------------------------------------

@pytest.mark.gpu
@needs_device
def test_blur_runs_on_the_gpu():
    by, data = blur(125, 60, root=True)
    out = by.realize([125, 60], hl.Target("host-cuda"))
    bx = (data[:, :-2] + data[:, 1:-1] + data[:, 2:]) / np.float32(3)
    ref = (bx[:-2] + bx[1:-1] + bx[2:]) / np.float32(3)
    np.testing.assert_allclose(np.asarray(out), ref[:60, :125], rtol=1e-6)


@pytest.mark.gpu
@needs_device
@pytest.mark.parametrize("shared", [False, True])
def test_lesson12_runs_on_the_gpu(shared):
    curved, data = lesson12(shared=shared)
    out = np.asarray(curved.realize([50, 40, 3], hl.Target("host-cuda")))
    np.testing.assert_array_equal(out, halide_lesson12(data, 50, 40))


@pytest.mark.gpu
@needs_device
@pytest.mark.parametrize("where", ["block", "thread"])
def test_compute_at_blur_runs_on_the_gpu(where):
    by, ref = blur_compute_at(125, 60, where)
    np.testing.assert_allclose(np.asarray(by.realize([125, 60], hl.Target("host-cuda"))), ref[:60, :125],
                               rtol=1e-6)


def test_gpu_tile_takes_a_device_api_after_the_tail():
    f = hl.Func("gpu_api_arg")
    f[x, y] = x + y
    f.gpu_tile(x, y, xo, yo, xi, yi, 8, 8, hl.TailStrategy.GuardWithIf, hl.DeviceAPI.CUDA)
    assert "kernel_gpu_api_arg" in driver.stages(f, [16, 16]).text("ptx")
