# The transform script for `out.vectorize(x, 16).parallel(y)`:
#   parallel(y)       -> tile_using_forall tile_sizes [1, 0]   (one y row per forall iteration)
#   vectorize(x, 16)  -> tile_using_for    tile_sizes [0, 16]  then
#                        structured.vectorize vector_sizes [1, 16]
# each op consuming the tiled op produced by the previous one. Checked on the script as
# emitted and after an mlir-opt round trip (which verifies it).
#
# RUN: %python %s transform | FileCheck %s
# RUN: %python %s transform | mlir-opt | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((16, 34), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
out.vectorize(x, 16).parallel(y)
emit(out, [32, 16])

# CHECK:       module attributes {transform.with_named_sequence}
# CHECK-LABEL: transform.named_sequence @__transform_main(
# CHECK-SAME:    %[[ROOT:[A-Za-z0-9_]+]]: !transform.any_op
# CHECK-NOT:     transform.structured.tile_using
# CHECK:         %[[OUT:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "out"} in %[[ROOT]]
# CHECK-NOT:     transform.structured.tile_using
# CHECK:         %[[T1:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_forall %[[OUT]] tile_sizes [1, 0]
# CHECK-NOT:     transform.structured.tile_using
# CHECK:         %[[T2:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[T1]] tile_sizes [0, 16]
# CHECK-NOT:     transform.structured.tile_using
# CHECK:         transform.structured.vectorize %[[T2]] vector_sizes [1, 16]
# CHECK-NOT:     transform.structured.tile_using
# CHECK-NOT:     transform.structured.vectorize
# CHECK:         transform.yield
