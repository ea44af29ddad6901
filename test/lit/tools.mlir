// Sanity check for the lit setup: mlir-opt and FileCheck are found and run.
// RUN: mlir-opt %s | FileCheck %s

// CHECK-LABEL: func.func @add
// CHECK-SAME:    (%[[A:.*]]: f32, %[[B:.*]]: f32) -> f32
// CHECK:         %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK:         return %[[S]] : f32
func.func @add(%a: f32, %b: f32) -> f32 {
  %s = arith.addf %a, %b : f32
  return %s : f32
}
