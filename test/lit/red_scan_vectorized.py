# A scan down the columns (apps/iir_blur's blur: blur[x, r] = 0.9 * blur[x, r - 1] + 0.1 * in[x, r]) vectorized
# across x: the scan's dependence runs along r only, so each iteration of the serial r loop computes 16 columns
# at once. Their points are consecutive in memory, so the previous row and the input row are each one
# vector.transfer_read and the new row one vector.transfer_write of the tensor the loops carry (no gathers);
# the last vector (40 = 2 * 16 + 8 columns) is masked by the split's guard, not run as scalar code. Lowered, the
# loop body is masked vector loads and a masked vector store.
#
# RUN: %python %s payload | FileCheck %s
# RUN: %python %s payload | mlir-opt | FileCheck %s --check-prefix=VERIFY
# RUN: %python %s lowered | FileCheck %s --check-prefix=LOWERED

import numpy as np

import halide_mlir as hl
from hl_stage import emit

inp = hl.Buffer(np.zeros((64, 40), dtype=np.float32), name="input")   # 40 columns x 64 rows
x, y = hl.Var("x"), hl.Var("y")
blur = hl.Func("blur")
blur[x, y] = inp[x, y]
r = hl.RDom([(1, 63)])
blur[x, r] = hl.f32(0.9) * blur[x, r - 1] + hl.f32(0.1) * inp[x, r]
blur.update().reorder(x, r).vectorize(x, 16)
emit(blur, [40, 64])

# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.for %{{.*}} iter_args
# CHECK:           scf.for %{{.*}} iter_args
# CHECK:             arith.cmpi slt, %{{.*}} : vector<16xi32>
# CHECK:             vector.transfer_read %{{.*}}, %{{.*}}, %{{.*}} {in_bounds = [true]} : tensor<64x40xf32>, vector<16xf32>
# CHECK:             arith.mulf %{{.*}} : vector<16xf32>
# CHECK:             vector.transfer_read %{{.*}}, %{{.*}}, %{{.*}} {in_bounds = [true]} : tensor<64x40xf32>, vector<16xf32>
# CHECK:             arith.addf %{{.*}} : vector<16xf32>
# CHECK:             vector.transfer_write %{{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<64x40xf32>
# CHECK-NOT:     vector.gather
# CHECK-NOT:     vector.scatter

# VERIFY: func.func @pipeline

# LOWERED: llvm.intr.masked.load {{.*}} -> vector<16xf32>
# LOWERED: llvm.intr.masked.load {{.*}} -> vector<16xf32>
# LOWERED: llvm.intr.masked.store {{.*}} : vector<16xf32>, vector<16xi1> into !llvm.ptr
# LOWERED-NOT: llvm.intr.masked.gather
# LOWERED-NOT: llvm.intr.masked.scatter
