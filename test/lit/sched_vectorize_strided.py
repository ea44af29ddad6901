# vectorize(xo, 8) where xo steps 2 elements apart (the outer of split(x, xo, xi, 2), reordered innermost):
# Halide's lanes are 2 apart with the xi loop around them. The finer loop xi becomes lanes too, so the
# vector is one block of 16 contiguous x: tiled by 16 and vectorized with vector sizes [1, 16], computing on
# vector<1x16xf32> with no scalar loop over x; the lowered code on vector<16xf32>.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s
# RUN: %python %s lowered | FileCheck %s --check-prefix=LLVM

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y, xo, xi = hl.Var("x"), hl.Var("y"), hl.Var("xo"), hl.Var("xi")
inp = hl.Buffer(np.zeros((8, 48), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] * 2.0 + 1.0
out.split(x, xo, xi, 2).reorder(xo, y, xi).vectorize(xo, 8)
emit(out, [inp.width(), inp.height()])

# SCRIPT:     transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [1, 0]
# SCRIPT:     %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [0, 16]
# SCRIPT-NOT: transform.structured.tile_using
# SCRIPT:     transform.structured.vectorize %[[T]] vector_sizes [1, 16]

# CHECK-LABEL: func.func @pipeline
# CHECK-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# CHECK-DAG:     %[[C48:[A-Za-z0-9_]+]] = arith.constant 48 : index
# CHECK:         scf.for
# CHECK:           scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %[[C48]] step %[[C16]]
# CHECK-NOT:         scf.for
# CHECK:             vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
# CHECK:             arith.mulf {{.*}} : vector<1x16xf32>
# CHECK:             vector.transfer_write {{.*}} : vector<1x16xf32>, tensor<1x16xf32>
# CHECK-NOT:     linalg.generic

# LLVM-LABEL: llvm.func @pipeline(
# LLVM:         llvm.load {{.*}} -> vector<16xf32>
# LLVM:         llvm.store {{.*}} : vector<16xf32>, !llvm.ptr
