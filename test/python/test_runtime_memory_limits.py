"""Too large is an error everywhere (issue 14, item 3): a realization's outputs, or a Buffer, larger than the
machine can hold is a HalideError naming the Func (or the Buffer's sizes) before anything is allocated, also
where the kernel would overcommit (simulated here: every allocation function fails the test if it is reached)."""

import numpy as np
import pytest

import halide_mlir as hl
from halide_mlir import machine
from halide_mlir.runtime import realize as realize_module


@pytest.fixture
def small_machine(monkeypatch):
    """A machine with 1 MiB, on which no allocation may happen (an overcommitting kernel would grant it)."""
    monkeypatch.setattr(machine, "_cached", [1 << 20])

    def no_allocation(*args, **kwargs):
        raise AssertionError("allocated before the size check")

    monkeypatch.setattr(realize_module, "aligned_empty", no_allocation)
    return no_allocation


def test_output_larger_than_the_machine(small_machine):
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("too_big_for_here")
    f[x, y] = hl.f32(x + y)
    with pytest.raises(hl.HalideError, match=r"too_big_for_here.*\[1024, 512\].*2097152 bytes.*1048576"):
        f.realize([1024, 512])


def test_tuple_outputs_count_together(small_machine):
    """Two 1 MiB outputs: each alone fits, both do not."""
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("two_halves")
    f[x, y] = (hl.f32(x), hl.f32(y))
    with pytest.raises(hl.HalideError, match="two_halves"):
        f.realize([512, 512])


def test_buffer_larger_than_the_machine(small_machine, monkeypatch):
    monkeypatch.setattr(np, "zeros", small_machine)
    with pytest.raises(hl.HalideError, match=r"Buffer of float64 with sizes \[1024, 1024\].*1048576"):
        hl.Buffer(hl.Float(64), [1024, 1024])


def test_what_fits_still_runs(monkeypatch):
    monkeypatch.setattr(machine, "_cached", [1 << 20])
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("fits_here")
    f[x, y] = x + y
    np.testing.assert_array_equal(np.asarray(f.realize([100, 100])),
                                  np.arange(100)[None, :] + np.arange(100)[:, None])
    assert np.asarray(hl.Buffer(hl.UInt(8), [1000, 1000])).shape == (1000, 1000)


def test_far_too_large_on_this_machine():
    """64 TiB of output on the real machine (whatever its overcommit policy): an error, never an allocation."""
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("huge_here")
    f[x, y] = x
    with pytest.raises(hl.HalideError, match="huge_here.*more than this machine can hold"):
        f.realize([1 << 22, 1 << 22])


def test_machine_memory_is_known_and_plausible():
    limit = machine.machine_memory()
    assert limit is not None and (64 << 20) < limit < (1 << 50)
