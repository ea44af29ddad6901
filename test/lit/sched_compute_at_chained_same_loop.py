# Chained producers at the SAME loop (Harris: gray -> Ix, Iy, all computed at the output's yo loop; the
# output reads Ix and Iy through inline products and 3x3 box sums): per 4-row strip of the 16x6 output, one
# 8x20 tile of gray (4 rows + 2 for Ix/Iy's taps + 2 for the box sums) fused through its one slice, and one
# 6x18 tile each of Ix and Iy computed in the payload's loop -- each exactly once (issue 5).
#
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the scalar generics of the schedule, as Halide runs them

inp = hl.Buffer(np.zeros((3, 12, 20), dtype=np.float32), name="input")
x, y, yo, yi = (hl.Var(n) for n in "x y yo yi".split())
gray, ix, iy, out = hl.Func("gray"), hl.Func("Ix"), hl.Func("Iy"), hl.Func("harris")
gray[x, y] = 0.299 * inp[x, y, 0] + 0.587 * inp[x, y, 1] + 0.114 * inp[x, y, 2]
iy[x, y] = gray[x, y + 2] - gray[x, y] + 2 * (gray[x + 1, y + 2] - gray[x + 1, y])
ix[x, y] = gray[x + 2, y] - gray[x, y] + 2 * (gray[x + 2, y + 1] - gray[x, y + 1])


def box(a, b):
    return sum((a[x + i, y + j] * b[x + i, y + j] for j in range(3) for i in range(3)), hl.f32(0))


sxx, syy, sxy = box(ix, ix), box(iy, iy), box(ix, iy)
out[x, y] = sxx * syy - sxy * sxy - 0.04 * (sxx + syy) * (sxx + syy)
out.split(y, yo, yi, 4)
for f in (gray, ix, iy):
    f.compute_at(out, yo)
emit(out, [16, 8])

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     hl.func
# CHECK:         scf.for {{.*}} -> (tensor<8x16xf32>)
# CHECK-NOT:       hl.func
# CHECK:           linalg.generic {{.*}}hl.func = "gray"
# CHECK:           -> tensor<8x20xf32>
# CHECK-NOT:       hl.func
# CHECK:           linalg.generic {{.*}}hl.func = "I{{x|y}}"
# CHECK:           -> tensor<6x18xf32>
# CHECK-NOT:       hl.func
# CHECK:           linalg.generic {{.*}}hl.func = "I{{x|y}}"
# CHECK:           -> tensor<6x18xf32>
# CHECK-NOT:       hl.func
# CHECK:           scf.for
# CHECK:             linalg.generic {{.*}}hl.func = "harris"
# CHECK-NOT:     hl.func
# CHECK:         bufferization.materialize_in_destination
