# align_storage(x, 16) pads the buffer of f along x to a multiple of 16, as Halide's StorageFlattening does: f's
# 33 columns are stored in rows of 48 (the strides of the outer dims follow; values unchanged). The payload
# allocates the padded tensor and computes f into its leading 33 columns (analysis/store_in.py, payload.py
# aligned_outs), also when f is vectorized and parallel. align_storage(y, 4): 16 rows are a multiple of 4 already.
#
# RUN: %python %s payload root | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s bufferized root | FileCheck %s
# RUN: %python %s bufferized vectorized | FileCheck %s

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

inp = hl.Buffer(np.zeros((20, 40), dtype=np.float32), name="input")
x, y = hl.Var("x"), hl.Var("y")
f, g = hl.Func("f"), hl.Func("g")
f[x, y] = inp[x, y] * 2
g[x, y] = f[x, y] + f[x + 1, y]
f.compute_root().align_storage(x, 16).align_storage(y, 4)
if sys.argv[2] == "vectorized":
    f.vectorize(x, 8).parallel(y)
emit(g, [32, 16], sys.argv[1])

# PAYLOAD:      %[[BUF:[a-z0-9]+]] = bufferization.alloc_tensor() : tensor<16x48xf32>
# PAYLOAD-NEXT: %[[OUT:[a-z0-9]+]] = tensor.extract_slice %[[BUF]][0, 0] [16, 33] [1, 1] : tensor<16x48xf32> to tensor<16x33xf32>
# PAYLOAD:      linalg.generic
# PAYLOAD-SAME: outs(%[[OUT]] : tensor<16x33xf32>) attrs = {hl.func = "f"

# CHECK-LABEL: func.func @pipeline(
# CHECK:       %[[A:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<16x48xf32>
# CHECK-NEXT:  memref.subview %[[A]][0, 0] [16, 33] [1, 1] : memref<16x48xf32> to memref<16x33xf32, strided<[48, 1]>>
# CHECK-NOT:   memref.alloc
