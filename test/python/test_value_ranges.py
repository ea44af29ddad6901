"""Bounds of data-dependent coordinates through value ranges, as Halide bounds them: ``clamp`` bounds a value,
casts, float and integer arithmetic, ``min``/``max`` and ``select`` carry the range, an index Param (a Float one
too) is its value. The region each input is read over is compared with real Halide's (``infer_input_bounds``),
values with its realize."""

import numpy as np
import pytest

from oracle import image_f32, ours, reference, run_both

IN = (np.arange(12, dtype=np.float32) / 5 - 0.7)
GRID_IN = image_f32(40, 24, seed=7, lo=-0.2, hi=1.2)

CASES = {
    "mul8": lambda hl, v, p: hl.i32(hl.clamp(v, 0.0, 1.0) * 8),
    "div_param": lambda hl, v, p: hl.i32(hl.clamp(v, 0.0, 1.0) / p + 0.5),
    "div_negative_param": lambda hl, v, p: hl.i32(hl.clamp(v, 0.25, 1.0) / -p),
    "select": lambda hl, v, p: hl.i32(hl.select(v > 0.5, hl.clamp(v, 0.0, 1.0) * 4, hl.f32(-3))),
    "sub_floor": lambda hl, v, p: hl.i32(hl.floor(2.0 - hl.clamp(v, -1.0, 1.0) * 3.5)),
    "u8_cast": lambda hl, v, p: hl.i32(hl.u8(hl.clamp(v * 100, 0.0, 255.0))) - 10,
    "int_clamp": lambda hl, v, p: hl.clamp(hl.i32(v * 10), -3, 7) * 2 + 1,
    "min_max": lambda hl, v, p: hl.i32(hl.max(hl.min(v, 2.0), -2.0) * 2.5),
    "f64": lambda hl, v, p: hl.i32(hl.f64(hl.clamp(v, 0.0, 1.0)) * hl.f64(9.9)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_input_region_matches_halide(name):
    regions = []
    for hl in (reference(), ours()):
        x = hl.Var("x")
        lut = hl.ImageParam(hl.Float(32), 1, "lut")
        p = hl.Param(hl.Float(32), "p", 0.1)
        inp = hl.Buffer(IN, "inp")
        f = hl.Func("f")
        f[x] = lut[CASES[name](hl, inp[x], p)]
        f.infer_input_bounds([12])
        regions.append((lut.get().dim(0).min(), lut.get().dim(0).extent()))
    assert regions[0] == regions[1]


def test_func_read_at_clamped_value():
    """The brief's form: a computed Func read at i32(clamp(input, 0, 1) * 8) in its last dimension."""
    def build(hl):
        x, y, z = hl.Var("x"), hl.Var("y"), hl.Var("z")
        inp = hl.Buffer(GRID_IN, "inp")
        g = hl.Func("g")
        g[x, y, z] = hl.f32(x + 3 * y) + hl.f32(z) * 0.5
        g.compute_root()
        v = hl.clamp(inp[x, y], 0.0, 1.0)
        f = hl.Func("f")
        f[x, y] = g[x, y, hl.cast(hl.Int(32), v * 8)] + g[x, y, hl.cast(hl.Int(32), v * 8) + 1]
        return f

    run_both(build, [40, 24])


@pytest.mark.parametrize("r_sigma", [0.1, 0.25])
def test_bilateral_grid_with_param(r_sigma):
    """apps/bilateral_grid with r_sigma an InputScalar (a Param) as the generator has it: blury's z is bounded
    through val / r_sigma (s_sigma 4, a small image)."""
    def build(hl):
        s = 4
        x, y, z, c = hl.Var("x"), hl.Var("y"), hl.Var("z"), hl.Var("c")
        rs = hl.Param(hl.Float(32), "r_sigma", r_sigma)
        clamped = hl.BoundaryConditions.repeat_edge(hl.Buffer(GRID_IN, "input"))
        r = hl.RDom([(0, s), (0, s)])
        val = hl.clamp(clamped[x * s + r.x - s // 2, y * s + r.y - s // 2], 0.0, 1.0)
        zi = hl.i32(val / rs + 0.5)
        histogram = hl.Func("histogram")
        histogram[x, y, z, c] = 0.0
        histogram[x, y, zi, c] += hl.mux(c, [val, 1.0])
        blurz, blurx, blury = hl.Func("blurz"), hl.Func("blurx"), hl.Func("blury")
        blurz[x, y, z, c] = (histogram[x, y, z - 2, c] + histogram[x, y, z - 1, c] * 4 + histogram[x, y, z, c] * 6
                             + histogram[x, y, z + 1, c] * 4 + histogram[x, y, z + 2, c])
        blurx[x, y, z, c] = (blurz[x - 2, y, z, c] + blurz[x - 1, y, z, c] * 4 + blurz[x, y, z, c] * 6
                             + blurz[x + 1, y, z, c] * 4 + blurz[x + 2, y, z, c])
        blury[x, y, z, c] = (blurx[x, y - 2, z, c] + blurx[x, y - 1, z, c] * 4 + blurx[x, y, z, c] * 6
                             + blurx[x, y + 1, z, c] * 4 + blurx[x, y + 2, z, c])
        v = hl.clamp(clamped[x, y], 0.0, 1.0)
        zv = v / rs
        zi = hl.i32(zv)
        zf = zv - zi
        xf = hl.f32(x % s) / s
        yf = hl.f32(y % s) / s
        xi, yi = x / s, y / s
        interpolated = hl.Func("interpolated")
        interpolated[x, y, c] = hl.lerp(
            hl.lerp(hl.lerp(blury[xi, yi, zi, c], blury[xi + 1, yi, zi, c], xf),
                    hl.lerp(blury[xi, yi + 1, zi, c], blury[xi + 1, yi + 1, zi, c], xf), yf),
            hl.lerp(hl.lerp(blury[xi, yi, zi + 1, c], blury[xi + 1, yi, zi + 1, c], xf),
                    hl.lerp(blury[xi, yi + 1, zi + 1, c], blury[xi + 1, yi + 1, zi + 1, c], xf), yf),
            zf)
        out = hl.Func("bilateral_grid")
        out[x, y] = interpolated[x, y, 0] / interpolated[x, y, 1]
        blurz.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, 8).unroll(c)
        histogram.compute_at(blurz, y)
        histogram.update().reorder(c, r.x, r.y, x, y).unroll(c)
        blurx.compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 8).unroll(c)
        blury.compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 8).unroll(c)
        out.compute_root().parallel(y).vectorize(x, 8)
        return out

    run_both(build, [40, 24], rtol=1e-4)


def test_unbounded_value_keeps_the_error():
    hl = ours()
    x = hl.Var("x")
    inp = hl.Buffer(IN, "inp")
    g = hl.Func("g")
    g[x] = x * 2
    g.compute_root()
    f = hl.Func("f")
    f[x] = g[hl.i32(inp[x] * 8)]  # no clamp: any float
    with pytest.raises(hl.HalideError, match="'g' is accessed over an unbounded region in dimension 0"):
        f.realize([12])
