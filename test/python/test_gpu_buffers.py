"""Halide's Buffer device API and its dirty-bit rules (runtime/device_buffer.py), run against a fake device (a test
double of runtime/cuda.py's CudaDevice) so the logic runs without a GPU; Halide's Python Buffer is the oracle for
the initial bits. The same calls on a real device are in test_gpu.py's ``@pytest.mark.gpu`` tests."""
import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir.runtime import cuda

halide = pytest.importorskip("halide")

PATTERN = 7   # the fake kernels write this byte everywhere into their last buffer parameter (the output)


class FakeDevice:
    def __init__(self):
        self.mem, self.log, self.next = {}, [], 0x1000

    def capability(self):
        return 80

    def malloc(self, nbytes):
        ptr, self.next = self.next, self.next + max(nbytes, 1) + 256
        self.mem[ptr] = bytearray(nbytes)
        self.log.append(("malloc", nbytes))
        return ptr

    def free(self, ptr):
        del self.mem[ptr]
        self.log.append(("free", ptr))

    def copy_to_device(self, ptr, host):
        assert host.flags.c_contiguous and host.nbytes == len(self.mem[ptr])
        self.mem[ptr][:] = host.tobytes()
        self.log.append(("htod", ptr))

    def copy_to_host(self, host, ptr):
        host[...] = np.frombuffer(bytes(self.mem[ptr]), host.dtype).reshape(host.shape)
        self.log.append(("dtoh", ptr))

    def synchronize(self):
        self.log.append(("sync",))

    def load(self, ptx, kernels):
        assert all(f".entry {k}(" in "".join(ptx) for k in kernels)
        self.log.append(("load",))
        return {k: k for k in kernels}

    def launch(self, function, name, grid, block, params):
        ptrs = [v for t, v in params if t == "ptr"]
        self.mem[ptrs[-1]][:] = bytes([PATTERN]) * len(self.mem[ptrs[-1]])
        self.log.append(("launch", name))

    def count(self, what):
        return sum(1 for e in self.log if e[0] == what)


@pytest.fixture
def fake(monkeypatch):
    dev = FakeDevice()
    monkeypatch.setattr(cuda, "get_device", lambda: dev)
    return dev


def test_initial_dirty_bits_match_halide():
    data = np.arange(6, dtype=np.float32)
    assert hl.Buffer(data).host_dirty() == halide.Buffer(data).host_dirty() is True
    assert hl.Buffer(hl.Float(32), [4]).host_dirty() == halide.Buffer(halide.Float(32), [4]).host_dirty() is False
    for b in (hl.Buffer(data), halide.Buffer(data)):
        assert not b.device_dirty() and not b.has_device_allocation()


def test_dirty_bit_state_machine(fake):
    b = hl.Buffer(np.arange(6, dtype=np.float32), name="b")
    assert b.copy_to_device() == 0
    assert b.has_device_allocation() and not b.host_dirty() and fake.count("htod") == 1
    b.copy_to_device()                          # the host did not change: nothing moves
    assert fake.count("htod") == 1 and fake.count("malloc") == 1
    b[2] = 10.0                                 # a write through the Buffer makes the host dirty
    assert b.host_dirty()
    b.copy_to_device()
    assert fake.count("htod") == 2 and not b.host_dirty()
    b.copy_to_host()                            # the device is not dirty: nothing moves
    assert fake.count("dtoh") == 0
    b.set_device_dirty()
    with pytest.raises(hl.HalideError, match="set_host_dirty: Buffer 'b' is dirty on the device"):
        b.set_host_dirty()
    assert b.copy_to_host() == 0 and fake.count("dtoh") == 1 and not b.device_dirty()
    assert b[2] == 10.0
    b.set_host_dirty()
    with pytest.raises(hl.HalideError, match="set_device_dirty: Buffer 'b' is dirty on the host"):
        b.set_device_dirty()
    b.set_host_dirty(False)
    b.device_sync()
    assert fake.count("sync") == 1
    b.device_free()
    assert not b.has_device_allocation() and fake.count("free") == 1


def test_a_host_read_of_a_device_dirty_buffer_copies_it_back(fake):
    b = hl.Buffer(np.zeros(4, dtype=np.uint8), name="r")
    b.device_malloc()
    assert b.has_device_allocation() and fake.count("htod") == 0   # device_malloc copies nothing
    b.set_host_dirty(False)
    fake.mem[next(iter(fake.mem))][:] = bytes([3, 4, 5, 6])
    b.set_device_dirty()
    assert list(np.asarray(b)) == [3, 4, 5, 6] and not b.device_dirty() and fake.count("dtoh") == 1
    assert b[1] == 4 and fake.count("dtoh") == 1


def pipeline():
    x, y, xo, yo, xi, yi = hl.vars("x y xo yo xi yi")
    inp = hl.Buffer(np.ones((34, 66), dtype=np.uint8), name="input")
    f = hl.Func("dev_f")
    f[x, y] = inp[x, y] + inp[x + 2, y + 2]
    f.gpu_tile(x, y, xo, yo, xi, yi, 16, 8)
    return f, inp


def test_repeated_realize_moves_no_data(fake):
    f, inp = pipeline()
    out = hl.Buffer(hl.UInt(8), [64, 32], name="out")
    target = hl.Target("host-cuda")
    f.realize(out, target)
    assert fake.count("htod") == 1 and fake.count("launch") == 1 and fake.count("dtoh") == 0
    assert out.device_dirty() and not inp.host_dirty()
    out.set_device_dirty(False)   # (as if the host had read it)
    f.realize(out, target)
    f.realize(out, target)
    # the input went over once; the output stays on the device; the module was loaded once
    assert fake.count("htod") == 1 and fake.count("launch") == 3 and fake.count("dtoh") == 0
    assert fake.count("load") == 1 and fake.count("malloc") == 2
    assert (np.asarray(out) == PATTERN).all() and fake.count("dtoh") == 1   # the host's read copies it back
    inp[0, 0] = 9                                  # the host changed the input: copied again
    f.realize(out, target)
    assert fake.count("htod") == 2


def test_realize_that_allocates_copies_back(fake):
    f, _ = pipeline()
    out = f.realize([64, 32], hl.Target("host-cuda"))
    assert fake.count("dtoh") == 1 and not out.device_dirty()
    assert (np.asarray(out) == PATTERN).all()
