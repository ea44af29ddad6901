# XFAIL: *
# Halide's sliding window for bx.store_root().compute_at(by, y): after the first iteration, each row of the
# consumer computes only ONE new row of bx (the other two were computed by earlier iterations and are kept in
# the root storage, folded to a circular buffer). Today each y iteration computes the three rows bx[y..y+2]
# (one 3x64 tile): results are right, the work is 3x.
# Remove the XFAIL line when the sliding-window pass lands.
#
# RUN: %python %s scheduled | FileCheck %s

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
import halide_mlir as hl  # noqa: E402
from hl_stage import emit  # noqa: E402

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((18, 66), dtype=np.float32), name="input")
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
bx.store_root().compute_at(by, y)
emit(by, [64, 16])

# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.for %[[Y:[A-Za-z0-9_]+]] =
# CHECK:           linalg.generic {{.*}}hl.func = "bx"
# CHECK-NEXT:      ^bb0
# CHECK:           -> tensor<1x64xf32>
# CHECK-NOT:       hl.func = "bx"
# CHECK:           linalg.generic {{.*}}hl.func = "by"
