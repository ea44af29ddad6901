# A scatter (histogram: h[in[r.x, r.y]] += 1) and a scan (cdf[r] = cdf[r - 1] + h[r]) are not linalg.generic ops:
# their write coordinates are data-dependent or loop-carried. Each becomes an scf.for nest in Halide's order
# (r.y outside r.x) carrying the Func's tensor through iter_args, reading it with tensor.extract and writing it
# with tensor.insert. The pure definitions stay linalg.generic and seed the loops.
#
# RUN: %python %s payload | FileCheck %s
# RUN: %python %s payload | mlir-opt | FileCheck %s --check-prefix=VERIFY

import numpy as np

import halide_mlir as hl
from hl_stage import emit

inp = hl.Buffer(np.zeros((6, 10), dtype=np.uint8), name="input")   # 10 columns x 6 rows
i = hl.Var("i")
r = hl.RDom([(0, 10), (0, 6)])
hist = hl.Func("hist")
hist[i] = 0
hist[hl.cast(hl.Int(32), inp[r.x, r.y])] += 1
hist.compute_root()
cdf = hl.Func("cdf")
cdf[i] = hist[0]
b = hl.RDom([(1, 255)])
cdf[b.x] = cdf[b.x - 1] + hist[b.x]
emit(cdf, [256])

# CHECK-LABEL: func.func @pipeline
# CHECK-SAME:    (%[[IN:[A-Za-z0-9_]+]]: memref<6x10xi8>, %[[OUT:[A-Za-z0-9_]+]]: memref<256xi32>)
# CHECK:         %[[INPUT:[A-Za-z0-9_]+]] = bufferization.to_tensor %[[IN]]

# hist's pure definition: zeros.
# CHECK:         %[[H0:[A-Za-z0-9_]+]] = linalg.generic
# CHECK-SAME:      hl.func = "hist"
# CHECK:         } -> tensor<256xi32>

# The scatter: r.y (6) outside r.x (10), the histogram carried through both loops.
# CHECK-NOT:     linalg.generic
# CHECK:         %[[C6:[A-Za-z0-9_]+]] = arith.constant 6 : index
# CHECK:         %[[HIST:[A-Za-z0-9_]+]] = scf.for %[[RY:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C6]] step %{{[A-Za-z0-9_]+}} iter_args(%[[ACCY:[A-Za-z0-9_]+]] = %[[H0]]) -> (tensor<256xi32>)
# CHECK:           %[[C10:[A-Za-z0-9_]+]] = arith.constant 10 : index
# CHECK:           %[[INNER:[A-Za-z0-9_]+]] = scf.for %[[RX:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C10]] step %{{[A-Za-z0-9_]+}} iter_args(%[[ACC:[A-Za-z0-9_]+]] = %[[ACCY]]) -> (tensor<256xi32>)
# the pixel, then the data-dependent bin: read-modify-write of the carried tensor
# CHECK:             %[[PIX:[A-Za-z0-9_]+]] = tensor.extract %[[INPUT]][%{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}] : tensor<6x10xi8>
# CHECK:             %[[BIN:[A-Za-z0-9_]+]] = arith.extui %[[PIX]] : i8 to i32
# CHECK:             %[[BI:[A-Za-z0-9_]+]] = arith.index_cast %[[BIN]] : i32 to index
# CHECK:             %[[OLD:[A-Za-z0-9_]+]] = tensor.extract %[[ACC]][%[[BI]]] : tensor<256xi32>
# CHECK:             %[[NEW:[A-Za-z0-9_]+]] = arith.addi %[[OLD]], %{{[A-Za-z0-9_]+}} : i32
# CHECK:             %[[UPD:[A-Za-z0-9_]+]] = tensor.insert %[[NEW]] into %[[ACC]][%{{[A-Za-z0-9_]+}}] : tensor<256xi32>
# CHECK:             scf.yield %[[UPD]] : tensor<256xi32>
# CHECK:           scf.yield %[[INNER]] : tensor<256xi32>

# cdf's pure definition reads hist[0] (a 0-d slice), then the scan over b = 1..255.
# CHECK:         %[[CDF0:[A-Za-z0-9_]+]] = linalg.generic
# CHECK-SAME:      hl.func = "cdf"
# CHECK:         %[[C255:[A-Za-z0-9_]+]] = arith.constant 255 : index
# CHECK:         %[[CDF:[A-Za-z0-9_]+]] = scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %[[C255]] step %{{[A-Za-z0-9_]+}} iter_args(%[[CACC:[A-Za-z0-9_]+]] = %[[CDF0]]) -> (tensor<256xi32>)
# the previous element of the carried cdf, and the histogram (loop-invariant tensor from the scatter)
# CHECK:           %[[PREV:[A-Za-z0-9_]+]] = tensor.extract %[[CACC]][%{{[A-Za-z0-9_]+}}] : tensor<256xi32>
# CHECK:           %[[HB:[A-Za-z0-9_]+]] = tensor.extract %[[HIST]][%{{[A-Za-z0-9_]+}}] : tensor<256xi32>
# CHECK:           %[[SUM:[A-Za-z0-9_]+]] = arith.addi %[[PREV]], %[[HB]] : i32
# CHECK:           %[[CU:[A-Za-z0-9_]+]] = tensor.insert %[[SUM]] into %[[CACC]][%{{[A-Za-z0-9_]+}}] : tensor<256xi32>
# CHECK:           scf.yield %[[CU]] : tensor<256xi32>
# CHECK:         bufferization.materialize_in_destination %[[CDF]] in restrict writable %[[OUT]]
# CHECK-NOT:     linalg.generic

# VERIFY-LABEL: func.func @pipeline
# VERIFY-COUNT-3: scf.for
# VERIFY-NOT:     scf.for
