# compute_with(f, xo, AlignEnd) where g is needed over 8 more columns than f: y is fused on tensors
# (transform.loop.fuse_sibling), the xo pair is tagged and fused after bufferization (codegen/compute_with.py).
# AlignEnd lines up the two ends: g's iteration is f's + 8 columns, so the fused xo loop starts one tile early
# (-8) and runs to the later end; each body runs under an scf.if of its own range (f: [0, 26), g: [0, 34)).
#
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s bufferized | FileCheck %s
#
# SCRIPT: %[[P:.*]] = transform.param.constant "1:parent:0:1"
# SCRIPT: transform.annotate %{{.*}} "hl.compute_with_0" = %[[P]]
# SCRIPT: %[[C:.*]] = transform.param.constant "1:child:8:1"
# SCRIPT: transform.annotate %{{.*}} "hl.compute_with_0" = %[[C]]
# SCRIPT: transform.loop.fuse_sibling
#
# CHECK: scf.for %[[Y:.*]] = %c0 to %c19 step %c1 {
# CHECK: scf.for %[[XO:.*]] = %c-8 to %{{.*}} step %c8 {
# CHECK-NEXT: arith.cmpi sge, %[[XO]], %c0
# CHECK-NEXT: arith.cmpi slt, %[[XO]], %c26
# CHECK: scf.if
# CHECK: vector.transfer_write
# CHECK: %[[GX:.*]] = arith.addi %[[XO]], %c8
# CHECK-NEXT: arith.cmpi sge, %[[GX]], %c0
# CHECK-NEXT: arith.cmpi slt, %[[GX]], %c34
# CHECK: scf.if
# CHECK: vector.transfer_write
# CHECK: } {hl.compute_with_0 =

import halide_mlir as hl
from hl_stage import emit

x, y, xo, xi = hl.Var("x"), hl.Var("y"), hl.Var("xo"), hl.Var("xi")
inp = hl.Func("inp")
inp[x, y] = x + 2 * y
f, g, out = hl.Func("f"), hl.Func("g"), hl.Func("out")
f[x, y] = inp[x, y] * 2
g[x, y] = inp[x, y] + 7
out[x, y] = f[x, y] + g[x + 8, y] * 3 - g[x, y]
inp.compute_root()
for h in (f, g):
    h.compute_root().split(x, xo, xi, 8).vectorize(xi)
g.compute_with(f, xo, hl.LoopAlignStrategy.AlignEnd)
emit(out, [26, 19])
