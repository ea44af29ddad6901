# A producer computed at an outer loop of a consumer that is itself computed at a loop, read only by a
# producer computed at an inner loop of that consumer: p at c.yo, q (which reads p at two taps) at c.yi, c at
# out.yo. fuse_into_containing_op fuses a producer where it is read inside the loop, so q's copy goes into
# c's yo loop first, then p (now read there), then q's copy into the yi loop: p is computed once per
# iteration of c's yo loop, as in Halide (before, p's fusion failed with "could not find next producer to
# fuse into container"; had c read p too, p would have been computed whole as well, for q).
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # scalar generics: the fusion order is what this test is about

inp = hl.Buffer(np.zeros((29, 37), np.uint8), "in0")
x, y, yo, yi = (hl.Var(n) for n in "x y yo yi".split())
p, q, c, out = hl.Func("p"), hl.Func("q"), hl.Func("c"), hl.Func("out")
p[x, y] = hl.i32(inp[hl.clamp(x, 0, 36), hl.clamp(y, 0, 28)]) * 3
q[x, y] = p[x, y] + p[x + 1, y + 1]
c[x, y] = q[x, y] * 2 + 1
out[x, y] = c[x, y] - c[x, y + 1]
out.split(y, yo, yi, 8)
c.compute_at(out, yo).split(y, yo, yi, 4)
p.compute_at(c, yo)
q.compute_at(c, yi)
emit(out, [35, 26])

# SCRIPT:      %[[C:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.fuse_into_containing_op %{{[A-Za-z0-9_]+}} into
# SCRIPT:      %{{[A-Za-z0-9_]+}}, %[[YO:[A-Za-z0-9_]+]] = transform.structured.tile_using_for %[[C]] tile_sizes [4, 0]
# SCRIPT:      %[[Q:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "q"}
# SCRIPT:      %[[QC:[A-Za-z0-9_]+]], %[[YO2:[A-Za-z0-9_]+]] = transform.structured.fuse_into_containing_op %[[Q]] into %[[YO]]
# SCRIPT:      %[[P:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "p"}
# SCRIPT:      transform.structured.fuse_into_containing_op %[[P]] into %[[YO2]]
# SCRIPT:      %{{[A-Za-z0-9_]+}}, %[[YI:[A-Za-z0-9_]+]] = transform.structured.tile_using_for %{{[A-Za-z0-9_]+}} tile_sizes [1, 0]
# SCRIPT:      transform.structured.fuse_into_containing_op %[[QC]] into %[[YI]]

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     hl.func = "p"
# CHECK:         scf.for {{.*}} -> (tensor<26x35xi32>)
# CHECK:           scf.for {{.*}} step %c4 {{.*}} -> (tensor<9x35xi32>)
# CHECK:             linalg.generic {{.*}} {hl.func = "p"
# CHECK:             linalg.generic {{.*}} {hl.func = "p"
# CHECK:             scf.for {{.*}} step %c1
# CHECK-NOT:           hl.func = "p"
# CHECK:               linalg.generic {{.*}} {hl.func = "q"
# CHECK:               scf.for
# CHECK:                 linalg.generic {{.*}} {hl.func = "c"
