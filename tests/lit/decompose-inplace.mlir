// In-place ops become their functional forms when nothing reads the mutated tensor
// afterwards (decompose/InPlaceOps.cpp, until functionalization exists).
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// ResNet's residual tail: add_ into the batch-norm output, then relu_ of the sum; the
// block input is read by add_ itself, before the write, which is fine.
// CHECK-LABEL: func.func @residual_tail
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x2x2xf32>, %[[Y:.*]]: tensor<1x4x2x2xf32>)
// CHECK-NEXT: %[[ZERO:.*]] = prim.constant dense<0.000000e+00>
// CHECK-NEXT: %[[M:.*]] = prim.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[S:.*]] = prim.add %[[M]], %[[Y]]
// CHECK-NEXT: %[[R:.*]] = prim.max %[[S]], %[[ZERO]]
// CHECK-NEXT: return %[[R]], %[[Y]]
func.func @residual_tail(%x: tensor<1x4x2x2xf32>, %y: tensor<1x4x2x2xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) {
  %0 = "aten.mul.Tensor"(%x, %x) : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %1 = "aten.add_.Tensor"(%0, %y) : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %2 = "aten.relu_"(%1) : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  return %2, %y : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>
}

// -----

// Attributes carry over (relu6 = hardtanh_(x, 0, 6)); a view whose readers all come
// before the write is fine too.
// CHECK-LABEL: func.func @relu6_after_view_reader
// CHECK: %[[V:.*]] = prim.reshape %[[X:.*]] :
// CHECK: prim.neg %[[V]]
// CHECK: %[[L:.*]] = prim.max %[[X]], %{{.*}}
// CHECK: prim.min %[[L]], %{{.*}}
func.func @relu6_after_view_reader(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %0 = "aten.view"(%x) {size = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = "aten.neg"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  %2 = "aten.hardtanh_"(%x) {min_val = 0 : i64, max_val = 6 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2, %1 : tensor<2x3xf32>, tensor<6xf32>
}

// -----

// The other in-place activations and mul_.
// CHECK-LABEL: func.func @more_in_place
// CHECK: prim.sigmoid
// CHECK: prim.mul
// CHECK: prim.sigmoid
// CHECK: prim.div
// CHECK: prim.mul
// CHECK: prim.div
// CHECK: prim.mul
// CHECK-NOT: aten.
func.func @more_in_place(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.silu_"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.sigmoid_"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "aten.hardsigmoid_"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "aten.hardswish_"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "aten.mul_.Tensor"(%3, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}
