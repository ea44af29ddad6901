# p.compute_at(c, y) where only c's update reads p (lesson 9's pattern): Halide's LoopLevel(c, y) names loop y of
# any of c's definitions, so p is computed once per iteration of the UPDATE's y loop, here a parallel one: one
# 1x39 row of p (37 + the 2-column halo of r) inside the update's forall, before the update's x and r loops
# (placement.py update_home; the script fuses p after folding the update's unit dims: transform.py
# schedule_stage). Before, p was computed once at the root with a ComputeAtWarning.
#
# RUN: %python %s scheduled | FileCheck %s

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
inp = hl.Buffer(np.zeros((40, 50), dtype=np.float32), name="input")
r = hl.RDom([(0, 3)], "r")
p, c = hl.Func("p"), hl.Func("c")
p[x, y] = inp[x, y] * 3.0 + inp[x + 1, y + 1]
c[x, y] = hl.f32(x + y)
c[x, y] += p[x + r.x, y] * 0.5
c.update().parallel(y).vectorize(x, 8)
p.compute_at(c, y).vectorize(x, 8)
emit(c, [37, 23])

# CHECK-LABEL: func.func @pipeline
# CHECK:         scf.forall (%{{.*}}) in (23)
# CHECK:           scf.for %{{.*}} = %c0 to %c39 step %c8 {{.*}} -> (tensor<1x39xf32>)
# CHECK:             arith.mulf
# CHECK:           scf.for %{{.*}} = %c0 to %c37 step %c8
# CHECK:             scf.for %{{.*}} = %c0 to %c3 step %c1
# CHECK:           scf.forall.in_parallel
