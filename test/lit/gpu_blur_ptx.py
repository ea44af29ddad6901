# A blur with Halide's gpu_tile(x, y, xo, yo, xi, yi, 32, 8) on a CUDA target: one kernel, blocks then threads as
# two tile_using_forall ops with #gpu.block / #gpu.thread mappings, each block forall its own gpu.launch; the PTX
# takes the input and the output as bare pointers, reads 9 taps from global memory, stores once, no barriers.
#
# RUN: env HL_JIT_TARGET=host-cuda-cuda_capability_90 %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: env HL_JIT_TARGET=host-cuda-cuda_capability_90 %python %s ptx | FileCheck %s --check-prefix=PTX --implicit-check-not=bar.sync

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
print(stages(by, [128, 64]).text(sys.argv[1]))

# SCRIPT-LABEL: transform.named_sequence @__transform_main
# SCRIPT:         %[[S:.+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "blur_y"}
# SCRIPT:         %[[T:.+]], %[[B:.+]] = transform.structured.tile_using_forall %[[S]] tile_sizes [8, 32] (mapping = [#gpu.block<y>, #gpu.block<x>])
# SCRIPT:         transform.structured.tile_using_forall %[[T]] num_threads [8, 32] (mapping = [#gpu.thread<y>, #gpu.thread<x>])
# SCRIPT:         transform.annotate %[[B]] "hl.kernel"
# SCRIPT-LABEL: transform.named_sequence @halide_gpu_map
# SCRIPT:         %[[F:.+]] = transform.structured.match ops{["scf.forall"]} attributes {hl.kernel = "kernel_blur_y"}
# SCRIPT:         %[[L:.+]] = transform.gpu.map_forall_to_blocks %[[F]] generate_gpu_launch
# SCRIPT:         transform.gpu.map_nested_forall_to_threads %[[L]] block_dims = [32, 8, 1] sync_after_distribute = false

# PTX:      .target sm_90
# PTX:      .entry kernel_blur_y(
# PTX-NEXT:   .param .u64 .ptr .align 1 kernel_blur_y_param_0,
# PTX-NEXT:   .param .u64 .ptr .align 1 kernel_blur_y_param_1
# PTX-NEXT: )
# PTX-NEXT: .maxntid 32, 8, 1
# PTX-COUNT-9: ld.global.b32
# PTX:      st.global.b32
# PTX-NOT:  st.global
# PTX:      ret;
