# bx.compute_root(): the producer is a separate linalg.generic over its whole required region (18 rows =
# 16 + the 2-row halo of the 3-tap vertical consumer, 64 columns), computed before the consumer, each
# with its own schedule (both vectorized 16 wide here: two separate loop nests, the producer's first).
# Inlined (the default), there is a single generic reading the input directly.
#
# RUN: %python %s payload root | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s scheduled root | FileCheck %s --implicit-check-not=linalg.generic
# RUN: %python %s payload inline | FileCheck %s --check-prefix=INLINE

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((18, 66), dtype=np.float32), name="input")
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
if sys.argv[2] == "root":
    bx.compute_root().vectorize(x, 16)
    by.vectorize(x, 16)
emit(by, [64, 16])

# PAYLOAD-LABEL: func.func @pipeline
# PAYLOAD:         %[[BX:[A-Za-z0-9_]+]] = linalg.generic {{.*}} outs(%{{[A-Za-z0-9_]+}} : tensor<18x64xf32>) attrs = {hl.func = "bx"
# PAYLOAD:         tensor.extract_slice %[[BX]][0, 0] [16, 64]
# PAYLOAD:         linalg.generic {{.*}} outs(%{{[A-Za-z0-9_]+}} : tensor<16x64xf32>) attrs = {hl.func = "by"

# CHECK-LABEL: func.func @pipeline
# CHECK-DAG:     %[[C18:[A-Za-z0-9_]+]] = arith.constant 18 : index
# CHECK-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# producer: all 18 rows first
# CHECK:         %[[BX:[A-Za-z0-9_]+]] = scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %[[C18]] step {{.*}} -> (tensor<18x64xf32>)
# CHECK:           scf.for {{.*}} step %[[C16]]
# CHECK:             vector.transfer_read {{.*}} vector<1x16xf32>
# consumer: 16 rows, reading the producer's finished buffer at its three row offsets
# CHECK:         tensor.extract_slice %[[BX]][0, 0] [16, 64] [1, 1] : tensor<18x64xf32> to tensor<16x64xf32>
# CHECK:         tensor.extract_slice %[[BX]][1, 0] [16, 64] [1, 1] : tensor<18x64xf32> to tensor<16x64xf32>
# CHECK:         tensor.extract_slice %[[BX]][2, 0] [16, 64] [1, 1] : tensor<18x64xf32> to tensor<16x64xf32>
# CHECK:         %[[BY:[A-Za-z0-9_]+]] = scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %[[C16]] step {{.*}} -> (tensor<16x64xf32>)
# CHECK:             vector.transfer_read {{.*}} vector<1x16xf32>
# CHECK:         bufferization.materialize_in_destination %[[BY]]

# INLINE-LABEL: func.func @pipeline
# INLINE-NOT:     hl.func = "bx"
# INLINE:         linalg.generic {{.*}} outs(%{{[A-Za-z0-9_]+}} : tensor<16x64xf32>) attrs = {hl.func = "by"
# INLINE-NOT:     linalg.generic
