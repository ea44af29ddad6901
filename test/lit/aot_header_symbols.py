# Ahead-of-time compilation (halide_mlir/aot): the header declares the function with Halide's C ABI (a
# halide_buffer_t per buffer, plain C scalars for Params, the arguments as given then the outputs) and embeds the
# halide wheel's HalideRuntime.h behind its own include guard; the static library defines the function, its _argv
# form and the kernel, and carries the runtime (error handler, thread pool, OpenMP entry points) as weak symbols
# so that several libraries link into one program.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t/lib
# RUN: FileCheck %s --check-prefix=HEADER < %t/lib.h
# RUN: llvm-nm %t/lib.a | FileCheck %s --check-prefix=SYMBOLS
#
# HEADER: #ifndef HALIDE_MLIR__blur_u16_h
# HEADER: #ifndef HALIDE_HALIDERUNTIME_H
# HEADER: typedef struct halide_buffer_t {
# HEADER: int blur_u16(struct halide_buffer_t *_input_buffer, uint16_t _bias, struct halide_buffer_t *_out_buffer);
# HEADER: int blur_u16_argv(void **args);
#
# SYMBOLS-DAG: T __hl_blur_u16_kernel_ciface
# SYMBOLS-DAG: T blur_u16{{$}}
# SYMBOLS-DAG: T blur_u16_argv
# SYMBOLS-DAG: W halide_error{{$}}
# SYMBOLS-DAG: W halide_set_error_handler
# SYMBOLS-DAG: W halide_set_num_threads
# SYMBOLS-DAG: W halide_shutdown_thread_pool
# SYMBOLS-DAG: W __kmpc_fork_call
# SYMBOLS-DAG: t __hl_blur_u16_kernel..omp_par

import sys

import halide_mlir as hl

x, y = hl.Var("x"), hl.Var("y")
inp = hl.ImageParam(hl.UInt(16), 2, "input")
bias = hl.Param(hl.UInt(16), "bias")
out = hl.Func("out")
out[x, y] = (inp[x, y] + inp[x + 1, y]) / 2 + bias
out.parallel(y).vectorize(x, 16)
out.set_estimates([(0, 128), (0, 32)])
inp.set_estimates([(0, 129), (0, 32)])
out.compile_to_static_library(sys.argv[1], [inp, bias], "blur_u16")
