# Loop partitioning of boundary conditions (analysis/plan.py partition): blur, computed at the root as one
# generic, reads a BoundaryConditions.repeat_edge Func inlined (analysis/pipeline.py _inline_padded_copies)
# and is computed in pieces cut where its clamps stop being the identity: x - 4 and x + 4 inside [0, 47] for
# x in [4, 43], y - 2 and y + 2 inside [0, 19] for y in [2, 17]; 3 x 3 pieces. In the interior piece both taps
# are plain slices of the input (dense vector loads); in the others the clamps that the piece decides are
# constants. No padded copy, no gather, and the pieces write straight into the output (no copy).
#
# RUN: %python %s payload | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s payload | FileCheck %s --check-prefix=PIECES
# RUN: %python %s bufferized | FileCheck %s --check-prefix=BUF

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((20, 48), dtype=np.float32), name="input")
clamped = hl.BoundaryConditions.repeat_edge(inp)
blur = hl.Func("blur")
blur[x, y] = clamped[x - 4, y - 2] + clamped[x + 4, y + 2]
blur.vectorize(x, 16).parallel(y)
emit(blur, [48, 20])

# PAYLOAD-NOT: repeat_edge_input
# PAYLOAD:     bufferization.to_tensor %out restrict writable
# the interior piece: rows 2..17, columns 4..43, both taps plain slices of the input
# PAYLOAD:     tensor.extract_slice %input0[0, 0] [16, 40] [1, 1]
# PAYLOAD:     tensor.extract_slice %input0[4, 8] [16, 40] [1, 1]
# PAYLOAD:     tensor.insert_slice {{.*}} into {{.*}}[2, 4] [16, 40] [1, 1]
# PAYLOAD-NOT: repeat_edge_input

# PIECES-COUNT-9: tensor.insert_slice
# PIECES-NOT:     tensor.insert_slice

# BUF-LABEL: func.func @pipeline
# BUF-NOT:     vector.gather
# BUF-NOT:     memref.copy
# BUF-NOT:     memref.alloc
# BUF:         vector.transfer_read {{.*}} vector<1x16xf32>
# BUF-NOT:     vector.gather
# BUF-NOT:     memref.copy
