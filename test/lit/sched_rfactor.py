# rfactor of a parallel sum: s[x] += in[r.x] over 1000 points, r.x split by 16 and its outer part factored into
# a pure Var u. The front end makes s_intm(x, u) (its own linalg.generic, a reduction over rxi) and rewrites s's
# update into the merge over rxo: two generics, each scheduled by its own directives. s_intm.update().parallel(u)
# is a tile_using_forall of the intermediate's update generic; the split's guard (1000 % 16 != 0) is a select.
# The script is also run by the real mlir-opt and must give the same IR as the in-process interpreter.
#
# RUN: %python %s transform > %t.transform.mlir
# RUN: FileCheck %s --check-prefix=SCRIPT --input-file=%t.transform.mlir
# RUN: %python %s payload > %t.payload.mlir
# RUN: FileCheck %s --check-prefix=PAYLOAD --input-file=%t.payload.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)

inp = hl.Buffer(np.zeros((1000,), dtype=np.int32), name="input")
x, u = hl.Var("x"), hl.Var("u")
s = hl.Func("s")
s[x] = 0
r = hl.RDom([(0, 1000)])
s[x] += inp[r.x]
rxo, rxi = hl.RVar("rxo"), hl.RVar("rxi")
s.update().split(r.x, rxo, rxi, 16)
intm = s.update().rfactor(rxo, u)
intm.compute_root().update().parallel(u)
emit(s, [1])

# PAYLOAD:      hl.func = "s_intm"
# PAYLOAD:      iterator_types = ["parallel", "parallel", "reduction"]
# PAYLOAD-SAME: hl.update_of = "s_intm"
# PAYLOAD:      arith.select
# PAYLOAD:      } -> tensor<63x1xi32>
# PAYLOAD:      hl.func = "s"
# PAYLOAD:      iterator_types = ["parallel", "reduction"]
# PAYLOAD-SAME: ins(%{{.*}} : tensor<63x1xi32>)
# PAYLOAD-SAME: hl.update_of = "s"

# SCRIPT:       transform.named_sequence @__transform_main
# SCRIPT:       {hl.update_of = "s_intm", hl.update = 0 : i64}
# SCRIPT:       transform.structured.tile_using_forall
