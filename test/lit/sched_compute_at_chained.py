# Chained compute_at producers are computed ONCE per iteration of their loop, with Halide's bounds (issue 5).
# unsharp's chain: gray at the output's yo loop is read only by blur_y and ratio (at yi), blur_y only by ratio,
# ratio by the output. fuse_into_containing_op alone fuses one copy per tap (5 blur_y copies per ratio tile, and
# gray once per tap of each: docs/mlir-pitfalls.md#fuse-once-per-use); the payload computes blur_y and ratio in the
# loops itself and gray is fused through its one slice (analysis/tiling.py). Per 4-row strip of the 16x6 output:
# one 8x20 tile of gray (4 rows + the 4-row halo, 16 columns + 4); per row one 1x20 blur_y and one 1x16 ratio, and
# nothing else of them anywhere.
#
# RUN: %python %s scheduled | FileCheck %s
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the scalar generics of the schedule, as Halide runs them

inp = hl.Buffer(np.zeros((3, 16, 20), dtype=np.float32), name="input")
x, y, c, yo, yi = (hl.Var(n) for n in "x y c yo yi".split())
gray, blur_y, blur_x = hl.Func("gray"), hl.Func("blur_y"), hl.Func("blur_x")
sharpen, ratio, out = hl.Func("sharpen"), hl.Func("ratio"), hl.Func("unsharp")
gray[x, y] = 0.299 * inp[x, y, 0] + 0.587 * inp[x, y, 1] + 0.114 * inp[x, y, 2]
blur_y[x, y] = 0.4 * gray[x, y + 2] + 0.2 * (gray[x, y + 1] + gray[x, y + 3]) + 0.1 * (gray[x, y] + gray[x, y + 4])
blur_x[x, y] = 0.4 * blur_y[x + 2, y] + 0.2 * (blur_y[x + 1, y] + blur_y[x + 3, y]) + 0.1 * (blur_y[x, y] + blur_y[x + 4, y])
sharpen[x, y] = 2 * gray[x + 2, y + 2] - blur_x[x, y]
ratio[x, y] = sharpen[x, y] / gray[x + 2, y + 2]
out[x, y, c] = ratio[x, y] * inp[x + 2, y + 2, c]
out.split(y, yo, yi, 4).reorder(x, c, yi, yo)
gray.compute_at(out, yo)
blur_y.compute_at(out, yi)
ratio.compute_at(out, yi)
emit(out, [16, 12, 3])

# gray is the only producer the script fuses; blur_y and ratio are already in the payload's loops
# SCRIPT-LABEL: transform.named_sequence @__transform_main(
# SCRIPT-NOT:     hl.func = "blur_y"
# SCRIPT-NOT:     hl.func = "ratio"
# SCRIPT:         %[[YO:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.loop = "unsharp.s0.yo"}
# SCRIPT:         %[[GRAY:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "gray"}
# SCRIPT-NEXT:    transform.structured.fuse_into_containing_op %[[GRAY]] into %[[YO]]
# SCRIPT-NOT:     fuse_into_containing_op

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     hl.func
# CHECK:         scf.for {{.*}} -> (tensor<3x12x16xf32>)
# CHECK-NOT:       hl.func
# CHECK:           linalg.generic {{.*}}hl.func = "gray"
# CHECK-NEXT:      ^bb0
# CHECK:           -> tensor<8x20xf32>
# CHECK-NOT:       hl.func
# CHECK:           scf.for {{.*}} -> (tensor<3x4x16xf32>)
# CHECK-NOT:         hl.func
# CHECK:             linalg.generic {{.*}}hl.func = "blur_y"
# CHECK:             -> tensor<1x20xf32>
# CHECK-NOT:         hl.func
# CHECK:             linalg.generic {{.*}}hl.func = "ratio"
# CHECK:             -> tensor<1x16xf32>
# CHECK-NOT:         hl.func
# CHECK:             linalg.generic {{.*}}hl.func = "unsharp"
# CHECK-NOT:     hl.func
# CHECK:         bufferization.materialize_in_destination
