# After bufferization and lowering to the LLVM dialect (compile_to_lowered_mlir), a
# vectorized stage computes on whole LLVM vectors of the scheduled width:
#   f32, vectorize(x, 16) -> llvm.load/llvm.fmul/llvm.fadd/llvm.store on vector<16xf32>
#   u8,  vectorize(x, 64) -> llvm.load/llvm.add/llvm.store on vector<64xi8>
# and no scalar arithmetic of the element type is left anywhere.
#
# RUN: %python %s lowered f32 | FileCheck %s --check-prefix=F32 --implicit-check-not='{{llvm.f(add|mul) .* : f32$}}'
# RUN: %python %s lowered u8 | FileCheck %s --check-prefix=U8 --implicit-check-not='{{llvm.add .* : i8$}}'

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
out = hl.Func("out")
if sys.argv[2] == "f32":
    inp = hl.Buffer(np.zeros((8, 64), dtype=np.float32), name="input")
    out[x, y] = inp[x, y] * 2.0 + 1.0
    out.vectorize(x, 16)
else:
    inp = hl.Buffer(np.zeros((8, 128), dtype=np.uint8), name="input")
    out[x, y] = inp[x, y] + hl.u8(3)
    out.vectorize(x, 64)
emit(out, [inp.width(), inp.height()])

# F32-LABEL: llvm.func @pipeline(
# F32:       %[[L:[A-Za-z0-9_]+]] = llvm.load {{.*}} -> vector<16xf32>
# F32:       %[[M:[A-Za-z0-9_]+]] = llvm.fmul %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}{{.*}}: vector<16xf32>
# F32:       %[[A:[A-Za-z0-9_]+]] = llvm.fadd %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}}{{.*}}: vector<16xf32>
# F32:       llvm.store {{.*}} : vector<16xf32>, !llvm.ptr
# F32:       llvm.return
# F32-LABEL: llvm.func @_mlir_ciface_pipeline(

# U8-LABEL:  llvm.func @pipeline(
# U8:        %[[L:[A-Za-z0-9_]+]] = llvm.load {{.*}} -> vector<64xi8>
# U8:        %[[A:[A-Za-z0-9_]+]] = llvm.add %{{[A-Za-z0-9_]+}}, %{{[A-Za-z0-9_]+}} : vector<64xi8>
# U8:        llvm.store {{.*}} : vector<64xi8>, !llvm.ptr
# U8:        llvm.return
# U8-LABEL:  llvm.func @_mlir_ciface_pipeline(
