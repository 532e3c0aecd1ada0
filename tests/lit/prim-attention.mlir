// RUN: pt2c-opt %s --split-input-file --verify-diagnostics --canonicalize | FileCheck %s

// prim.attention: the transposes it absorbs and what its verifier refuses.

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
