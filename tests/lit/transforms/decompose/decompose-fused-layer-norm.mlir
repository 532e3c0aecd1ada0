// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize --cse | FileCheck %s

// In a module the CUDA pipeline marked, layer norm over the last dim is one
// prim.layer_norm; canonicalization absorbs the f16 -> f32 converts of its operands and
// the rounding of its result (the low-precision rewrite's), so the op reads and writes f16.
// CHECK-LABEL: func.func @ln_f16
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x8xf16>, %[[W:[a-z0-9]+]]: tensor<8xf16>, %[[B:[a-z0-9]+]]: tensor<8xf16>)
// CHECK-NEXT: %[[Y:.*]] = prim.layer_norm %[[X]] weight %[[W]] bias %[[B]], epsilon = 1.000000e-05 : tensor<2x3x8xf16>, tensor<8xf16>, tensor<8xf16> -> tensor<2x3x8xf16>
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @ln_no_affine
// CHECK: prim.layer_norm %{{.*}}, epsilon = 9.9999999999999995E-7 : tensor<4x16xf32> -> tensor<4x16xf32>
module attributes {pt2c.fused_ops} {
func.func @ln_f16(%x: tensor<2x3x8xf16>, %w: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<2x3x8xf16> {
  %0:3 = "aten.native_layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3x8xf16>, tensor<8xf16>, tensor<8xf16>) -> (tensor<2x3x8xf16>, tensor<2x3x1xf16>, tensor<2x3x1xf16>)
  return %0#0 : tensor<2x3x8xf16>
}
func.func @ln_no_affine(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0:3 = "aten.native_layer_norm"(%x) {normalized_shape = array<i64: 16>, eps = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %0#0 : tensor<4x16xf32>
}
}

// -----

// Where the fused kernel does not apply, the formula is spelled out: normalized over two
// dims, mean used, and in a module without the mark.
// CHECK-LABEL: func.func @two_dims
// CHECK-NOT: prim.layer_norm
// CHECK: prim.reduce SUM
// CHECK-LABEL: func.func @mean_used
// CHECK-NOT: prim.layer_norm
// CHECK: prim.reduce SUM
module attributes {pt2c.fused_ops} {
func.func @two_dims(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %0:3 = "aten.native_layer_norm"(%x) {normalized_shape = array<i64: 3, 8>, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %0#0 : tensor<2x3x8xf32>
}
func.func @mean_used(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>) {
  %0:3 = "aten.native_layer_norm"(%x) {normalized_shape = array<i64: 16>, eps = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %0#0, %0#1 : tensor<4x16xf32>, tensor<4x1xf32>
}
}

// -----

// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: prim.layer_norm
func.func @unmarked(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0:3 = "aten.native_layer_norm"(%x) {normalized_shape = array<i64: 16>, eps = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %0#0 : tensor<4x16xf32>
}
