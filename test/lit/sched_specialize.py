# specialize: f.specialize(w % 16 == 0).vectorize(x, 16) with w a Param. Each realize compiles (or reuses) the
# version its bound values choose: with w = 48 the script vectorizes by 16 (whole vectors: 48 columns), with
# w = 33 it runs the unspecialized schedule (scalar here). The specialized script also runs under the real
# mlir-opt and gives the same IR as the in-process interpreter.
#
# RUN: %python %s transform > %t.transform.mlir
# RUN: FileCheck %s --check-prefix=SCRIPT --input-file=%t.transform.mlir
# RUN: %python %s payload 48 > %t.payload.mlir
# RUN: %python %s transform 48 > %t.transform48.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform48.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: %python %s scheduled 48 | mlir-opt > %t.in-process.mlir
# RUN: FileCheck %s --check-prefix=SCHED --input-file=%t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import sys

import halide_mlir as hl
from hl_stage import emit

hl.set_auto_vectorize(False)

x, y = hl.Var("x"), hl.Var("y")
w = hl.Param(hl.Int(32), "w", 48)
f = hl.Func("f")
f[x, y] = hl.cast(hl.Float(32), x * w + y)
f.specialize(w % 16 == 0).vectorize(x, 16)

if len(sys.argv) > 2:
    w.set(int(sys.argv[2]))
    emit(f, [int(sys.argv[2]), 4])
else:
    for value in (48, 33):
        w.set(value)
        print(f"// w = {value}")
        emit(f, [value, 4])

# SCRIPT-LABEL: // w = 48
# SCRIPT:         transform.structured.match ops{["linalg.generic"]} attributes {hl.func = "f"}
# SCRIPT:         %[[T:[A-Za-z0-9_]+]], %{{.*}} = transform.structured.tile_using_for %{{.*}} tile_sizes [0, 16]
# SCRIPT:         transform.structured.vectorize %[[T]] vector_sizes [1, 16]
# SCRIPT-LABEL: // w = 33
# SCRIPT-NOT:     transform.structured.vectorize
# SCRIPT:         transform.yield

# SCHED-LABEL: func.func @pipeline
# SCHED:         scf.for {{.*}} step %c16
# SCHED:           vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<1x16xf32>, tensor<1x16xf32>
