# A compute_at producer tile inside a parallel loop (the tiled-fusion blur): no malloc/free per tile (issue 6).
# The 34x256 f32 tile of blur_x (34 KiB, under lowering.STACK_LIMIT) becomes one stack slot in the entry block
# of the outlined parallel body, i.e. one per task, reused by that task's tiles; never shared between tasks,
# never an alloca inside a loop (which would grow the stack every iteration).
#
# RUN: env HL_NUM_THREADS=2 %python %s lowered | FileCheck %s --implicit-check-not='llvm.call @malloc'
# RUN: env HL_NUM_THREADS=1 %python %s lowered | FileCheck %s --check-prefix=SERIAL --implicit-check-not='llvm.call @malloc'

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
import halide_mlir as hl  # noqa: E402
from hl_stage import emit  # noqa: E402

inp = hl.Buffer(np.zeros((66, 1026), dtype=np.float32), name="input")
x, y, xo, yo, xi, yi = (hl.Var(n) for n in "x y xo yo xi yi".split())
bx, out = hl.Func("blur_x"), hl.Func("blur_y")
bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
out.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 16).parallel(yo)
bx.compute_at(out, xo).vectorize(x, 16)
emit(out, [1024, 64])

# CHECK-LABEL: llvm.func @parallel_compute_fn(
# CHECK-NOT:   ^bb
# CHECK:       llvm.mlir.constant(8704 : index)
# CHECK-NOT:   ^bb
# CHECK:       llvm.alloca %{{[0-9]+}} x f32 {alignment = 64 : i64}
# CHECK:       ^bb1
# CHECK-NOT:   llvm.alloca
# CHECK:       llvm.func @async_dispatch_fn(

# With one thread the forall becomes a plain loop first, so the tile leaves every loop: one slot in @pipeline.
# SERIAL-LABEL: llvm.func @pipeline(
# SERIAL-NOT:   ^bb
# SERIAL:       llvm.alloca %{{[0-9]+}} x f32 {alignment = 64 : i64}
# SERIAL:       ^bb1
# SERIAL-NOT:   llvm.alloca
# SERIAL:       llvm.func @_mlir_ciface_pipeline(
