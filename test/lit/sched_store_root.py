# Lesson 8's sliding window: bx.store_root().compute_at(by, y). The payload computes bx itself (warm-up
# before by's y loop, one new row per iteration: sched_store_root_sliding.py pins the payload), so the
# script fuses nothing, and after it ran bx is still computed inside by's y loop on 64-column rows, never
# as a separate whole-image pass.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the scalar loops of the schedule, as Halide runs them

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((18, 66), dtype=np.float32), name="input")
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
bx.store_root().compute_at(by, y)
emit(by, [64, 16])

# SCRIPT-LABEL: transform.named_sequence @__transform_main
# SCRIPT-NOT:   fuse_into_containing_op
# CHECK-LABEL: func.func @pipeline
# CHECK-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# CHECK:         linalg.generic {{.*}}hl.func = "bx"
# CHECK:         -> tensor<2x64xf32>
# CHECK:         scf.for %[[Y:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C16]] step
# CHECK:           linalg.generic {{.*}}hl.func = "bx"
# CHECK:           -> tensor<1x64xf32>
# CHECK:           linalg.generic {{.*}}hl.func = "by"
# CHECK:         bufferization.materialize_in_destination
