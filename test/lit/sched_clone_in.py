# clone_in: g reads a copy of f ("f_clone_in_g$0": f's definition and schedule so far), scheduled on its own, while
# h still reads f itself. f is computed at the root and vectorized by 8; the clone is computed per row of g and
# vectorized by 4: two generics for the same definition, each tiled and vectorized by its own script lines.
# The script is also run by the real mlir-opt and must give the same IR as the in-process interpreter.
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

hl.set_auto_vectorize(False)

x, y = hl.Var("x"), hl.Var("y")
f, g, h, out = hl.Func("f"), hl.Func("g"), hl.Func("h"), hl.Func("out")
f[x, y] = x * 3 + y
g[x, y] = f[x, y] + f[x + 1, y]
h[x, y] = f[x, y] * 2
out[x, y] = g[x, y] + h[x, y]
f.clone_in(g).compute_at(g, y).vectorize(x, 4)  # (before f's schedule: the clone copies it as it is then)
f.compute_root().vectorize(x, 8)
g.compute_root()
h.compute_root()
emit(out, [37, 11])

# f over h's region (37 columns), its clone over g's (38): two generics of one definition.
# PAYLOAD-DAG: linalg.generic {{.*}} outs(%{{.*}} : tensor<11x37xi32>) attrs = {{.*}}hl.func = "f"
# PAYLOAD-DAG: linalg.generic {{.*}} outs(%{{.*}} : tensor<11x38xi32>) attrs = {{.*}}hl.func = "f_clone_in_g$0"

# f's own generic: rows, vectorized by 8.
# SCRIPT:      transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "f"}
# SCRIPT:      transform.structured.vectorize %{{.*}} vector_sizes [1, 8]
# the clone: fused into g's y loop, then vectorized by 4.
# SCRIPT:      %[[GY:[a-z0-9]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.loop = "g.s0.y"}
# SCRIPT-NEXT: %[[C:[a-z0-9]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "f_clone_in_g$0"}
# SCRIPT-NEXT: %[[FUSED:[a-z0-9]+]], %{{.*}} = transform.structured.fuse_into_containing_op %[[C]] into %[[GY]]
# SCRIPT:      transform.structured.tile_using_for %[[FUSED]] tile_sizes [1, 0]
# SCRIPT:      transform.structured.vectorize %{{.*}} vector_sizes [1, 4]
