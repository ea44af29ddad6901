# The vectorized matmul update becomes 16-wide multiply-adds that LLVM contracts into vfmadd on zmm, as Halide
# 21's code: the unit dims of the update tile are folded away before vectorizing (no vector<1xf32> pieces), and
# the mul/add carry the `contract` fast-math flag.
#
# RUN: %python %s lowered | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

A = hl.Buffer(np.zeros((64, 32), np.float32), "A")
B = hl.Buffer(np.zeros((32, 128), np.float32), "B")
x, y = hl.Var("x"), hl.Var("y")
r = hl.RDom([(0, 32)])
c = hl.Func("C")
c[x, y] = 0.0
c[x, y] += A[r, y] * B[x, r]
c.update().reorder(x, r).vectorize(x, 16).parallel(y)
emit(c, [128, 64])

# CHECK-LABEL: llvm.func @pipeline(
# CHECK-NOT:     llvm.fmul %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}{{.*}}: vector<1xf32>
# CHECK:         %[[P:[A-Za-z0-9_]+]] = llvm.fmul %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
# CHECK-NEXT:    llvm.fadd %{{[A-Za-z0-9_]+}}, %[[P]] {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
