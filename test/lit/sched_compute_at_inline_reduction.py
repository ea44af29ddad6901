# b.compute_at(f, y) where f[x, y] = hl.sum(b[x + r.x, y]): b is read by the anonymous reduction Func 'sum'
# (a Func with an update), not by f itself. Halide computes 'sum' inside f's innermost loop, point by point; ours
# unrolls it into f, as it reads b, which is computed at f's loop (analysis/unrolled_reductions.py): f reads b's
# three taps itself, ((0 + b[x]) + b[x + 1]) + b[x + 2], the same operations in the same order. f's payload
# spells out the y loop and the script fuses b into it: in the scheduled IR each y iteration computes one 1x50
# row of b (48 + the 2-column halo), then f's row in 1x16 vectors, three shifted slices of b's row.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the schedule as written (b stays scalar)

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 64), dtype=np.float32), name="input")
b = hl.Func("b")
b[x, y] = inp[x, y] * 2.0
r = hl.RDom([(0, 3)], "r")
f = hl.Func("f")
f[x, y] = hl.sum(b[x + r.x, y])
f.vectorize(x, 16)
b.compute_at(f, y)
emit(f, [48, 16])

# SCRIPT:      %[[Y:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.loop = "f.s0.y"}
# SCRIPT:      %[[B:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "b"}
# SCRIPT:      transform.structured.fuse_into_containing_op %[[B]] into %[[Y]]
# SCRIPT-NOT:  "sum"
# SCRIPT:      transform.structured.vectorize %{{[A-Za-z0-9_]+}} vector_sizes [1, 16]

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     linalg.generic
# CHECK:         scf.for {{.*}} -> (tensor<16x48xf32>)
# CHECK:           linalg.generic {{.*}}hl.func = "b"
# CHECK:           -> tensor<1x50xf32>
# CHECK-NOT:       "sum"
# CHECK:           scf.for {{.*}} step %c16
# CHECK-COUNT-3:     vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
# CHECK:             arith.addf
# CHECK:             arith.addf
# CHECK:             arith.addf
# CHECK:         } {hl.loop = "f.s0.y"}
