# atomic(): a histogram whose r.y loop runs in parallel. The scatter's loops work on a copy of the histogram's
# buffer (memref.alloc + materialize_in_destination, read back with to_tensor); the parallel loop is an
# scf.forall, r.x inside it a plain scf.for, and each increment one memref.atomic_rmw addi, which becomes an
# OpenMP worksharing loop around an llvm.atomicrmw add.
#
# RUN: %python %s payload | FileCheck %s
# RUN: %python %s payload | mlir-opt | FileCheck %s --check-prefix=VERIFY
# RUN: %python %s lowered | FileCheck %s --check-prefix=LOWERED
# The script, run by the real mlir-opt, gives the in-process interpreter's IR:
# RUN: %python %s payload > %t.payload.mlir
# RUN: %python %s transform > %t.transform.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import numpy as np

import halide_mlir as hl
from hl_stage import emit

inp = hl.Buffer(np.zeros((6, 10), dtype=np.uint8), name="input")   # 10 columns x 6 rows
i = hl.Var("i")
r = hl.RDom([(0, 10), (0, 6)])
hist = hl.Func("hist")
hist[i] = 0
hist[hl.clamp(hl.cast(hl.Int(32), inp[r.x, r.y]), 0, 255)] += 1
hist.update().atomic().parallel(r.y)
emit(hist, [256])

# CHECK-LABEL: func.func @pipeline
# CHECK:         %[[H0:[A-Za-z0-9_]+]] = linalg.generic
# CHECK-SAME:      hl.func = "hist"
# CHECK:         %[[MEM:[A-Za-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<256xi32>
# CHECK:         bufferization.materialize_in_destination %[[H0]] in restrict writable %[[MEM]]
# CHECK:         scf.forall (%{{[A-Za-z0-9_]+}}) in (6) {
# CHECK:           scf.for
# CHECK:             tensor.extract
# CHECK:             memref.atomic_rmw addi %{{[A-Za-z0-9_]+}}, %[[MEM]][%{{[A-Za-z0-9_]+}}] : (i32, memref<256xi32>) -> i32
# CHECK:         bufferization.to_tensor %[[MEM]] restrict writable : memref<256xi32> to tensor<256xi32>

# VERIFY: func.func @pipeline

# LOWERED:       omp.parallel
# LOWERED:         omp.wsloop
# LOWERED:           llvm.atomicrmw add
