# compute_with: g's rows computed in f's loop over y. Both are tiled as usual (one scf.for per y), the constants
# CSE'd so the loops have the same bounds, then transform.loop.fuse_sibling makes them one loop whose body
# computes f's row and then g's (both vectorized). The script is also run by the real mlir-opt and must give the
# same IR as the in-process interpreter (the fused loop included).
#
# RUN: %python %s transform > %t.transform.mlir
# RUN: FileCheck %s --input-file=%t.transform.mlir
# RUN: %python %s scheduled | FileCheck %s --check-prefix=SCHED
# RUN: %python %s payload > %t.payload.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: FileCheck %s --check-prefix=SCHED --input-file=%t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Func("inp")
inp[x, y] = x + 2 * y
f, g, out = hl.Func("f"), hl.Func("g"), hl.Func("out")
f[x, y] = inp[x, y] * 2
g[x, y] = inp[x, y] + 7
out[x, y] = f[x, y] + g[x, y] * 3
inp.compute_root()
f.compute_root().vectorize(x, 8)
g.compute_root().vectorize(x, 8)
g.compute_with(f, y, hl.LoopAlignStrategy.AlignStart)
emit(out, [37, 11])

# CHECK: %[[G:[a-z0-9]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "g"}
# CHECK: %{{.*}}, %[[GY:[a-z0-9]+]] = transform.structured.tile_using_for %[[G]] tile_sizes [1, 0]
# CHECK: %[[F:[a-z0-9]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "f"}
# CHECK: %{{.*}}, %[[FY:[a-z0-9]+]] = transform.structured.tile_using_for %[[F]] tile_sizes [1, 0]
# CHECK: transform.apply_cse
# CHECK: transform.loop.fuse_sibling %[[FY]] into %[[GY]]

# SCHED:     %{{.*}}:2 = scf.for %{{.*}} = %c0 to %c11 step %c1 iter_args(%{{.*}}, %{{.*}}) -> (tensor<11x37xi32>, tensor<11x37xi32>)
# SCHED:       vector.transfer_write {{.*}} : vector<1x8xi32>
# SCHED:       vector.transfer_write {{.*}} : vector<1x8xi32>
# SCHED:       scf.yield %{{.*}}, %{{.*}} : tensor<11x37xi32>, tensor<11x37xi32>
