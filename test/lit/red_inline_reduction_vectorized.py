# m[x, y] = hl.sum(u16(in[x + r.x, y + r.y])) over a 3x3 RDom with m.vectorize(x, 16). Halide computes the sum's
# Func inside m's vectorized x loop, so the reduction runs on 16 x-lanes at a time. Ours computes the Func at the
# root; its update's loops have the RVars innermost (y, x, r.y, r.x), and auto-vectorization splits x by m's width
# and vectorizes the inner part anyway (analysis/vectorize.py): the RVar loops run around the vector, each point
# still summing in r order. The script tiles the update to one x vector per r point, folds the unit dims of the
# compound read (in[x + r.x]) and vectorizes at [16]; the lowered update adds vector<16xi16>s, no scalar loop.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s lowered | FileCheck %s --check-prefix=LOWERED

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
import halide_mlir as hl  # noqa: E402
from hl_stage import emit  # noqa: E402

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((34, 66), dtype=np.uint8), name="input")
r = hl.RDom([(0, 3), (0, 3)], "r")
m = hl.Func("m")
m[x, y] = hl.sum(hl.u16(inp[x + r.x, y + r.y]))
m.vectorize(x, 16)
emit(m, [64, 32])

# SCRIPT:      %[[U:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.update_of = "sum", hl.update = 0 : i64}
# SCRIPT:      tile_using_for %[[U]] tile_sizes [1, 0, 0, 0]
# SCRIPT:      tile_sizes [0, 16, 0, 0]
# SCRIPT:      tile_sizes [0, 0, 1, 0]
# SCRIPT:      %{{[A-Za-z0-9_]+}}, %[[L:[A-Za-z0-9_]+]] = transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [0, 0, 0, 1]
# SCRIPT:      transform.foreach %[[L]] : !transform.any_op -> !transform.any_op {
# SCRIPT:        transform.apply_patterns.linalg.fold_unit_extent_dims_via_reshapes
# SCRIPT:      transform.structured.vectorize %{{[A-Za-z0-9_]+}} vector_sizes [16]

# LOWERED-LABEL: llvm.func @pipeline
# LOWERED:       llvm.add {{.*}} : vector<16xi16>
