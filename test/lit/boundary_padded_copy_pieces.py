# A BoundaryConditions.repeat_edge Func left to halide_mlir's default is a padded copy computed at the root.
# Its region is cut where the condition's bounds are (codegen/payload.py padded_copy_pieces): below, inside
# and above the source in x and in y, nine generics into one tensor. Inside, clamp(x) is x and the read a plain
# slice of the input; outside, the clamped coordinate is a constant (a broadcast of the edge row or column).
# So the copy vectorizes with contiguous loads: no gather anywhere.
#
# RUN: %python %s payload | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s bufferized | FileCheck %s --check-prefix=BUF

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
import halide_mlir as hl  # noqa: E402
from hl_stage import emit  # noqa: E402

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((20, 48), dtype=np.float32), name="input")
clamped = hl.BoundaryConditions.repeat_edge(inp)
blur = hl.Func("blur")
blur[x, y] = clamped[x - 4, y - 2] + clamped[x + 4, y + 2]
blur.vectorize(x, 16).parallel(y)
emit(blur, [48, 20])

# a corner piece broadcasts one input element; an edge piece one input column or row; the interior piece
# (x and y inside the input) reads the whole input with an identity map
# PAYLOAD:     tensor.extract_slice %input0[0, 0] [1, 1] [1, 1] : tensor<20x48xf32> to tensor<f32>
# PAYLOAD:     linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, {{.*}}hl.func = "repeat_edge_input"
# PAYLOAD:     tensor.extract_slice %input0[0, 0] [20, 1] [1, 1] : tensor<20x48xf32> to tensor<20xf32>
# PAYLOAD:     linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, {{.*}}hl.func = "repeat_edge_input"
# PAYLOAD:     linalg.generic {{.*}} ins(%input0 : tensor<20x48xf32>) {{.*}}hl.func = "repeat_edge_input"

# BUF-LABEL: func.func @pipeline
# BUF-NOT:     vector.gather
# BUF:         vector.transfer_read {{.*}} vector<1x16xf32>
# BUF-NOT:     vector.gather
