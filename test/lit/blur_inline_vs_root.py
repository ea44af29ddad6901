# Inlining vs compute_root on the same two-stage 3x3 blur.
#   default:            bx is inlined: ONE linalg.generic (hl.func = "out") reading 9
#                       shifted slices of the input directly.
#   bx.compute_root():  TWO generics: bx over the (H+2) x W region it is needed on, then
#                       out reading three row-shifted slices of bx's result.
#
# RUN: %python %s payload inline | mlir-opt | FileCheck %s --check-prefix=INLINE
# RUN: %python %s payload root | mlir-opt | FileCheck %s --check-prefix=ROOT

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

W, H = 32, 16
x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((H + 2, W + 2), dtype=np.float32), name="input")
bx, out = hl.Func("bx"), hl.Func("out")
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 9
if sys.argv[2] == "root":
    bx.compute_root()
emit(out, [W, H])

# INLINE-LABEL: func.func @pipeline
# INLINE-SAME:    (%[[IN:[A-Za-z0-9_]+]]: memref<18x34xf32>, %[[OUT:[A-Za-z0-9_]+]]: memref<16x32xf32>)
# INLINE-NOT:     linalg.generic
# INLINE:         %[[T:[A-Za-z0-9_]+]] = bufferization.to_tensor %[[IN]]
# INLINE-NEXT:    %[[S00:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 0] [16, 32] [1, 1] : tensor<18x34xf32> to tensor<16x32xf32>
# INLINE-NEXT:    %[[S01:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 1] [16, 32] [1, 1]
# INLINE-NEXT:    %[[S02:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 2] [16, 32] [1, 1]
# INLINE-NEXT:    %[[S10:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][1, 0] [16, 32] [1, 1]
# INLINE-NEXT:    %[[S11:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][1, 1] [16, 32] [1, 1]
# INLINE-NEXT:    %[[S12:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][1, 2] [16, 32] [1, 1]
# INLINE-NEXT:    %[[S20:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][2, 0] [16, 32] [1, 1]
# INLINE-NEXT:    %[[S21:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][2, 1] [16, 32] [1, 1]
# INLINE-NEXT:    %[[S22:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][2, 2] [16, 32] [1, 1]
# INLINE-NEXT:    %[[INIT:[A-Za-z0-9_]+]] = tensor.empty() : tensor<16x32xf32>
# INLINE-NEXT:    %[[R:[A-Za-z0-9_]+]] = linalg.generic
# INLINE-SAME:      ins(%[[S00]], %[[S01]], %[[S02]], %[[S10]], %[[S11]], %[[S12]], %[[S20]], %[[S21]], %[[S22]] :
# INLINE-SAME:      outs(%[[INIT]] : tensor<16x32xf32>)
# INLINE-SAME:      hl.func = "out"
# / 9 is a multiplication by the f32 reciprocal, as in Halide
# INLINE:           %[[R9:[A-Za-z0-9_]+]] = arith.constant 0.111111112 : f32
# INLINE:           arith.mulf %{{[A-Za-z0-9_]+}}, %[[R9]] fastmath<contract> : f32
# INLINE:         } -> tensor<16x32xf32>
# INLINE-NEXT:    bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
# INLINE-NOT:     linalg.generic
# INLINE-NOT:     hl.func = "bx"

# ROOT-LABEL: func.func @pipeline
# ROOT-SAME:    (%[[IN:[A-Za-z0-9_]+]]: memref<18x34xf32>, %[[OUT:[A-Za-z0-9_]+]]: memref<16x32xf32>)
# ROOT:         %[[T:[A-Za-z0-9_]+]] = bufferization.to_tensor %[[IN]]
# bx, over rows [0, H+2) and columns [0, W): (H+2) x W = 18x32
# ROOT-NEXT:    %[[B0:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 0] [18, 32] [1, 1] : tensor<18x34xf32> to tensor<18x32xf32>
# ROOT-NEXT:    %[[B1:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 1] [18, 32] [1, 1]
# ROOT-NEXT:    %[[B2:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 2] [18, 32] [1, 1]
# ROOT-NEXT:    %[[BINIT:[A-Za-z0-9_]+]] = tensor.empty() : tensor<18x32xf32>
# ROOT-NEXT:    %[[BX:[A-Za-z0-9_]+]] = linalg.generic
# ROOT-SAME:      ins(%[[B0]], %[[B1]], %[[B2]] : tensor<18x32xf32>, tensor<18x32xf32>, tensor<18x32xf32>)
# ROOT-SAME:      outs(%[[BINIT]] : tensor<18x32xf32>)
# ROOT-SAME:      hl.func = "bx"
# ROOT-NOT:       arith.mulf
# ROOT:         } -> tensor<18x32xf32>
# out, reading three row-shifted slices of bx's result (not of the input)
# ROOT-NEXT:    %[[O0:[A-Za-z0-9_]+]] = tensor.extract_slice %[[BX]][0, 0] [16, 32] [1, 1] : tensor<18x32xf32> to tensor<16x32xf32>
# ROOT-NEXT:    %[[O1:[A-Za-z0-9_]+]] = tensor.extract_slice %[[BX]][1, 0] [16, 32] [1, 1] : tensor<18x32xf32> to tensor<16x32xf32>
# ROOT-NEXT:    %[[O2:[A-Za-z0-9_]+]] = tensor.extract_slice %[[BX]][2, 0] [16, 32] [1, 1] : tensor<18x32xf32> to tensor<16x32xf32>
# ROOT-NEXT:    %[[OINIT:[A-Za-z0-9_]+]] = tensor.empty() : tensor<16x32xf32>
# ROOT-NEXT:    %[[R:[A-Za-z0-9_]+]] = linalg.generic
# ROOT-SAME:      ins(%[[O0]], %[[O1]], %[[O2]] : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>)
# ROOT-SAME:      outs(%[[OINIT]] : tensor<16x32xf32>)
# ROOT-SAME:      hl.func = "out"
# ROOT:           %[[R9:[A-Za-z0-9_]+]] = arith.constant 0.111111112 : f32
# ROOT:           arith.mulf %{{[A-Za-z0-9_]+}}, %[[R9]] fastmath<contract> : f32
# ROOT:         } -> tensor<16x32xf32>
# ROOT-NEXT:    bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
# ROOT-NOT:     linalg.generic
