# A data-dependent read (a 2-D LUT indexed by the input) is a vector.gather. The vectorizer linearizes its
# coordinates in 64-bit `index` arithmetic; the LUT has fewer than 2^31 elements, so the index vector is cast to
# i32 before the gather (codegen/gather_indices.py) and x86 gathers with 32-bit indices (vgatherdps), not
# vgatherqps after 64-bit multiplies (vpmullq).
#
# RUN: %python %s bufferized | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((8, 64), dtype=np.uint8), name="input")
lut = hl.Func("lut")
lut[x, y] = hl.f32(x * 3 + y)
lut.compute_root()
f = hl.Func("f")
f[x, y] = lut[hl.i32(inp[x, y]) % 16, hl.i32(inp[x, y]) / 16]
f.vectorize(x, 16)
emit(f, [64, 8])

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     vector.gather {{.*}} vector<1x16xindex>
# CHECK:         vector.gather {{.*}} : memref<16x16xf32>, vector<1x16xi32>, vector<1x16xi1>, vector<1x16xf32> into vector<1x16xf32>
# CHECK-NOT:     vector.gather {{.*}} vector<1x16xindex>
