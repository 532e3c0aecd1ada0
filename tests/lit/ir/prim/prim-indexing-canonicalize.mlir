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

// -----

// A slice of a slice is one slice: starts and strides compose (rows 1, 3, 5 of x, then
// every other one of those from the second: row 3; columns 2..5 then 1..3: 3..5).
// CHECK-LABEL: func.func @slice_of_slice
// CHECK-NEXT: %[[S:.*]] = prim.slice %arg0, start = [3, 3], limit = [4, 6], strides = [4, 1] : tensor<7x8xf32> -> tensor<1x3xf32>
// CHECK-NEXT: return %[[S]]
func.func @slice_of_slice(%x: tensor<7x8xf32>) -> tensor<1x3xf32> {
  %0 = prim.slice %x, start = [1, 2], limit = [6, 6], strides = [2, 1] : tensor<7x8xf32> -> tensor<3x4xf32>
  %1 = prim.slice %0, start = [1, 1], limit = [2, 4], strides = [2, 1] : tensor<3x4xf32> -> tensor<1x3xf32>
  return %1 : tensor<1x3xf32>
}

// -----

// On the GPU a slice that elementwise kernels read in place stays below a unit-dim
// reshape (moving it above would make the slice a copy: the halves of a joined gate
// and up projection); elsewhere it moves above as before.
// CHECK-LABEL: func.func @gpu_slice_below_unit_reshape
// CHECK-NEXT: %[[R:.*]] = prim.reshape %arg0 : tensor<4x6xf32> -> tensor<1x4x6xf32>
// CHECK-NEXT: %[[S:.*]] = prim.slice %[[R]], start = [0, 0, 3]
// CHECK-NEXT: prim.neg %[[S]]
module attributes {pt2c.fused_ops} {
func.func @gpu_slice_below_unit_reshape(%x: tensor<4x6xf32>) -> tensor<1x4x3xf32> {
  %r = prim.reshape %x : tensor<4x6xf32> -> tensor<1x4x6xf32>
  %s = prim.slice %r, start = [0, 0, 3], limit = [1, 4, 6], strides = [1, 1, 1] : tensor<1x4x6xf32> -> tensor<1x4x3xf32>
  %n = prim.neg %s : tensor<1x4x3xf32>
  return %n : tensor<1x4x3xf32>
}
}
