# A stride-2 read (downsampling: inp[2 * x + c]) is a strided tensor.extract_slice in the payload; vectorized,
# each vector of 16 lanes is one dense (masked) load of 32 elements plus a shuffle of the even lanes
# (codegen/strided_reads.py), not a gather and not one scalar load per lane: in LLVM IR a masked load of
# <32 x float> and a shufflevector down to <16 x float>.
#
# RUN: %python %s payload | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s bufferized | FileCheck %s --check-prefix=BUF
# RUN: %python %s llvm | FileCheck %s --check-prefix=LLVM

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((8, 200), dtype=np.float32), name="input")
f = hl.Func("f")
f[x, y] = inp[2 * x, y] + inp[2 * x + 1, y]
f.vectorize(x, 16)
emit(f, [96, 8])

# PAYLOAD:     tensor.extract_slice %input0[0, 0] [8, 96] [1, 2]
# PAYLOAD:     tensor.extract_slice %input0[0, 1] [8, 96] [1, 2]
# PAYLOAD-NOT: tensor.extract {{.*}} : tensor<8x200xf32>

# BUF-LABEL: func.func @pipeline
# BUF-NOT:     vector.gather
# BUF:         vector.transfer_read {{.*}} : memref<1x{{[0-9?]+}}xf32, strided<[200, 1], offset: ?>>, vector<1x32xf32>
# BUF:         vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
# BUF-NOT:     vector.transfer_read {{.*}}strided<[200, 2]

# LLVM-LABEL: define void @pipeline(
# LLVM-NOT:     llvm.masked.gather
# LLVM:         call <32 x float> @llvm.masked.load.v32f32.p0(
# LLVM:         shufflevector <32 x float> %{{[0-9]+}}, <32 x float> {{.*}}, <16 x i32> <i32 0, i32 2, i32 4
