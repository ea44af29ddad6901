# Matrix multiplication as an update with an RDom: C[x, y] += A[r, y] * B[x, r], scheduled as
# C.update().reorder(x, r).vectorize(x, 16).parallel(y). The transform script tiles y onto an scf.forall
# (parallel), r onto a sequential loop outside x (the reduction dim in its own scf.for: reorder puts r outside x),
# then x by 16; the unit dims of the 1x16x1 tile are folded away and the rest vectorized 16 wide. The scheduled
# IR accumulates 16 columns of C as one vector<16xf32> (mul + add, contractable into an FMA).
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s --check-prefix=VEC
# RUN: %python %s lowered | FileCheck %s --check-prefix=LLVM

import numpy as np

import halide_mlir as hl
from hl_stage import emit

A = hl.Buffer(np.zeros((64, 32), np.float32), "A")    # 64 rows (y) x 32 (k)
B = hl.Buffer(np.zeros((32, 128), np.float32), "B")   # 32 (k) x 128 (x)
x, y = hl.Var("x"), hl.Var("y")
r = hl.RDom([(0, 32)])
c = hl.Func("C")
c[x, y] = 0.0
c[x, y] += A[r, y] * B[x, r]
c.update().reorder(x, r).vectorize(x, 16).parallel(y)
emit(c, [128, 64])

# SCRIPT:      %[[U:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.update_of = "C", hl.update = 0 : i64}
# SCRIPT-NEXT: %[[Y:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_forall %[[U]] tile_sizes [1, 0, 0]
# SCRIPT-NEXT: %[[R:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[Y]] tile_sizes [0, 0, 1]
# SCRIPT-NEXT: %[[X:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[R]] tile_sizes [0, 16, 0]
# SCRIPT:      %[[F:[A-Za-z0-9_]+]] = transform.foreach %{{[A-Za-z0-9_]+}} : !transform.any_op -> !transform.any_op {
# SCRIPT:      transform.apply_patterns.linalg.fold_unit_extent_dims_via_reshapes
# SCRIPT:      transform.structured.match ops{["linalg.generic"]} in
# SCRIPT:      transform.structured.vectorize %[[F]] vector_sizes [16]

# VEC-LABEL: func.func @pipeline
# VEC:         scf.forall (%{{[A-Za-z0-9_]+}}) in (64)
# VEC:           scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %c32 step %c1
# VEC:             scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %c128 step %c16
# VEC-NOT:           scf.for
# VEC:               vector.transfer_read {{.*}} : tensor<16xf32>, vector<16xf32>
# VEC:               %[[PROD:[A-Za-z0-9_]+]] = arith.mulf {{.*}} fastmath<contract> : vector<16xf32>
# VEC:               %[[SUM:[A-Za-z0-9_]+]] = arith.addf %{{[A-Za-z0-9_]+}}, %[[PROD]] fastmath<contract> : vector<16xf32>
# VEC:               vector.transfer_write %[[SUM]], {{.*}} : vector<16xf32>, tensor<16xf32>
# VEC-NOT:     linalg.generic {{.*}}"reduction"

# LLVM-LABEL: llvm.func @pipeline(
# LLVM:         llvm.fadd %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}{{.*}}: vector<16xf32>
