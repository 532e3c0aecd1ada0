// Folders of prim.slice and prim.concatenate.
// RUN: pt2c-opt %s --split-input-file --canonicalize | FileCheck %s

// A slice of everything is its operand; a strided one is not.
// CHECK-LABEL: func.func @whole_slice
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK: %[[S:.*]] = prim.slice %[[X]], start = [0, 0], limit = [4, 3], strides = [2, 1]
// CHECK: return %[[X]], %[[S]]
func.func @whole_slice(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<2x3xf32>) {
  %0 = prim.slice %x, start = [0, 0], limit = [4, 3], strides = [1, 1] : tensor<4x3xf32> -> tensor<4x3xf32>
  %1 = prim.slice %x, start = [0, 0], limit = [4, 3], strides = [2, 1] : tensor<4x3xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @single_concatenate
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @single_concatenate(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = prim.concatenate %x dim = 1 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
