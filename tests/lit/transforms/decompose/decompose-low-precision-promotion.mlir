// f16/bf16 elementwise ops (decompose/LowPrecision.cpp) cast every operand to the common
// dtype (ir/aten/AtenDtypeRules.h commonDtype) before computing in f32, as eager does: a
// f32 zero-dim tensor or an int64 tensor next to a f16 tensor is rounded to f16 first.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim | FileCheck %s

// CHECK-LABEL: func.func @add_f32_zero_dim_to_f16
// CHECK-SAME: (%[[H:.*]]: tensor<4xf16>, %[[Z:.*]]: tensor<f32>)
// CHECK-DAG: %[[ZH:.*]] = prim.convert %[[Z]] : tensor<f32> -> tensor<f16>
// CHECK-DAG: %[[ZW:.*]] = prim.convert %[[ZH]] : tensor<f16> -> tensor<f32>
// CHECK-DAG: %[[HW:.*]] = prim.convert %[[H]] : tensor<4xf16> -> tensor<4xf32>
// CHECK: %[[S:.*]] = prim.add %[[HW]], %{{.*}} : tensor<4xf32>
// CHECK: prim.convert %[[S]] : tensor<4xf32> -> tensor<4xf16>
func.func @add_f32_zero_dim_to_f16(%h: tensor<4xf16>, %z: tensor<f32>) -> tensor<4xf16> {
  %0 = "aten.add.Tensor"(%h, %z) : (tensor<4xf16>, tensor<f32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// A comparison compares in the common dtype too.
// CHECK-LABEL: func.func @compare_bf16_with_int64
// CHECK-SAME: (%[[H:.*]]: tensor<4xbf16>, %[[I:.*]]: tensor<4xi64>)
// CHECK-DAG: %[[IH:.*]] = prim.convert %[[I]] : tensor<4xi64> -> tensor<4xbf16>
// CHECK-DAG: prim.convert %[[IH]] : tensor<4xbf16> -> tensor<4xf32>
// CHECK: prim.compare LT
func.func @compare_bf16_with_int64(%h: tensor<4xbf16>, %i: tensor<4xi64>) -> tensor<4xi1> {
  %0 = "aten.lt.Tensor"(%h, %i) : (tensor<4xbf16>, tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// A f32 result does not round its operands to a half type.
// CHECK-LABEL: func.func @f32_result
// CHECK-NOT: -> tensor<f16>
// CHECK: prim.add
func.func @f32_result(%x: tensor<4xf32>, %z: tensor<f16>) -> tensor<4xf32> {
  %0 = "aten.add.Tensor"(%x, %z) : (tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
