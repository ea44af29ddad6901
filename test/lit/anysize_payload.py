# An AOT function for any size (halide_mlir/aot/anysize.py): the payload takes the input as a strided memref of
# dynamic shape plus its mins (a crop is passed as it is), the Params, the output's memref and mins; each stage is
# a linalg.generic on tensor<?x?xT> over its region, computed from the output's at run time (bx: one more row
# above and below); reads at var + c are extract_slices at dynamic offsets. bx reads the input through a boundary
# condition, so it is computed in pieces (Halide's loop partitioning), each written into its box of bx's tensor:
# the rows above and below the interior and the edge columns (hl.func_edge) read through clamped tensor.extracts
# (gathers), the interior through slices of the input (the interior's bounds: max/min of the region and the
# input's runtime min/extent shifted by each tap).
#
# RUN: %python %s | FileCheck %s
#
# CHECK: func.func @pipeline(%in0: memref<?x?xi16, strided<[?, 1], offset: ?>>, %in0_min0: index, %in0_min1: index, %p0: i16, %out: memref<?x?xi16, strided<[?, 1], offset: ?>>, %out_min0: index, %out_min1: index)
# CHECK: bufferization.to_tensor %in0 restrict
# CHECK: %[[EXT:.*]] = memref.dim %out, %{{.*}}
# CHECK: %[[INIT:.*]] = tensor.empty(%{{.*}}, %[[EXT]]) : tensor<?x?xi16>
# CHECK: arith.maxsi %out_min0, %{{.*}} : index
# CHECK: %[[DST:.*]] = tensor.extract_slice %[[INIT]][%{{.*}}, %{{.*}}] [%{{.*}}, %[[EXT]]] [1, 1]
# CHECK: linalg.generic
# CHECK-SAME: outs(%[[DST]] : tensor<?x?xi16>) attrs = {hl.func = "bx", hl.any_size}
# CHECK: arith.maxsi
# CHECK: tensor.extract %input{{[0-9]+}}[%{{.*}}, %{{.*}}] : tensor<?x?xi16>
# CHECK: tensor.insert_slice %{{.*}} into %[[INIT]]
# CHECK: attrs = {hl.func_edge = "bx", hl.any_size}
# CHECK: tensor.extract %input
# CHECK: %[[S0:.*]] = tensor.extract_slice %input{{[0-9]+}}[%{{.*}}, %{{.*}}] [%{{.*}}, %{{.*}}] [1, 1] : tensor<?x?xi16> to tensor<?x?xi16>
# CHECK-COUNT-2: tensor.extract_slice %input
# CHECK: linalg.generic
# CHECK-SAME: ins(%[[S0]], %{{.*}}, %{{.*}} : tensor<?x?xi16>, tensor<?x?xi16>, tensor<?x?xi16>)
# CHECK-SAME: attrs = {hl.func = "bx", hl.any_size}
# CHECK-NOT: tensor.extract %
# CHECK: %[[BX:.*]] = tensor.insert_slice
# CHECK: tensor.extract_slice %[[BX]]
# CHECK: linalg.generic
# CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?xi16>, tensor<?x?xi16>, tensor<?x?xi16>)
# CHECK-SAME: attrs = {hl.func = "by", hl.any_size}
# CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %out
#
# The script: by's loops (split y by 8, parallel; x vectorized by 16) and bx's, tiled by their strides, the
# loop of vectors peeled, then vectorized with explicit sizes (the runtime tails masked); bx's edge columns
# scalar.
# CHECK-LABEL: @__transform_main
# CHECK: tile_using_forall %{{.*}} tile_sizes [8, 0]
# CHECK: tile_using_for %{{.*}} tile_sizes [1, 0]
# CHECK: tile_using_for %{{.*}} tile_sizes [0, 16]
# CHECK: transform.loop.peel
# CHECK: transform.structured.vectorize %{{.*}} vector_sizes [1, 16]
# CHECK: attributes {hl.func = "bx"}
# CHECK: tile_using_forall %{{.*}} tile_sizes [1, 0]
# CHECK: transform.structured.vectorize %{{.*}} vector_sizes [1, 16]
# CHECK: attributes {hl.func_edge = "bx"}
# CHECK: tile_using_for %{{.*}} tile_sizes [1, 1]

import halide_mlir as hl
from halide_mlir.aot.anysize import compile_any_size
from halide_mlir.aot.build import parse_target

x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
inp = hl.ImageParam(hl.UInt(16), 2, "input")
bias = hl.Param(hl.UInt(16), "bias")
c = hl.BoundaryConditions.repeat_edge(inp)
bx, by = hl.Func("bx"), hl.Func("by")
bx[x, y] = (c[x - 1, y] + c[x, y] + c[x + 1, y]) // 3
by[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) // 3 + bias
bx.compute_root().vectorize(x, 16).parallel(y)
by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 16)
k = compile_any_size(by, [inp, bias], "blur", parse_target("host"))
print(k.payload)
print(k.transform)
