# A read whose outer coordinate comes from a LUT at an outer Var (max_filter's vert_log[x, y - t, c,
# slice_for_radius[t]]) is a vector.gather after vectorization: the vectorizer does not prove the LUT value
# uniform across x. Its lanes read consecutive elements, so after bufferization it becomes a (masked) vector load
# at lane 0's index (codegen/contiguous_gathers.py); the scan's explicit loops' gathers (codegen/updates.py) too.
#
# RUN: %python %s bufferized | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y, t = hl.Var("x"), hl.Var("y"), hl.Var("t")
inp = hl.Buffer(np.zeros((4, 40, 64), dtype=np.float32), name="input")
lut = hl.Func("lut")
lut[t] = t * t % 4
lut.compute_root()
f = hl.Func("f")
sl = hl.clamp(lut[t], 0, 3)
f[x, y, t] = hl.max(inp[x, y + 10 - t, sl], inp[x, y + 12 - t, sl])
f.vectorize(x, 8)
emit(f, [61, 20, 6])

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     vector.gather
# CHECK:         vector.{{load|maskedload}} {{.*}} : memref<4x40x64xf32>, {{.*}}vector<8xf32>
# CHECK-NOT:     vector.gather
