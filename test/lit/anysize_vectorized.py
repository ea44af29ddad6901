# AOT functions for any size are vectorized as scheduled, never left scalar: each vectorized loop is peeled, full
# vectors unmasked then one masked vector for the runtime tail (vector.create_mask of the tile's dynamic extent);
# boundary conditions are partitioned as Halide partitions loops: an interior of plain vector loads, rows above
# and below read through gathers, and the edge columns (a few per row) scalar; unrolled loops are unrolled (an
# epilogue loop for the runtime tail); a Func with no schedule is auto-vectorized. In LLVM IR: plain vector
# loads/stores in the main loops, llvm.masked.* in the tails.
#
# RUN: %python %s brighten | FileCheck %s --check-prefix=BRIGHTEN
# RUN: %python %s tiled | FileCheck %s --check-prefix=TILED
# RUN: %python %s clamped | FileCheck %s --check-prefix=CLAMPED
# RUN: %python %s update | FileCheck %s --check-prefix=UPDATE
#
# brighter[x, y] = input[x, y] + offset, vectorize(x, 16).parallel(y) (lesson 10)
# BRIGHTEN: scf.forall
# BRIGHTEN: scf.for %{{.*}} = %c0 to %[[SPLIT:.*]] step %c16 {
# BRIGHTEN: vector.transfer_read {{.*}} {in_bounds = [true, true]} : memref<1x16xi8, strided<[?, 1], offset: ?>>, vector<1x16xi8>
# BRIGHTEN: vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<1x16xi8>, memref<1x16xi8
# BRIGHTEN: scf.for %{{.*}} = %[[SPLIT]] to %{{.*}} step %c16 {
# BRIGHTEN: %[[M:.*]] = vector.create_mask %c1, %{{.*}} : vector<1x16xi1>
# BRIGHTEN: vector.transfer_read %{{.*}}, %[[M]] {in_bounds = [true, true]} : memref<1x?xi8, strided<[?, 1], offset: ?>>, vector<1x16xi8>
# BRIGHTEN: vector.transfer_write %{{.*}}, %[[M]] {in_bounds = [true, true]} : vector<1x16xi8>
# BRIGHTEN-NOT: memref.load
# BRIGHTEN-LABEL: define void @__hl_brighten_any_kernel(
# BRIGHTEN-DAG: load <16 x i8>
# BRIGHTEN-DAG: store <16 x i8>
# BRIGHTEN-DAG: @llvm.masked.load.v16i8
# BRIGHTEN-DAG: @llvm.masked.store.v16i8
#
# tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 8).unroll(yi).parallel(yo); g (compute_root, no schedule)
# auto-vectorized (16 lanes of f32)
# TILED: vector.transfer_write {{.*}} : vector<1x16xf32>, memref<1x16xf32
# TILED: vector.transfer_write {{.*}} : vector<1x16xf32>, memref<1x?xf32
# TILED: scf.forall
# TILED: scf.for %{{.*}} step %c4 {
# TILED-COUNT-4: vector.transfer_write {{.*}} : vector<1x8xf32>, memref<1x?xf32
# TILED: } {hl.unroll = 0 : i64
# TILED-NOT: memref.load
# TILED-LABEL: define void @__hl_tiled_any_kernel(
# TILED-DAG: load <16 x float>
# TILED-DAG: load <8 x float>
# TILED-DAG: @llvm.masked.load.v8f32
#
# f(x, y) += input(x + r.x, y + r.y) * (r.x + 2 r.y) over a 3x2 RDom, update().vectorize(x, 16).parallel(y): the
# RDom unrolled in the element body (6 slices of the input and f's value so far), vectorized and peeled like a
# pure stage
# UPDATE: scf.forall
# UPDATE: scf.for %{{.*}} step %c16 {
# UPDATE-COUNT-7: vector.transfer_read {{.*}} : memref<1x16xf32, strided<[?, 1], offset: ?>>, vector<1x16xf32>
# UPDATE: vector.transfer_write {{.*}} : vector<1x16xf32>, memref<1x16xf32
# UPDATE: vector.create_mask
# UPDATE-NOT: memref.load
# UPDATE-LABEL: define void @__hl_update_any_kernel(
# UPDATE-DAG: load <16 x float>
# UPDATE-DAG: @llvm.masked.load.v16f32
#
# repeat_edge, inlined: the rows above and below the interior through gathers, the interior plain vector loads
# (its tail masked), the edge columns scalar
# CLAMPED-COUNT-2: vector.gather {{.*}} : memref<?x?xi16, strided<[?, 1], offset: ?>>, vector<1x16xindex>, vector<1x16xi1>, vector<1x16xi16> into vector<1x16xi16>
# CLAMPED: memref.load %arg0
# CLAMPED: vector.transfer_read {{.*}} : memref<1x16xi16, strided<[?, 1], offset: ?>>, vector<1x16xi16>
# CLAMPED: vector.transfer_read {{.*}} : memref<1x16xi16, strided<[?, 1], offset: ?>>, vector<1x16xi16>
# CLAMPED: vector.transfer_write
# CLAMPED: vector.create_mask
# CLAMPED: vector.transfer_read
# CLAMPED-LABEL: define void @__hl_clamped_any_kernel(
# CLAMPED-DAG: @llvm.masked.gather.v16i16
# CLAMPED-DAG: load <16 x i16>

import sys

import halide_mlir as hl
from halide_mlir.aot.anysize import compile_any_size
from halide_mlir.aot.build import parse_target

case = sys.argv[1]
x, y, xo, yo, xi, yi = (hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi"))
if case == "brighten":
    inp, off = hl.ImageParam(hl.UInt(8), 2, "input"), hl.Param(hl.UInt(8), "offset")
    f = hl.Func("brighter")
    f[x, y] = inp[x, y] + off
    f.vectorize(x, 16).parallel(y)
    args = [inp, off]
elif case == "update":
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    r = hl.RDom([(-1, 3), (0, 2)], "r")
    f = hl.Func("f")
    f[x, y] = 0.0
    f[x, y] += inp[x + r.x, y + r.y] * hl.f32(r.x + 2 * r.y)
    f.update().vectorize(x, 16).parallel(y)
    args = [inp]
elif case == "tiled":
    inp = hl.ImageParam(hl.Float(32), 2, "input")
    g, f = hl.Func("g"), hl.Func("f")
    g[x, y] = inp[x - 1, y] * 2 + inp[x + 2, y + 1]
    f[x, y] = g[x, y] - g[x + 1, y - 1]
    g.compute_root()
    f.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 8).unroll(yi).parallel(yo)
    args = [inp]
else:
    inp = hl.ImageParam(hl.UInt(16), 2, "input")
    c = hl.BoundaryConditions.repeat_edge(inp)
    f = hl.Func("f")
    f[x, y] = c[x - 1, y] + c[x + 1, y + 1]
    f.vectorize(x, 16)
    args = [inp]
k = compile_any_size(f, args, case, parse_target("host"))
print(k.stmt())
print(k.llvm_ir)
