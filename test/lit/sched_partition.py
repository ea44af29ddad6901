# partition(v, Partition.X) (lang/small_directives.py; analysis/plan.py partition): the blur of
# boundary_partitioned.py, which Auto computes in 3 x 3 pieces, with never_partition([y]) is cut along x only
# (3 generics, each spanning all 20 rows, its y clamps kept); with never_partition_all() it is one generic over
# the whole output whose taps read the clamped coordinates (gathers), as Halide's unpartitioned loop does.
#
# RUN: %python %s payload x | FileCheck %s --check-prefix=X
# RUN: %python %s payload all | FileCheck %s --check-prefix=ALL
# The script, run by the real mlir-opt, gives the in-process interpreter's IR:
# RUN: %python %s payload x > %t.payload.mlir
# RUN: %python %s transform x > %t.transform.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: %python %s scheduled x | mlir-opt > %t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

policy = sys.argv.pop()
x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((20, 48), dtype=np.float32), name="input")
clamped = hl.BoundaryConditions.repeat_edge(inp)
blur = hl.Func("blur")
blur[x, y] = clamped[x - 4, y - 2] + clamped[x + 4, y + 2]
blur.vectorize(x, 16).parallel(y)
if policy == "x":
    blur.never_partition([y])
else:
    blur.never_partition_all()
emit(blur, [48, 20])

# X-COUNT-3: linalg.generic {{.*}} outs(%{{.*}} : tensor<20x{{[0-9]+}}xf32>) attrs = {hl.func = "blur"
# X-NOT:     hl.func = "blur"

# ALL:       linalg.generic {{.*}} outs(%{{.*}} : tensor<20x48xf32>) attrs = {hl.func = "blur"
# ALL:       tensor.extract %input0
# ALL-NOT:   hl.func = "blur"
