# The conv_layer update (examples/conv_layer.py, Halide's apps/conv_layer) reads the input at sums of loop dims,
# input[r.x, x + r.y, y + r.z, n]: a compound indexing map (d1 + d4) that the vectorizer refuses
# (docs/mlir-pitfalls.md#offset-indexing-maps). The transform script materializes every loop but the vectorized
# one, so r.y, r.z, r.x are tiled to 1; it then folds the unit dims away (fold_unit_extent_dims_via_reshapes),
# leaving projected permutations, and vectorizes the folded op 16 wide. The update becomes 16-wide multiply-adds
# with contraction allowed (one FMA each on AVX-512): 4 vectors of channels x 5 columns = 20 accumulators, r.x
# unrolled by 2, so 40 of them per iteration of the r.x loop, and no scalar generic is left.
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s bufferized | FileCheck %s --check-prefix=VEC
# RUN: %python %s lowered | FileCheck %s --check-prefix=LLVM

import numpy as np

import halide_mlir as hl
from hl_stage import emit

N, CI, CO, W, H = 1, 8, 64, 10, 2
input_ = hl.Buffer(np.zeros((N, H + 2, W + 2, CI), np.float32), "input")
filter_ = hl.Buffer(np.zeros((CI, 3, 3, CO), np.float32), "filter")
bias = hl.Buffer(np.zeros((CO,), np.float32), "bias")
x, y, c, n = hl.Var("x"), hl.Var("y"), hl.Var("c"), hl.Var("n")
co, ci, xo, xi = hl.Var("co"), hl.Var("ci"), hl.Var("xo"), hl.Var("xi")
conv, relu = hl.Func("conv"), hl.Func("relu")
r = hl.RDom([(0, CI), (0, 3), (0, 3)])
conv[c, x, y, n] = bias[c]
conv[c, x, y, n] += filter_[c, r.y, r.z, r.x] * input_[r.x, x + r.y, y + r.z, n]
relu[c, x, y, n] = hl.max(0, conv[c, x, y, n])
relu.split(c, co, ci, 64).split(x, xo, xi, 5).reorder(ci, xi, xo, y, n, co) \
    .vectorize(ci, 16).unroll(ci).unroll(xi).parallel(y).parallel(n).parallel(co)
conv.compute_at(relu, xo).vectorize(c, 16).unroll(c).unroll(x).unroll(y) \
    .update().reorder(c, x, y, r.x, r.y, r.z, n).vectorize(c, 16).unroll(c).unroll(x).unroll(y).unroll(r.x, 2)
emit(relu, [CO, W, H, N])

# The update's loops: n, r.z, r.y, r.x by 2 and by 1, y, x, c by 16; then the unit dims are folded and the
# folded op is vectorized over c alone; unroll factors are those of the fused tile (64 channels x 5 columns).
# The unrolls run after bufferization (unrolled tensor IR is slow to bufferize): the schedule tags each loop
# with an hl.unroll id and @halide_unroll unrolls them by id, innermost first; hl.unroll_of names the loop for
# the warning when one is left (runtime/jit.py check_unrolled).
# SCRIPT:      %[[U:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.update_of = "conv", hl.update = 0 : i64}
# SCRIPT:      transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [0, 0, 0, 16, 0, 0, 0]
# SCRIPT-NEXT: %[[F:[A-Za-z0-9_]+]] = transform.foreach %[[C:[A-Za-z0-9_]+]] : !transform.any_op -> !transform.any_op {
# SCRIPT:        transform.apply_patterns.linalg.fold_unit_extent_dims_via_reshapes
# SCRIPT:        transform.structured.match ops{["linalg.generic"]} in
# SCRIPT:      transform.structured.vectorize %[[F]] vector_sizes [16]
# SCRIPT-NEXT: %[[P0:[A-Za-z0-9_]+]] = transform.param.constant 0 : i64
# SCRIPT-NEXT: transform.annotate %[[C]] "hl.unroll" = %[[P0]]
# SCRIPT-NEXT: %[[D0:[A-Za-z0-9_]+]] = transform.param.constant "conv_vectorized.py:32: Func 'conv.update(0)': unrolled loop 'c'"
# SCRIPT-NEXT: transform.annotate %[[C]] "hl.unroll_of" = %[[D0]]
# SCRIPT-NEXT: %[[P1:[A-Za-z0-9_]+]] = transform.param.constant 1 : i64
# SCRIPT-NEXT: transform.annotate %{{[A-Za-z0-9_]+}} "hl.unroll" = %[[P1]]
# SCRIPT-NEXT: %[[D1:[A-Za-z0-9_]+]] = transform.param.constant "conv_vectorized.py:32: Func 'conv.update(0)': unrolled loop 'x'"
# SCRIPT-NEXT: transform.annotate %{{[A-Za-z0-9_]+}} "hl.unroll_of" = %[[D1]]
# SCRIPT-NEXT: %[[P2:[A-Za-z0-9_]+]] = transform.param.constant 2 : i64
# SCRIPT-NEXT: transform.annotate %{{[A-Za-z0-9_]+}} "hl.unroll" = %[[P2]]
# SCRIPT-NEXT: %[[D2:[A-Za-z0-9_]+]] = transform.param.constant "conv_vectorized.py:32: Func 'conv.update(0)': unrolled loop 'y'"
# SCRIPT-NEXT: transform.annotate %{{[A-Za-z0-9_]+}} "hl.unroll_of" = %[[D2]]
# SCRIPT-NEXT: %[[P3:[A-Za-z0-9_]+]] = transform.param.constant 3 : i64
# SCRIPT-NEXT: transform.annotate %{{[A-Za-z0-9_]+}} "hl.unroll" = %[[P3]]
# SCRIPT-NEXT: %[[D3:[A-Za-z0-9_]+]] = transform.param.constant "conv_vectorized.py:32: Func 'conv.update(0)': unrolled loop 'r0$x.v3'"
# SCRIPT-NEXT: transform.annotate %{{[A-Za-z0-9_]+}} "hl.unroll_of" = %[[D3]]
# SCRIPT-NOT:  transform.loop.unroll
# SCRIPT:      transform.named_sequence @halide_unroll(%[[ROOT:[A-Za-z0-9_]+]]: !transform.any_op
# SCRIPT-NEXT: %[[L0:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.unroll = 0 : i64} in %[[ROOT]]
# SCRIPT-NEXT: transform.loop.unroll %[[L0]] {factor = 4}
# SCRIPT-NEXT: %[[L1:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.unroll = 1 : i64} in %[[ROOT]]
# SCRIPT-NEXT: transform.loop.unroll %[[L1]] {factor = 5}
# SCRIPT-NEXT: %[[L2:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.unroll = 2 : i64} in %[[ROOT]]
# SCRIPT-NEXT: transform.loop.unroll %[[L2]] {factor = 1}
# SCRIPT-NEXT: %[[L3:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.unroll = 3 : i64} in %[[ROOT]]
# SCRIPT-NEXT: transform.loop.unroll %[[L3]] {factor = 2}

# After bufferization and the unrolls, the r.x loop (step 2) holds 40 16-wide contractable multiply-adds and
# no loop over x or c.
# VEC-LABEL: func.func @pipeline
# VEC:         scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %c8 step %c2
# VEC-NOT:       scf.for
# VEC-COUNT-40:  arith.addf %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} fastmath<contract> : vector<16xf32>
# VEC-NOT:       arith.addf
# VEC:         }
# VEC-NOT:     linalg.generic

# LLVM-LABEL: llvm.func @pipeline(
# LLVM-COUNT-40: llvm.fadd %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
# LLVM-NOT:      llvm.fadd {{.*}} : f32
