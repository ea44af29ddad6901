# compile_to_c (halide_mlir/aot/c_source.py): C from MLIR's EmitC. A producer computed per row of its consumer
# (compute_at y): its buffer is a C array on the stack (EmitC's integers are signless: int16_t), its row filled
# in the consumer's y loop; the consumer reads it at x, x+1, x+2 (subviews folded into the subscripts); the
# vectorize(x, 8) runs as a scalar loop of 8 (a CSourceWarning says so). The buffers are pointers to their rows,
# __restrict (Halide's buffers don't alias). Then the adapter from the wrapper's memref descriptors (the aligned
# pointer is field 1, cast for C++) and the function with Halide's C ABI.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t/blur.c 2>&1 | FileCheck %s --check-prefix=WARN
# RUN: FileCheck %s < %t/blur.c
#
# WARN: CSourceWarning: {{.*}} runs vectorize loops as serial scalar loops
#
# CHECK: static void __hl_blur_scalar(int16_t (*__restrict [[IN:v[0-9]+]])[34], int16_t (*__restrict [[OUT:v[0-9]+]])[32]) {
# CHECK: int16_t [[ROW:v[0-9]+]][16][34];
# CHECK: for (size_t [[Y:[a-z][0-9]+]] = {{.*}} < (16);
# CHECK: [[IN]][[[YY:v[0-9]+]]][[[X:[a-z][0-9]+]]];
# CHECK-NEXT: [[ROW]][[[YY]]][[[X]]] =
# CHECK: for (size_t [[XO:[a-z][0-9]+]] = {{.*}} < (32);
# CHECK-NEXT: for (size_t [[XI:[a-z][0-9]+]] = {{.*}} < [[EIGHT:v[0-9]+]];
# CHECK: [[OUT]][[[YY]]][{{v[0-9]+}}] =
# CHECK: void __hl_blur_kernel_ciface(void *in0, void *out0) {
# CHECK-NEXT: __hl_blur_scalar((int16_t (*)[34])((void **)in0)[1], (int16_t (*)[32])((void **)out0)[1]);
# CHECK: int blur(struct halide_buffer_t *_input_buffer, struct halide_buffer_t *_blur_buffer) {
# CHECK-NOT: #include "blur.h"

import sys
import warnings

import halide_mlir as hl

warnings.simplefilter("always")
warnings.showwarning = lambda m, c, f, l, file=None, line=None: print(f"{c.__name__}: {m}")
x, y = hl.Var("x"), hl.Var("y")
inp = hl.ImageParam(hl.UInt(16), 2, "input")
bx, blur = hl.Func("bx"), hl.Func("blur")
bx[x, y] = inp[x, y] * 2
blur[x, y] = (bx[x, y] + bx[x + 1, y] + bx[x + 2, y]) / 3
blur.vectorize(x, 8)
bx.compute_at(blur, y)
blur.set_estimates([(0, 32), (0, 16)])
inp.set_estimates([(0, 34), (0, 16)])
blur.compile_to_c(sys.argv[1], [inp], "blur")
