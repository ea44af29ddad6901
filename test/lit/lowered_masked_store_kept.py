# LLVM 22's X86 backend stores the wide element when a masked store of a truncated vector has a constant
# one-lane mask (llvm/llvm-project#179489): at a one-lane edge tile, `masked.store(trunc <4 x i32> to <4 x i8>)`
# became `vmovd` (4 bytes for 1, the extra 3 in the next row -- another parallel thread's). The lowering gives
# every masked store's value a second use (llvm.fake.use; the DAG only folds a one-use truncate into a store)
# and keeps the function holding it from being inlined (the inliner deletes fake uses).
# See codegen/lowering.py keep_masked_store_values; results: test/python/test_masked_tail_stores.py.
#
# RUN: %python %s lowered | FileCheck %s
# RUN: env HALIDE_MLIR_PARALLEL_RUNTIME=async %python %s lowered | FileCheck %s --check-prefix=ASYNC

import os

import numpy as np

os.environ["HL_NUM_THREADS"] = "2"  # a parallel lowering, whatever the machine
import halide_mlir as hl
from hl_stage import emit

x, y, xo, xii = hl.Var("x"), hl.Var("y"), hl.Var("xo"), hl.Var("xii")
inp = hl.Buffer(np.zeros((30, 45), dtype=np.int16), "input")
f = hl.Func("f")
v = hl.i32(inp[x + 1, y + 1])
f[x, y] = hl.u8(v - hl.abs(v))
f.split(x, xo, xii, 4).parallel(y, 4).vectorize(xii)
emit(f, [37, 23])  # 37 = 9*4 + 1: the last vector has one lane

# With OpenMP the store is in the omp.parallel region of @pipeline (outlined into a function at translation,
# called only through __kmpc_fork_call); @pipeline itself is kept from being inlined into the C wrapper.
# CHECK-LABEL: llvm.func @pipeline(
# CHECK-SAME:    attributes {{{.*}}no_inline
# CHECK:         omp.parallel
# CHECK:         llvm.trunc %{{[0-9]+}} : vector<4xi32> to vector<4xi8>
# The truncated vector reaches the store as the one row of a vector<1x4xi8> (an LLVM array of one vector, the
# 2-D transfer unrolled by convert-vector-to-scf{full-unroll}) that LLVM folds away.
# CHECK:         %[[T:[0-9]+]] = llvm.extractvalue %{{[0-9]+}}[0] : !llvm.array<1 x vector<4xi8>>
# CHECK:         llvm.call_intrinsic "llvm.fake.use"(%[[T]]) : (vector<4xi8>) -> ()
# CHECK-NEXT:    llvm.intr.masked.store %[[T]], {{.*}} : vector<4xi8>, vector<4xi1> into !llvm.ptr
# CHECK:         omp.terminator
# CHECK-LABEL: llvm.func @_mlir_ciface_pipeline(

# ASYNC-LABEL: llvm.func @parallel_compute_fn(
# ASYNC-SAME:    attributes {{{.*}}no_inline
# ASYNC:         llvm.trunc %{{[0-9]+}} : vector<4xi32> to vector<4xi8>
# ASYNC:         %[[T:[0-9]+]] = llvm.extractvalue %{{[0-9]+}}[0] : !llvm.array<1 x vector<4xi8>>
# ASYNC:         llvm.call_intrinsic "llvm.fake.use"(%[[T]]) : (vector<4xi8>) -> ()
# ASYNC-NEXT:    llvm.intr.masked.store %[[T]], {{.*}} : vector<4xi8>, vector<4xi1> into !llvm.ptr
# ASYNC-LABEL: llvm.func @async_dispatch_fn(
