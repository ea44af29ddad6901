# Storage folding (analysis/folding.py) of tutorial lesson 8's "mixed" schedule: the producer, stored per strip of
# 16 rows and computed per row, keeps a 2-row circular buffer (the 2-row window, Halide's fold factor): not the
# strip's 17 rows. Each new row goes to its row modulo 2, each tap is read at its row modulo 2. The script runs
# on the folded payload under mlir-opt as it does in process, and the buffer is 2 rows once bufferized.
#
# RUN: %python %s payload | FileCheck %s --check-prefix=PAYLOAD
# RUN: %python %s bufferized | FileCheck %s --check-prefix=ALLOC
# RUN: %python %s payload > %t.payload.mlir
# RUN: %python %s transform > %t.transform.mlir
# RUN: mlir-opt %t.payload.mlir --transform-preload-library=transform-library-paths=%t.transform.mlir --transform-interpreter > %t.mlir-opt.mlir
# RUN: %python %s scheduled | mlir-opt > %t.in-process.mlir
# RUN: diff %t.mlir-opt.mlir %t.in-process.mlir

import halide_mlir as hl
from hl_stage import emit

x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
producer, consumer = hl.Func("producer"), hl.Func("consumer")
producer[x, y] = hl.sqrt(x * y)
consumer[x, y] = producer[x, y] + producer[x, y + 1] + producer[x + 1, y] + producer[x + 1, y + 1]
consumer.split(y, yo, yi, 16).parallel(yo).vectorize(x, 4)
producer.store_at(consumer, yo).compute_at(consumer, yi).vectorize(x, 4)
emit(consumer, [37, 45])

# PAYLOAD-LABEL: func.func @pipeline
# PAYLOAD:         scf.forall
# PAYLOAD:           %[[BUF:.*]] = tensor.empty() : tensor<2x38xf32>
# PAYLOAD:           %[[WARM:.*]] = tensor.insert_slice {{.*}} into %[[BUF]][0, 0] [1, 38]
# PAYLOAD:           scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CARRIED:.*]] = %[[WARM]]) -> (tensor<16x37xf32>, tensor<2x38xf32>)
# PAYLOAD:             %[[ROW:.*]] = arith.remui %{{.*}}, %[[TWO:.*]] : index
# PAYLOAD:             linalg.generic {{.*}}hl.func = "producer"
# PAYLOAD:             %[[NEW:.*]] = tensor.insert_slice {{.*}} into %[[CARRIED]][%[[ROW]], 0] [1, 38]
# PAYLOAD-COUNT-4:     tensor.extract_slice %[[NEW]][%{{.*}}, {{[01]}}] [1, 37] [1, 1] : tensor<2x38xf32> to tensor<1x37xf32>
# PAYLOAD:             linalg.generic {{.*}}hl.func = "consumer"
# PAYLOAD:             scf.yield %{{.*}}, %[[NEW]] : tensor<16x37xf32>, tensor<2x38xf32>

# ALLOC:         scf.forall
# ALLOC:           memref.alloc() {{.*}} : memref<2x38xf32>
# ALLOC-NOT:       memref.alloc
# ALLOC:           scf.for
