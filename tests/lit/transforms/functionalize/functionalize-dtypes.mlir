// pt2c-functionalize gives the functional form of an in-place op the dtype PyTorch
// computes it in (ir/aten/AtenDtypeRules.cpp), then converts into self's dtype, as
// eager's in-place ops do: x.add_(y) with a f16 x and a f32 y adds in f32.
// RUN: pt2c-opt %s --split-input-file --pt2c-functionalize | FileCheck %s

// CHECK-LABEL: func.func @add_f32_into_f16
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[C:.*]] = "aten.clone"(%[[X]])
// CHECK-NEXT: %[[A:.*]] = "aten.add.Tensor"(%[[C]], %[[Y]]) : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = prim.convert %[[A]] : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT: return %[[R]]
func.func @add_f32_into_f16(%x: tensor<4xf16>, %y: tensor<4xf32>) -> tensor<4xf16> {
  %c = "aten.clone"(%x) : (tensor<4xf16>) -> tensor<4xf16>
  %0 = "aten.add_.Tensor"(%c, %y) : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf16>
  return %c : tensor<4xf16>
}

// -----

// An int32 self multiplied by an int64 tensor: int64 product, written back as int32.
// CHECK-LABEL: func.func @mul_i64_into_i32
// CHECK: %[[M:.*]] = "aten.mul.Tensor"(%{{.*}}, %{{.*}}) : (tensor<3xi32>, tensor<3xi64>) -> tensor<3xi64>
// CHECK-NEXT: prim.convert %[[M]] : tensor<3xi64> -> tensor<3xi32>
func.func @mul_i64_into_i32(%x: tensor<3xi32>, %y: tensor<3xi64>) -> tensor<3xi32> {
  %c = "aten.clone"(%x) : (tensor<3xi32>) -> tensor<3xi32>
  %0 = "aten.mul_.Tensor"(%c, %y) : (tensor<3xi32>, tensor<3xi64>) -> tensor<3xi32>
  return %c : tensor<3xi32>
}

// -----

// Same dtype: no conversion.
// CHECK-LABEL: func.func @same_dtype
// CHECK: "aten.add.Scalar"
// CHECK-NOT: prim.convert
func.func @same_dtype(%x: tensor<3xf16>) -> tensor<3xf16> {
  %c = "aten.clone"(%x) : (tensor<3xf16>) -> tensor<3xf16>
  %0 = "aten.add_.Scalar"(%c) {other = 2.5 : f64} : (tensor<3xf16>) -> tensor<3xf16>
  return %c : tensor<3xf16>
}
