# A chain of sliding windows (analysis/tiling.py): a and b are both stored at root and computed at out's y, and
# b reads a. Before the y loop, a's warm-up (3 rows) and then b's warm-up (1 row) computed from a's warm-up
# buffer; in each iteration one new row of a, then one new row of b reading a's 4-row window, into buffers the
# loop carries, both folded (a: 4 rows, b: 2 rows; analysis/folding.py).
#
# RUN: %python %s payload | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((24, 64), dtype=np.float32), name="input")
a, b, out = hl.Func("a"), hl.Func("b"), hl.Func("out")
a[x, y] = inp[x, y] * 2.0
b[x, y] = a[x, y] + a[x, y + 2]
out[x, y] = b[x, y] + b[x, y + 1]
a.store_root().compute_at(out, y)
b.store_root().compute_at(out, y)
emit(out, [64, 16])

# CHECK-LABEL: func.func @pipeline
# CHECK:         %[[ABUF:.*]] = tensor.empty() : tensor<4x64xf32>
# CHECK:         linalg.generic {{.*}}hl.func = "a"
# CHECK:         -> tensor<3x64xf32>
# CHECK:         %[[AWARM:.*]] = tensor.insert_slice {{.*}} into %[[ABUF]][0, 0] [3, 64]
# CHECK:         %[[BBUF:.*]] = tensor.empty() : tensor<2x64xf32>
# CHECK:         tensor.extract_slice %[[AWARM]][0, 0] [1, 64]
# CHECK:         tensor.extract_slice %[[AWARM]][2, 0] [1, 64]
# CHECK:         linalg.generic {{.*}}hl.func = "b"
# CHECK:         -> tensor<1x64xf32>
# CHECK:         %[[BWARM:.*]] = tensor.insert_slice {{.*}} into %[[BBUF]][0, 0] [1, 64]
# CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[A:.*]] = %[[AWARM]], %[[B:.*]] = %[[BWARM]])
# CHECK:           linalg.generic {{.*}}hl.func = "a"
# CHECK:           -> tensor<1x64xf32>
# CHECK:           %[[ANEW:.*]] = tensor.insert_slice {{.*}} into %[[A]]
# CHECK:           tensor.extract_slice %[[ANEW]][%{{.*}}, 0] [1, 64]
# CHECK:           linalg.generic {{.*}}hl.func = "b"
# CHECK:           -> tensor<1x64xf32>
# CHECK:           %[[BNEW:.*]] = tensor.insert_slice {{.*}} into %[[B]]
# CHECK:           linalg.generic {{.*}}hl.func = "out"
# CHECK:           scf.yield %{{.*}}, %[[ANEW]], %[[BNEW]]
