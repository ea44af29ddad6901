# prefetch(inp, yo, yo, 1): the script tags f's yo loop (its 'at' and 'from'); after bufferization the loop
# starts with the box iteration yo + 1 reads of the input (both taps' rows, advanced by one step of 4 rows), guarded
# by GuardWithIf's scf.if (the whole box inside the 30x40 input), one memref.prefetch per 64-byte line of each row;
# then the strip's own work. The LLVM IR calls llvm.prefetch (read, locality 3, data).
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s bufferized | FileCheck %s
# RUN: %python %s llvm | FileCheck %s --check-prefix=LLVM
# The script, run by the real mlir-opt, gives the in-process interpreter's IR:
# RUN: %python %s payload > %t.payload.mlir
# RUN: %python %s transform > %t.transform.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir
#
# SCRIPT: %[[T:.*]], %[[YO:.*]] = transform.structured.tile_using_for %{{.*}} tile_sizes [4, 0]
# SCRIPT: transform.annotate %[[YO]] "hl.prefetch_from_1"
# SCRIPT: %[[P:.*]] = transform.param.constant "1:0:1:GuardWithIf"
# SCRIPT: transform.annotate %[[YO]] "hl.prefetch" = %[[P]]
#
# CHECK: func.func @pipeline(%arg0: memref<30x40xf32>
# CHECK: scf.for %[[IV:.*]] = %c0 to %c27 step %c4 {
# CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[IV]], %c4 : index
# CHECK: scf.if
# CHECK-NEXT: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %c1 {
# CHECK-NEXT: scf.for %[[COL:.*]] = %c0 to %c39 step %c16 {
# CHECK-NEXT: memref.prefetch %arg0[%[[ROW]], %[[COL]]], read, locality<3>, data : memref<30x40xf32>
# CHECK: memref.subview
# CHECK: scf.for
# CHECK: } {hl.prefetch = "1:0:1:GuardWithIf", hl.prefetch_from_1}
#
# LLVM: call void @llvm.prefetch.p0(ptr %{{.*}}, i32 0, i32 3, i32 1)

import numpy as np
from hl_stage import emit

import halide_mlir as hl

x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
inp = hl.Buffer(np.zeros((30, 40), np.float32), "inp")
f = hl.Func("f")
f[x, y] = inp[x, y] + inp[x + 2, y + 1]
f.split(y, yo, yi, 4).vectorize(x, 8).prefetch(inp, yo, yo)
emit(f, [37, 27])
