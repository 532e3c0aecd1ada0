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

// nn.MultiheadAttention with batch 1 (ViT): the packed in-projection [len, 3 x E] is
// split by a transpose that brings the 3 to the front and a slice each, then rank-3
// head splits; the heads merge sequence-first. Canonicalization leaves one slice per
// operand (the transpose never made, the unit-dim transposes now reshapes), all read
// [1, len, H, dim], and the result written that way; then the slices go too: the
// projection reshaped to [1, len, 3, H, dim] is read in place (parts).
// CHECK-LABEL: func.func @packed_unit_batch
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<5x48xf16>)
// CHECK-NOT: prim.transpose
// CHECK-NOT: prim.slice
// CHECK: %[[R:.*]] = prim.reshape %[[P]] : tensor<5x48xf16> -> tensor<1x5x3x2x8xf16>
// CHECK-NEXT: %[[O:.*]] = prim.attention %[[R]], %[[R]], %[[R]], {{.*}} heads_inner = [true, true, true, true], parts = [0, 1, 2] : tensor<1x5x3x2x8xf16>, tensor<1x5x3x2x8xf16>, tensor<1x5x3x2x8xf16> -> tensor<1x5x2x8xf16>
// CHECK: prim.reshape %[[O]] : tensor<1x5x2x8xf16> -> tensor<5x1x2x8xf16>
// CHECK-NOT: prim.transpose
func.func @packed_unit_batch(%p: tensor<5x48xf16>) -> tensor<5x1x2x8xf16> {
  %0 = prim.reshape %p : tensor<5x48xf16> -> tensor<1x5x1x3x16xf16>
  %1 = prim.transpose %0, permutation = [3, 1, 2, 0, 4] : tensor<1x5x1x3x16xf16> -> tensor<3x5x1x1x16xf16>
  %2 = prim.reshape %1 : tensor<3x5x1x1x16xf16> -> tensor<3x5x1x16xf16>
  %s0 = prim.slice %2, start = [0, 0, 0, 0], limit = [1, 5, 1, 16], strides = [1, 1, 1, 1] : tensor<3x5x1x16xf16> -> tensor<1x5x1x16xf16>
  %s1 = prim.slice %2, start = [1, 0, 0, 0], limit = [2, 5, 1, 16], strides = [1, 1, 1, 1] : tensor<3x5x1x16xf16> -> tensor<1x5x1x16xf16>
  %s2 = prim.slice %2, start = [2, 0, 0, 0], limit = [3, 5, 1, 16], strides = [1, 1, 1, 1] : tensor<3x5x1x16xf16> -> tensor<1x5x1x16xf16>
  %r0 = prim.reshape %s0 : tensor<1x5x1x16xf16> -> tensor<5x2x8xf16>
  %r1 = prim.reshape %s1 : tensor<1x5x1x16xf16> -> tensor<5x2x8xf16>
  %r2 = prim.reshape %s2 : tensor<1x5x1x16xf16> -> tensor<5x2x8xf16>
  %t0 = prim.transpose %r0, permutation = [1, 0, 2] : tensor<5x2x8xf16> -> tensor<2x5x8xf16>
  %t1 = prim.transpose %r1, permutation = [1, 0, 2] : tensor<5x2x8xf16> -> tensor<2x5x8xf16>
  %t2 = prim.transpose %r2, permutation = [1, 0, 2] : tensor<5x2x8xf16> -> tensor<2x5x8xf16>
  %q = prim.reshape %t0 : tensor<2x5x8xf16> -> tensor<1x2x5x8xf16>
  %k = prim.reshape %t1 : tensor<2x5x8xf16> -> tensor<1x2x5x8xf16>
  %v = prim.reshape %t2 : tensor<2x5x8xf16> -> tensor<1x2x5x8xf16>
  %a = prim.attention %q, %k, %v, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16> -> tensor<1x2x5x8xf16>
  %m = prim.transpose %a, permutation = [2, 0, 1, 3] : tensor<1x2x5x8xf16> -> tensor<5x1x2x8xf16>
  return %m : tensor<5x1x2x8xf16>
}

// -----

// timm's attention: the fused projection [1, len, 3, H, dim] is sliced per q/k/v, each
// slice [1, len, 1, H, dim] moved to [1, 1, H, len, dim] and reshaped to [1, H, len,
// dim]. Attention reads each slice reshaped to [1, len, H, dim] instead (heads_inner),
// and then each slice in place, as part 0, 1 or 2 of the projection (parts): no
// transpose and no slice is left to copy.
// CHECK-LABEL: func.func @timm_qkv_split
// CHECK-SAME: (%[[P:.*]]: tensor<1x5x3x2x8xf16>)
// CHECK-NEXT: %[[A:.*]] = prim.attention %[[P]], %[[P]], %[[P]], scale = 1.000000e+00, causal = false, heads_inner = [true, true, true, true], parts = [0, 1, 2] : tensor<1x5x3x2x8xf16>, tensor<1x5x3x2x8xf16>, tensor<1x5x3x2x8xf16> -> tensor<1x5x2x8xf16>
// CHECK-NEXT: return %[[A]]
func.func @timm_qkv_split(%p: tensor<1x5x3x2x8xf16>) -> tensor<1x5x2x8xf16> {
  %s0 = prim.slice %p, start = [0, 0, 0, 0, 0], limit = [1, 5, 1, 2, 8], strides = [1, 1, 1, 1, 1] : tensor<1x5x3x2x8xf16> -> tensor<1x5x1x2x8xf16>
  %s1 = prim.slice %p, start = [0, 0, 1, 0, 0], limit = [1, 5, 2, 2, 8], strides = [1, 1, 1, 1, 1] : tensor<1x5x3x2x8xf16> -> tensor<1x5x1x2x8xf16>
  %s2 = prim.slice %p, start = [0, 0, 2, 0, 0], limit = [1, 5, 3, 2, 8], strides = [1, 1, 1, 1, 1] : tensor<1x5x3x2x8xf16> -> tensor<1x5x1x2x8xf16>
  %t0 = prim.transpose %s0, permutation = [2, 0, 3, 1, 4] : tensor<1x5x1x2x8xf16> -> tensor<1x1x2x5x8xf16>
  %t1 = prim.transpose %s1, permutation = [2, 0, 3, 1, 4] : tensor<1x5x1x2x8xf16> -> tensor<1x1x2x5x8xf16>
  %t2 = prim.transpose %s2, permutation = [2, 0, 3, 1, 4] : tensor<1x5x1x2x8xf16> -> tensor<1x1x2x5x8xf16>
  %q = prim.reshape %t0 : tensor<1x1x2x5x8xf16> -> tensor<1x2x5x8xf16>
  %k = prim.reshape %t1 : tensor<1x1x2x5x8xf16> -> tensor<1x2x5x8xf16>
  %v = prim.reshape %t2 : tensor<1x1x2x5x8xf16> -> tensor<1x2x5x8xf16>
  %a = prim.attention %q, %k, %v, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16> -> tensor<1x2x5x8xf16>
  %m = prim.transpose %a, permutation = [0, 2, 1, 3] : tensor<1x2x5x8xf16> -> tensor<1x5x2x8xf16>
  return %m : tensor<1x5x2x8xf16>
}

// -----

// nn.MultiheadAttention's packed projection [1, len, 1, 3, H * dim]: one part of dim 3,
// [1, len] before it and [H * dim] after it, is the same packed layout reshaped.
// CHECK-LABEL: func.func @mha_qkv_split
// CHECK-SAME: (%[[X:.*]]: tensor<1x5x1x3x16xf16>)
// CHECK-NEXT: %[[P:.*]] = prim.reshape %[[X]] : tensor<1x5x1x3x16xf16> -> tensor<1x5x3x2x8xf16>
// CHECK-NEXT: prim.attention %[[P]], %[[P]], %[[P]], {{.*}} parts = [0, 1, 2]
func.func @mha_qkv_split(%x: tensor<1x5x1x3x16xf16>) -> tensor<1x5x2x8xf16> {
  %s0 = prim.slice %x, start = [0, 0, 0, 0, 0], limit = [1, 5, 1, 1, 16], strides = [1, 1, 1, 1, 1] : tensor<1x5x1x3x16xf16> -> tensor<1x5x1x1x16xf16>
  %s1 = prim.slice %x, start = [0, 0, 0, 1, 0], limit = [1, 5, 1, 2, 16], strides = [1, 1, 1, 1, 1] : tensor<1x5x1x3x16xf16> -> tensor<1x5x1x1x16xf16>
  %s2 = prim.slice %x, start = [0, 0, 0, 2, 0], limit = [1, 5, 1, 3, 16], strides = [1, 1, 1, 1, 1] : tensor<1x5x1x3x16xf16> -> tensor<1x5x1x1x16xf16>
  %q = prim.reshape %s0 : tensor<1x5x1x1x16xf16> -> tensor<1x5x2x8xf16>
  %k = prim.reshape %s1 : tensor<1x5x1x1x16xf16> -> tensor<1x5x2x8xf16>
  %v = prim.reshape %s2 : tensor<1x5x1x1x16xf16> -> tensor<1x5x2x8xf16>
  %a = prim.attention %q, %k, %v, scale = 1.0, causal = false, heads_inner = [true, true, true, true] : tensor<1x5x2x8xf16>, tensor<1x5x2x8xf16>, tensor<1x5x2x8xf16> -> tensor<1x5x2x8xf16>
  return %a : tensor<1x5x2x8xf16>
}

// -----

// A slice that takes part of the heads too (heads 0..1 of 3) is no whole part: the
// attention reads the slice as before.
// CHECK-LABEL: func.func @partial_qkv_slice
// CHECK: prim.slice
// CHECK: prim.attention {{.*}} heads_inner = [true, true, true, true] : tensor<1x5x2x8xf16>
// CHECK-NOT: parts
func.func @partial_qkv_slice(%p: tensor<1x5x3x3x8xf16>) -> tensor<1x5x2x8xf16> {
  %s = prim.slice %p, start = [0, 0, 0, 0, 0], limit = [1, 5, 1, 2, 8], strides = [1, 1, 1, 1, 1] : tensor<1x5x3x3x8xf16> -> tensor<1x5x1x2x8xf16>
  %q = prim.reshape %s : tensor<1x5x1x2x8xf16> -> tensor<1x5x2x8xf16>
  %a = prim.attention %q, %q, %q, scale = 1.0, causal = false, heads_inner = [true, true, true, true] : tensor<1x5x2x8xf16>, tensor<1x5x2x8xf16>, tensor<1x5x2x8xf16> -> tensor<1x5x2x8xf16>
  return %a : tensor<1x5x2x8xf16>
}

// -----

// As many heads as positions (4 and 4): a transpose that moves only a unit dim keeps
// the heads before the positions, so the operand is no head split of another layout
// (equal sizes must not fool the match); attention reads it as it is.
// CHECK-LABEL: func.func @equal_heads_and_length
// CHECK: prim.attention {{.*}} heads_inner = [false, false, false, false]
func.func @equal_heads_and_length(%x: tensor<1x4x1x4x8xf16>) -> tensor<1x4x4x8xf16> {
  %t = prim.transpose %x, permutation = [0, 2, 1, 3, 4] : tensor<1x4x1x4x8xf16> -> tensor<1x1x4x4x8xf16>
  %q = prim.reshape %t : tensor<1x1x4x4x8xf16> -> tensor<1x4x4x8xf16>
  %a = prim.attention %q, %q, %q, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x4x4x8xf16>, tensor<1x4x4x8xf16>, tensor<1x4x4x8xf16> -> tensor<1x4x4x8xf16>
  return %a : tensor<1x4x4x8xf16>
}

// -----

// A reshape that regroups the moved elements ([2, 6, 8] as [3, 4, 8]) is no head split,
// though the number of dims of size > 1 and their order would fit one.
// CHECK-LABEL: func.func @regrouping_reshape
// CHECK: prim.transpose
// CHECK: prim.attention {{.*}} heads_inner = [false, false, false, false]
func.func @regrouping_reshape(%x: tensor<1x6x1x2x8xf16>) -> tensor<1x3x4x8xf16> {
  %t = prim.transpose %x, permutation = [2, 0, 3, 1, 4] : tensor<1x6x1x2x8xf16> -> tensor<1x1x2x6x8xf16>
  %q = prim.reshape %t : tensor<1x1x2x6x8xf16> -> tensor<1x3x4x8xf16>
  %a = prim.attention %q, %q, %q, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x3x4x8xf16>, tensor<1x3x4x8xf16>, tensor<1x3x4x8xf16> -> tensor<1x3x4x8xf16>
  return %a : tensor<1x3x4x8xf16>
}

// -----

// With batch 2 the sequence-first merge is a real transpose: it stays.
// CHECK-LABEL: func.func @sequence_first_batch_2
// CHECK: prim.attention {{.*}} heads_inner = [false, false, false, false]
// CHECK: prim.transpose %{{.*}}, permutation = [2, 0, 1, 3]
func.func @sequence_first_batch_2(%q: tensor<2x2x5x8xf16>) -> tensor<5x2x2x8xf16> {
  %a = prim.attention %q, %q, %q, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<2x2x5x8xf16>, tensor<2x2x5x8xf16>, tensor<2x2x5x8xf16> -> tensor<2x2x5x8xf16>
  %m = prim.transpose %a, permutation = [2, 0, 1, 3] : tensor<2x2x5x8xf16> -> tensor<5x2x2x8xf16>
  return %m : tensor<5x2x2x8xf16>
}

// -----

func.func @mismatched_heads(%q: tensor<1x2x3x4xf32>, %k: tensor<1x3x3x4xf32>) -> tensor<1x2x3x4xf32> {
  // expected-error @+1 {{key and value need one head count that divides the query's}}
  %0 = prim.attention %q, %k, %k, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x3x4xf32>, tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32> -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

func.func @packed_part_out_of_range(%p: tensor<1x5x3x2x8xf32>) -> tensor<1x5x2x8xf32> {
  // expected-error @+1 {{a packed operand is a static [B, len, P, H, dim] tensor, heads inner, of which it reads a part p < P}}
  %0 = prim.attention %p, %p, %p, scale = 1.0, causal = false, heads_inner = [true, true, true, true], parts = [0, 1, 3] : tensor<1x5x3x2x8xf32>, tensor<1x5x3x2x8xf32>, tensor<1x5x3x2x8xf32> -> tensor<1x5x2x8xf32>
  return %0 : tensor<1x5x2x8xf32>
}

// -----

func.func @mismatched_batch(%q: tensor<1x2x3x4xf32>, %k: tensor<2x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  // expected-error @+1 {{batch dims of query, key, value and result or heads of query and result differ}}
  %0 = prim.attention %q, %k, %k, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x3x4xf32>, tensor<2x2x3x4xf32>, tensor<2x2x3x4xf32> -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// Grouped-query attention as transformers' repeat_kv writes it: each of the 2 key/value
// heads unsqueezed, expanded to 3 copies and merged with the heads (6 query heads); and
// as the unfused enable_gqa decomposition writes it (a broadcast over a new dim).
// Canonicalization drops the repeats: the op reads the 2 heads (head h: h / 3).
// CHECK-LABEL: func.func @absorb_repeated_heads
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x6x5x8xf16>, %[[K:[a-z0-9]+]]: tensor<1x2x5x8xf16>, %[[V:[a-z0-9]+]]: tensor<1x2x5x8xf16>)
// CHECK-NOT: prim.broadcast_in_dim
// CHECK: prim.attention %[[Q]], %[[K]], %[[V]], {{.*}} : tensor<1x6x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16> -> tensor<1x6x5x8xf16>
func.func @absorb_repeated_heads(%q: tensor<1x6x5x8xf16>, %k: tensor<1x2x5x8xf16>, %v: tensor<1x2x5x8xf16>) -> tensor<1x6x5x8xf16> {
  %k1 = prim.reshape %k : tensor<1x2x5x8xf16> -> tensor<1x2x1x5x8xf16>
  %k3 = prim.broadcast_in_dim %k1, dims = [0, 1, 2, 3, 4] : tensor<1x2x1x5x8xf16> -> tensor<1x2x3x5x8xf16>
  %kr = prim.reshape %k3 : tensor<1x2x3x5x8xf16> -> tensor<1x6x5x8xf16>
  %v3 = prim.broadcast_in_dim %v, dims = [0, 1, 3, 4] : tensor<1x2x5x8xf16> -> tensor<1x2x3x5x8xf16>
  %vr = prim.reshape %v3 : tensor<1x2x3x5x8xf16> -> tensor<1x6x5x8xf16>
  %0 = prim.attention %q, %kr, %vr, scale = 1.0, causal = true, heads_inner = [false, false, false, false] : tensor<1x6x5x8xf16>, tensor<1x6x5x8xf16>, tensor<1x6x5x8xf16> -> tensor<1x6x5x8xf16>
  return %0 : tensor<1x6x5x8xf16>
}

// -----

// A broadcast that repeats the whole block of heads (head h: h mod 2) is not grouped-query
// attention's order and stays.
// CHECK-LABEL: func.func @keep_tiled_heads
// CHECK: prim.broadcast_in_dim
// CHECK: prim.attention
func.func @keep_tiled_heads(%q: tensor<1x6x5x8xf16>, %k: tensor<1x2x5x8xf16>) -> tensor<1x6x5x8xf16> {
  %k3 = prim.broadcast_in_dim %k, dims = [0, 2, 3, 4] : tensor<1x2x5x8xf16> -> tensor<1x3x2x5x8xf16>
  %kr = prim.reshape %k3 : tensor<1x3x2x5x8xf16> -> tensor<1x6x5x8xf16>
  %0 = prim.attention %q, %kr, %kr, scale = 1.0, causal = false, heads_inner = [false, false, false, false] : tensor<1x6x5x8xf16>, tensor<1x6x5x8xf16>, tensor<1x6x5x8xf16> -> tensor<1x6x5x8xf16>
  return %0 : tensor<1x6x5x8xf16>
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

// -----

// RMS norm as transformers' Llama writes it (f16 x widened, sum of squares / N, keepdim,
// + eps, rsqrt, the scaling, rounded to f16, times the f16 weight), in a module the CUDA
// pipeline marked: one prim.layer_norm {rms} reading x and the weight as they are.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x8xf16>, %[[W:[a-z0-9]+]]: tensor<8xf16>)
// CHECK-NEXT: %[[N:.*]] = prim.layer_norm %[[X]] weight %[[W]], epsilon = {{.*}} {rms} : tensor<2x8xf16>, tensor<8xf16> -> tensor<2x8xf16>
// CHECK-NEXT: return %[[N]]
module attributes {pt2c.fused_ops} {
func.func @rms_norm(%x: tensor<2x8xf16>, %w: tensor<8xf16>) -> tensor<2x8xf16> {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %n = prim.constant dense<8.0> : tensor<2xf32>
  %eps = prim.constant dense<1.0e-6> : tensor<2x1xf32>
  %c = prim.convert %x : tensor<2x8xf16> -> tensor<2x8xf32>
  %sq = prim.mul %c, %c : tensor<2x8xf32>
  %s = prim.reduce SUM, %sq, %zero, dims = [1] : tensor<2x8xf32>, tensor<f32> -> tensor<2xf32>
  %m = prim.div %s, %n : tensor<2xf32>
  %mk = prim.reshape %m : tensor<2xf32> -> tensor<2x1xf32>
  %a = prim.add %mk, %eps : tensor<2x1xf32>
  %r = prim.rsqrt %a : tensor<2x1xf32>
  %rb = prim.broadcast_in_dim %r, dims = [0, 1] : tensor<2x1xf32> -> tensor<2x8xf32>
  %y = prim.mul %c, %rb : tensor<2x8xf32>
  %yh = prim.convert %y : tensor<2x8xf32> -> tensor<2x8xf16>
  %wb = prim.broadcast_in_dim %w, dims = [1] : tensor<8xf16> -> tensor<2x8xf16>
  %out = prim.mul %wb, %yh : tensor<2x8xf16>
  return %out : tensor<2x8xf16>
}
}

// -----

// The same formula on the CPU (no mark), and a mean over another count, stay as they are.
// CHECK-LABEL: func.func @rms_norm_unmarked
// CHECK: prim.rsqrt
// CHECK-LABEL: func.func @not_a_mean
// CHECK: prim.rsqrt
func.func @rms_norm_unmarked(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %n = prim.constant dense<8.0> : tensor<2xf32>
  %eps = prim.constant dense<1.0e-6> : tensor<2xf32>
  %sq = prim.mul %x, %x : tensor<2x8xf32>
  %s = prim.reduce SUM, %sq, %zero, dims = [1] : tensor<2x8xf32>, tensor<f32> -> tensor<2xf32>
  %m = prim.div %s, %n : tensor<2xf32>
  %a = prim.add %m, %eps : tensor<2xf32>
  %r = prim.rsqrt %a : tensor<2xf32>
  %rb = prim.broadcast_in_dim %r, dims = [0] : tensor<2xf32> -> tensor<2x8xf32>
  %y = prim.mul %x, %rb : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
module attributes {pt2c.fused_ops} {
func.func @not_a_mean(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %n = prim.constant dense<7.0> : tensor<2xf32>
  %eps = prim.constant dense<1.0e-6> : tensor<2xf32>
  %sq = prim.mul %x, %x : tensor<2x8xf32>
  %s = prim.reduce SUM, %sq, %zero, dims = [1] : tensor<2x8xf32>, tensor<f32> -> tensor<2xf32>
  %m = prim.div %s, %n : tensor<2xf32>
  %a = prim.add %m, %eps : tensor<2xf32>
  %r = prim.rsqrt %a : tensor<2xf32>
  %rb = prim.broadcast_in_dim %r, dims = [0] : tensor<2xf32> -> tensor<2x8xf32>
  %y = prim.mul %x, %rb : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
}

// -----

// An RMS norm formed without its weight (the multiply was written through reshapes the
// form's matcher did not see) takes a later weight multiply of its own type; a centred
// layer norm, which rounds once after its weight, keeps the multiply.
// CHECK-LABEL: func.func @rms_norm_late_weight
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x8xf16>, %[[W:[a-z0-9]+]]: tensor<8xf16>)
// CHECK-NEXT: %[[N:.*]] = prim.layer_norm %[[X]] weight %[[W]], epsilon = {{.*}} {rms} : tensor<2x8xf16>, tensor<8xf16> -> tensor<2x8xf16>
// CHECK-NEXT: return %[[N]]
// CHECK-LABEL: func.func @layer_norm_late_weight
// CHECK: prim.layer_norm
// CHECK-NEXT: prim.broadcast_in_dim
// CHECK-NEXT: prim.mul
module attributes {pt2c.fused_ops} {
func.func @rms_norm_late_weight(%x: tensor<2x8xf16>, %w: tensor<8xf16>) -> tensor<2x8xf16> {
  %n = prim.layer_norm %x, epsilon = 1.0e-6 {rms} : tensor<2x8xf16> -> tensor<2x8xf16>
  %wb = prim.broadcast_in_dim %w, dims = [1] : tensor<8xf16> -> tensor<2x8xf16>
  %out = prim.mul %n, %wb : tensor<2x8xf16>
  return %out : tensor<2x8xf16>
}
func.func @layer_norm_late_weight(%x: tensor<2x8xf16>, %w: tensor<8xf16>) -> tensor<2x8xf16> {
  %n = prim.layer_norm %x, epsilon = 1.0e-6 : tensor<2x8xf16> -> tensor<2x8xf16>
  %wb = prim.broadcast_in_dim %w, dims = [1] : tensor<8xf16> -> tensor<2x8xf16>
  %out = prim.mul %n, %wb : tensor<2x8xf16>
  return %out : tensor<2x8xf16>
}
}

// -----

// Rotary embeddings on a transposed q ([b, s, h, d] -> [b, h, s, d], then
// q * cos + rotate_half(q) * sin): on the GPU the transpose sinks below the rotation
// (slices move above it, the broadcasts of cos and sin broadcast into [b, s, h, d]) and
// attention absorbs it: q is read as the projection wrote it (heads_inner), no copy.
// CHECK-LABEL: func.func @rotary_before_transpose
// CHECK-NOT: prim.transpose
// CHECK: prim.broadcast_in_dim %{{.*}}, dims = [0, 2, 1, 3] : tensor<1x1x4x8xf16> -> tensor<1x4x2x8xf16>
// CHECK-NOT: prim.transpose
// CHECK: prim.attention {{.*}} heads_inner = [true, false, false, false]
// CHECK-LABEL: func.func @rotary_unmarked
// CHECK: prim.transpose
module attributes {pt2c.fused_ops} {
func.func @rotary_before_transpose(%q: tensor<1x4x2x8xf16>, %k: tensor<1x2x4x8xf16>, %v: tensor<1x2x4x8xf16>, %cos: tensor<1x1x4x8xf16>, %sin: tensor<1x1x4x8xf16>) -> tensor<1x2x4x8xf16> {
  %t = prim.transpose %q, permutation = [0, 2, 1, 3] : tensor<1x4x2x8xf16> -> tensor<1x2x4x8xf16>
  %cb = prim.broadcast_in_dim %cos, dims = [0, 1, 2, 3] : tensor<1x1x4x8xf16> -> tensor<1x2x4x8xf16>
  %a = prim.mul %t, %cb : tensor<1x2x4x8xf16>
  %lo = prim.slice %t, start = [0, 0, 0, 0], limit = [1, 2, 4, 4], strides = [1, 1, 1, 1] : tensor<1x2x4x8xf16> -> tensor<1x2x4x4xf16>
  %hi = prim.slice %t, start = [0, 0, 0, 4], limit = [1, 2, 4, 8], strides = [1, 1, 1, 1] : tensor<1x2x4x8xf16> -> tensor<1x2x4x4xf16>
  %nh = prim.neg %hi : tensor<1x2x4x4xf16>
  %rot = prim.concatenate %nh, %lo dim = 3 : (tensor<1x2x4x4xf16>, tensor<1x2x4x4xf16>) -> tensor<1x2x4x8xf16>
  %sb = prim.broadcast_in_dim %sin, dims = [0, 1, 2, 3] : tensor<1x1x4x8xf16> -> tensor<1x2x4x8xf16>
  %b = prim.mul %rot, %sb : tensor<1x2x4x8xf16>
  %r = prim.add %a, %b : tensor<1x2x4x8xf16>
  %o = prim.attention %r, %k, %v, scale = 0.35355339, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16> -> tensor<1x2x4x8xf16>
  return %o : tensor<1x2x4x8xf16>
}
}
func.func @rotary_unmarked(%q: tensor<1x4x2x8xf32>, %cos: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %t = prim.transpose %q, permutation = [0, 2, 1, 3] : tensor<1x4x2x8xf32> -> tensor<1x2x4x8xf32>
  %cb = prim.broadcast_in_dim %cos, dims = [0, 1, 2, 3] : tensor<1x1x4x8xf32> -> tensor<1x2x4x8xf32>
  %a = prim.mul %t, %cb : tensor<1x2x4x8xf32>
  return %a : tensor<1x2x4x8xf32>
}

