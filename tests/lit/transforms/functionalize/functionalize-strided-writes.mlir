// pt2c-functionalize: writes through views that show every step-th element (slices
// with a step, diagonals) scatter back with compile-time positions: a gather of the
// written piece at each position of the dim, selected where the view shows it.
// RUN: pt2c-opt %s --split-input-file --pt2c-functionalize | FileCheck %s

// x[1::3] = y on 5 rows: rows 1 and 4 take y's rows 0 and 1, the others keep x's.
// CHECK-LABEL: func.func @write_through_step_slice
// CHECK-SAME: (%{{.*}}: tensor<5x2xf32>, %[[Y:.*]]: tensor<2x2xf32>)
// CHECK: %[[X:.*]] = "aten.clone"
// CHECK: %[[FROM:.*]] = prim.constant dense<[0, 0, 0, 0, 1]> : tensor<5xi64>
// CHECK-NEXT: %[[SHOWN:.*]] = prim.constant dense<[false, true, false, false, true]> : tensor<5xi1>
// CHECK-NEXT: %[[G:.*]] = prim.gather %[[Y]], %[[FROM]], axis = 0 : tensor<2x2xf32>, tensor<5xi64> -> tensor<5x2xf32>
// CHECK-NEXT: %[[M:.*]] = prim.broadcast_in_dim %[[SHOWN]], dims = [0] : tensor<5xi1> -> tensor<5x2xi1>
// CHECK-NEXT: %[[NEW:.*]] = prim.select %[[M]], %[[G]], %[[X]]
// CHECK-NEXT: "aten.neg"(%[[NEW]])
func.func @write_through_step_slice(%a: tensor<5x2xf32>, %y: tensor<2x2xf32>) -> tensor<5x2xf32> {
  %x = "aten.clone"(%a) : (tensor<5x2xf32>) -> tensor<5x2xf32>
  %0 = "aten.slice.Tensor"(%x) {dim = 0 : i64, start = 1 : i64, end = 5 : i64, step = 3 : i64} : (tensor<5x2xf32>) -> tensor<2x2xf32>
  %1 = "aten.copy_"(%0, %y) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = "aten.neg"(%x) : (tensor<5x2xf32>) -> tensor<5x2xf32>
  return %2 : tensor<5x2xf32>
}

// -----

// x.diagonal(1).fill_(0) on [2, 3]: elements (0, 1) and (1, 2), flat positions 1 and
// 5 of the flattened matrix, a strided slice from 1 with step n2 + 1 = 4.
// CHECK-LABEL: func.func @fill_a_diagonal
// CHECK: %[[X:.*]] = "aten.clone"
// CHECK: %[[D:.*]] = "aten.diagonal"(%[[X]]) <{offset = 1 : i64}>
// CHECK-NEXT: %[[Z:.*]] = "aten.fill.Scalar"(%[[D]])
// CHECK-NEXT: %[[FLAT:.*]] = prim.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-NEXT: %[[FROM:.*]] = prim.constant dense<[0, 0, 0, 0, 0, 1]> : tensor<6xi64>
// CHECK-NEXT: %[[SHOWN:.*]] = prim.constant dense<[false, true, false, false, false, true]> : tensor<6xi1>
// CHECK-NEXT: %[[G:.*]] = prim.gather %[[Z]], %[[FROM]], axis = 0
// CHECK: %[[SEL:.*]] = prim.select %{{.*}}, %[[G]], %[[FLAT]]
// CHECK-NEXT: %[[NEW:.*]] = prim.reshape %[[SEL]] : tensor<6xf32> -> tensor<2x3xf32>
// CHECK-NEXT: "aten.neg"(%[[NEW]])
func.func @fill_a_diagonal(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %x = "aten.clone"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = "aten.diagonal"(%x) {offset = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = "aten.fill_.Scalar"(%0) {value = 0.0 : f64} : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "aten.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// A diagonal over dims (2, 0) of [2, 3, 2] with offset -1: the other dim (1) leads,
// the two diagonal dims are flattened last; the write transposes back.
// CHECK-LABEL: func.func @diagonal_of_other_dims
// CHECK: %[[X:.*]] = "aten.clone"
// CHECK: %[[T:.*]] = prim.transpose %[[X]], permutation = [1, 2, 0]
// CHECK-NEXT: %[[FLAT:.*]] = prim.reshape %[[T]] : tensor<3x2x2xf32> -> tensor<3x4xf32>
// CHECK-NEXT: prim.constant dense<0> : tensor<4xi64>
// CHECK-NEXT: prim.constant dense<[false, false, true, false]> : tensor<4xi1>
// CHECK: %[[SEL:.*]] = prim.select %{{.*}}, %{{.*}}, %[[FLAT]]
// CHECK-NEXT: %[[BACK:.*]] = prim.reshape %[[SEL]] : tensor<3x4xf32> -> tensor<3x2x2xf32>
// CHECK-NEXT: %[[NEW:.*]] = prim.transpose %[[BACK]], permutation = [2, 0, 1]
// CHECK-NEXT: "aten.neg"(%[[NEW]])
func.func @diagonal_of_other_dims(%a: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %x = "aten.clone"(%a) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %0 = "aten.diagonal"(%x) {offset = -1 : i64, dim1 = 2 : i64, dim2 = 0 : i64} : (tensor<2x3x2xf32>) -> tensor<3x1xf32>
  %1 = "aten.zero_"(%0) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %2 = "aten.neg"(%x) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %2 : tensor<2x3x2xf32>
}
