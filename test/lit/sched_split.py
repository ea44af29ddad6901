# split(x, xo, xi, 8) materializes the two loops of Halide's split, outermost first: the row loop, then
# x_outer stepping by the split factor over the whole width, then x_inner from 0 to the factor. A width that
# the factor does not divide (61) keeps the step and clamps the last tile with affine.min (never reads or
# writes past the 61 columns).
#
# RUN: %python %s transform 64 | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled 64 | FileCheck %s --check-prefix=DIV
# RUN: %python %s scheduled 61 | FileCheck %s --check-prefix=TAIL

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the scalar loops of the schedule, as Halide runs them

W = int(sys.argv[2])
x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, W), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] * 2.0 + 1.0
out.split(x, hl.Var("x_outer"), hl.Var("x_inner"), 8)
emit(out, [W, 16])

# SCRIPT-LABEL: transform.named_sequence @__transform_main(
# SCRIPT:         %[[OP:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "out"}
# SCRIPT-NEXT:    %[[T1:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[OP]] tile_sizes [1, 0]
# SCRIPT-NEXT:    %[[T2:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T1]] tile_sizes [0, 8]
# SCRIPT-NEXT:    %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T2]] tile_sizes [0, 1]
# SCRIPT-NOT:     transform.structured.tile_using
# SCRIPT:         transform.yield

# DIV-LABEL: func.func @pipeline
# DIV-DAG:     %[[C0:[A-Za-z0-9_]+]] = arith.constant 0 : index
# DIV-DAG:     %[[C1:[A-Za-z0-9_]+]] = arith.constant 1 : index
# DIV-DAG:     %[[C8:[A-Za-z0-9_]+]] = arith.constant 8 : index
# DIV-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# DIV-DAG:     %[[C64:[A-Za-z0-9_]+]] = arith.constant 64 : index
# DIV:         scf.for %[[Y:[A-Za-z0-9_]+]] = %[[C0]] to %[[C16]] step %[[C1]]
# DIV:           scf.for %[[XO:[A-Za-z0-9_]+]] = %[[C0]] to %[[C64]] step %[[C8]]
# DIV:             tensor.extract_slice %{{[A-Za-z0-9_]+}}[0, %[[XO]]] [1, 8] [1, 1] : tensor<1x64xf32> to tensor<1x8xf32>
# DIV:             scf.for %[[XI:[A-Za-z0-9_]+]] = %[[C0]] to %[[C8]] step %[[C1]]
# DIV-NOT:           scf.for
# DIV:               linalg.generic {{.*}} outs(%{{[A-Za-z0-9_]+}} : tensor<1x1xf32>) {{.*}}hl.func = "out"
# DIV:         bufferization.materialize_in_destination

# TAIL-LABEL: func.func @pipeline
# TAIL-DAG:     %[[C8:[A-Za-z0-9_]+]] = arith.constant 8 : index
# TAIL-DAG:     %[[C61:[A-Za-z0-9_]+]] = arith.constant 61 : index
# TAIL:         scf.for %[[XO:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C61]] step %[[C8]]
# TAIL-NEXT:      %[[N:[A-Za-z0-9_]+]] = affine.min #{{[A-Za-z0-9_]+}}(%[[XO]])
# TAIL:           scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %[[N]] step
# TAIL:             linalg.generic {{.*}}hl.func = "out"
