# split(x, xo, xi, 4).unroll(xi): the script unrolls the xi loop by its full trip count
# (transform.loop.unroll {factor = 4}) after bufferization: the schedule tags the loop with an hl.unroll id,
# the script's @halide_unroll sequence finds it by that id in the bufferized IR and unrolls it. There the xo
# loop (step 4) holds four copies of the stage's body at constant offsets 0, 1, 2, 3 and no inner loop. With
# vectorize(x, 16).unroll(x, 2) (each unrolled copy a 16-wide vector) the body is two vector computations at
# offsets 0 and 16.
#
# RUN: %python %s transform scalar | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s bufferized scalar | FileCheck %s
# RUN: %python %s bufferized vector | FileCheck %s --check-prefix=VEC

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 64), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] * 2.0 + 1.0
if sys.argv[2] == "scalar":
    out.split(x, hl.Var("xo"), hl.Var("xi"), 4).unroll(hl.Var("xi"))
else:
    out.vectorize(x, 16).unroll(x, 2)
emit(out, [64, 16])

# SCRIPT:      %[[T:[A-Za-z0-9_]+]], %[[L:[A-Za-z0-9_]+]] = transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [0, 1]
# SCRIPT:      %[[P:[A-Za-z0-9_]+]] = transform.param.constant 0 : i64
# SCRIPT-NEXT: transform.annotate %[[L]] "hl.unroll" = %[[P]]
# SCRIPT-NOT:  transform.loop.unroll
# SCRIPT:      transform.named_sequence @halide_unroll(%[[ROOT:[A-Za-z0-9_]+]]: !transform.any_op
# SCRIPT-NEXT:   %[[U:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.unroll = 0 : i64} in %[[ROOT]]
# SCRIPT-NEXT:   transform.loop.unroll %[[U]] {factor = 4}

# CHECK-LABEL: func.func @pipeline
# CHECK-DAG:     %[[C4:[A-Za-z0-9_]+]] = arith.constant 4 : index
# CHECK-DAG:     %[[C64:[A-Za-z0-9_]+]] = arith.constant 64 : index
# CHECK:         scf.for %[[Y:[A-Za-z0-9_]+]] =
# CHECK:           scf.for %[[XO:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C64]] step %[[C4]]
# CHECK-NOT:         scf.for
# CHECK:             %[[TILE:[A-Za-z0-9_]+]] = memref.subview %{{[A-Za-z0-9_]+}}[0, %[[XO]]] [1, 4] [1, 1]
# CHECK-NOT:         scf.for
# CHECK:             %[[S0:[A-Za-z0-9_]+]] = memref.subview %[[TILE]][0, 0] [1, 1] [1, 1] : memref<1x4xf32, {{.*}}> to memref<1x1xf32
# CHECK:             linalg.generic {{.*}}ins(%[[S0]] : memref<1x1xf32
# CHECK:               arith.mulf
# CHECK:               arith.addf
# CHECK-NOT:         scf.for
# CHECK:             %[[S1:[A-Za-z0-9_]+]] = memref.subview %[[TILE]][0, 1] [1, 1] [1, 1] : memref<1x4xf32, {{.*}}> to memref<1x1xf32
# CHECK:             linalg.generic {{.*}}ins(%[[S1]] : memref<1x1xf32
# CHECK:               arith.mulf
# CHECK:               arith.addf
# CHECK-NOT:         scf.for
# CHECK:             %[[S2:[A-Za-z0-9_]+]] = memref.subview %[[TILE]][0, 2] [1, 1] [1, 1] : memref<1x4xf32, {{.*}}> to memref<1x1xf32
# CHECK:             linalg.generic {{.*}}ins(%[[S2]] : memref<1x1xf32
# CHECK:               arith.mulf
# CHECK:               arith.addf
# CHECK-NOT:         scf.for
# CHECK:             %[[S3:[A-Za-z0-9_]+]] = memref.subview %[[TILE]][0, 3] [1, 1] [1, 1] : memref<1x4xf32, {{.*}}> to memref<1x1xf32
# CHECK:             linalg.generic {{.*}}ins(%[[S3]] : memref<1x1xf32
# CHECK:               arith.mulf
# CHECK:               arith.addf
# CHECK-NOT:         linalg.generic
# CHECK:           }

# VEC-LABEL: func.func @pipeline
# VEC-DAG:     %[[C32:[A-Za-z0-9_]+]] = arith.constant 32 : index
# VEC:         scf.for %[[X:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %{{[A-Za-z0-9_]+}} step %[[C32]]
# VEC-NOT:       scf.for
# VEC:           %[[T:[A-Za-z0-9_]+]] = memref.subview %{{[A-Za-z0-9_]+}}[0, %[[X]]] [1, 32] [1, 1]
# VEC-NOT:       scf.for
# VEC:           %[[A:[A-Za-z0-9_]+]] = memref.subview %[[T]][0, 0] [1, 16] [1, 1] : memref<1x32xf32, {{.*}}> to memref<1x16xf32
# VEC:           %[[R0:[A-Za-z0-9_]+]] = vector.transfer_read %[[A]]{{.*}} : memref<1x16xf32, {{.*}}>, vector<1x16xf32>
# VEC:           arith.mulf %[[R0]], %{{[A-Za-z0-9_]+}}{{.*}}: vector<1x16xf32>
# VEC-NOT:       scf.for
# VEC:           %[[B:[A-Za-z0-9_]+]] = memref.subview %[[T]][0, 16] [1, 16] [1, 1] : memref<1x32xf32, {{.*}}> to memref<1x16xf32
# VEC:           %[[R1:[A-Za-z0-9_]+]] = vector.transfer_read %[[B]]{{.*}} : memref<1x16xf32, {{.*}}>, vector<1x16xf32>
# VEC:           arith.mulf %[[R1]], %{{[A-Za-z0-9_]+}}{{.*}}: vector<1x16xf32>
# VEC-NOT:       vector.transfer_read
# VEC:         }
