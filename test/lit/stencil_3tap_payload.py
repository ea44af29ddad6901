# A 3-tap horizontal stencil becomes three shifted tensor.extract_slice reads of the
# input feeding ONE linalg.generic whose indexing maps are all the identity (offset
# maps like (d0, d1 + 1) are not projected permutations and would block vectorization:
# docs/mlir-pitfalls.md#offset-indexing-maps).
#
# RUN: %python %s payload | FileCheck %s --check-prefix=RAW
# RUN: %python %s payload | mlir-opt | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 40), dtype=np.float32), name="input")
f = hl.Func("f")
f[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
emit(f, [32, 16])

# The payload as emitted: every indexing map is written out as the identity, and no
# map anywhere has an offset.
# RAW-NOT:  {{d[01] [+-] [0-9]}}
# RAW:      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
# RAW-NOT:  {{d[01] [+-] [0-9]}}

# After a round trip through mlir-opt (which also verifies the payload): the identity
# is the ONLY affine map in the module.
# CHECK:       #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
# CHECK-NOT:   affine_map
# CHECK-LABEL: func.func @pipeline
# CHECK-SAME:    (%[[IN:[A-Za-z0-9_]+]]: memref<16x40xf32>, %[[OUT:[A-Za-z0-9_]+]]: memref<16x32xf32>)
# CHECK:         %[[T:[A-Za-z0-9_]+]] = bufferization.to_tensor %[[IN]] restrict : memref<16x40xf32> to tensor<16x40xf32>
# CHECK-NEXT:    %[[S0:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 0] [16, 32] [1, 1] : tensor<16x40xf32> to tensor<16x32xf32>
# CHECK-NEXT:    %[[S1:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 1] [16, 32] [1, 1] : tensor<16x40xf32> to tensor<16x32xf32>
# CHECK-NEXT:    %[[S2:[A-Za-z0-9_]+]] = tensor.extract_slice %[[T]][0, 2] [16, 32] [1, 1] : tensor<16x40xf32> to tensor<16x32xf32>
# CHECK-NOT:     tensor.extract_slice
# CHECK:         %[[INIT:[A-Za-z0-9_]+]] = tensor.empty() : tensor<16x32xf32>
# CHECK-NEXT:    %[[R:[A-Za-z0-9_]+]] = linalg.generic
# CHECK-SAME:      indexing_maps = [#[[ID]], #[[ID]], #[[ID]], #[[ID]]]
# CHECK-SAME:      iterator_types = ["parallel", "parallel"]
# CHECK-SAME:      ins(%[[S0]], %[[S1]], %[[S2]] : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>)
# CHECK-SAME:      outs(%[[INIT]] : tensor<16x32xf32>)
# CHECK-SAME:      hl.func = "f"
# CHECK-NEXT:    ^bb0(%[[A0:[A-Za-z0-9_]+]]: f32, %[[A1:[A-Za-z0-9_]+]]: f32, %[[A2:[A-Za-z0-9_]+]]: f32, %{{[A-Za-z0-9_]+}}: f32):
# CHECK-NEXT:      %[[V0:[A-Za-z0-9_]+]] = arith.addf %[[A0]], %[[A1]]{{.*}}: f32
# CHECK-NEXT:      %[[V1:[A-Za-z0-9_]+]] = arith.addf %[[V0]], %[[A2]]{{.*}}: f32
# CHECK-NEXT:      linalg.yield %[[V1]] : f32
# CHECK-NEXT:    } -> tensor<16x32xf32>
# CHECK-NEXT:    bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
# CHECK-NOT:     linalg.generic
