# AOT functions for any size are vectorized as scheduled, never left scalar: each vectorized loop is a masked
# vector load/store (the runtime tail masked, vector.create_mask of the tile's dynamic extent), boundary
# conditions' clamped reads are masked gathers, unrolled loops are unrolled (with an epilogue loop for the runtime
# tail), a Func with no schedule is auto-vectorized; in LLVM IR the loads and stores are llvm.masked.*.
#
# RUN: %python %s brighten | FileCheck %s --check-prefix=BRIGHTEN
# RUN: %python %s tiled | FileCheck %s --check-prefix=TILED
# RUN: %python %s clamped | FileCheck %s --check-prefix=CLAMPED
#
# brighter[x, y] = input[x, y] + offset, vectorize(x, 16).parallel(y) (lesson 10)
# BRIGHTEN: scf.forall
# BRIGHTEN: scf.for %{{.*}} step %c16
# BRIGHTEN: %[[M:.*]] = vector.create_mask %c1, %{{.*}} : vector<1x16xi1>
# BRIGHTEN: vector.transfer_read %{{.*}}, %[[M]] {in_bounds = [true, true]} : memref<1x?xi8, strided<[?, 1], offset: ?>>, vector<1x16xi8>
# BRIGHTEN: vector.transfer_write %{{.*}}, %[[M]] {in_bounds = [true, true]} : vector<1x16xi8>
# BRIGHTEN-NOT: memref.load
# BRIGHTEN-LABEL: define void @__hl_brighten_any_kernel(
# BRIGHTEN: @llvm.masked.load.v16i8
# BRIGHTEN: @llvm.masked.store.v16i8
#
# tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 8).unroll(yi).parallel(yo); g (compute_root, no schedule)
# auto-vectorized
# TILED: vector.transfer_read {{.*}} vector<1x16xf32>
# TILED: scf.forall
# TILED: scf.for %{{.*}} step %c4 {
# TILED-COUNT-4: vector.transfer_write {{.*}} vector<1x8xf32>
# TILED: } {hl.unroll = 0 : i64
# TILED-NOT: memref.load
# TILED-LABEL: define void @__hl_tiled_any_kernel(
# TILED: @llvm.masked.load.v16f32
# TILED: @llvm.masked.load.v8f32
#
# repeat_edge, inlined: clamped coordinates read through masked gathers
# CLAMPED: arith.minsi {{.*}} : vector<16xi32>
# CLAMPED: vector.gather {{.*}} : memref<?x?xi16, strided<[?, 1], offset: ?>>, vector<1x16xindex>, vector<1x16xi1>, vector<1x16xi16> into vector<1x16xi16>
# CLAMPED: vector.transfer_write {{.*}} vector<1x16xi16>
# CLAMPED-NOT: memref.load
# CLAMPED-LABEL: define void @__hl_clamped_any_kernel(
# CLAMPED: @llvm.masked.gather.v16i16

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
