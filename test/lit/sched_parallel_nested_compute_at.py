# Nested parallel loops around a producer computed at an inner loop (conv_layer's parallel(co).parallel(n)
# .parallel(y) around conv computed at xo): the payload spells out the consumer's loops (codegen/tiled.py), and
# the collapsed parallel levels are one 3-D scf.forall (analysis/tiling.py Level.collapsed) carrying the
# innermost one's hl.loop name; the script matches that forall and the serial xo loop, nothing else.
#
# RUN: %python %s payload | FileCheck %s
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y, c, n, xo, xi = (hl.Var(v) for v in ("x", "y", "c", "n", "xo", "xi"))
inp = hl.Buffer(np.zeros((3, 9, 19, 8), dtype=np.float32), name="input")
f, out = hl.Func("f"), hl.Func("out")
f[c, x, y, n] = inp[c, x, y, n] * 2.0
out[c, x, y, n] = f[c, x, y, n] + f[c, x + 1, y, n]
out.split(x, xo, xi, 6).reorder(c, xi, xo, y, n).vectorize(c, 8).parallel(n).parallel(y)
f.compute_at(out, xo)
emit(out, [8, 18, 9, 3])

# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.forall (%[[N:[A-Za-z0-9_]+]], %[[Y:[A-Za-z0-9_]+]]) in (3, 9) shared_outs(%[[ACC:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}}) -> (tensor<3x9x18x8xf32>) {
# CHECK:           %[[TILE:[A-Za-z0-9_]+]] = tensor.extract_slice %[[ACC]][%{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}, 0, 0] [1, 1, 18, 8]
# CHECK:           scf.for %{{[A-Za-z0-9_]+}} = %{{[A-Za-z0-9_]+}} to %{{[A-Za-z0-9_]+}} step %{{[A-Za-z0-9_]+}} iter_args(%{{[A-Za-z0-9_]+}} = %[[TILE]])
# CHECK:           } {hl.loop = "out.s0.xo"}
# CHECK:           scf.forall.in_parallel {
# CHECK-NEXT:        tensor.parallel_insert_slice %{{[A-Za-z0-9_]+}} into %[[ACC]]
# CHECK:         } {hl.loop = "out.s0.y"}

# SCRIPT:      transform.structured.match ops{["scf.forall"]} attributes {hl.loop = "out.s0.y"}
# SCRIPT-NOT:  hl.loop = "out.s0.n"
# SCRIPT:      transform.structured.match ops{["scf.for"]} attributes {hl.loop = "out.s0.xo"}
