# Float max is Halide's select(a > b, a, b) (one maxps; arith.maxnumf would add a NaN test and a blend per op),
# and a read at constant coordinates of a Func computed at the root (an unrolled tap's weight) is extracted once,
# before the generic, not passed in as a 0-d operand (which LLVM reloads per vector in an OpenMP-outlined loop).
#
# RUN: %python %s payload | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((8, 40), dtype=np.float32), "inp")
w, out = hl.Func("w"), hl.Func("out")
w[x] = hl.f32(x) * 0.5
out[x, y] = hl.max(hl.max(inp[x, y] * w[0], inp[x + 1, y] * w[1]), inp[x + 2, y] * w[2])
w.compute_root()
out.parallel(y).vectorize(x, 8)
emit(out, [32, 8])

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     maxnumf
# CHECK:         %[[W0:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
# CHECK:         %[[W1:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
# CHECK:         %[[W2:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
# CHECK:         linalg.generic
# CHECK-NOT:       tensor<f32>
# CHECK-SAME:      hl.func = "out"
# CHECK:           arith.mulf %{{.*}}, %[[W0]]
# CHECK:           %[[C:.*]] = arith.cmpf ogt, %[[A:.*]], %[[B:.*]] : f32
# CHECK-NEXT:      arith.select %[[C]], %[[A]], %[[B]] : f32
# CHECK-NOT:     maxnumf
