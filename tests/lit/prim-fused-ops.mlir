// RUN: pt2c-opt %s --split-input-file --verify-diagnostics --canonicalize | FileCheck %s

// prim.attention and prim.layer_norm: what canonicalization absorbs into them and what
// their verifiers refuse.

// Canonicalization absorbs the transposes that split heads [B, len, H, dim] and merge
// them back: the operands and the result are read and written in that layout.
// CHECK-LABEL: func.func @absorb_transposes
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x5x2x8xf16>, %[[K:[a-z0-9]+]]: tensor<1x2x5x8xf16>)
// CHECK-NEXT: %[[O:.*]] = prim.attention %[[X]], %[[K]], %[[X]], scale = 1.000000e+00, causal = false, heads_inner = [true, false, true, true] : tensor<1x5x2x8xf16>, tensor<1x2x5x8xf16>, tensor<1x5x2x8xf16> -> tensor<1x5x2x8xf16>
// CHECK-NEXT: return %[[O]]
func.func @absorb_transposes(%x: tensor<1x5x2x8xf16>, %k: tensor<1x2x5x8xf16>) -> tensor<1x5x2x8xf16> {
  %q = prim.transpose %x, permutation = [0, 2, 1, 3] : tensor<1x5x2x8xf16> -> tensor<1x2x5x8xf16>
  %0 = prim.attention %q, %k, %q, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16> -> tensor<1x2x5x8xf16>
  %1 = prim.transpose %0, permutation = [0, 2, 1, 3] : tensor<1x2x5x8xf16> -> tensor<1x5x2x8xf16>
  return %1 : tensor<1x5x2x8xf16>
}

// -----

func.func @mismatched_heads(%q: tensor<1x2x3x4xf32>, %k: tensor<1x3x3x4xf32>) -> tensor<1x2x3x4xf32> {
  // expected-error @+1 {{batch and head dims of query, key, value and result differ}}
  %0 = prim.attention %q, %k, %k, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x3x4xf32>, tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32> -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

func.func @bad_bias(%q: tensor<1x2x3x4xf32>, %b: tensor<1x1x3x2xf32>) -> tensor<1x2x3x4xf32> {
  // expected-error @+1 {{bias dim 3 is 2, neither 1 nor the scores' 3}}
  %0 = prim.attention %q, %q, %q bias %b, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x3x2xf32> -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// Layer norm absorbs the widening of its operands, the rounding of its result and the
// residual add that only feeds it.
// CHECK-LABEL: func.func @layer_norm_absorbs
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<4x8xf16>, %[[B:[a-z0-9]+]]: tensor<4x8xf16>, %[[W:[a-z0-9]+]]: tensor<8xf16>)
// CHECK-NEXT: %[[Y:.*]] = prim.layer_norm %[[A]] residual %[[B]] weight %[[W]], epsilon = 1.000000e-05 : tensor<4x8xf16>, tensor<4x8xf16>, tensor<8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_absorbs(%a: tensor<4x8xf16>, %b: tensor<4x8xf16>, %w: tensor<8xf16>) -> tensor<4x8xf16> {
  %s = prim.add %a, %b : tensor<4x8xf16>
  %x = prim.convert %s : tensor<4x8xf16> -> tensor<4x8xf32>
  %wf = prim.convert %w : tensor<8xf16> -> tensor<8xf32>
  %0 = prim.layer_norm %x weight %wf, epsilon = 1.0e-5 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = prim.convert %0 : tensor<4x8xf32> -> tensor<4x8xf16>
  return %1 : tensor<4x8xf16>
}

// -----

// An add with another use stays (its sum is needed anyway); a widening of the result
// stays (the op would skip the rounding to f16).
// CHECK-LABEL: func.func @layer_norm_keeps
// CHECK: %[[S:.*]] = prim.add
// CHECK: %[[Y:.*]] = prim.layer_norm %[[S]], epsilon
// CHECK: prim.convert %[[Y]] : tensor<4x8xf16> -> tensor<4x8xf32>
func.func @layer_norm_keeps(%a: tensor<4x8xf16>, %b: tensor<4x8xf16>) -> (tensor<4x8xf32>, tensor<4x8xf16>) {
  %s = prim.add %a, %b : tensor<4x8xf16>
  %0 = prim.layer_norm %s, epsilon = 1.0e-5 : tensor<4x8xf16> -> tensor<4x8xf16>
  %1 = prim.convert %0 : tensor<4x8xf16> -> tensor<4x8xf32>
  return %1, %s : tensor<4x8xf32>, tensor<4x8xf16>
}

// -----

func.func @layer_norm_bad_weight(%x: tensor<4x8xf32>, %w: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{weight and bias must be [8], one per element of the last dim}}
  %0 = prim.layer_norm %x weight %w, epsilon = 1.0e-5 : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
