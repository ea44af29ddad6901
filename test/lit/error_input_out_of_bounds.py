# Reading an input buffer outside its extent is a compile-time HalideError (found by
# bounds inference before any MLIR is built) whose text names the buffer, the
# offending coordinate, the dimension, and the Func and source line that read it.
# Both the realize path and the print-a-stage path report it.
#
# RUN: not %python %s realize 2>&1 | FileCheck %s --implicit-check-not=UNREACHABLE --implicit-check-not=func.func
# RUN: not %python %s payload 2>&1 | FileCheck %s --implicit-check-not=UNREACHABLE --implicit-check-not=func.func

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((8, 16), dtype=np.float32), name="my_input")
f = hl.Func("shifted")
f[x, y] = inp[x + 1, y]
# CHECK:     HalideError: Input buffer my_input is accessed at 16, which is beyond the max (15) in dimension 0
# CHECK-SAME:  Func 'shifted' (at error_input_out_of_bounds.py:[[@LINE-2]])
# CHECK-SAME:  reads my_input over [1, 16] in dimension 0, but the buffer covers [0, 15]
if sys.argv[1] == "realize":
    f.realize([16, 8])
else:
    emit(f, [16, 8])
print("UNREACHABLE: no error was raised")
