"""A vectorized loop with short loops inside it (Halide runs them per vector): they become extra vector dims."""
import numpy as np
import pytest

from oracle import run_both

IMG = np.random.default_rng(3).random((3, 37, 53), dtype=np.float32)


@pytest.mark.parametrize("schedule", ["channels_inside", "rows_inside", "bounded_channels"])
def test_vectorized_loop_with_inner_loops(schedule):
    def build(hl):
        x, y, c, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("yo"), hl.Var("yi")
        inp = hl.Buffer(IMG, "img")
        f = hl.Func("f")
        f[x, y, c] = inp[x, y, c] * hl.f32(c + 1) + inp[x + 1, y, c]
        if schedule == "channels_inside":
            f.reorder(c, x, y).vectorize(x, 8)
        elif schedule == "rows_inside":
            f.split(y, yo, yi, 4).reorder(yi, x, yo, c).vectorize(x, 16)
        else:
            f.reorder(c, x, y).bound(c, 0, 3).vectorize(x, 8).parallel(y)
        return f

    run_both(build, [52, 37, 3])


def test_vectorized_loop_with_a_long_inner_loop_is_refused():
    import halide_mlir as hl
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = x + y
    f.reorder(y, x).vectorize(x, 8)          # y (1000 rows) inside the vector loop: too many lanes
    with pytest.raises(hl.HalideError, match="must be the innermost"):
        f.realize([64, 1000])
