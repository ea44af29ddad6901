# A scatter vectorized over a pure Var (lesson 18's hist_rfactor_vec: one histogram per column u). The lanes of
# u are independent, so each iteration of r.y reads 8 consecutive input pixels with one masked
# vector.transfer_read, the old counts of 8 columns (not consecutive: u is the counts' second dim) with one
# vector.gather and writes them with one vector.scatter into the tensor the loop carries; the last vector
# (10 columns = 8 + 2) is masked by the split's guard rather than run as scalar code. The lowered code keeps
# them as masked vector loads, gathers and scatters.
#
# RUN: %python %s payload | FileCheck %s
# RUN: %python %s payload | mlir-opt | FileCheck %s --check-prefix=VERIFY
# RUN: %python %s lowered | FileCheck %s --check-prefix=LOWERED

import numpy as np

import halide_mlir as hl
from hl_stage import emit

inp = hl.Buffer(np.zeros((6, 10), dtype=np.uint8), name="input")   # 10 columns x 6 rows
x, u = hl.Var("x"), hl.Var("u")
r = hl.RDom([(0, 10), (0, 6)])
hist = hl.Func("hist")
hist[x] = 0
hist[hl.cast(hl.Int(32), inp[r.x, r.y]) // 32] += 1
intm = hist.update().rfactor(r.x, u)
intm.compute_root().update().vectorize(u, 8)
emit(hist, [8])

# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.for %{{.*}} iter_args
# CHECK:           scf.for %{{.*}} iter_args
# CHECK:             arith.cmpi slt, %{{.*}} : vector<8xi32>
# CHECK:             vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<6x10xi8>, vector<8xi8>
# CHECK:             vector.gather %{{.*}} : tensor<10x8xi32>, vector<8xindex>, vector<8xi1>, vector<8xi32> into vector<8xi32>
# CHECK:             arith.addi %{{.*}} : vector<8xi32>
# CHECK:             vector.scatter %{{.*}} : tensor<10x8xi32>, vector<8xindex>, vector<8xi1>, vector<8xi32> -> tensor<10x8xi32>

# VERIFY: func.func @pipeline

# LOWERED: llvm.intr.masked.load
# LOWERED: llvm.intr.masked.gather
# LOWERED: llvm.intr.masked.scatter
