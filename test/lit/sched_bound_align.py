# align_bounds / align_extent / bound_extent grow the region an intermediate is computed over, as Halide's
# bounds inference does: out (37 x 11) reads g over x in [0, 38), y in [0, 11). g.align_bounds(x, 8) computes
# x in [0, 40), g.align_extent(y, 4) 12 rows; h.bound_extent(x, 48) 48 columns. Each is one linalg.generic over
# the grown region, vectorized by its own schedule. The script is also run by the real mlir-opt and must give
# the same IR as the in-process interpreter.
#
# RUN: %python %s payload > %t.payload.mlir
# RUN: FileCheck %s --check-prefix=PAYLOAD --input-file=%t.payload.mlir
# RUN: %python %s transform > %t.transform.mlir
# RUN: FileCheck %s --check-prefix=SCRIPT --input-file=%t.transform.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
g, h, out = hl.Func("g"), hl.Func("h"), hl.Func("out")
g[x, y] = x * 3 + y
h[x, y] = x - 2 * y
out[x, y] = g[x, y] + g[x + 1, y] + h[x, y]
g.compute_root().align_bounds(x, 8).align_extent(y, 4).vectorize(x, 8)
h.compute_root().bound_extent(x, 48).vectorize(x, 16)
emit(out, [37, 11])

# PAYLOAD-DAG: linalg.generic {{.*}} outs(%{{.*}} : tensor<12x40xi32>) attrs = {{.*}}hl.func = "g"
# PAYLOAD-DAG: linalg.generic {{.*}} outs(%{{.*}} : tensor<11x48xi32>) attrs = {{.*}}hl.func = "h"
# SCRIPT:      transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "h"}
# SCRIPT:      tile_using_for %{{.*}} tile_sizes [0, 16]
# SCRIPT-NEXT: transform.structured.vectorize %{{.*}} vector_sizes [1, 16]
# SCRIPT:      transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "g"}
# SCRIPT:      tile_using_for %{{.*}} tile_sizes [0, 8]
# SCRIPT-NEXT: transform.structured.vectorize %{{.*}} vector_sizes [1, 8]
