# f[x, y] += in[x + r.x + 8, y + 4] with f.update(0).vectorize(x, 16) (Halide's default order: r.x inside x).
# The payload reads the input through ONE slice starting at the sum's first element ([4, 7]: x + r.x starts at
# -1 + 8) with the map (d0, d1 + d2): no constant offset, which would become a constant index (not vectorizable)
# once tiling folds the unit dims. The r.x loop runs around the vector (each x still sums in r order), and the
# body computes on vector<16xi32>.
#
# RUN: %python %s payload | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((24, 80), dtype=np.int16), name="input")
r = hl.RDom([(-1, 3)], "r")
f = hl.Func("f")
f[x, y] = hl.cast(hl.Int(32), 0)
f[x, y] += hl.cast(hl.Int(32), inp[x + r.x + 8, y + 4]) * 5
f.update(0).vectorize(x, 16)
emit(f, [64, 16])

# PAYLOAD:      %[[S:[A-Za-z0-9_]+]] = tensor.extract_slice %{{[A-Za-z0-9_]+}}[4, 7] [16, 66] [1, 1] : tensor<24x80xi16> to tensor<16x66xi16>
# PAYLOAD:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 + d2)>, {{.*}}ins(%[[S]],

# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.for
# CHECK:           scf.for {{.*}} step %c16
# CHECK:             scf.for {{.*}} to %c3 step %c1
# CHECK-NOT:           scf.for
# CHECK:               vector.transfer_read {{.*}} : tensor<16xi16>, vector<16xi16>
# CHECK:               arith.muli {{.*}} : vector<16xi32>
# CHECK:               arith.addi {{.*}} : vector<16xi32>
# CHECK-NOT:     linalg.generic {{.*}}hl.update_of
