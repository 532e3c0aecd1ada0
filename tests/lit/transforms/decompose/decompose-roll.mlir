// aten.roll: per (shift, dim), the last (shift mod n) elements then the rest, as two
// slices joined; without dims, the flattened tensor rolled and reshaped back.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// Swin's cyclic shift: negative shifts over two dims (-3 mod 7 = 4).
// CHECK-LABEL: func.func @roll_two_dims
// CHECK: %[[T0:.*]] = prim.slice %{{.*}}, start = [0, 3, 0, 0], limit = [1, 7, 7, 2]
// CHECK: %[[H0:.*]] = prim.slice %{{.*}}, start = [0, 0, 0, 0], limit = [1, 3, 7, 2]
// CHECK: %[[R0:.*]] = prim.concatenate %[[T0]], %[[H0]] dim = 1
// CHECK: %[[T1:.*]] = prim.slice %[[R0]], start = [0, 0, 3, 0], limit = [1, 7, 7, 2]
// CHECK: %[[H1:.*]] = prim.slice %[[R0]], start = [0, 0, 0, 0], limit = [1, 7, 3, 2]
// CHECK: prim.concatenate %[[T1]], %[[H1]] dim = 2
func.func @roll_two_dims(%x: tensor<1x7x7x2xf32>) -> tensor<1x7x7x2xf32> {
  %0 = "aten.roll"(%x) {shifts = array<i64: -3, -3>, dims = array<i64: 1, -2>} : (tensor<1x7x7x2xf32>) -> tensor<1x7x7x2xf32>
  return %0 : tensor<1x7x7x2xf32>
}

// -----

// A shift of a whole period is no rotation; without dims the flat tensor rolls.
// CHECK-LABEL: func.func @roll_period_and_flat
// CHECK-NOT: prim.concatenate {{.*}} dim = 1
// CHECK: %[[F:.*]] = prim.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: %[[T:.*]] = prim.slice %[[F]], start = [5], limit = [6]
// CHECK: %[[H:.*]] = prim.slice %[[F]], start = [0], limit = [5]
// CHECK: %[[R:.*]] = prim.concatenate %[[T]], %[[H]] dim = 0
// CHECK: prim.reshape %[[R]] : tensor<6xf32> -> tensor<2x3xf32>
func.func @roll_period_and_flat(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "aten.roll"(%x) {shifts = array<i64: 3>, dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "aten.roll"(%x) {shifts = array<i64: 7>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}
