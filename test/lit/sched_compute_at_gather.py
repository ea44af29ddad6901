# compute_at of a producer its consumer reads through a gather (upsampling: f[x // 2, y // 2]): the read is
# a tensor.extract inside the consumer's linalg.generic, which fuse_into_containing_op can't fuse (it cloned
# the whole producer into the consumer's body, once per read: "Attempted to vectorize, but failed"). The
# producer is computed once before the consumer's loops (analysis/placement.py hoist_from_loops), both are
# vectorized as asked, and the upsampling read is a vector.gather of 8 lanes from the producer's tensor.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((24, 40), dtype=np.float32), name="input")
f, g = hl.Func("f"), hl.Func("g")
f[x, y] = inp[x + 1, y] * 2.0
g[x, y] = f[x // 2, y // 2] + f[x // 2 + 1, y // 2]
f.compute_at(g, y).vectorize(x, 8)
g.vectorize(x, 8)
emit(g, [32, 16])

# SCRIPT-NOT: fuse_into_containing_op
# SCRIPT:     transform.structured.vectorize {{.*}} vector_sizes [1, 8]
# SCRIPT:     transform.structured.vectorize {{.*}} vector_sizes [1, 8]

# CHECK-LABEL: func.func @pipeline
# f first, over its whole region (17 x 8), vectorized (the 17-wide rows end with a masked vector)
# CHECK:         %[[F:[0-9]+]] = scf.for {{.*}} -> (tensor<8x17xf32>)
# CHECK:           vector.transfer_write {{.*}} : vector<1x8xf32>, tensor<1x?xf32>
# then g: two 8-lane gathers from f's tensor per vector
# CHECK:         scf.for
# CHECK:           scf.for
# CHECK:             vector.gather %[[F]][%{{.*}}] [%{{[0-9]+}}], %{{.*}} : tensor<8x17xf32>, vector<1x8xindex>, vector<1x8xi1>, vector<1x8xf32> into vector<1x8xf32>
# CHECK:             vector.gather %[[F]]
# CHECK:             vector.transfer_write {{.*}} : vector<1x8xf32>, tensor<1x8xf32>
# CHECK-NOT:   linalg.generic
