# The output Func is computed straight into the caller's output buffer: the payload
# ends in `bufferization.materialize_in_destination %result in restrict writable %out`,
# so bufferization must not allocate a temporary the size of the output and memcpy it
# into %out afterwards (docs/mlir-pitfalls.md#function-boundary). That extra
# pass over the output costs bandwidth on every call of a bandwidth-bound pipeline.
#
# BUFFERIZE in codegen/lowering.py runs `eliminate-empty-tensors` before one-shot-bufferize:
# without it the generic's `tensor.empty()` init becomes a memref.alloc + memref.copy into
# %out (llvm.call @malloc + llvm.intr.memcpy, which the checks below reject;
# docs/mlir-pitfalls.md#empty-tensors).
#
# RUN: %python %s lowered | FileCheck %s --implicit-check-not=malloc --implicit-check-not=memcpy --implicit-check-not=memref.copy

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((8, 64), dtype=np.float32), name="input")
out = hl.Func("out")
out[x, y] = inp[x, y] * 2.0 + 1.0
out.vectorize(x, 16)
emit(out, [64, 8])

# CHECK-LABEL: llvm.func @pipeline(
# CHECK:       llvm.store {{.*}} : vector<16xf32>, !llvm.ptr
# CHECK:       llvm.return
