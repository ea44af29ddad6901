# memoize() in ahead-of-time code: the AOT runtime has no memoization cache here, so the memoized Func is an
# ordinary stage of the kernel (computed on every call; the function takes only the output, no cached buffer as
# the JIT's realize binds) and compiling says so with hl.MemoizeWarning, naming the memoize() line.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t/g.ll 2>&1 | FileCheck %s --check-prefix=WARN
# RUN: FileCheck %s --check-prefix=IR < %t/g.ll
#
# WARN: MemoizeWarning: {{.*}}aot_memoize_uncached.py:{{[0-9]+}}: Func 'f' is memoized, but ahead-of-time code has no memoization cache
#
# The kernel's only memref is the output (allocated pointer, aligned pointer, offset, 2 sizes, 2 strides):
# IR: define void @__hl_g_kernel(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6) {{.*}}{

import sys

import halide_mlir as hl

x, y = hl.Var("x"), hl.Var("y")
f, g = hl.Func("f"), hl.Func("g")
f[x, y] = x + y * 3
g[x, y] = f[x, y] * 2 + f[x + 1, y]
f.compute_root().memoize()
g.vectorize(x, 8).parallel(y)
g.set_estimates([(0, 37), (0, 13)])
g.compile_to_llvm_assembly(sys.argv[1], [], "g")
