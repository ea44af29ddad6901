# compile_to_c of a pipeline without estimates (halide_mlir/aot/c_source.py on aot/anysize.py's kernel): EmitC has
# no memrefs of run-time shape, so each buffer is a pointer with its offset, sizes and strides (the memref
# descriptor's fields, unpacked by the adapter), each access a subscript at the linear index (signed: strides may
# be negative; the pointers __restrict: Halide's buffers don't alias), and the compute_root producer's buffer of
# run-time size comes from halide_malloc (freed at the end). The loops run to the runtime extents; the
# vectorize(x, 8) is a loop of 8 over the full steps (peeled: a constant extent C compilers vectorize), then one
# of the rest.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t/sh.c 2>&1 | FileCheck %s --check-prefix=WARN
# RUN: FileCheck %s < %t/sh.c
#
# WARN: CSourceWarning: {{.*}} runs vectorize loops as serial scalar loops
#
# CHECK: static void *__hl_c_source_malloc(size_t bytes) {
# CHECK: static void __hl_sh_any_scalar(size_t [[INMIN0:v[0-9]+]], size_t [[INMIN1:v[0-9]+]], int16_t [[P:v[0-9]+]], size_t {{.*}}, int16_t* __restrict [[IN:v[0-9]+]], size_t [[INOFF:v[0-9]+]], size_t [[INW:v[0-9]+]], size_t [[INH:v[0-9]+]], size_t [[INSTRIDE:v[0-9]+]], size_t {{v[0-9]+}}, int16_t* __restrict [[OUT:v[0-9]+]], size_t
# CHECK: void* [[RAW:v[0-9]+]] = __hl_c_source_malloc(
# CHECK-NEXT: int16_t* [[G:v[0-9]+]] = (int16_t*) [[RAW]];
# CHECK: ptrdiff_t [[I:v[0-9]+]] = (ptrdiff_t) (([[INOFF]] + {{.*}} * [[INSTRIDE]]) + {{.*}});
# CHECK-NEXT: int16_t {{v[0-9]+}} = [[IN]][[[I]]];
# CHECK: [[G]][{{v[0-9]+}}] =
# CHECK: size_t [[FULL:v[0-9]+]] = {{.*}} % [[EIGHT:v[0-9]+]]
# CHECK-NEXT: for (size_t [[XO:j[0-9]+]] = {{v[0-9]+}}; [[XO]] < [[FULL]]; [[XO]] += [[EIGHT]]) {
# CHECK-NEXT: for (size_t [[XI:k[0-9]+]] = {{v[0-9]+}}; [[XI]] < [[EIGHT]]; [[XI]] += {{v[0-9]+}}) {
# CHECK: [[OUT]][{{v[0-9]+}}] =
# CHECK: for (size_t [[XT:j[0-9]+]] = [[FULL]];
# CHECK: [[OUT]][{{v[0-9]+}}] =
# CHECK: halide_free(NULL, [[G]]);
# CHECK: void __hl_sh_any_kernel_ciface(int64_t *a0, int64_t a1, int64_t a2, int16_t a3, int64_t *a4, int64_t a5, int64_t a6) {
# CHECK-NEXT: __hl_sh_any_scalar(a1, a2, a3, a5, a6, (int16_t*)(intptr_t)a0[1], a0[2], a0[3], a0[4], a0[5], a0[6], (int16_t*)(intptr_t)a4[1], a4[2], a4[3], a4[4], a4[5], a4[6]);
# CHECK: int sh(struct halide_buffer_t *_input_buffer, int16_t _p, struct halide_buffer_t *_sh_buffer) {

import sys
import warnings

import halide_mlir as hl

warnings.simplefilter("always")
warnings.showwarning = lambda m, c, f, l, file=None, line=None: print(f"{c.__name__}: {m}")
x, y = hl.Var("x"), hl.Var("y")
inp = hl.ImageParam(hl.Int(16), 2, "input")
p = hl.Param(hl.Int(16), "p")
g, sh = hl.Func("g"), hl.Func("sh")
g[x, y] = inp[x, y] * 2
sh[x, y] = g[x, y] + g[x + 1, y + 1] + p
sh.vectorize(x, 8)
g.compute_root()
sh.compile_to_c(sys.argv[1], [inp, p], "sh")
