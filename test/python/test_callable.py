"""``compile_to_callable`` / ``hl.Callable`` (Halide's python_bindings/test/correctness/callable.py, the parts that
need no Generator): explicit arguments, buffers then params, outputs passed in; Halide's messages for bad calls."""
import functools
import numpy as np
import pytest

import halide_mlir as hl


def test_callable():
    p_int16 = hl.Param(hl.Int(16), 42)
    p_float = hl.Param(hl.Float(32), 1.0)
    p_img = hl.ImageParam(hl.UInt(8), 2)
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = p_img[x, y] + hl.u8(p_int16 / p_float)
    j, i = np.mgrid[0:10, 0:10]
    in1, in2 = hl.Buffer((i + j * 10).astype(np.uint8)), hl.Buffer((i * 10 + j).astype(np.uint8))
    c = f.compile_to_callable([p_img, p_int16, p_float])
    outs = [hl.Buffer(hl.UInt(8), [10, 10]) for _ in range(4)]
    c(in1, 42, 1.0, outs[0])
    c(in2, 22, 2.0, outs[1])
    c(in1, 12, 1.0, outs[2])
    c(in2, 16, 1.0, outs[3])
    np.testing.assert_array_equal(np.asarray(outs[0]), i + j * 10 + 42)
    np.testing.assert_array_equal(np.asarray(outs[1]), i * 10 + j + 11)
    np.testing.assert_array_equal(np.asarray(outs[2]), i + j * 10 + 12)
    np.testing.assert_array_equal(np.asarray(outs[3]), i * 10 + j + 16)
    # the call does not change what the Params hold
    assert p_int16.get() == 42 and p_float.get() == 1.0 and p_img.get() is None


@functools.cache   # (built once: a second Func("simple_output") would be simple_output$1, as in Halide)
def simple():
    x, y = hl.Var("x"), hl.Var("y")
    buffer_input = hl.ImageParam(hl.UInt(8), 2, "buffer_input")
    float_arg = hl.Param(hl.Float(32), "float_arg")
    out = hl.Func("simple_output")
    out[x, y] = hl.f32(buffer_input[x, y]) + float_arg
    return out.compile_to_callable([buffer_input, float_arg])


def test_arguments_by_position_and_keyword():
    s = simple()
    b_in = hl.Buffer(np.full((2, 2), 123, np.uint8))
    b_out = hl.Buffer(hl.Float(32), [2, 2])
    for call in (lambda: s(b_in, 3.5, b_out), lambda: s(buffer_input=b_in, float_arg=3.5, simple_output=b_out),
                 lambda: s(float_arg=3.5, simple_output=b_out, buffer_input=b_in),
                 lambda: s(b_in, simple_output=b_out, float_arg=3.5), lambda: s(b_in, 3.5, simple_output=b_out)):
        b_out.fill(0)
        call()
        np.testing.assert_array_equal(np.asarray(b_out), np.full((2, 2), 126.5, np.float32))


@pytest.mark.parametrize("call, message", [
    (lambda s, b, o: s(b, 3.5, 4, o), "Expected at most 3 positional arguments, but saw 4."),
    (lambda s, b, o: s(b), "Expected exactly 3 positional arguments, but saw 1."),
    (lambda s, b, o: s(hl.f32(3.141592), "happy", o), "is not an instance of"),
    (lambda s, b, o: s(b, 3.5, simple_output="bogus"), "is not an instance of"),
    (lambda s, b, o: s(buffer_input=b, float_arg=3.5, funk_input=o),
     "Unknown argument 'funk_input' specified via keyword."),
    (lambda s, b, o: s(float_arg=3.5, simple_output=o),
     "Argument buffer_input was not specified by either positional or keyword argument."),
    (lambda s, b, o: s(b, buffer_input=b, float_arg=3.5, simple_output=o),
     "Argument buffer_input specified multiple times."),
])
def test_bad_calls(call, message):
    b_in = hl.Buffer(np.full((2, 2), 123, np.uint8))
    with pytest.raises(hl.HalideError, match=message.replace(".", r"\.").replace("(", r"\(")):
        call(simple(), b_in, hl.Buffer(hl.Float(32), [2, 2]))


def test_repeated_calls_fast_path():
    """Calls after the first reuse the compiled code (aot/callable.py's _Plan): new values, new Buffers, new
    shapes (compiled again), arrays, a Buffer the Func reads directly; the Params never change."""
    p_img = hl.ImageParam(hl.Float(32), 2, "img")
    p_k = hl.Param(hl.Int(32), "k", 5)
    p_s = hl.Param(hl.Float(32), "s", 1.0)
    side = hl.Buffer(np.full((8, 8), 10, np.float32))
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("fast")
    f[x, y] = p_img[x, y] * p_s + p_k + side[x, y]
    c = f.compile_to_callable([p_img, p_k, p_s])
    rng = np.random.default_rng(0)
    a = rng.random((8, 8), dtype=np.float32)
    b_in, out = hl.Buffer(a), hl.Buffer(hl.Float(32), [8, 8])
    for k, s in [(1, 2.0), (2, 3.0), (-7, 0.5), (3, 2)]:
        c(b_in, k, s, out)
        np.testing.assert_allclose(np.asarray(out), a * s + k + 10, rtol=1e-6)
    for n in (4, 6, 4):  # other shapes: compiled once each, then reused
        a2 = rng.random((n, n), dtype=np.float32)
        out2 = hl.Buffer(hl.Float(32), [n, n])
        c(a2, 1, 2.0, out2)
        np.testing.assert_allclose(np.asarray(out2), a2 * 2 + 11, rtol=1e-6)
    side.fill(0)  # (the same memory: the call reads it)
    c(b_in, 1, 1.0, out)
    np.testing.assert_allclose(np.asarray(out), a + 1, rtol=1e-6)
    with pytest.raises(hl.HalideError, match="cannot be losslessly converted"):
        c(b_in, 1.5, 1.0, out)
    with pytest.raises(hl.HalideError, match="is not an instance of a scalar"):
        c(b_in, "x", 1.0, out)
    assert p_k.get() == 5 and p_s.get() == 1.0 and p_img.get() is None


def test_threads_share_a_callable():
    """Calls set no Param, so threads may call one Callable with different values at once."""
    from concurrent.futures import ThreadPoolExecutor

    p_img = hl.ImageParam(hl.Int(32), 1, "img")
    p_k = hl.Param(hl.Int(32), "k", 0)
    x = hl.Var("x")
    f = hl.Func("threaded")
    f[x] = p_img[x] + p_k
    c = f.compile_to_callable([p_img, p_k])
    inp = hl.Buffer(np.arange(16, dtype=np.int32))
    c(inp, 0, hl.Buffer(hl.Int(32), [16]))

    def work(k):
        out = hl.Buffer(hl.Int(32), [16])
        for _ in range(200):
            c(inp, k, out)
            if not (np.asarray(out) == np.arange(16) + k).all():
                return False
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(8)))
