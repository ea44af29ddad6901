# Halide's sliding window for bx.store_root().compute_at(by, y) (analysis/tiling.py): before the y loop, the
# warm-up computes the first two rows of bx into a buffer the loop carries; each iteration computes only ONE
# new row (1x64) into it and by reads its 3-row window of the buffer. The buffer is folded (analysis/folding.py):
# 4 rows (the window's 3 rounded up to a power of two, as Halide folds it), each row at its index modulo 4.
#
# RUN: %python %s payload | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((18, 66), dtype=np.float32), name="input")
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
bx.store_root().compute_at(by, y)
emit(by, [64, 16])

# CHECK-LABEL: func.func @pipeline
# CHECK:         %[[BUF:.*]] = tensor.empty() : tensor<4x64xf32>
# CHECK:         linalg.generic {{.*}}hl.func = "bx"
# CHECK:         -> tensor<2x64xf32>
# CHECK:         %[[WARM:.*]] = tensor.insert_slice {{.*}} into %[[BUF]][0, 0] [2, 64]
# CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CARRIED:.*]] = %[[WARM]])
# CHECK:           %[[ROW:.*]] = arith.remui %{{.*}}, %{{.*}} : index
# CHECK:           linalg.generic {{.*}}hl.func = "bx"
# CHECK:           -> tensor<1x64xf32>
# CHECK:           %[[NEW:.*]] = tensor.insert_slice {{.*}} into %[[CARRIED]][%[[ROW]], 0] [1, 64]
# CHECK:           arith.remui
# CHECK:           tensor.extract_slice %[[NEW]][%{{.*}}, 0] [1, 64]
# CHECK-NOT:       hl.func = "bx"
# CHECK:           linalg.generic {{.*}}hl.func = "by"
# CHECK:           scf.yield %{{.*}}, %[[NEW]]
