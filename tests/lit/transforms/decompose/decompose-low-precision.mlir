// f16/bf16 aten ops compute in f32 (decompose/LowPrecision.cpp): operands widened, the
// op decomposed in f32, results rounded back. Views, selections and contractions keep
// their dtype (contractions accumulate in f32 in their lowering).
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// GELU's erf formula runs in f32 between one widening and one rounding.
// CHECK-LABEL: func.func @gelu_f16
// CHECK: %[[W:.*]] = prim.convert %{{.*}} : tensor<2x4xf16> -> tensor<2x4xf32>
// CHECK: prim.erf %{{.*}} : tensor<2x4xf32>
// CHECK: %[[R:.*]] = prim.convert %{{.*}} : tensor<2x4xf32> -> tensor<2x4xf16>
// CHECK: return %[[R]]
func.func @gelu_f16(%x: tensor<2x4xf16>) -> tensor<2x4xf16> {
  %0 = "aten.gelu"(%x) {approximate = "none"} : (tensor<2x4xf16>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

// Layer norm's statistics are f32 sums; all three results are rounded back.
// CHECK-LABEL: func.func @layer_norm_bf16
// CHECK-DAG: prim.convert %{{.*}} : tensor<2x4xbf16> -> tensor<2x4xf32>
// CHECK-DAG: prim.convert %{{.*}} : tensor<4xbf16> -> tensor<4xf32>
// CHECK: prim.reduce SUM, %{{.*}} : tensor<2x4xf32>, tensor<f32> -> tensor<2xf32>
// CHECK: prim.rsqrt %{{.*}} : tensor<2xf32>
// CHECK: %[[R:.*]] = prim.convert %{{.*}} : tensor<2x4xf32> -> tensor<2x4xbf16>
// CHECK: return %[[R]]
func.func @layer_norm_bf16(%x: tensor<2x4xbf16>, %w: tensor<4xbf16>) -> tensor<2x4xbf16> {
  %0:3 = "aten.native_layer_norm"(%x, %w) <{eps = 1.0e-5 : f64, normalized_shape = array<i64: 4>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<2x4xbf16>, tensor<4xbf16>) -> (tensor<2x4xbf16>, tensor<2x1xbf16>, tensor<2x1xbf16>)
  return %0#0 : tensor<2x4xbf16>
}

// -----

// A matrix product and a transpose stay half: no conversion at all.
// CHECK-LABEL: func.func @mm_f16
// CHECK-NOT: prim.convert
// CHECK: prim.dot_general {{.*}} -> tensor<2x3xf16>
// CHECK-NOT: prim.convert
func.func @mm_f16(%a: tensor<2x4xf16>, %b: tensor<3x4xf16>) -> tensor<2x3xf16> {
  %t = "aten.t"(%b) : (tensor<3x4xf16>) -> tensor<4x3xf16>
  %0 = "aten.mm"(%a, %t) : (tensor<2x4xf16>, tensor<4x3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}
