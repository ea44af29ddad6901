# parallel(y) with vectorize(x, 64) on u8: the script tiles y with tile_using_forall, so the scheduled IR
# has one scf.forall over the 16 rows (results written back with tensor.parallel_insert_slice) around
# 64-wide vector code; the lowered IR runs the forall's iterations on OpenMP: one omp.parallel with
# num_threads(HL_NUM_THREADS) around an omp.wsloop, whose omp.loop_nest holds the vector body (the translation to
# LLVM IR outlines the region into a function each thread runs). With HALIDE_MLIR_PARALLEL_RUNTIME=async they go
# through MLIR's async runtime instead (mlirAsyncRuntime* calls, the parallel_compute_fn outlined body). With
# HL_NUM_THREADS=1 the same schedule runs serially: no forall survives lowering and no runtime is called.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s
# RUN: env HL_NUM_THREADS=2 %python %s lowered | FileCheck %s --check-prefix=LOWERED --implicit-check-not=mlirAsyncRuntime
# RUN: env HL_NUM_THREADS=2 HALIDE_MLIR_PARALLEL_RUNTIME=async %python %s lowered | FileCheck %s --check-prefix=ASYNC --implicit-check-not=omp.
# RUN: env HL_NUM_THREADS=1 %python %s lowered | FileCheck %s --check-prefix=SERIAL --implicit-check-not=mlirAsyncRuntime --implicit-check-not=omp.

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 64), dtype=np.uint8), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] + hl.u8(3)
out.vectorize(x, 64).parallel(y)
emit(out, [64, 16])

# SCRIPT:      %[[OP:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "out"}
# SCRIPT-NEXT: %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_forall %[[OP]] tile_sizes [1, 0]
# SCRIPT-NEXT: %[[V:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T]] tile_sizes [0, 64]
# SCRIPT:      transform.structured.vectorize %[[V]] vector_sizes [1, 64]

# CHECK-LABEL: func.func @pipeline
# CHECK:         %[[R:[A-Za-z0-9_]+]] = scf.forall (%[[Y:[A-Za-z0-9_]+]]) in (16) shared_outs(%[[ACC:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}}) -> (tensor<16x64xi8>)
# CHECK-NOT:       scf.for
# CHECK:           %[[V:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}} : tensor<1x64xi8>, vector<1x64xi8>
# CHECK:           %[[S:[A-Za-z0-9_]+]] = arith.addi %[[V]], %{{[A-Za-z0-9_]+}} : vector<1x64xi8>
# CHECK:           %[[W:[A-Za-z0-9_]+]] = vector.transfer_write %[[S]]
# CHECK:           scf.forall.in_parallel
# CHECK-NEXT:        tensor.parallel_insert_slice %[[W]] into %[[ACC]][%[[Y]], 0] [1, 64] [1, 1]
# CHECK:         bufferization.materialize_in_destination %[[R]]

# LOWERED-LABEL: llvm.func @pipeline(
# LOWERED:         %[[N:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
# LOWERED:         omp.parallel num_threads(%[[N]] : i32) {
# LOWERED:           omp.wsloop {
# LOWERED-NEXT:        omp.loop_nest (%{{[A-Za-z0-9_]+}}) : i64 = (%{{[0-9]+}}) to (%{{[0-9]+}}) step (%{{[0-9]+}}) {
# LOWERED:               llvm.add %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} : vector<64xi8>
# LOWERED:               omp.yield
# LOWERED:           omp.terminator
# LOWERED:         llvm.return

# ASYNC-LABEL: llvm.func @pipeline(
# ASYNC:         llvm.call @mlirAsyncRuntimeCreateGroup
# ASYNC:         llvm.call @async_dispatch_fn
# ASYNC:         llvm.call @mlirAsyncRuntimeAwaitAllInGroup
# ASYNC:         llvm.return
# ASYNC-LABEL: llvm.func @parallel_compute_fn(
# ASYNC:         llvm.add %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} : vector<64xi8>
# ASYNC-LABEL: llvm.func @async_execute_fn(
# ASYNC:         llvm.call @mlirAsyncRuntimeExecute

# SERIAL-LABEL: llvm.func @pipeline(
# SERIAL:         llvm.add %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} : vector<64xi8>
# SERIAL:         llvm.return
