# Cross-compilation (halide_mlir/aot/cross.py): one object per target, in the target's format, with Halide's
# triple and CPU: the function, its _argv form, the kernel and the runtime (weak) inside. Windows objects are
# COFF for x86-64 (Halide's x86_64-pc-windows-msvc), named .obj, and use Win32 threads; iOS objects are Mach-O
# (C names with a leading underscore). Lesson 11's pipeline, with estimates.
#
# REQUIRES: ziglang
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t
# RUN: llvm-readobj --file-headers %t/a64.o | FileCheck %s --check-prefix=A64
# RUN: llvm-nm %t/a64.o | FileCheck %s --check-prefix=A64SYM
# RUN: llvm-readobj --file-headers %t/arm32.o | FileCheck %s --check-prefix=ARM32
# RUN: llvm-readobj --file-headers %t/win.obj | FileCheck %s --check-prefix=WIN
# RUN: llvm-nm %t/win.obj | FileCheck %s --check-prefix=WINSYM
# RUN: llvm-readobj --file-headers %t/ios.o | FileCheck %s --check-prefix=IOS
# RUN: llvm-nm %t/ios.o | FileCheck %s --check-prefix=IOSSYM
#
# A64: Format: elf64-littleaarch64
# A64: Class: 64-bit
# A64: Type: Relocatable
# A64: Machine: EM_AARCH64
# A64SYM-DAG: T __hl_a64_kernel_ciface
# A64SYM-DAG: T a64{{$}}
# A64SYM-DAG: T a64_argv
# A64SYM-DAG: W halide_set_error_handler
# A64SYM-DAG: W __kmpc_fork_call
# A64SYM-DAG: U pthread_create
#
# ARM32: Format: elf32-littlearm
# ARM32: Class: 32-bit
# ARM32: Machine: EM_ARM
#
# WIN: Format: COFF-x86-64
# WIN: Machine: IMAGE_FILE_MACHINE_AMD64 (0x8664)
# WINSYM-DAG: T win{{$}}
# WINSYM-DAG: T win_argv
# WINSYM-DAG: W halide_set_error_handler
# WINSYM-DAG: U __imp_CreateThread
# WINSYM-NOT: pthread
#
# IOS: Format: Mach-O arm
# IOS: Magic: Magic (0xFEEDFACE)
# IOS: CpuType: Arm (0xC)
# IOS: CpuSubType: CPU_SUBTYPE_ARM_V7S (0xB)
# IOS: FileType: Relocatable (0x1)
# IOSSYM-DAG: T _ios{{$}}
# IOSSYM-DAG: T _ios_argv
# IOSSYM-DAG: U _pthread_create

import os
import sys

import halide_mlir as hl

x, y = hl.Var("x"), hl.Var("y")
offset = hl.Param(hl.UInt(8), "offset")
inp = hl.ImageParam(hl.UInt(8), 2, "input")
brighter = hl.Func("brighter")
brighter[x, y] = inp[x, y] + offset
brighter.vectorize(x, 16).parallel(y)
brighter.set_estimates([(0, 64), (0, 32)])
inp.set_estimates([(0, 64), (0, 32)])
out = sys.argv[1]
brighter.compile_to_object(os.path.join(out, "a64.o"), [inp, offset], "a64", hl.Target("arm-64-linux"))
brighter.compile_to_object(os.path.join(out, "arm32.o"), [inp, offset], "arm32", hl.Target("arm-32-android"))
brighter.compile_to_file(os.path.join(out, "win"), [inp, offset], "win", hl.Target("x86-64-windows-avx-sse41"))
brighter.compile_to_object(os.path.join(out, "ios.o"), [inp, offset], "ios", hl.Target("arm-32-ios-armv7s"))
