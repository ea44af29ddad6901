# A reduction update (f[x, y] += in[x, r, y]) is ONE linalg.generic whose RDom dimension is a "reduction"
# iterator and whose outs is the tensor produced by the pure definition (the initial value), not a fresh
# tensor.empty. The RVar gets the innermost loop dim (d2) and reads the input through a projected permutation.
#
# RUN: %python %s payload | FileCheck %s
# RUN: %python %s payload | mlir-opt | FileCheck %s --check-prefix=VERIFY

import numpy as np

import halide_mlir as hl
from hl_stage import emit

# input: 3 channels x 5 rows x 32 columns; f[x, c] = sum over the 5 rows
inp = hl.Buffer(np.zeros((3, 5, 32), dtype=np.uint8), name="input")
x, c = hl.Var("x"), hl.Var("c")
r = hl.RDom([(0, 5)])
f = hl.Func("f")
f[x, c] = hl.u16(7)
f[x, c] += hl.cast(hl.UInt(16), inp[x, r, c])
emit(f, [32, 3])

# CHECK-LABEL: func.func @pipeline
# The pure definition: all-parallel, from a fresh tensor.
# CHECK:         %[[EMPTY:[A-Za-z0-9_]+]] = tensor.empty() : tensor<3x32xi16>
# CHECK:         %[[INIT:[A-Za-z0-9_]+]] = linalg.generic
# CHECK-SAME:      iterator_types = ["parallel", "parallel"]
# CHECK-SAME:      outs(%[[EMPTY]] : tensor<3x32xi16>)
# CHECK-SAME:      hl.func = "f"
# CHECK:           arith.constant 7 : i16
# CHECK:         } -> tensor<3x32xi16>
# The update: two parallel dims (c, x) and one reduction dim (r), accumulating into the pure result.
# CHECK-NOT:     tensor.empty() : tensor<3x32xi16>
# CHECK:         %[[RED:[A-Za-z0-9_]+]] = linalg.generic
# CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
# CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
# CHECK-SAME:      ins(%{{[A-Za-z0-9_]+}} : tensor<3x5x32xi8>)
# CHECK-SAME:      outs(%[[INIT]] : tensor<3x32xi16>)
# CHECK-SAME:      hl.update_of = "f", hl.update = 0 : i64
# CHECK:           ^bb0(%[[IN:[A-Za-z0-9_]+]]: i8, %[[ACC:[A-Za-z0-9_]+]]: i16):
# CHECK:             %[[W:[A-Za-z0-9_]+]] = arith.extui %[[IN]] : i8 to i16
# CHECK:             %[[S:[A-Za-z0-9_]+]] = arith.addi %[[ACC]], %[[W]] : i16
# CHECK:             linalg.yield %[[S]] : i16
# CHECK:         } -> tensor<3x32xi16>
# CHECK:         bufferization.materialize_in_destination %[[RED]]
# CHECK-NOT:     scf.for

# mlir-opt accepts the payload (verifier) and keeps the reduction iterator.
# VERIFY: iterator_types = ["parallel", "parallel", "reduction"]
