# A blur whose blur_x is computed at the GPU block loop (Halide's compute_at(blur_y, xo) with gpu_threads(x, y)):
# the payload spells out the blocks as one scf.forall with #gpu.block mappings and computes blur_x's 10x32 tile
# into a tensor in workgroup memory; the PTX declares one .shared array of 10*32 floats, stores it once per thread,
# synchronizes once, and blur_y reads its three taps from shared memory.
#
# RUN: env HL_JIT_TARGET=host-cuda-cuda_capability_90 %python %s payload | FileCheck %s --check-prefix=PAYLOAD
# RUN: env HL_JIT_TARGET=host-cuda-cuda_capability_90 %python %s ptx | FileCheck %s --check-prefix=PTX

import sys

import numpy as np

import halide_mlir as hl
from halide_mlir.driver import stages

x, y, xo, yo, xi, yi = hl.vars("x y xo yo xi yi")
inp = hl.Buffer(np.zeros((66, 130), dtype=np.float32), name="input")
bx, by = hl.Func("blur_x"), hl.Func("blur_y")
bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
by.gpu_tile(x, y, xo, yo, xi, yi, 32, 8)
bx.compute_at(by, xo).gpu_threads(x, y)
print(stages(by, [128, 64]).text(sys.argv[1]))

# PAYLOAD:     scf.forall (%{{.+}}, %{{.+}}) in (8, 4)
# PAYLOAD:     bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<10x32xf32>
# PAYLOAD:     hl.func = "blur_x"
# PAYLOAD:     hl.func = "blur_y"
# PAYLOAD:     mapping = [#gpu.block<y>, #gpu.block<x>]{{.*}}hl.kernel = "kernel_blur_y"

# PTX:      .target sm_90
# PTX:      .entry kernel_blur_y(
# PTX:      .maxntid 32, 10, 1
# PTX:      .shared .align 4 .b8 [[SMEM:.+]][1280];
# PTX-COUNT-3: ld.global.b32
# PTX:      st.shared.b32
# PTX-NEXT: bar.sync 0;
# PTX-NOT:  bar.sync
# PTX-COUNT-3: ld.shared.b32
# PTX:      st.global.b32
# PTX-NOT:  bar.sync
# PTX:      ret;
