"""Tuple-valued Funcs (Halide tutorial lesson 13, in our own words): realizing to a list of Buffers, reading the
elements in a consumer, hl.Tuple, tuple-valued reductions (argmax by hand, hl.argmax / hl.argmin) and complex
numbers as 2-tuples. Each program runs under real Halide 21 and halide_mlir (oracle.run_program_both)."""

import numpy as np

from oracle import run_program_both


def test_l13_tuple_valued_func_realizes_to_list():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("multi_valued")
        f[x, y] = (x + y, hl.sin(hl.f32(x * y)))
        res = f.realize([80, 60])
        assert len(res) == 2
        return list(res)

    run_program_both(program)


def test_l13_tuple_elements_read_by_consumer():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("multi_valued")
        f[x, y] = (x + y, hl.sin(hl.f32(x * y)))
        g = hl.Func("consumer")
        g[x, y] = hl.f32(f[x, y][0]) + f[x, y][1]
        return g.realize([80, 60])

    run_program_both(program)


def test_l13_explicit_tuple_constructor():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = hl.Tuple([x * y, hl.cast(hl.UInt(8), x + y)])
        return list(f.realize([16, 8]))

    run_program_both(program)


def test_l13_argmax_by_hand():
    """A tuple-valued reduction: index and value of the maximum, updated together."""
    def program(hl):
        x = hl.Var("x")
        inp = hl.Func("input_func")
        inp[x] = hl.sin(hl.f32(x))
        arg_max = hl.Func("arg_max")
        arg_max[()] = (0, inp[0])
        r = hl.RDom([(1, 99)])
        old_index, old_max = arg_max[()][0], arg_max[()][1]
        new_index = hl.select(old_max < inp[r], r, old_index)
        new_max = hl.max(inp[r], old_max)
        arg_max[()] = (new_index, new_max)
        return list(arg_max.realize([]))

    ref, _ = run_program_both(program)
    assert int(ref[0]) == int(np.argmax(np.sin(np.arange(100, dtype=np.float32))))


def test_l13_builtin_argmax_argmin():
    def program(hl):
        x = hl.Var("x")
        inp = hl.Func("input_func")
        inp[x] = hl.sin(hl.f32(x))
        r = hl.RDom([(0, 100)])
        f = hl.Func("f")
        f[()] = (hl.argmax(inp[r])[0], hl.argmin(inp[r])[0])
        return list(f.realize([]))

    run_program_both(program)


def test_l13_complex_numbers_mandelbrot():
    """User-defined complex numbers as 2-tuples; a few Mandelbrot iterations counted with an RDom update."""
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        t = hl.Var("t")
        mandelbrot = hl.Func("mandelbrot")
        initial = (x / 15.0 - 2.5, y / 6.0 - 2.0)
        mandelbrot[x, y, t] = (0.0, 0.0)
        r = hl.RDom([(1, 12)])
        cur = mandelbrot[x, y, r - 1]
        re, im = cur[0], cur[1]
        mandelbrot[x, y, r] = (re * re - im * im + initial[0], 2.0 * re * im + initial[1])
        count = hl.Func("count")
        escape = hl.RDom([(0, 13)])
        z = mandelbrot[x, y, escape]
        count[x, y] = hl.argmin(z[0] * z[0] + z[1] * z[1] < 4.0)[0]
        return count.realize([61, 25])

    run_program_both(program)
