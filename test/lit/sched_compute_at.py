# Tiled fusion: by.tile(x, y, xo, yo, xi, yi, 32, 8); bx.compute_at(by, xo). The script tiles the consumer
# to its xo loop and then moves the producer into that loop with fuse_into_containing_op; in the scheduled
# IR the producer's generic sits inside the consumer's (yo, xo) loops and computes 32-column tiles there,
# before the consumer's own yi/xi loops. The script is also run by the real mlir-opt (preloaded as a
# library) and must give the same IR as halide_mlir's in-process interpreter.
# (How many producer tiles per consumer tile, and their height, is pinned by sched_compute_at_one_tile.py.)
#
# RUN: %python %s transform > %t.transform.mlir
# RUN: FileCheck %s --check-prefix=SCRIPT --input-file=%t.transform.mlir
# RUN: %python %s payload > %t.payload.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: FileCheck %s --input-file=%t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: FileCheck %s --input-file=%t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import numpy as np

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)  # this test pins the scalar loops of the schedule, as Halide runs them

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((18, 66), dtype=np.float32), name="input")
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
by.tile(x, y, xo, yo, xi, yi, 32, 8)
bx.compute_at(by, xo)
emit(by, [64, 16])

# The payload spells out the consumer's yo, xo loops (analysis/tiling.py) with ONE slice of bx per xo
# iteration; the script finds them by their hl.loop attribute and fuses bx there: one 10x32 bx tile (8 rows
# plus the 2-row halo) per 8x32 consumer tile.
# SCRIPT-LABEL: transform.named_sequence @__transform_main(
# SCRIPT:         %[[XO:[A-Za-z0-9_]+]] = transform.structured.match ops{["scf.for"]} attributes {hl.loop = "by.s0.xo"}
# SCRIPT:         %[[BX:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "bx"}
# SCRIPT:         transform.structured.fuse_into_containing_op %[[BX]] into %[[XO]]
# SCRIPT:         %[[BY:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "by"}
# SCRIPT:         transform.structured.tile_using_for %[[BY]] tile_sizes [1, 0]

# CHECK-LABEL: func.func @pipeline
# CHECK-NOT:     hl.func = "bx"
# CHECK:         scf.for {{.*}} -> (tensor<16x64xf32>)
# CHECK-NOT:       hl.func = "bx"
# CHECK:           scf.for {{.*}} -> (tensor<8x64xf32>)
# the producer, inside the consumer's xo loop: one 10x32 tile
# CHECK:             linalg.generic {{.*}}hl.func = "bx"
# CHECK:             -> tensor<10x32xf32>
# CHECK-NOT:         hl.func = "bx"
# then the consumer's yi, xi loops over its 8x32 tile
# CHECK:             scf.for {{.*}} -> (tensor<8x32xf32>)
# CHECK:               scf.for {{.*}} -> (tensor<1x32xf32>)
# CHECK:                 linalg.generic {{.*}}hl.func = "by"
# CHECK:         bufferization.materialize_in_destination
