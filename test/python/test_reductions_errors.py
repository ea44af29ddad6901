"""Programs with RDoms and update definitions that real Halide 21 refuses: halide_mlir must refuse them too,
with ``hl.HalideError`` (oracle.raises_both)."""

import pytest

from oracle import image_u8, raises_both

IMG = image_u8(20, 10, seed=1)


def test_rvar_in_pure_definition():
    def program(hl):
        x = hl.Var("x")
        r = hl.RDom([(0, 10)])
        f = hl.Func("f")
        f[x] = x + r.x
        return f.realize([10])

    _, msg = raises_both(program)
    assert "RVar" in msg or "reduction" in msg.lower()


def test_rvar_on_left_of_pure_definition():
    def program(hl):
        r = hl.RDom([(0, 10)])
        f = hl.Func("f")
        f[r.x] = 1     # no pure definition yet: an RVar can't be a pure argument
        return f.realize([10])

    raises_both(program)


@pytest.mark.parametrize("how", ["parallel", "vectorize", "vectorize_split"])
def test_parallel_or_vectorize_over_rvar(how):
    """Halide refuses to parallelize / vectorize an RVar loop of an update that may race (a sum over r)."""
    def program(hl):
        x = hl.Var("x")
        r = hl.RDom([(0, 16)])
        f = hl.Func("f")
        f[x] = 0
        f[x] += r * x
        if how == "parallel":
            f.update().parallel(r.x)
        elif how == "vectorize":
            f.update().vectorize(r.x)
        else:
            f.update().vectorize(r.x, 8)
        return f.realize([10])

    raises_both(program)


def test_parallel_over_rvar_of_scatter():
    def program(hl):
        inp = hl.Buffer(IMG, "input")
        i = hl.Var("i")
        r = hl.RDom([(0, 20), (0, 10)])
        h = hl.Func("h")
        h[i] = 0
        h[hl.cast(hl.Int(32), inp[r.x, r.y])] += 1
        h.update().parallel(r.y)
        return h.realize([256])

    raises_both(program)


def test_update_type_mismatch_float_into_u8():
    """``f[x] = u8; f[x] += 300.7``: the value becomes float, which does not match the pure definition."""
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = hl.u8(x)
        f[x] += 300.7
        return f.realize([10])

    _, msg = raises_both(program)
    assert "type" in msg.lower()


def test_update_type_mismatch_i32_into_u8():
    def program(hl):
        x = hl.Var("x")
        f = hl.Func("f")
        f[x] = hl.u8(x)
        f[x] = f[x] + hl.i32(x) * 1000
        return f.realize([10])

    raises_both(program)


# Writes (and scan reads) outside the output: Halide refuses them when realizing into a Buffer the caller made.
# (``f.realize(sizes)`` is different: real Halide first runs a bounds query and allocates an output large enough
# for everything the updates touch, then returns the requested window -- see test_reductions_core.py.)

def _into_buffer(hl, f, n):
    out = hl.Buffer(hl.Int(32), [n])
    f.realize(out)
    return out


def test_update_writes_outside_output_buffer():
    def program(hl):
        x = hl.Var("x")
        r = hl.RDom([(0, 20)])
        f = hl.Func("f")
        f[x] = 0
        f[r.x] = r.x * 2
        return _into_buffer(hl, f, 10)

    _, msg = raises_both(program)
    assert "19" in msg


def test_update_writes_before_output_buffer():
    def program(hl):
        x = hl.Var("x")
        r = hl.RDom([(-3, 5)])
        f = hl.Func("f")
        f[x] = 0
        f[r.x] = 1
        return _into_buffer(hl, f, 10)

    _, msg = raises_both(program)
    assert "-3" in msg


def test_scatter_index_range_exceeds_output():
    """A u8-indexed histogram realized into only 100 bins: the scatter may write up to bin 255."""
    def program(hl):
        inp = hl.Buffer(IMG, "input")
        i = hl.Var("i")
        r = hl.RDom([(0, 20), (0, 10)])
        h = hl.Func("h")
        h[i] = 0
        h[hl.cast(hl.Int(32), inp[r.x, r.y])] += 1
        return _into_buffer(hl, h, 100)

    raises_both(program)


def test_scan_reads_before_output_buffer():
    """``cdf[r] = cdf[r - 1] + ...`` with r from 0 on a buffer starting at 0 reads cdf[-1]."""
    def program(hl):
        i = hl.Var("i")
        cdf = hl.Func("cdf")
        cdf[i] = 0
        r = hl.RDom([(0, 8)])
        cdf[r.x] = cdf[r.x - 1] + r.x
        return _into_buffer(hl, cdf, 8)

    _, msg = raises_both(program)
    assert "-1" in msg


def test_update_wrong_number_of_args():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = x + y
        f[x] = f[x, 0] + 1
        return f.realize([4, 4])

    raises_both(program)


def test_update_pure_var_in_wrong_position():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x, y] = x + y
        f[y, x] = f[x, y] + 1
        return f.realize([4, 4])

    raises_both(program)


def test_update_uses_free_var():
    def program(hl):
        x, y = hl.Var("x"), hl.Var("y")
        f = hl.Func("f")
        f[x] = x
        f[x] = f[x] + y
        return f.realize([4])

    raises_both(program)


def test_rdom_float_bounds():
    def program(hl):
        x = hl.Var("x")
        r = hl.RDom([(0, 2.5)])
        f = hl.Func("f")
        f[x] = 0
        f[x] += r
        return f.realize([4])

    raises_both(program)


def test_input_read_out_of_bounds_by_reduction():
    """A 5-tap reduction over a 20-wide input, realized over the whole width: reads past both ends."""
    def program(hl):
        inp = hl.Buffer(IMG, "input")
        x, y = hl.Var("x"), hl.Var("y")
        r = hl.RDom([(-2, 5)])
        f = hl.Func("f")
        f[x, y] = hl.sum(hl.cast(hl.Int(32), inp[x + r, y]))
        return f.realize([20, 10])

    raises_both(program)


def test_undefined_func_read_in_update():
    def program(hl):
        x = hl.Var("x")
        g = hl.Func("g")
        f = hl.Func("f")
        f[x] = 0
        f[x] += g[x]
        return f.realize([4])

    raises_both(program)
