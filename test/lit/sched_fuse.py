# Lesson 5's parallel tiles: tile(x, y, xo, yo, xi, yi, 16, 4).fuse(xo, yo, t).parallel(t).vectorize(xi).
# The fused tile index becomes ONE scf.forall over both tile dimensions (4 x 4 tiles of 4x16; no nested
# parallelism), each iteration a serial yi loop over 16-wide vectors. The transform script is also run by
# the real mlir-opt and must give the same IR as the in-process interpreter.
#
# RUN: %python %s transform > %t.transform.mlir
# RUN: FileCheck %s --check-prefix=SCRIPT --input-file=%t.transform.mlir
# RUN: %python %s payload > %t.payload.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: FileCheck %s --input-file=%t.mlir-opt.mlir --implicit-check-not=linalg.generic
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: FileCheck %s --input-file=%t.in-process.mlir --implicit-check-not=linalg.generic
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 64), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] * 2.0 + 1.0
xo, yo, xi, yi, t = (hl.Var(n) for n in ("xo", "yo", "xi", "yi", "t"))
out.tile(x, y, xo, yo, xi, yi, 16, 4).fuse(xo, yo, t).parallel(t).vectorize(xi)
emit(out, [64, 16])

# SCRIPT:       %[[OP:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "out"}
# SCRIPT-NEXT:  %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_forall %[[OP]] tile_sizes [4, 16]
# SCRIPT-NEXT:  %[[R:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T]] tile_sizes [1, 0]
# SCRIPT-NEXT:  transform.structured.vectorize %[[R]] vector_sizes [1, 16]
# SCRIPT-NOT:   tile_using_forall

# CHECK-LABEL: func.func @pipeline
# CHECK:         %[[RES:[A-Za-z0-9_]+]] = scf.forall (%[[TY:[A-Za-z0-9_]+]], %[[TX:[A-Za-z0-9_]+]]) in (4, 4) shared_outs(%[[ACC:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}}) -> (tensor<16x64xf32>)
# CHECK-NOT:       scf.forall
# CHECK:           %[[Y0:[A-Za-z0-9_]+]] = affine.apply #{{[A-Za-z0-9_]+}}(%[[TY]])
# CHECK:           %[[X0:[A-Za-z0-9_]+]] = affine.apply #{{[A-Za-z0-9_]+}}(%[[TX]])
# CHECK:           %[[IN:[A-Za-z0-9_]+]] = tensor.extract_slice %{{[A-Za-z0-9_]+}}[%[[Y0]], %[[X0]]] [4, 16] [1, 1] : tensor<16x64xf32> to tensor<4x16xf32>
# CHECK:           %[[TILE:[A-Za-z0-9_]+]] = scf.for %{{[A-Za-z0-9_]+}} = {{.*}} -> (tensor<4x16xf32>)
# CHECK:             vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
# CHECK:             arith.mulf {{.*}}{{.*}}: vector<1x16xf32>
# CHECK:           scf.forall.in_parallel
# CHECK-NEXT:        tensor.parallel_insert_slice %[[TILE]] into %[[ACC]][%[[Y0]], %[[X0]]] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<16x64xf32>
# CHECK:         bufferization.materialize_in_destination %[[RES]]
