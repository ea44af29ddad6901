# What the vectorized matmul update SHOULD become: 16-wide fused multiply-adds. Halide 21 emits vfmadd on zmm for
# this schedule. halide_mlir does not yet: the vectorizer produces arith.mulf on vector<1x16x1xf32> (the
# reduction dim r stays a unit vector dim), which the LLVM lowering unrolls into 16 llvm.fmul on vector<1xf32>,
# followed by one llvm.fadd on vector<16xf32>; no fma (no contraction) anywhere. Expected to pass once the update
# is vectorized as a vector.contract / vector.fma (or mul+add with contraction).
#
# XFAIL: *
# RUN: %python %s lowered | FileCheck %s

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
import halide_mlir as hl  # noqa: E402
from hl_stage import emit  # noqa: E402

A = hl.Buffer(np.zeros((64, 32), np.float32), "A")
B = hl.Buffer(np.zeros((32, 128), np.float32), "B")
x, y = hl.Var("x"), hl.Var("y")
r = hl.RDom([(0, 32)])
c = hl.Func("C")
c[x, y] = 0.0
c[x, y] += A[r, y] * B[x, r]
c.update().reorder(x, r).vectorize(x, 16).parallel(y)
emit(c, [128, 64])

# CHECK-LABEL: llvm.func @pipeline(
# CHECK-NOT:     llvm.fmul %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}{{.*}}: vector<1xf32>
# CHECK:         {{llvm.intr.fma|llvm.intr.fmuladd}}({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
