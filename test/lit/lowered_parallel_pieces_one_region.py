# A boundary condition's padded copy read by a parallel consumer is computed at the root in pieces (loop
# partitioning), each piece its own parallel loop; the adjacent omp.parallel regions are merged into one
# (codegen/lowering.py merge_parallel_regions): one fork/join runs the pieces' worksharing loops in order, each
# ending at its barrier.
#
# RUN: env HL_NUM_THREADS=2 %python %s lowered | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((64, 64), dtype=np.float32), name="input")
clamped = hl.BoundaryConditions.repeat_edge(inp)
scan, out = hl.Func("scan"), hl.Func("out")
scan[x, y] = clamped[x, y] + clamped[x + 1, y]  # (read off its own coordinates: the copy is kept)
r = hl.RDom([hl.Range(-2, 67)])
scan[x, r.x] = scan[x, r.x] + scan[x, r.x - 1]
out[x, y] = scan[x, y - 2] + scan[x, y + 2]
scan.compute_root().parallel(y).vectorize(x, 8)
scan.update().unscheduled()
out.parallel(y).vectorize(x, 8)
emit(out, [64, 64])

# the copy's three pieces first (rows above, inside, below the image): three worksharing loops in one region
# CHECK-LABEL: llvm.func @pipeline
# CHECK:         omp.parallel
# CHECK-NEXT:      omp.wsloop
# CHECK-NOT:       omp.terminator
# CHECK:           omp.wsloop
# CHECK-NOT:       omp.terminator
# CHECK:           omp.wsloop
# CHECK:           omp.terminator
