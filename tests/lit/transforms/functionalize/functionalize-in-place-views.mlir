// transpose_, t_, unsqueeze_, squeeze_ change a tensor's sizes and strides, not its
// elements: they become their view forms, and a later write through them reaches
// the root through the inverse views.
// RUN: pt2c-opt %s --split-input-file --pt2c-functionalize | FileCheck %s

// CHECK-LABEL: func.func @in_place_views
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>
// CHECK: %[[M:.*]] = "aten.mul.Tensor"(%[[X]], %[[X]])
// CHECK: %[[T:.*]] = "aten.transpose.int"(%[[M]]) <{dim0 = 0 : i64, dim1 = 1 : i64}>
// CHECK: %[[U:.*]] = "aten.unsqueeze"(%[[T]]) <{dim = 0 : i64}>
// CHECK: %[[A:.*]] = "aten.add.Tensor"(%[[U]], %{{.*}})
// CHECK: %[[S:.*]] = prim.reshape %[[A]] : tensor<1x3x2xf32> -> tensor<3x2xf32>
// CHECK: %[[BACK:.*]] = prim.transpose %[[S]], permutation = [1, 0]
// CHECK: "aten.neg"(%[[BACK]])
// CHECK-NOT: aten.transpose_
// CHECK-NOT: aten.unsqueeze_
func.func @in_place_views(%x: tensor<2x3xf32>, %one: tensor<f32>) -> (tensor<2x3xf32>) {
  %0 = "aten.mul.Tensor"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "aten.transpose_"(%0) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = "aten.unsqueeze_"(%1) {dim = 0 : i64} : (tensor<3x2xf32>) -> tensor<1x3x2xf32>
  %3 = "aten.add_.Tensor"(%2, %one) : (tensor<1x3x2xf32>, tensor<f32>) -> tensor<1x3x2xf32>
  %4 = "aten.neg"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}
