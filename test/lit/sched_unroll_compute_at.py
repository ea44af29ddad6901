# Unrolling the loops of a producer computed at a consumer's loop: the schedule of Halide's matrix
# multiplication performance test. prod is computed per 4-row strip of a 32x32 tile of the output (out splits
# yi by 4 and prod is computed at yi), so one computation of prod covers 32 x 4: its y loop has 4 iterations
# there and unroll(y) unrolls it 4 times, as in Halide, and its update's unroll(x) (after vectorize(x, 16):
# 2 vectors) and unroll(y) give 2 x 4 = 8 accumulators. The factors come from that tile (bounds inference
# at the loop, analysis/bounds.py computed_region), not from prod's whole region (64 x 64 here), which would
# leave every loop rolled (transform.loop.unroll does nothing when the factor exceeds the trip count).
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s bufferized | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

N = 64
a = hl.Buffer(np.zeros((N, N), np.float32), "A")   # A(k, y)
b = hl.Buffer(np.zeros((N, N), np.float32), "B")   # B(x, k)
x, y, xi, yi, yii, t = (hl.Var(n) for n in "x y xi yi yii t".split())
r = hl.RDom([hl.Range(0, N)])
prod, out = hl.Func("prod"), hl.Func("matmul")
prod[x, y] = hl.f32(0)
prod[x, y] += a[r.x, y] * b[x, r.x]
out[x, y] = prod[x, y]
out.tile(x, y, xi, yi, 32, 32).fuse(x, y, t).parallel(t)
out.split(yi, yi, yii, 4).vectorize(xi, 16).unroll(xi).unroll(yii)
prod.compute_at(out, yi).vectorize(x, 16).unroll(y)
prod.update().reorder(x, y, r.x).vectorize(x, 16).unroll(x).unroll(y)
emit(out, [N, N])

# Each unrolled loop is tagged with its id and named (hl.unroll_of); @halide_unroll unrolls them by id.
# SCRIPT:      transform.param.constant "sched_unroll_compute_at.py:{{[0-9]+}}: Func 'prod.update(0)': unrolled loop 'x'"
# SCRIPT:      transform.param.constant "sched_unroll_compute_at.py:{{[0-9]+}}: Func 'prod.update(0)': unrolled loop 'y'"
# SCRIPT:      transform.param.constant "sched_unroll_compute_at.py:{{[0-9]+}}: Func 'prod': unrolled loop 'y'"
# SCRIPT:      transform.named_sequence @halide_unroll
# SCRIPT-NEXT:   transform.structured.match ops{["scf.for"]} attributes {hl.unroll = 0 : i64}
# SCRIPT-NEXT:   transform.loop.unroll %{{[A-Za-z0-9_]+}} {factor = 2}
# SCRIPT-NEXT:   transform.structured.match ops{["scf.for"]} attributes {hl.unroll = 1 : i64}
# SCRIPT-NEXT:   transform.loop.unroll %{{[A-Za-z0-9_]+}} {factor = 4}
# SCRIPT-NEXT:   transform.structured.match ops{["scf.for"]} attributes {hl.unroll = 2 : i64}
# SCRIPT-NEXT:   transform.loop.unroll %{{[A-Za-z0-9_]+}} {factor = 4}

# The tiles and strips are the payload's loops (analysis/tiling.py: the fused parallel loop t is a collapsed
# forall). Per strip: prod's 4x32 tile, its 4 rows initialized one after the other (each 2 vectors of 16), then the
# r.x loop with 8 multiply-adds and no loop inside; no unrolled loop is left.
# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.forall
# CHECK:           scf.for %{{[A-Za-z0-9_]+}} = %c0 to %c8 step %c1
# CHECK:             memref.alloc() {{.*}} : memref<4x32xf32>
# CHECK-NOT:         hl.unroll
# CHECK:             memref.subview %[[P:[A-Za-z0-9_]+]][0, 0] [1, 32]
# CHECK:             vector.transfer_write %cst
# CHECK:             memref.subview %[[P]][1, 0] [1, 32]
# CHECK:             vector.transfer_write %cst
# CHECK:             memref.subview %[[P]][2, 0] [1, 32]
# CHECK:             vector.transfer_write %cst
# CHECK:             memref.subview %[[P]][3, 0] [1, 32]
# CHECK:             vector.transfer_write %cst
# CHECK:             scf.for %{{[A-Za-z0-9_]+}} = %c0 to %c64 step %c1 {
# CHECK-NOT:           scf.for
# CHECK-COUNT-8:       arith.addf %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} fastmath<contract> : vector<16xf32>
# CHECK-NOT:           arith.addf
# CHECK:             }
# CHECK-NOT:     hl.unroll
