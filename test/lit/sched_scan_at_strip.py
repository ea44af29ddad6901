# A scan computed at the output's parallel strip loop and read by a stage computed per row inside it at rows that
# are not a slice (a running sum read at clamped rows: a box filter): the output's payload loops compute the scan
# per strip -- its pure definition, then its explicit loops over the strip's columns and every row (the scan's
# whole dim) -- and the row stage gathers from that tile (analysis/scan_tiles.py), as Halide does; no longer the
# whole scan once at the root. The gathers' lanes read consecutive columns: vector loads after bufferization.
#
# RUN: %python %s payload | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s bufferized | FileCheck %s --check-prefix=BUF

import warnings

import numpy as np

import halide_mlir as hl
from hl_stage import emit

warnings.simplefilter("error", hl.ComputeAtWarning)
W, H = 64, 40
x, y, xo, xi = (hl.Var(n) for n in "x y xo xi".split())
inp = hl.Buffer(np.zeros((H, W + 16), dtype=np.int32), "inp")
cs, box, out = hl.Func("cs"), hl.Func("box"), hl.Func("out")
cs[x, y] = inp[x, y]
r = hl.RDom([hl.Range(1, H - 1)])
cs[x, r.x] = cs[x, r.x - 1] + inp[x, r.x]
box[x, y] = cs[x, hl.min(y + 3, H - 1)] - cs[x, hl.max(y - 4, 0)]
out[x, y] = box[x, y] * 2 + box[x + 1, y]
out.split(x, xo, xi, 16).reorder(xi, y, xo).parallel(xo).vectorize(xi, 8)
cs.compute_at(out, xo).vectorize(x, 8)
cs.update().vectorize(x, 8)
box.compute_at(out, y).vectorize(x, 8)
emit(out, [W, H])

# The strip loop; in it the scan's tile (17 columns, all 40 rows), its explicit loops, then the row loop, whose
# row stage gathers from the tile
# PAYLOAD-LABEL: func.func @pipeline
# PAYLOAD:         scf.forall
# PAYLOAD:           linalg.generic {{.*}} outs({{.*}} : tensor<40x17xi32>) attrs = {hl.func = "cs"
# PAYLOAD:           %[[SCAN:.*]] = scf.for {{.*}} -> (tensor<40x17xi32>)
# PAYLOAD:             vector.transfer_write {{.*}} tensor<40x17xi32>
# PAYLOAD:           scf.for
# PAYLOAD:             linalg.generic {{.*}}hl.func = "box"
# PAYLOAD:               tensor.extract %[[SCAN]]{{.*}} : tensor<40x17xi32>
# PAYLOAD:           } {hl.loop = "out.s0.y"}
# PAYLOAD:         } {hl.loop = "out.s0.xo"}

# BUF-LABEL: func.func @pipeline
# BUF-NOT:     vector.gather
# BUF:         return
