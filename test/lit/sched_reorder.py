# reorder(y, x) (innermost first) makes the walk column-major: the loop over x (64 columns) is outside
# the loop over y (16 rows); each outer iteration works on one 16x1 column. The script tiles the x
# dimension (d1) first, then y (d0).
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 64), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] * 2.0 + 1.0
out.reorder(y, x)
emit(out, [64, 16])

# SCRIPT:       %[[OP:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "out"}
# SCRIPT-NEXT:  %[[T1:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[OP]] tile_sizes [0, 1]
# SCRIPT-NEXT:  %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T1]] tile_sizes [1, 0]
# SCRIPT-NOT:   transform.structured.tile_using

# CHECK-LABEL: func.func @pipeline
# CHECK-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# CHECK-DAG:     %[[C64:[A-Za-z0-9_]+]] = arith.constant 64 : index
# CHECK:         scf.for %[[X:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C64]] step
# CHECK:           tensor.extract_slice %{{[A-Za-z0-9_]+}}[0, %[[X]]] [16, 1] [1, 1] : tensor<16x64xf32> to tensor<16x1xf32>
# CHECK:           scf.for %[[Y:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C16]] step
# CHECK:             tensor.extract_slice %{{[A-Za-z0-9_]+}}[%[[Y]], 0] [1, 1] [1, 1] : tensor<16x1xf32> to tensor<1x1xf32>
# CHECK:             linalg.generic {{.*}}hl.func = "out"
