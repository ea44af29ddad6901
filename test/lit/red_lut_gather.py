# A lookup table read with data-dependent coordinates (out[x, y] = lut[in[x, y]]) is a tensor.extract inside the
# linalg.generic body (the table is NOT an indexed operand). With out.vectorize(x, 16) the vectorizer turns that
# extract into a vector.gather of 16 lanes (index vector from the 16 u8 pixels), which lowers to LLVM's
# masked gather on vector<16xf32>.
#
# RUN: %python %s payload | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s scheduled | FileCheck %s --check-prefix=VEC
# RUN: %python %s lowered | FileCheck %s --check-prefix=LLVM

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

inp = hl.Buffer(np.zeros((8, 64), dtype=np.uint8), name="input")
lut = hl.Buffer(np.zeros((256,), dtype=np.float32), name="lut")
x, y = hl.Var("x"), hl.Var("y")
out = hl.Func("out")
out[x, y] = lut[inp[x, y]]
if sys.argv[1] != "payload":
    out.vectorize(x, 16)
emit(out, [64, 8])

# PAYLOAD-LABEL: func.func @pipeline
# PAYLOAD-SAME:    (%[[LUTM:[A-Za-z0-9_]+]]: memref<256xf32>, %[[INM:[A-Za-z0-9_]+]]: memref<8x64xi8>, %{{[A-Za-z0-9_]+}}: memref<8x64xf32>)
# PAYLOAD:         %[[LUT:[A-Za-z0-9_]+]] = bufferization.to_tensor %[[LUTM]] restrict : memref<256xf32> to tensor<256xf32>
# PAYLOAD:         %[[IN:[A-Za-z0-9_]+]] = bufferization.to_tensor %[[INM]] restrict : memref<8x64xi8> to tensor<8x64xi8>
# only the pixels are an operand; the table is captured and read in the body
# PAYLOAD:         linalg.generic
# PAYLOAD-SAME:      iterator_types = ["parallel", "parallel"]
# PAYLOAD-SAME:      ins(%[[IN]] : tensor<8x64xi8>)
# PAYLOAD-NEXT:    ^bb0(%[[PIX:[A-Za-z0-9_]+]]: i8, %{{[A-Za-z0-9_]+}}: f32):
# PAYLOAD-NEXT:      %[[W:[A-Za-z0-9_]+]] = arith.extui %[[PIX]] : i8 to i32
# PAYLOAD-NEXT:      %[[I:[A-Za-z0-9_]+]] = arith.index_cast %[[W]] : i32 to index
# PAYLOAD-NEXT:      %[[V:[A-Za-z0-9_]+]] = tensor.extract %[[LUT]][%[[I]]] : tensor<256xf32>
# PAYLOAD-NEXT:      linalg.yield %[[V]] : f32

# VEC-LABEL: func.func @pipeline
# VEC:         scf.for
# VEC:           scf.for
# VEC-NOT:         tensor.extract %
# VEC:             %[[P:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}} : tensor<1x16xi8>, vector<1x16xi8>
# VEC:             %[[W:[A-Za-z0-9_]+]] = arith.extui %[[P]] : vector<1x16xi8> to vector<1x16xi32>
# VEC:             %[[I:[A-Za-z0-9_]+]] = arith.index_cast %[[W]] : vector<1x16xi32> to vector<1x16xindex>
# VEC:             %[[G:[A-Za-z0-9_]+]] = vector.gather %{{[A-Za-z0-9_]+}}[%{{[A-Za-z0-9_]+}}] [%[[I]]], %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} : tensor<256xf32>, vector<1x16xindex>, vector<1x16xi1>, vector<1x16xf32> into vector<1x16xf32>
# VEC:             vector.transfer_write %[[G]], {{.*}} : vector<1x16xf32>, tensor<1x16xf32>
# VEC-NOT:     tensor.extract %
# VEC-NOT:     linalg.generic

# 32-bit gather indices (codegen/gather_indices.py): the LUT has 256 elements
# LLVM-LABEL: llvm.func @pipeline(
# LLVM:         llvm.zext %{{[A-Za-z0-9_]+}} : vector<16xi8> to vector<16xi32>
# LLVM:         %[[PTRS:[A-Za-z0-9_]+]] = llvm.getelementptr %{{[A-Za-z0-9_]+}}[%{{[A-Za-z0-9_]+}}] : (!llvm.ptr, vector<16xi32>) -> vector<16x!llvm.ptr>, f32
# LLVM:         llvm.intr.masked.gather %[[PTRS]], {{.*}} -> vector<16xf32>
