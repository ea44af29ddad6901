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
