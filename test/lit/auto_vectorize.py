# Auto-vectorization (analysis/vectorize.py): a Func the user did not vectorize is vectorized along x, with
# the SIMD width chosen per kernel from its varying types. A u8 kernel that widens to u16 fills 512-bit
# registers at every step (64 lanes: one zmm of u8, two of u16); an f32 kernel takes 16 lanes; an f64 kernel
# fed by u8 gives its f64 values four registers (32 lanes). Uniform work (a Param expression) is scalar and
# hoisted out of the loops; selects stay vector selects. HALIDE_MLIR_AUTO_VECTORIZE=0 leaves code scalar.
#
# RUN: %python %s scheduled u8 | FileCheck %s --check-prefix=U8
# RUN: %python %s scheduled f64 | FileCheck %s --check-prefix=F64
# RUN: %python %s scheduled uniform | FileCheck %s --check-prefix=UNIFORM
# RUN: %python %s lowered uniform | FileCheck %s --check-prefix=HOISTED
# RUN: env HALIDE_MLIR_AUTO_VECTORIZE=0 %python %s scheduled u8 | FileCheck %s --check-prefix=OFF

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

kind = sys.argv[2]
x, y = hl.Var("x"), hl.Var("y")
if kind == "u8":
    inp = hl.Buffer(np.zeros((64, 200), dtype=np.uint8), name="input")
    out = hl.Func("blur_u8")
    out[x, y] = hl.u8((hl.u16(inp[x, y]) + hl.u16(inp[x + 1, y]) * 2 + hl.u16(inp[x + 2, y])) // 4)
    emit(out, [198, 64])
elif kind == "f64":
    inp = hl.Buffer(np.zeros((8, 100), dtype=np.uint8), name="input")
    out = hl.Func("to_f64")
    out[x, y] = hl.f64(inp[x, y]) * 0.5
    emit(out, [100, 8])
else:
    inp = hl.Buffer(np.zeros((64, 200), dtype=np.float32), name="input")
    gain = hl.Param(hl.Float(32), "gain", 1.5)
    out = hl.Func("scaled")
    out[x, y] = hl.select(inp[x, y] > 0.5, inp[x, y] * (gain * gain + 1.0), 0.0)
    emit(out, [200, 64])

# U8-LABEL: func.func @pipeline
# U8:         vector.transfer_read {{.*}} : tensor<1x?xi8>, vector<1x64xi8>
# U8:         arith.extui {{.*}} : vector<1x64xi8> to vector<1x64xi16>
# U8:         arith.addi {{.*}} : vector<1x64xi16>
# U8:         arith.trunci {{.*}} : vector<1x64xi16> to vector<1x64xi8>
# U8:         vector.transfer_write {{.*}} : vector<1x64xi8>, tensor<1x?xi8>

# F64-LABEL: func.func @pipeline
# F64:         vector.transfer_read {{.*}} vector<1x32xi8>
# F64:         arith.mulf {{.*}} : vector<1x32xf64>

# The Param expression is one scalar multiply-add, broadcast once; the data path is 16 lanes of f32.
# UNIFORM-LABEL: func.func @pipeline
# UNIFORM:         arith.cmpf ogt, {{.*}} : vector<1x16xf32>
# UNIFORM:         %[[G:.+]] = arith.mulf %arg1, %arg1 {{.*}} : f32
# UNIFORM:         %[[G1:.+]] = arith.addf %[[G]], {{.*}} : f32
# UNIFORM:         vector.broadcast %[[G1]] : f32 to vector<1x16xf32>
# UNIFORM:         arith.mulf {{.*}} : vector<1x16xf32>
# UNIFORM:         arith.select {{.*}} : vector<1x16xi1>, vector<1x16xf32>

# ... and LICM takes it out of the loops: it comes before the first loop header.
# HOISTED-LABEL: llvm.func @pipeline(
# HOISTED:         llvm.fmul %arg7, %arg7 {{.*}} : f32
# HOISTED:         llvm.br ^bb1
# HOISTED:       ^bb1(
# HOISTED:         llvm.fmul {{.*}} : vector<16xf32>

# OFF-LABEL: func.func @pipeline
# OFF-NOT:     vector<
# OFF:         return
