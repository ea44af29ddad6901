# A reduction that reads only part of an input (f[x] += in[x, r] with r over the first 2 of 6 rows, x over 3 of
# 4 columns) must get its loop extents from the output and the RDom (3 and 2), never from the input's shape.
# The generic reads a 2x3 slice of the input through a plain (d0, d1) -> (d1, d0) map (reading the whole input
# through that map made linalg infer x = 4, r = 6 and sum all 6 rows: a wrong result, see
# test_reductions.py).
#
# RUN: %python %s payload | mlir-opt | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

inp = hl.Buffer(np.zeros((6, 4), dtype=np.int32), name="input")
x = hl.Var("x")
r = hl.RDom([(0, 2)])
f = hl.Func("f")
f[x] = 0
f[x] += inp[x, r]
emit(f, [3])

# CHECK-LABEL: func.func @pipeline
# CHECK:         %[[IN:[A-Za-z0-9_]+]] = tensor.extract_slice %{{[A-Za-z0-9_]+}}[0, 0] [2, 3] [1, 1] : tensor<6x4xi32> to tensor<2x3xi32>
# CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}ins(%[[IN]] : tensor<2x3xi32>) outs(%{{[A-Za-z0-9_]+}} : tensor<3xi32>)
