# A vectorized float32 exp, log and pow lower to vector arithmetic (codegen/math_approx.py), not to
# llvm.intr.exp / llvm.intr.log / llvm.intr.pow, which LLVM's X86 backend turns into one libm call (expf,
# logf, powf) per lane. The polynomials are inlined into the pipeline: no call of any kind is left.
#
# RUN: %python %s lowered | FileCheck %s --implicit-check-not='llvm.intr.exp' --implicit-check-not='llvm.intr.log' --implicit-check-not='llvm.intr.pow' --implicit-check-not='expf' --implicit-check-not='logf' --implicit-check-not='powf' --implicit-check-not='llvm.call @__hl'

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from hl_stage import emit

import halide_mlir as hl

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.ones((8, 64), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = hl.exp(inp[x, y]) + hl.log(inp[x, y]) + hl.pow(inp[x, y], inp[x, y] + 1)
out.vectorize(x, 16)
emit(out, [inp.width(), inp.height()])

# CHECK-LABEL: llvm.func @pipeline(
# CHECK:       llvm.load {{.*}} -> vector<16xf32>
# exp: 2^k from the exponent bits (k + 127) << 23, e^r by a polynomial of FMAs
# CHECK:       llvm.intr.roundeven({{.*}}) : (vector<16xf32>) -> vector<16xf32>
# CHECK:       llvm.shl {{.*}} : vector<16xi32>
# CHECK:       llvm.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
# CHECK:       llvm.store {{.*}} : vector<16xf32>, !llvm.ptr
# CHECK:       llvm.return
# CHECK-LABEL: llvm.func @_mlir_ciface_pipeline(
