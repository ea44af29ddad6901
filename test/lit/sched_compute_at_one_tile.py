# compute_at must compute ONE producer tile per consumer tile, of exactly Halide's bounds (issue 3): a 3-tap
# vertical consumer tiled 8x32 needs a 10x32 tile of bx (8 rows + the 2-row halo), computed once, and the
# three taps are slices of it (fuse_into_containing_op alone would fuse three 8x32 copies:
# docs/mlir-pitfalls.md#fuse-once-per-use).
#
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the scalar loops of the schedule, as Halide runs them

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((18, 66), dtype=np.float32), name="input")
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
by.tile(x, y, xo, yo, xi, yi, 32, 8)
bx.compute_at(by, xo)
emit(by, [64, 16])

# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.for %[[YO:[A-Za-z0-9_]+]] =
# CHECK:           scf.for %[[XO:[A-Za-z0-9_]+]] =
# CHECK:             %[[TILE:[A-Za-z0-9_]+]] = linalg.generic {{.*}}hl.func = "bx"
# CHECK:             -> tensor<10x32xf32>
# CHECK-NOT:         hl.func = "bx"
# CHECK:             tensor.extract_slice %[[TILE]][0, 0] [8, 32]
# CHECK:             tensor.extract_slice %[[TILE]][1, 0] [8, 32]
# CHECK:             tensor.extract_slice %[[TILE]][2, 0] [8, 32]
# CHECK-NOT:         hl.func = "bx"
# CHECK:               linalg.generic {{.*}}hl.func = "by"
