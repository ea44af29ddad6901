# Halide's integer and rounding semantics in the payload body:
#   div: i32 `a / b` with a non-constant divisor is Euclidean (floors for b > 0) and
#        defined for b == 0 (result 0) and b == -1 (no INT_MIN / -1 trap): the divisor is
#        made safe with selects, then arith.divsi / arith.remsi plus a remainder fix-up.
#   rnd: hl.round is round-half-to-even -> math.roundeven (not math.round).
#   abs: hl.abs of an i16 is a u16 of the same width -> a compare-and-select on i16 (math.absi has no LLVM
#   lowering on the 2-D vectors the vectorizer makes).
#
# RUN: %python %s payload div | mlir-opt | FileCheck %s --check-prefix=DIV
# RUN: %python %s payload rnd | mlir-opt | FileCheck %s --check-prefix=RND
# RUN: %python %s payload abs | mlir-opt | FileCheck %s --check-prefix=ABS

import sys

import numpy as np

import halide_mlir as hl
from hl_stage import emit

x, y = hl.Var("x"), hl.Var("y")
which = sys.argv[2]
f = hl.Func(which)
if which == "div":
    a = hl.Buffer(np.zeros((8, 8), dtype=np.int32), name="a")
    b = hl.Buffer(np.zeros((8, 8), dtype=np.int32), name="b")
    f[x, y] = a[x, y] / b[x, y]
elif which == "rnd":
    a = hl.Buffer(np.zeros((8, 8), dtype=np.float32), name="a")
    f[x, y] = hl.round(a[x, y])
else:
    a = hl.Buffer(np.zeros((8, 8), dtype=np.int16), name="a")
    f[x, y] = hl.abs(a[x, y])
    assert f.type() == hl.UInt(16), f.type()
emit(f, [8, 8])

# DIV-LABEL: func.func @pipeline
# DIV:       linalg.generic
# DIV-SAME:    hl.func = "div"
# DIV-NEXT:  ^bb0(%[[A:[-A-Za-z0-9_]+]]: i32, %[[B:[-A-Za-z0-9_]+]]: i32, %{{[-A-Za-z0-9_]+}}: i32):
# DIV-DAG:     %[[C0:[-A-Za-z0-9_]+]] = arith.constant 0 : i32
# DIV-DAG:     %[[C1:[-A-Za-z0-9_]+]] = arith.constant 1 : i32
# DIV-DAG:     %[[CM1:[-A-Za-z0-9_]+]] = arith.constant -1 : i32
# the divisor is replaced by 1 when it is 0 or -1 ...
# DIV-DAG:     %[[ISZ:[-A-Za-z0-9_]+]] = arith.cmpi eq, %[[B]], %[[C0]] : i32
# DIV-DAG:     %[[ISM1:[-A-Za-z0-9_]+]] = arith.cmpi eq, %[[B]], %[[CM1]] : i32
# DIV:         %[[BAD:[-A-Za-z0-9_]+]] = arith.ori %[[ISZ]], %[[ISM1]] : i1
# DIV-NEXT:    %[[SAFE:[-A-Za-z0-9_]+]] = arith.select %[[BAD]], %[[C1]], %[[B]] : i32
# ... so that neither divsi nor remsi can trap
# DIV-NEXT:    %[[Q:[-A-Za-z0-9_]+]] = arith.divsi %[[A]], %[[SAFE]] : i32
# DIV-NEXT:    %[[R:[-A-Za-z0-9_]+]] = arith.remsi %[[A]], %[[SAFE]] : i32
# Euclidean fix-up: a negative remainder moves the quotient by -sign(b)
# DIV-NEXT:    %[[NEG:[-A-Za-z0-9_]+]] = arith.cmpi slt, %[[R]], %[[C0]] : i32
# DIV-NEXT:    %[[POS:[-A-Za-z0-9_]+]] = arith.cmpi sgt, %[[SAFE]], %[[C0]] : i32
# DIV-NEXT:    %[[ADJ:[-A-Za-z0-9_]+]] = arith.select %[[POS]], %[[CM1]], %[[C1]] : i32
# DIV-NEXT:    %[[QA:[-A-Za-z0-9_]+]] = arith.addi %[[Q]], %[[ADJ]] : i32
# DIV-NEXT:    %[[QE:[-A-Za-z0-9_]+]] = arith.select %[[NEG]], %[[QA]], %[[Q]] : i32
# b == -1: -a (wrapping, no trap); b == 0: 0
# DIV-NEXT:    %[[NA:[-A-Za-z0-9_]+]] = arith.subi %[[C0]], %[[A]] : i32
# DIV-NEXT:    %[[R1:[-A-Za-z0-9_]+]] = arith.select %[[ISM1]], %[[NA]], %[[QE]] : i32
# DIV-NEXT:    %[[R0:[-A-Za-z0-9_]+]] = arith.select %[[ISZ]], %[[C0]], %[[R1]] : i32
# DIV-NEXT:    linalg.yield %[[R0]] : i32
# DIV-NOT:     arith.floordivsi
# DIV-NOT:     arith.divui

# RND-LABEL: func.func @pipeline
# RND:       ^bb0(%[[A:[A-Za-z0-9_]+]]: f32, %{{[A-Za-z0-9_]+}}: f32):
# RND-NEXT:    %[[R:[A-Za-z0-9_]+]] = math.roundeven %[[A]] : f32
# RND-NEXT:    linalg.yield %[[R]] : f32

# ABS-LABEL: func.func @pipeline
# ABS-SAME:    memref<8x8xi16>
# ABS:       ^bb0(%[[A:[A-Za-z0-9_]+]]: i16, %{{[A-Za-z0-9_]+}}: i16):
# ABS:         %[[NEG:[A-Za-z0-9_]+]] = arith.cmpi slt, %[[A]], %{{[A-Za-z0-9_]+}} : i16
# ABS-NEXT:    %[[M:[A-Za-z0-9_]+]] = arith.subi %{{[A-Za-z0-9_]+}}, %[[A]] : i16
# ABS-NEXT:    %[[R:[A-Za-z0-9_]+]] = arith.select %[[NEG]], %[[M]], %[[A]] : i16
# ABS-NEXT:    linalg.yield %[[R]] : i16
