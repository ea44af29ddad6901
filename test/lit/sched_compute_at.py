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

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
import halide_mlir as hl  # noqa: E402
from hl_stage import emit  # noqa: E402

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((18, 66), dtype=np.float32), name="input")
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]
by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
by.tile(x, y, xo, yo, xi, yi, 32, 8)
bx.compute_at(by, xo)
emit(by, [64, 16])

# SCRIPT-LABEL: transform.named_sequence @__transform_main(
# SCRIPT:         %[[BY:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "by"}
# SCRIPT:         %[[T1:[A-Za-z0-9_]+]], %{{[A-Za-z0-9_]+}} = transform.structured.tile_using_for %[[BY]] tile_sizes [8, 0]
# SCRIPT:         %{{[A-Za-z0-9_]+}}, %[[XO:[A-Za-z0-9_]+]] = transform.structured.tile_using_for %[[T1]] tile_sizes [0, 32]
# SCRIPT:         %[[BX:[A-Za-z0-9_]+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "bx"}
# SCRIPT:         transform.structured.fuse_into_containing_op %[[BX]] into %[[XO]]

# CHECK-LABEL: func.func @pipeline
# CHECK-DAG:     %[[C8:[A-Za-z0-9_]+]] = arith.constant 8 : index
# CHECK-DAG:     %[[C16:[A-Za-z0-9_]+]] = arith.constant 16 : index
# CHECK-DAG:     %[[C32:[A-Za-z0-9_]+]] = arith.constant 32 : index
# CHECK-DAG:     %[[C64:[A-Za-z0-9_]+]] = arith.constant 64 : index
# CHECK-NOT:     hl.func = "bx"
# CHECK:         scf.for %[[YO:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C16]] step %[[C8]]
# CHECK-NOT:       hl.func = "bx"
# CHECK:           scf.for %[[XO:[A-Za-z0-9_]+]] = %{{[A-Za-z0-9_]+}} to %[[C64]] step %[[C32]]
# the producer, inside the consumer's xo loop, on 32-column tiles
# CHECK:             scf.for {{.*}} -> (tensor<{{[0-9]+}}x32xf32>)
# CHECK:               linalg.generic {{.*}}hl.func = "bx"
# then the consumer's yi, xi loops over its 8x32 tile
# CHECK:             scf.for {{.*}} -> (tensor<8x32xf32>)
# CHECK:               scf.for {{.*}} -> (tensor<1x32xf32>)
# CHECK:                 linalg.generic {{.*}}hl.func = "by"
# CHECK:         bufferization.materialize_in_destination
