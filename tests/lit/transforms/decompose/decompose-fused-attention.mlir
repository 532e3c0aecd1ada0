// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize --cse | FileCheck %s

// In a module the CUDA pipeline marked pt2c.fused_ops, attention is one
// prim.attention on the half operands as they are; a float mask becomes its bias
// (right-aligned to rank 4, kept in the operands' type); the flash kernel's unused
// logsumexp disappears.
// CHECK-LABEL: func.func @flash_f16_mask
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x2x3x8xf16>, %[[K:[a-z0-9]+]]: tensor<1x2x5x8xf16>, %[[V:[a-z0-9]+]]: tensor<1x2x5x4xf16>, %[[M:[a-z0-9]+]]: tensor<3x5xf16>)
// CHECK: %[[B:.*]] = prim.reshape %[[M]] : tensor<3x5xf16> -> tensor<1x1x3x5xf16>
// CHECK: %[[O:.*]] = prim.attention %[[Q]], %[[K]], %[[V]] bias %[[B]], scale = 2.500000e-01, causal = false, heads_inner = [false, false, false, false]
// CHECK-SAME: -> tensor<1x2x3x4xf16>
// CHECK-NOT: prim.dot_general
// CHECK: return %[[O]]
module attributes {pt2c.fused_ops} {
func.func @flash_f16_mask(%q: tensor<1x2x3x8xf16>, %k: tensor<1x2x5x8xf16>, %v: tensor<1x2x5x4xf16>, %m: tensor<3x5xf16>) -> tensor<1x2x3x4xf16> {
  %0:2 = "aten._scaled_dot_product_flash_attention_for_cpu"(%q, %k, %v, %m) {scale = 0.25 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<1x2x3x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x4xf16>, tensor<3x5xf16>) -> (tensor<1x2x3x4xf16>, tensor<1x2x3xf32>)
  return %0#0 : tensor<1x2x3x4xf16>
}
}

// -----

// A bool mask (true = attend) becomes an f32 bias of 0 and -inf; causal is a flag; the
// default scale is 1/sqrt(head size).
// CHECK-LABEL: func.func @sdpa_bool_mask
// CHECK: %[[SEL:.*]] = prim.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x1x3x3xi1>, tensor<1x1x3x3xf32>
// CHECK: prim.attention %{{.*}}, %{{.*}}, %{{.*}} bias %[[SEL]], scale = 5.000000e-01, causal = false
// CHECK-LABEL: func.func @sdpa_causal
// CHECK: prim.attention %{{.*}}, %{{.*}}, %{{.*}}, scale = 5.000000e-01, causal = true
module attributes {pt2c.fused_ops} {
func.func @sdpa_bool_mask(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xi1>) -> tensor<1x2x3x4xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %q, %q, %m) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xi1>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}
func.func @sdpa_causal(%q: tensor<1x2x3x4xbf16>) -> tensor<1x2x3x4xbf16> {
  %0 = "aten.scaled_dot_product_attention"(%q, %q, %q) {is_causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x3x4xbf16>, tensor<1x2x3x4xbf16>, tensor<1x2x3x4xbf16>) -> tensor<1x2x3x4xbf16>
  return %0 : tensor<1x2x3x4xbf16>
}
}

// -----

// Grouped-query heads (enable_gqa, 2 key/value heads for 4 query heads) stay one op that
// reads k and v as they are. Where the fused kernel does not apply, the formula is
// spelled out as everywhere else: rank 3, a used logsumexp; and in a module without the
// mark.
// CHECK-LABEL: func.func @rank3
// CHECK-NOT: prim.attention
// CHECK: prim.dot_general
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x4x3x8xf32>, %[[K:[a-z0-9]+]]: tensor<1x2x3x8xf32>, %[[V:[a-z0-9]+]]: tensor<1x2x3x8xf32>)
// CHECK-NEXT: prim.attention %[[Q]], %[[K]], %[[V]], {{.*}} : tensor<1x4x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x4x3x8xf32>
// CHECK-LABEL: func.func @logsumexp_used
// CHECK-NOT: prim.attention
// CHECK: prim.log
module attributes {pt2c.fused_ops} {
func.func @rank3(%q: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %q, %q) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
func.func @gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x4x3x8xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %k, %v) {enable_gqa = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x4x3x8xf32>
  return %0 : tensor<1x4x3x8xf32>
}
func.func @logsumexp_used(%q: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>) {
  %0:2 = "aten._scaled_dot_product_flash_attention_for_cpu"(%q, %q, %q) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>)
  return %0#0, %0#1 : tensor<1x2x3x4xf32>, tensor<1x2x3xf32>
}
}

// -----

// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: prim.attention
// CHECK: prim.dot_general
func.func @unmarked(%q: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %q, %q) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}
