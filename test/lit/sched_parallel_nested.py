# Nested parallel loops of one stage run as ONE parallel loop over their collapsed iteration space
# (analysis/loop_nest.py serialize_nested_parallel): parallel(y).parallel(c) with c inside y is one
# tile_using_forall over both dims, a 2-D scf.forall, and one omp.parallel around an omp.wsloop whose
# omp.loop_nest has both induction variables, collapse(2): 37 * 3 iterations shared by the threads, not 3.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s
# RUN: env HL_NUM_THREADS=2 %python %s lowered | FileCheck %s --check-prefix=LOWERED

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
inp = hl.Buffer(np.zeros((3, 37, 53), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y, c] = inp[x, y, c] * 2.0
out.reorder(x, c, y).vectorize(x, 16).parallel(y).parallel(c)
emit(out, [53, 37, 3])

# SCRIPT:      %[[OP:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "out"}
# SCRIPT-NEXT: %[[T:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_forall %[[OP]] tile_sizes [1, 1, 0]
# SCRIPT-NOT:  tile_using_forall
# SCRIPT:      transform.structured.tile_using_for %[[T]] tile_sizes [0, 0, 16]

# CHECK-LABEL: func.func @pipeline
# CHECK:         %[[R:[A-Za-z0-9_]+]] = scf.forall (%[[C:[A-Za-z0-9_]+]], %[[Y:[A-Za-z0-9_]+]]) in (3, 37) shared_outs(%[[ACC:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}}) -> (tensor<3x37x53xf32>) {
# CHECK-NOT:       scf.forall
# CHECK:           scf.forall.in_parallel
# CHECK-NEXT:        tensor.parallel_insert_slice %{{[A-Za-z0-9_]+}} into %[[ACC]][%[[C]], %[[Y]], 0] [1, 1, 53] [1, 1, 1]

# LOWERED-LABEL: llvm.func @pipeline(
# LOWERED:         omp.parallel num_threads(
# LOWERED-NEXT:      omp.wsloop {
# LOWERED-NEXT:        omp.loop_nest (%{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}) : i64 = ({{.*}}) to ({{.*}}) step ({{.*}}) collapse(2) {
# LOWERED-NOT:     omp.parallel
# LOWERED:         llvm.return
