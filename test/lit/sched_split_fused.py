# f.fuse(x, y, t).vectorize(t, 16).parallel(t): vectorize splits the fused loop t by 16, which divides its inner
# part (the 48 columns), so the split is a tile of the parts: t keeps y (step 1) and x (step 16), the vector is
# 16 columns. The script tiles with tile_using_forall [1, 16] (parallel over both parts) and vectorizes with
# vector sizes [1, 16]; the lowered code computes on vector<16xf32>.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s lowered | FileCheck %s --check-prefix=LLVM

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
import halide_mlir as hl  # noqa: E402
from hl_stage import emit  # noqa: E402

x, y, t = hl.Var("x"), hl.Var("y"), hl.Var("t")
inp = hl.Buffer(np.zeros((8, 48), dtype=np.float32), name="input")
f = hl.Func("f")
f[x, y] = inp[x, y] * 2.0 + 1.0
f.fuse(x, y, t).vectorize(t, 16).parallel(t)
emit(f, [48, 8])

# SCRIPT:     %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_forall %{{[A-Za-z0-9_]+}} tile_sizes [1, 16]
# SCRIPT-NOT: transform.structured.tile_using
# SCRIPT:     transform.structured.vectorize %[[T]] vector_sizes [1, 16]

# LLVM-LABEL: llvm.func @pipeline(
# LLVM:         llvm.load {{.*}} -> vector<16xf32>
# LLVM:         llvm.fmul {{.*}} : vector<16xf32>
# LLVM:         llvm.store {{.*}} : vector<16xf32>, !llvm.ptr
