# store_in(MemoryType) on a CPU stage decides where the producer's buffer lives (analysis/store_in.py,
# codegen/store_in.py), as Halide 21's CodeGen_CPU does: Heap is a malloc/free pair even for a small buffer
# (Auto puts it on the stack), Stack and Register an alloca even beyond the automatic limit (64 KiB: Auto puts
# f's 258x81 f32 = 81.6 KiB on the heap). No parallel loop: the stack slot is at the top of @pipeline.
#
# RUN: %python %s lowered Auto 32 | FileCheck %s --check-prefix=AUTO-SMALL --implicit-check-not='llvm.call @malloc'
# RUN: %python %s lowered Heap 32 | FileCheck %s --check-prefix=HEAP-SMALL --implicit-check-not='llvm.alloca'
# RUN: %python %s lowered Auto 256 | FileCheck %s --check-prefix=AUTO-BIG --implicit-check-not='llvm.alloca'
# RUN: %python %s lowered Stack 256 | FileCheck %s --check-prefix=STACK-BIG --implicit-check-not='llvm.call @malloc'
# RUN: %python %s lowered Register 256 | FileCheck %s --check-prefix=STACK-BIG --implicit-check-not='llvm.call @malloc'

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

memory_type, width = sys.argv[2], int(sys.argv[3])
inp = hl.Buffer(np.zeros((84, 264), dtype=np.float32), name="input")
x, y = hl.Var("x"), hl.Var("y")
f, g = hl.Func("f"), hl.Func("g")
f[x, y] = inp[x, y] * 2 + inp[x + 1, y]
g[x, y] = f[x, y] + f[x + 2, y] + f[x, y + 1]
f.compute_root().store_in(getattr(hl.MemoryType, memory_type))
emit(g, [width, 80], sys.argv[1])

# f: 34 x 81 f32 = 2754 elements
# AUTO-SMALL-LABEL: llvm.func @pipeline(
# AUTO-SMALL:       %[[N:[0-9]+]] = llvm.mlir.constant(2754 : index)
# AUTO-SMALL:       llvm.alloca %[[N]] x f32 {alignment = 64 : i64}
# AUTO-SMALL:       llvm.func @_mlir_ciface_pipeline(

# HEAP-SMALL-LABEL: llvm.func @pipeline(
# HEAP-SMALL:       llvm.call @malloc
# HEAP-SMALL:       llvm.call @free
# HEAP-SMALL:       llvm.func @_mlir_ciface_pipeline(

# f: 258 x 81 f32 = 20898 elements
# AUTO-BIG-LABEL:   llvm.func @pipeline(
# AUTO-BIG:         llvm.call @malloc
# AUTO-BIG:         llvm.call @free
# AUTO-BIG:         llvm.func @_mlir_ciface_pipeline(

# STACK-BIG-LABEL:  llvm.func @pipeline(
# STACK-BIG:        %[[N:[0-9]+]] = llvm.mlir.constant(20898 : index)
# STACK-BIG:        llvm.alloca %[[N]] x f32 {alignment = 64 : i64}
# STACK-BIG-NOT:    llvm.alloca
# STACK-BIG:        llvm.func @_mlir_ciface_pipeline(
