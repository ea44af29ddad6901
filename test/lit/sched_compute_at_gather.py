# compute_at of a producer its consumer reads through a gather (upsampling: f[x // 2, y // 2]): the read is
# a tensor.extract inside the consumer's linalg.generic, which fuse_into_containing_op can't fuse (it cloned
# the whole producer into the consumer's body, once per read: "Attempted to vectorize, but failed"). The
# producer's tile per iteration of the consumer's y loop is the interval bounds inference gives for y // 2 (a
# scaled span, analysis/tiling.py): one row of 17, computed inside the loop as Halide computes it, vectorized as
# asked; the upsampling reads are 8-lane vector.gathers from that row (after bufferization each becomes one
# dense load and shuffles: codegen/divided_gathers.py).
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
# g's rows; in each, f's row (17 wide, vectorized: the row ends with a masked vector)
# CHECK:         scf.for {{.*}} -> (tensor<16x32xf32>)
# CHECK:           %[[F:[0-9]+]] = scf.for {{.*}} -> (tensor<1x17xf32>)
# CHECK:             vector.transfer_write {{.*}} : vector<1x8xf32>, tensor<1x?xf32>
# then g's row: two 8-lane gathers from f's row per vector
# CHECK:           scf.for
# CHECK:             vector.gather %[[F]][%{{.*}}] [%{{[0-9]+}}], %{{.*}} : tensor<1x17xf32>, vector<1x8xindex>, vector<1x8xi1>, vector<1x8xf32> into vector<1x8xf32>
# CHECK:             vector.gather %[[F]]
# CHECK:             vector.transfer_write {{.*}} : vector<1x8xf32>, tensor<1x8xf32>
# CHECK-NOT:   linalg.generic
