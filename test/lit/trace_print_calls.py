# hl.print and trace_stores become calls of the print callbacks (runtime/trace.py), declared in the payload and
# made inside the Func's linalg.generic body: the text 8 bytes per i64, the value widened to i64 or f64, then the
# line's end (its vector lanes: 4 for the vectorized store). The stage that prints is not vectorized (the calls
# run per lane), and the lowered module calls the symbols by name (linked when the code is loaded, so the disk
# cache's objects resolve them in any process).
#
# RUN: %python %s payload | FileCheck %s
# RUN: %python %s payload | mlir-opt | FileCheck %s --check-prefix=VERIFY
# RUN: %python %s transform | FileCheck %s --check-prefix=SCRIPT
# RUN: %python %s lowered | FileCheck %s --check-prefix=LOWERED

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
f = hl.Func("f")
f[x, y] = hl.print_when(x == y, x * y, "at", x)
f.trace_stores()
f.vectorize(x, 4)
emit(f, [8, 4])

# CHECK-DAG:   func.func private @halide_mlir_print_chars(i64)
# CHECK-DAG:   func.func private @halide_mlir_print_int(i64, i32)
# CHECK-DAG:   func.func private @halide_mlir_print_end(i32)
# CHECK-LABEL: func.func @pipeline
# CHECK:         func.call @halide_mlir_print_chars({{.*}}) : (i64) -> ()
# CHECK:         linalg.generic
# CHECK:           %[[V:.*]] = arith.muli
# CHECK:           scf.if
# CHECK:             func.call @halide_mlir_print_int({{.*}}) : (i64, i32) -> ()
# CHECK:             func.call @halide_mlir_print_end({{.*}}) : (i32) -> ()
# CHECK:           }
# CHECK:           %[[LANES:.*]] = arith.constant 4 : i32
# CHECK:           func.call @halide_mlir_print_end(%[[LANES]]) : (i32) -> ()
# CHECK:           linalg.yield %[[V]]

# VERIFY: func.func @pipeline

# SCRIPT-NOT: transform.structured.vectorize

# LOWERED-DAG: llvm.func @halide_mlir_print_chars(i64)
# LOWERED-DAG: llvm.call @halide_mlir_print_int
