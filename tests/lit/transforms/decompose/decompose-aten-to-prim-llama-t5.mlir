// Decompositions that LLaMA and T5 need beyond the other transformers: rotary
// embeddings (cos, sin), the packed-sequence check of transformers' mask code (cumsum,
// sum) and the CPU flash-attention kernel with grouped key/value heads.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// cumsum is a sliding-window sum: the window covers the whole dim, and n - 1 zeros
// padded in front make output i the sum of inputs 0..i. A bool input sums as int64.
// CHECK-LABEL: func.func @cumsum_bool
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x5xi1>)
// CHECK-DAG: %[[ZERO:.*]] = prim.constant dense<0> : tensor<i64>
// CHECK-DAG: %[[X64:.*]] = prim.convert %[[X]] : tensor<2x5xi1> -> tensor<2x5xi64>
// CHECK: %[[S:.*]] = prim.reduce_window SUM, %[[X64]], %[[ZERO]], window = [1, 5], strides = [1, 1], dilations = [1, 1], low = [0, 4], high = [0, 0] : tensor<2x5xi64>, tensor<i64> -> tensor<2x5xi64>
// CHECK: return %[[S]]
func.func @cumsum_bool(%x: tensor<2x5xi1>) -> tensor<2x5xi64> {
  %0 = "aten.cumsum"(%x) {dim = -1 : i64} : (tensor<2x5xi1>) -> tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

// Half floats accumulate in f32 and convert back.
// CHECK-LABEL: func.func @cumsum_f16_dim0
// CHECK: %[[X:.*]] = prim.convert %{{.*}} : tensor<3x2xf16> -> tensor<3x2xf32>
// CHECK: %[[S:.*]] = prim.reduce_window SUM, %[[X]], %{{.*}}, window = [3, 1], strides = [1, 1], dilations = [1, 1], low = [2, 0], high = [0, 0]
// CHECK: prim.convert %[[S]] : tensor<3x2xf32> -> tensor<3x2xf16>
func.func @cumsum_f16_dim0(%x: tensor<3x2xf16>) -> tensor<3x2xf16> {
  %0 = "aten.cumsum"(%x) {dim = 0 : i64} : (tensor<3x2xf16>) -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// -----

// sum of every element of an int64 tensor: one reduction to rank 0.
// CHECK-LABEL: func.func @sum_all
// CHECK: %[[S:.*]] = prim.reduce SUM, %{{.*}}, %{{.*}}, dims = [0, 1] : tensor<2x3xi64>, tensor<i64> -> tensor<i64>
// CHECK: return %[[S]]
func.func @sum_all(%x: tensor<2x3xi64>) -> tensor<i64> {
  %0 = "aten.sum"(%x) : (tensor<2x3xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// cos and sin of an integer tensor compute in the float result type.
// CHECK-LABEL: func.func @rotary
// CHECK: %[[F:.*]] = prim.convert %{{.*}} : tensor<4xi64> -> tensor<4xf32>
// CHECK: prim.cos %[[F]] : tensor<4xf32>
// CHECK: prim.sin %{{.*}} : tensor<4xf32>
func.func @rotary(%x: tensor<4xi64>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "aten.cos"(%x) : (tensor<4xi64>) -> tensor<4xf32>
  %1 = "aten.sin"(%y) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The CPU flash kernel takes grouped key/value heads unrepeated (sdpa with
// enable_gqa records it so): each key/value head serves Hq / Hk query heads in a row.
// CHECK-LABEL: func.func @flash_gqa
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x4x3x8xf32>, %[[K:[a-z0-9]+]]: tensor<1x2x3x8xf32>
// CHECK: %[[KB:.*]] = prim.broadcast_in_dim %[[K]], dims = [0, 1, 3, 4] : tensor<1x2x3x8xf32> -> tensor<1x2x2x3x8xf32>
// CHECK: %[[KR:.*]] = prim.reshape %[[KB]] : tensor<1x2x2x3x8xf32> -> tensor<1x4x3x8xf32>
// CHECK: prim.dot_general %[[Q]], %[[KR]]
func.func @flash_gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> (tensor<1x4x3x8xf32>, tensor<1x4x3xf32>) {
  %0:2 = "aten._scaled_dot_product_flash_attention_for_cpu"(%q, %k, %v) {is_causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> (tensor<1x4x3x8xf32>, tensor<1x4x3xf32>)
  return %0#0, %0#1 : tensor<1x4x3x8xf32>, tensor<1x4x3xf32>
}
