# vectorize(x, n) with n = one AVX-512 register: f32 by 16 and u8 by 64. The script tiles x by n and
# vectorizes the tile with explicit vector sizes; the scheduled IR computes on vector<1x16xf32> /
# vector<1x64xi8> with no scalar loop over x left, and the lowered LLVM dialect on vector<16xf32> /
# vector<64xi8>.
#
# RUN: %python %s transform f32 | FileCheck %s --check-prefix=SCRIPT-F32
# RUN: %python %s transform u8 | FileCheck %s --check-prefix=SCRIPT-U8
# RUN: %python %s scheduled f32 | FileCheck %s --check-prefix=F32
# RUN: %python %s scheduled u8 | FileCheck %s --check-prefix=U8
# RUN: %python %s lowered f32 | FileCheck %s --check-prefix=LLVM-F32
# RUN: %python %s lowered u8 | FileCheck %s --check-prefix=LLVM-U8

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
out = hl.Func("out")
if sys.argv[2] == "f32":
    inp = hl.Buffer(np.zeros((8, 64), dtype=np.float32), name="input")
    out[x, y] = inp[x, y] * 2.0 + 1.0
    out.vectorize(x, 16)
else:
    inp = hl.Buffer(np.zeros((8, 128), dtype=np.uint8), name="input")
    out[x, y] = inp[x, y] + hl.u8(3)
    out.vectorize(x, 64)
emit(out, [inp.width(), inp.height()])

# SCRIPT-F32:     %[[OP:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "out"}
# SCRIPT-F32:     %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [0, 16]
# SCRIPT-F32-NOT: transform.structured.tile_using
# SCRIPT-F32:     transform.structured.vectorize %[[T]] vector_sizes [1, 16]

# SCRIPT-U8:      %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [0, 64]
# SCRIPT-U8-NOT:  transform.structured.tile_using
# SCRIPT-U8:      transform.structured.vectorize %[[T]] vector_sizes [1, 64]

# F32-LABEL: func.func @pipeline
# F32-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# F32-DAG:     %[[C64:[A-Za-z0-9_]+]] = arith.constant 64 : index
# F32:         scf.for %[[Y:[A-Za-z0-9_]+]] =
# F32:           scf.for %[[X:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C64]] step %[[C16]]
# F32-NOT:         scf.for
# F32-NOT:         linalg.generic
# F32:             %[[V:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
# F32:             %[[M:[A-Za-z0-9_]+]] = arith.mulf %[[V]], %{{[A-Za-z0-9_]+}}{{.*}}: vector<1x16xf32>
# F32:             %[[A:[A-Za-z0-9_]+]] = arith.addf %[[M]], %{{[A-Za-z0-9_]+}}{{.*}}: vector<1x16xf32>
# F32:             vector.transfer_write %[[A]], {{.*}} : vector<1x16xf32>, tensor<1x16xf32>
# F32-NOT:     linalg.generic

# U8-LABEL: func.func @pipeline
# U8-DAG:      %[[C64:[A-Za-z0-9_]+]] = arith.constant 64 : index
# U8-DAG:      %[[C128:[A-Za-z0-9_]+]] = arith.constant 128 : index
# U8:         scf.for %[[Y:[A-Za-z0-9_]+]] =
# U8:           scf.for %[[X:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C128]] step %[[C64]]
# U8-NOT:       scf.for
# U8:           %[[V:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}} : tensor<1x64xi8>, vector<1x64xi8>
# U8:           %[[A:[A-Za-z0-9_]+]] = arith.addi %[[V]], %{{[A-Za-z0-9_]+}} : vector<1x64xi8>
# U8:           vector.transfer_write %[[A]], {{.*}} : vector<1x64xi8>, tensor<1x64xi8>
# U8-NOT:     linalg.generic

# LLVM-F32-LABEL: llvm.func @pipeline(
# LLVM-F32:         llvm.load {{.*}} -> vector<16xf32>
# LLVM-F32:         llvm.fmul %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}{{.*}}: vector<16xf32>
# LLVM-F32:         llvm.fadd %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}{{.*}}: vector<16xf32>
# LLVM-F32:         llvm.store {{.*}} : vector<16xf32>, !llvm.ptr

# LLVM-U8-LABEL: llvm.func @pipeline(
# LLVM-U8:         llvm.load {{.*}} -> vector<64xi8>
# LLVM-U8:         llvm.add %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} : vector<64xi8>
# LLVM-U8:         llvm.store {{.*}} : vector<64xi8>, !llvm.ptr
