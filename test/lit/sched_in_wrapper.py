# ImageParam.in_ staging an input tile: blur.tile(x, y, xo, yo, xi, yi, 32, 8).vectorize(xi, 8) and
# img.in_(blur).compute_at(blur, xo).vectorize(_0, 8). The wrapper is a Func of its own ("img_im_in_blur$0", a
# copy of the input) that the script fuses into blur's xo loop like any producer computed there: one 10x34 tile
# of the input (the 8x32 tile plus its halo) per iteration, copied by 8-lane vectors, then read by blur.
# The script is also run by the real mlir-opt and must give the same IR as the in-process interpreter.
#
# RUN: %python %s transform > %t.transform.mlir
# RUN: FileCheck %s --check-prefix=SCRIPT --input-file=%t.transform.mlir
# RUN: %python %s payload > %t.payload.mlir
# RUN: FileCheck %s --check-prefix=PAYLOAD --input-file=%t.payload.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: FileCheck %s --input-file=%t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)

x, y = hl.Var("x"), hl.Var("y")
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
img = hl.ImageParam(hl.Float(32), 2, "img")
img.set(hl.Buffer(np.zeros((18, 66), dtype=np.float32), name="input"))
blur = hl.Func("blur")
blur[x, y] = img[x, y] + img[x + 1, y] + img[x + 2, y] + img[x, y + 1] + img[x, y + 2]
blur.tile(x, y, xo, yo, xi, yi, 32, 8).vectorize(xi, 8)
img.in_(blur).compute_at(blur, xo).vectorize(hl._0, 8)
emit(blur, [64, 16])

# The wrapper is a plain copy of the input; blur reads the wrapper, not the input.
# PAYLOAD:     linalg.generic {{.*}} ins(%input0 : tensor<18x66xf32>) {{.*}}hl.func = "img_im_in_blur$0"
# PAYLOAD:     scf.for
# PAYLOAD:       scf.for
# PAYLOAD:         tensor.extract_slice %t1[{{.*}}] [10, 34] [1, 1]
# PAYLOAD:         linalg.generic {{.*}}hl.func = "blur"

# SCRIPT-LABEL: transform.named_sequence @__transform_main(
# SCRIPT:         %[[XO:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.loop = "blur.s0.xo"}
# SCRIPT:         %[[W:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "img_im_in_blur$0"}
# SCRIPT:         %[[FUSED:[A-Za-z0-9_]+]], %{{.*}} = transform.structured.fuse_into_containing_op %[[W]] into %[[XO]]
# SCRIPT:         transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "blur"}
# SCRIPT:         transform.structured.vectorize %{{.*}} vector_sizes [1, 8]
# SCRIPT:         %[[T1:[A-Za-z0-9_]+]], %{{.*}} = transform.structured.tile_using_for %[[FUSED]] tile_sizes [1, 0]
# SCRIPT:         %[[T2:[A-Za-z0-9_]+]], %{{.*}} = transform.structured.tile_using_for %[[T1]] tile_sizes [0, 8]
# SCRIPT:         transform.structured.vectorize %[[T2]] vector_sizes [1, 8]

# In the scheduled IR the wrapper's copy sits inside blur's xo loop: 10 rows of 34 in 8-lane vectors (the last
# one masked), then blur's 8x32 tile reads it.
# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.for {{.*}} -> (tensor<16x64xf32>)
# CHECK:           scf.for {{.*}} -> (tensor<8x64xf32>)
# CHECK:             scf.for {{.*}} -> (tensor<10x34xf32>)
# CHECK:               scf.for {{.*}} step %c8 {{.*}} -> (tensor<1x34xf32>)
# CHECK:                 vector.transfer_read {{.*}} : tensor<1x?xf32>, vector<1x8xf32>
# CHECK:             scf.for {{.*}} -> (tensor<8x32xf32>)
# CHECK:               scf.for {{.*}} step %c8 {{.*}} -> (tensor<1x32xf32>)
# CHECK-COUNT-5:           vector.transfer_read {{.*}} : tensor<1x8xf32>, vector<1x8xf32>
# CHECK:           } {hl.loop = "blur.s0.xo"}
