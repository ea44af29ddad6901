# h.compute_at(c, y) where h is a histogram (a scatter at a data-dependent bin, bilateral_grid's shape) and c's
# rows run in parallel: each iteration of c's forall computes its own h tile (a private tensor: one row of x,
# every bin), the pure definition as a generic, then the scatter's loops over that row's pure coordinates
# (tensor.extract / tensor.insert at the computed bin), then c's row reads it (analysis/tiling.py
# _explicit_update_spans, codegen/tiled.py _producer_tile). Before, h was computed once at the root with a
# ComputeAtWarning.
#
# RUN: %python %s payload | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the loops of the schedule

x, y, z = hl.Var("x"), hl.Var("y"), hl.Var("z")
inp = hl.Buffer(np.zeros((20, 40), dtype=np.float32), name="input")
r = hl.RDom([(0, 2)], "r")
h, c = hl.Func("h"), hl.Func("c")
h[x, y, z] = hl.f32(0)
h[x, y, hl.clamp(hl.i32(inp[2 * x + r.x, y] * 8), 0, 7)] += 1.0
c[x, y, z] = h[x, y, z] + h[x, y, z + 1]
c.reorder(x, z, y).parallel(y)
h.compute_at(c, y)
emit(c, [16, 20, 7])

# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.forall (%[[Y:[A-Za-z0-9_]+]]) in (20)
# CHECK:           %[[H0:[A-Za-z0-9_]+]] = linalg.generic {{.*}}outs({{.*}} : tensor<8x1x16xf32>) attrs = {hl.func = "h"
# CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[H0]]) -> (tensor<8x1x16xf32>)
# CHECK:             tensor.extract %input
# CHECK:             tensor.extract %{{.*}} : tensor<8x1x16xf32>
# CHECK:             tensor.insert %{{.*}} : tensor<8x1x16xf32>
# CHECK:           linalg.generic {{.*}}hl.func = "c"
# CHECK:           tensor.parallel_insert_slice
# CHECK:         } {hl.loop = "c.s0.y"}
# CHECK-NOT:     hl.func = "h"
