# Every payload op generated for a Func definition carries the user's Python source
# line as its location, loc("<this file>":LINE:0), so MLIR diagnostics point at the
# program. The producer (compute_root) and the consumer each get their own line.
#
# RUN: %python %s payload | mlir-opt --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((10, 12), dtype=np.float32), name="input")
bx, out = hl.Func("bx"), hl.Func("out")

# CHECK-LABEL: func.func @pipeline
# CHECK:       tensor.extract_slice {{.*}} loc("{{.*}}debug_locations.py":[[@LINE+5]]:0)
# CHECK:       tensor.empty() {{.*}} loc("{{.*}}debug_locations.py":[[@LINE+4]]:0)
# CHECK:       linalg.generic {{.*}}hl.func = "bx"
# CHECK:         arith.addf {{.*}} loc("{{.*}}debug_locations.py":[[@LINE+2]]:0)
# CHECK:       } -> tensor<10x10xf32> loc("{{.*}}debug_locations.py":[[@LINE+1]]:0)
bx[x, y] = inp[x, y] + inp[x + 1, y] + inp[x + 2, y]

# CHECK:       tensor.extract_slice {{.*}} loc("{{.*}}debug_locations.py":[[@LINE+6]]:0)
# CHECK:       linalg.generic {{.*}}hl.func = "out"
# CHECK:         arith.addf {{.*}} loc("{{.*}}debug_locations.py":[[@LINE+4]]:0)
# CHECK:         arith.mulf {{.*}} loc("{{.*}}debug_locations.py":[[@LINE+3]]:0)
# CHECK:         linalg.yield {{.*}} loc("{{.*}}debug_locations.py":[[@LINE+2]]:0)
# CHECK:       } -> tensor<8x10xf32> loc("{{.*}}debug_locations.py":[[@LINE+1]]:0)
out[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) * 0.25

bx.compute_root()
emit(out, [10, 8])
