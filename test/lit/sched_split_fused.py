# f.fuse(x, y, t).vectorize(t, 16).parallel(t): vectorize splits the fused loop t by 16, which divides its inner
# part (the 48 columns), so the split is a tile of the parts: t keeps y (step 1) and x (step 16), the vector is
# 16 columns. The script tiles with tile_using_forall [1, 16] (parallel over both parts) and vectorizes with
# vector sizes [1, 16]; the lowered code computes on vector<16xf32>.
# With tile(x, y, xo, yo, xi, yi, 4, 4).fuse(xi, yi, t).vectorize(t), the fused loop of constant parts is one
# 4x4 vector over the tile.
#
# RUN: %python %s transform split | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s lowered split | FileCheck %s --check-prefix=LLVM
# RUN: %python %s transform tile | FileCheck %s --check-prefix=TILE

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y, t = hl.Var("x"), hl.Var("y"), hl.Var("t")
inp = hl.Buffer(np.zeros((8, 48), dtype=np.float32), name="input")
f = hl.Func("f")
f[x, y] = inp[x, y] * 2.0 + 1.0
if sys.argv[2] == "split":
    f.fuse(x, y, t).vectorize(t, 16).parallel(t)
else:
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    f.tile(x, y, xo, yo, xi, yi, 4, 4).fuse(xi, yi, t).vectorize(t)
emit(f, [48, 8])

# SCRIPT:     %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_forall %{{[A-Za-z0-9_]+}} tile_sizes [1, 16]
# SCRIPT-NOT: transform.structured.tile_using
# SCRIPT:     transform.structured.vectorize %[[T]] vector_sizes [1, 16]

# LLVM-LABEL: llvm.func @pipeline(
# LLVM:         llvm.load {{.*}} -> vector<16xf32>
# LLVM:         llvm.fmul {{.*}} : vector<16xf32>
# LLVM:         llvm.store {{.*}} : vector<16xf32>, !llvm.ptr

# TILE:     transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [4, 0]
# TILE:     %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [0, 4]
# TILE-NOT: transform.structured.tile_using
# TILE:     transform.structured.vectorize %[[T]] vector_sizes [4, 4]
