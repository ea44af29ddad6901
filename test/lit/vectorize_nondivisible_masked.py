# A width that vectorize(x, 16) does not divide (1531 = 95*16 + 11) still vectorizes:
# the last x tile is handled with masks (vector.create_mask feeding masked
# transfer_read/transfer_write, lowered to llvm.intr.masked.load/store), never with a
# scalar remainder loop and never with scalar arithmetic.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s --check-prefix=SCHED --implicit-check-not='{{arith.addf .*{{.*}}: f32$}}'
# RUN: %python %s lowered | FileCheck %s --check-prefix=LLVM --implicit-check-not='{{llvm.fadd .*{{.*}}: f32$}}'

import numpy as np

import halide_mlir as hl
from hl_stage import emit

W, H = 1531, 4
x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((H, W + 2), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] + inp[x + 2, y]
out.vectorize(x, 16)
emit(out, [W, H])

# SCRIPT:     transform.structured.tile_using_for {{.*}} tile_sizes [0, 16]
# SCRIPT:     transform.structured.vectorize {{.*}} vector_sizes [1, 16]

# Exactly one loop over x, stepping by 16 up to 1531, whose body is masked vector code.
# SCHED-DAG:   %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# SCHED-DAG:   %[[C1531:[A-Za-z0-9_]+]] = arith.constant 1531 : index
# SCHED:       scf.for %[[X:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C1531]] step %[[C16]]
# SCHED-NOT:   scf.for
# SCHED:         %[[N:[A-Za-z0-9_]+]] = affine.min #{{map[0-9]*}}(%[[X]])
# SCHED:         %[[M:[A-Za-z0-9_]+]] = vector.create_mask %{{[A-Za-z0-9_]+}}, %[[N]] : vector<1x16xi1>
# SCHED-NEXT:    %[[A:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}}, %[[M]] {{.*}} : tensor<1x?xf32>, vector<1x16xf32>
# SCHED-NEXT:    %[[B:[A-Za-z0-9_]+]] = vector.transfer_read {{.*}}, %[[M]] {{.*}} : tensor<1x?xf32>, vector<1x16xf32>
# SCHED-NEXT:    %[[S:[A-Za-z0-9_]+]] = arith.addf %[[A]], %[[B]]{{.*}}: vector<1x16xf32>
# SCHED-NEXT:    vector.transfer_write %[[S]], {{.*}}, %[[M]] {{.*}} : vector<1x16xf32>, tensor<1x?xf32>
# SCHED:         scf.yield
# SCHED-NOT:   scf.for

# LLVM-LABEL: llvm.func @pipeline(
# LLVM:       llvm.intr.masked.load {{.*}} -> vector<16xf32>
# LLVM:       llvm.intr.masked.load {{.*}} -> vector<16xf32>
# LLVM:       llvm.fadd %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}{{.*}}: vector<16xf32>
# LLVM:       llvm.intr.masked.store {{.*}} : vector<16xf32>, vector<16xi1> into !llvm.ptr
# LLVM-LABEL: llvm.func @_mlir_ciface_pipeline(
