# The pipeline's function is compiled once: it is noinline, so neither the C-interface wrapper
# (_mlir_ciface_pipeline) nor the packed wrappers the ExecutionEngine adds to every external function inline a
# copy of its body (LLVM used to optimize and generate it up to four times). See codegen/lowering.py
# compile_body_once.
#
# RUN: env HL_NUM_THREADS=1 %python %s lowered | FileCheck %s
# RUN: env HL_NUM_THREADS=2 %python %s lowered | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((8, 64), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] * 2.0 + 1.0
out.vectorize(x, 16).parallel(y)
emit(out, [64, 8])

# CHECK-LABEL: llvm.func @pipeline(
# CHECK-SAME:    attributes {{{.*}}no_inline
# CHECK-LABEL: llvm.func @_mlir_ciface_pipeline(
# CHECK-NOT:     no_inline
# CHECK:         llvm.call @pipeline(
