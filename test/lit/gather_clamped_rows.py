# A repeat_edge read only at its consumer's own coordinates (interpolate's premultiplied RGBA level 0, computed per
# row of the level below) is inlined, not a padded copy (analysis/pipeline.py _pointwise). Its clamp of x makes
# the read a vector.gather (of 4 x 8 lanes: the unrolled channels); where the clamps change no lane it is one
# masked load per channel from the input itself (codegen/clamped_gathers.py), the gather only at the edges.
#
# (the padded copy would be a 4 x 20+ x 40+ buffer; the row window of `pre` is 4 x 1 x 33)
#
# RUN: %python %s bufferized | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
inp = hl.Buffer(np.zeros((4, 20, 40), dtype=np.float32), "input")
bc = hl.BoundaryConditions.repeat_edge(inp)
pre, down = hl.Func("pre"), hl.Func("down")
pre[x, y, c] = hl.select(c < 3, bc[x, y, c] * bc[x, y, 3], bc[x, y, 3])
down[x, y, c] = pre[2 * x - 1, y, c] + pre[2 * x + 1, y, c]
down.bound(c, 0, 4).reorder(x, c, y).vectorize(x, 8)
pre.compute_at(down, y).reorder(c, x, y).vectorize(x, 8).unroll(c)
emit(down, [16, 8, 4])

# CHECK-LABEL: func.func @pipeline(%arg0: memref<4x20x40xf32>
# CHECK-NOT:     memref.alloc() {{.*}} : memref<4x{{[0-9][0-9]+}}x
# CHECK:         %[[OK:.*]] = vector.reduction <and>, {{.*}} : vector<{{[0-9]+}}xi1> into i1
# CHECK:         scf.if %[[OK]] -> (vector<4x1x8xf32>) {
# CHECK-COUNT-4:   vector.maskedload %arg0[{{.*}}], {{.*}} : memref<4x20x40xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
# CHECK:         } else {
# CHECK:           vector.gather %arg0
