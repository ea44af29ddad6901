# b.compute_at(f, y) where f[x, y] = hl.sum(b[x + r.x, y]): b is read by the anonymous reduction Func 'sum'
# (a Func with an update), not by f itself. Halide computes 'sum' inside f's innermost loop; ours computes it
# at f's y loop, after b (analysis/placement.py place_inline_reductions). f's payload spells out the y loop and
# computes the reduction's tile there itself (its initial value and its update, generics over the 1x48 row,
# reading b's row: analysis/tiling.py computes a Func with reduction updates that reads a producer of its loops);
# the script fuses b into the y loop. In the scheduled IR each y iteration computes one 1x50 row
# of b (48 + the 2-column halo), the 48 sums of that row, then f's row in 1x16 pieces ('sum' is a Func over (x, y)
# like f, as in Halide, so f's copy of it is an identity generic that canonicalization folds away).
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the schedule as written (b and the sum stay scalar)

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
# SCRIPT-NOT:  hl.update_of = "sum"
# SCRIPT:      transform.structured.vectorize %{{[A-Za-z0-9_]+}} vector_sizes [1, 16]

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     linalg.generic
# CHECK:         scf.for {{.*}} -> (tensor<16x48xf32>)
# CHECK:           linalg.generic {{.*}}hl.func = "b"
# CHECK:           -> tensor<1x50xf32>
# CHECK:           linalg.generic {{.*}}hl.func = "sum"
# CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}hl.update_of = "sum"
# CHECK:           scf.for {{.*}} step %c16
# CHECK:             tensor.extract_slice {{.*}} [1, 16] [1, 1] : tensor<1x48xf32> to tensor<1x16xf32>
# CHECK:         } {hl.loop = "f.s0.y"}
