# A compute_at producer tile inside a parallel loop (the tiled-fusion blur): no malloc/free per tile (issue 6).
# The 34x256 f32 tile of blur_x (34 KiB, under lowering.STACK_LIMIT) becomes one stack slot at the start of the
# omp.parallel region, before its omp.wsloop: the region is outlined into a function each thread runs once, so
# one slot per thread, reused by that thread's tiles; never shared between threads, never an alloca inside a
# loop (which would grow the stack every iteration). With the async runtime the slot is in the entry block of
# the outlined parallel body, one per task.
#
# RUN: env HL_NUM_THREADS=2 %python %s lowered | FileCheck %s --implicit-check-not='llvm.call @malloc'
# RUN: env HL_NUM_THREADS=2 HALIDE_MLIR_PARALLEL_RUNTIME=async %python %s lowered | FileCheck %s --check-prefix=ASYNC --implicit-check-not='llvm.call @malloc'
# RUN: env HL_NUM_THREADS=1 %python %s lowered | FileCheck %s --check-prefix=SERIAL --implicit-check-not='llvm.call @malloc'

import numpy as np

import halide_mlir as hl
from hl_stage import emit

inp = hl.Buffer(np.zeros((66, 1026), dtype=np.float32), name="input")
x, y, xo, yo, xi, yi = (hl.Var(n) for n in "x y xo yo xi yi".split())
bx, out = hl.Func("blur_x"), hl.Func("blur_y")
bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
out.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 16).parallel(yo)
bx.compute_at(out, xo).vectorize(x, 16)
emit(out, [1024, 64])

# CHECK-LABEL: llvm.func @pipeline(
# CHECK-NOT:   ^bb
# CHECK:       %[[N:[0-9]+]] = llvm.mlir.constant(8704 : index)
# CHECK-NOT:   ^bb
# CHECK:       omp.parallel
# CHECK-NOT:   omp.wsloop
# CHECK:       llvm.alloca %[[N]] x f32 {alignment = 64 : i64}
# CHECK-NEXT:  omp.wsloop
# CHECK-NOT:   llvm.alloca
# CHECK:       llvm.func @_mlir_ciface_pipeline(

# ASYNC-LABEL: llvm.func @parallel_compute_fn(
# ASYNC-NOT:   ^bb
# ASYNC:       llvm.mlir.constant(8704 : index)
# ASYNC-NOT:   ^bb
# ASYNC:       llvm.alloca %{{[0-9]+}} x f32 {alignment = 64 : i64}
# ASYNC:       ^bb1
# ASYNC-NOT:   llvm.alloca
# ASYNC:       llvm.func @async_dispatch_fn(

# With one thread the forall becomes a plain loop first, so the tile leaves every loop: one slot in @pipeline.
# SERIAL-LABEL: llvm.func @pipeline(
# SERIAL-NOT:   ^bb
# SERIAL:       llvm.alloca %{{[0-9]+}} x f32 {alignment = 64 : i64}
# SERIAL:       ^bb1
# SERIAL-NOT:   llvm.alloca
# SERIAL:       llvm.func @_mlir_ciface_pipeline(
