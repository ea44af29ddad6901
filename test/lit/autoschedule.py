# The built-in autoscheduler (Pipeline.apply_autoscheduler, autotune/autoschedule.py) on a separable blur:
# the 3-tap producer is stored (inlining would compute it three times), per 256x32 tile of its only consumer
# (tiled fusion: the tile rows are one scf.forall, the producer is fused into the tile loop), and both
# vectorize x at 16 lanes of f32 -- the script shows it.
#
# RUN: %python %s transform | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((64, 130), dtype=np.float32), name="input")
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
hl.Pipeline(by).apply_autoscheduler(hl.get_host_target(), hl.AutoschedulerParams("Mullapudi2016"))
emit(by, [128, 62])

# CHECK-LABEL: transform.named_sequence @__transform_main(
# CHECK:         %[[YO:.+]] = transform.structured.match ops{["scf.forall"]} attributes {hl.loop = "by.s0.yo"}
# CHECK:         %[[XO:.+]] = transform.structured.match ops{["scf.for"]} attributes {hl.loop = "by.s0.xo"}
# CHECK:         %[[BX:.+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "bx"}
# CHECK-NEXT:    %[[FUSED:.+]], %{{.+}} = transform.structured.fuse_into_containing_op %[[BX]] into %[[XO]]
# CHECK:         %[[BY:.+]] = transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "by"}
# CHECK-NEXT:    %[[T1:.+]], %{{.+}} = transform.structured.tile_using_for %[[BY]] tile_sizes [1, 0]
# CHECK-NEXT:    %[[T2:.+]], %{{.+}} = transform.structured.tile_using_for %[[T1]] tile_sizes [0, 16]
# CHECK-NEXT:    transform.structured.vectorize %[[T2]] vector_sizes [1, 16]
# CHECK-NEXT:    %[[U1:.+]], %{{.+}} = transform.structured.tile_using_for %[[FUSED]] tile_sizes [1, 0]
# CHECK-NEXT:    %[[U2:.+]], %{{.+}} = transform.structured.tile_using_for %[[U1]] tile_sizes [0, 16]
# CHECK-NEXT:    transform.structured.vectorize %[[U2]] vector_sizes [1, 16]
