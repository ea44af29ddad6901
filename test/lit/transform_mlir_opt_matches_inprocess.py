# The emitted transform script is a real, standalone transform-dialect program: applying
# it to the emitted payload with the real `mlir-opt --transform-interpreter` (script
# preloaded as a library) gives exactly what halide_mlir's in-process interpreter gives.
# Both outputs are pinned by the SAME check lines, and then diffed textually (the
# in-process result is normalized by an mlir-opt round trip with no passes).
#
# RUN: %python %s payload > %t.payload.mlir
# RUN: %python %s transform > %t.transform.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: FileCheck %s --implicit-check-not=linalg.generic --input-file=%t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: FileCheck %s --implicit-check-not=linalg.generic --input-file=%t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 34), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) * 0.5
out.vectorize(x, 16).parallel(y)
emit(out, [32, 16])

# CHECK-LABEL: func.func @pipeline
# CHECK-SAME:    (%[[IN:[A-Za-z0-9_]+]]: memref<16x34xf32>, %[[OUT:[A-Za-z0-9_]+]]: memref<16x32xf32>)
# CHECK-DAG:     %[[HALF:[A-Za-z0-9_]+]] = arith.constant dense<5.000000e-01> : vector<1x16xf32>
# CHECK-DAG:     %[[C0:[A-Za-z0-9_]+]] = arith.constant 0 : index
# CHECK-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# CHECK-DAG:     %[[C32:[A-Za-z0-9_]+]] = arith.constant 32 : index
# CHECK:         %[[EMPTY:[A-Za-z0-9_]+]] = tensor.empty() : tensor<16x32xf32>
# parallel(y): one forall over the 16 rows
# CHECK:         %[[R:[A-Za-z0-9_]+]] = scf.forall (%[[Y:[A-Za-z0-9_]+]]) in (16) shared_outs(%[[ACC:[A-Za-z0-9_]+]] = %[[EMPTY]]) -> (tensor<16x32xf32>)
# vectorize(x, 16): a serial loop over x in steps of 16, no scalar work inside
# CHECK:           scf.for %[[X:[A-Za-z0-9_]+]] = %[[C0]] to %[[C32]] step %[[C16]]
# CHECK-NOT:         scf.for
# CHECK:             %[[V0:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
# CHECK-NEXT:        %[[V1:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
# CHECK-NEXT:        %[[V2:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
# CHECK-NEXT:        %[[S0:[A-Za-z0-9_]+]] = arith.addf %[[V0]], %[[V1]]{{.*}}: vector<1x16xf32>
# CHECK-NEXT:        %[[S1:[A-Za-z0-9_]+]] = arith.addf %[[S0]], %[[V2]]{{.*}}: vector<1x16xf32>
# CHECK-NEXT:        %[[P:[A-Za-z0-9_]+]] = arith.mulf %[[S1]], %[[HALF]]{{.*}}: vector<1x16xf32>
# CHECK-NEXT:        vector.transfer_write %[[P]], {{.*}} : vector<1x16xf32>, tensor<1x16xf32>
# CHECK:             scf.yield
# CHECK:           scf.forall.in_parallel
# CHECK-NEXT:        tensor.parallel_insert_slice {{.*}} into %[[ACC]][%[[Y]], 0] [1, 32] [1, 1] : tensor<1x32xf32> into tensor<16x32xf32>
# CHECK:         bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
# CHECK-NOT:     linalg.generic
# CHECK-NOT:     transform.
