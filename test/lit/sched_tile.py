# tile(x, y, xo, yo, xi, yi, 16, 4) = split x by 16, split y by 4, reorder(xi, yi, xo, yo): four loops,
# outermost first yo (step 4 over 16 rows), xo (step 16 over 64 columns), yi (0..4), xi (0..16). The
# 4x16 tile is the slice each (yo, xo) iteration works on.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the scalar loops of the schedule, as Halide runs them

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 64), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] * 2.0 + 1.0
out.tile(x, y, hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi"), 16, 4)
emit(out, [64, 16])

# SCRIPT:       %[[OP:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "out"}
# SCRIPT-NEXT:  %[[T1:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[OP]] tile_sizes [4, 0]
# SCRIPT-NEXT:  %[[T2:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T1]] tile_sizes [0, 16]
# SCRIPT-NEXT:  %[[T3:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T2]] tile_sizes [1, 0]
# SCRIPT-NEXT:  %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T3]] tile_sizes [0, 1]
# SCRIPT-NOT:   transform.structured.tile_using

# CHECK-LABEL: func.func @pipeline
# CHECK-DAG:     %[[C0:[A-Za-z0-9_]+]] = arith.constant 0 : index
# CHECK-DAG:     %[[C1:[A-Za-z0-9_]+]] = arith.constant 1 : index
# CHECK-DAG:     %[[C4:[A-Za-z0-9_]+]] = arith.constant 4 : index
# CHECK-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# CHECK-DAG:     %[[C64:[A-Za-z0-9_]+]] = arith.constant 64 : index
# CHECK:         scf.for %[[YO:[A-Za-z0-9_]+]] = %[[C0]] to %[[C16]] step %[[C4]]
# CHECK:           scf.for %[[XO:[A-Za-z0-9_]+]] = %[[C0]] to %[[C64]] step %[[C16]]
# CHECK:             tensor.extract_slice %{{[A-Za-z0-9_]+}}[0, %[[XO]]] [4, 16] [1, 1] : tensor<4x64xf32> to tensor<4x16xf32>
# CHECK:             scf.for %[[YI:[A-Za-z0-9_]+]] = %[[C0]] to %[[C4]] step %[[C1]]
# CHECK:               scf.for %[[XI:[A-Za-z0-9_]+]] = %[[C0]] to %[[C16]] step %[[C1]]
# CHECK-NOT:             scf.for
# CHECK:                 linalg.generic {{.*}}hl.func = "out"
