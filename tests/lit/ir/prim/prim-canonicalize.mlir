// Folders and canonicalization patterns of prim ops.
// RUN: pt2c-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @no_ops
// CHECK-NEXT: return %arg0, %arg0, %arg0, %arg0
func.func @no_ops(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = prim.convert %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = prim.broadcast_in_dim %x, dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = prim.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = prim.transpose %x, permutation = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @chains
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = prim.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[T:.*]] = prim.transpose %[[X]], permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[R]], %[[T]]
func.func @chains(%x: tensor<2x3x4xf32>) -> (tensor<4x6xf32>, tensor<4x2x3xf32>) {
  %0 = prim.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = prim.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  %2 = prim.transpose %x, permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %3 = prim.transpose %2, permutation = [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1, %3 : tensor<4x6xf32>, tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.*]] = prim.constant dense<2.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_splat() -> tensor<4x3xf32> {
  %0 = prim.constant dense<2.0> : tensor<f32>
  %1 = prim.broadcast_in_dim %0, dims = [] : tensor<f32> -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// A Linear layer's transposed weight is read in place: the transpose moves into the
// contracting dimensions.
// CHECK-LABEL: func.func @absorb_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: tensor<256x64xf32>, %[[A:.*]]: tensor<5x3x2xf32>, %[[B:.*]]: tensor<5x3x6xf32>)
// CHECK-NEXT: %[[P:.*]] = prim.dot_general %[[X]], %[[W]], batch = [] x [], contract = [1] x [1] : (tensor<4x64xf32>, tensor<256x64xf32>) -> tensor<4x256xf32>
// CHECK-NEXT: %[[Q:.*]] = prim.dot_general %[[A]], %[[B]], batch = [0] x [0], contract = [1] x [1] : (tensor<5x3x2xf32>, tensor<5x3x6xf32>) -> tensor<5x2x6xf32>
// CHECK-NEXT: return %[[P]], %[[Q]]
func.func @absorb_transpose(%x: tensor<4x64xf32>, %w: tensor<256x64xf32>, %a: tensor<5x3x2xf32>, %b: tensor<5x3x6xf32>) -> (tensor<4x256xf32>, tensor<5x2x6xf32>) {
  %wt = prim.transpose %w, permutation = [1, 0] : tensor<256x64xf32> -> tensor<64x256xf32>
  %0 = prim.dot_general %x, %wt, batch = [] x [], contract = [1] x [0] : (tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
  %at = prim.transpose %a, permutation = [0, 2, 1] : tensor<5x3x2xf32> -> tensor<5x2x3xf32>
  %1 = prim.dot_general %at, %b, batch = [0] x [0], contract = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x6xf32>) -> tensor<5x2x6xf32>
  return %0, %1 : tensor<4x256xf32>, tensor<5x2x6xf32>
}

// -----

// Not when the transpose reorders the free dims: that would transpose the result.
// CHECK-LABEL: func.func @keep_transpose
// CHECK: prim.transpose
// CHECK: prim.dot_general
func.func @keep_transpose(%x: tensor<2x3x4xf32>, %y: tensor<4xf32>) -> tensor<3x2xf32> {
  %xt = prim.transpose %x, permutation = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %0 = prim.dot_general %xt, %y, batch = [] x [], contract = [2] x [0] : (tensor<3x2x4xf32>, tensor<4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Arithmetic identities fold away (x + 0 only for integers: on floats -0.0 + 0 is
// +0.0, so only -0.0 is the additive identity).
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[I:.*]]: tensor<3xi64>, %[[F:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-DAG: %[[FZERO:.*]] = prim.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[FADD:.*]] = prim.add %[[F]], %[[FZERO]]
// CHECK: return %[[I]], %[[I]], %[[I]], %[[I]], %[[F]], %[[F]], %[[F]], %[[F]], %[[FADD]]
func.func @identities(%i: tensor<3xi64>, %f: tensor<3xf32>) -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %izero = prim.constant dense<0> : tensor<3xi64>
  %ione = prim.constant dense<1> : tensor<3xi64>
  %fzero = prim.constant dense<0.0> : tensor<3xf32>
  %fnegzero = prim.constant dense<-0.0> : tensor<3xf32>
  %fone = prim.constant dense<1.0> : tensor<3xf32>
  %0 = prim.add %izero, %i : tensor<3xi64>
  %1 = prim.sub %i, %izero : tensor<3xi64>
  %2 = prim.mul %i, %ione : tensor<3xi64>
  %3 = prim.div %i, %ione : tensor<3xi64>
  %4 = prim.add %f, %fnegzero : tensor<3xf32>
  %5 = prim.sub %f, %fzero : tensor<3xf32>
  %6 = prim.mul %fone, %f : tensor<3xf32>
  %7 = prim.div %f, %fone : tensor<3xf32>
  %8 = prim.add %f, %fzero : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// A reshaped constant is a constant (functionalization reshapes a written scalar).
// CHECK-LABEL: func.func @reshape_of_constant
// CHECK-NEXT: %[[C:.*]] = prim.constant dense<5.000000e+00> : tensor<1xf32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_of_constant() -> tensor<1xf32> {
  %0 = prim.constant dense<5.0> : tensor<f32>
  %1 = prim.reshape %0 : tensor<f32> -> tensor<1xf32>
  return %1 : tensor<1xf32>
}

// -----

// A transpose that only moves unit dims is a reshape; one that reorders dims larger than
// 1 stays.
// CHECK-LABEL: func.func @unit_dim_transposes
// CHECK-NEXT: %[[A:.*]] = prim.reshape %arg0 : tensor<1x7x5xf32> -> tensor<7x1x5xf32>
// CHECK-NEXT: %[[B:.*]] = prim.transpose %arg0, permutation = [0, 2, 1]
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @unit_dim_transposes(%x: tensor<1x7x5xf32>) -> (tensor<7x1x5xf32>, tensor<1x5x7xf32>) {
  %0 = prim.transpose %x, permutation = [1, 0, 2] : tensor<1x7x5xf32> -> tensor<7x1x5xf32>
  %1 = prim.transpose %x, permutation = [0, 2, 1] : tensor<1x7x5xf32> -> tensor<1x5x7xf32>
  return %0, %1 : tensor<7x1x5xf32>, tensor<1x5x7xf32>
}

// -----

// Slices move above a transpose that only feeds slices (the transposed whole is never
// made), and above a reshape that only adds or drops unit dims.
// CHECK-LABEL: func.func @slices_through_layout_ops
// CHECK-NEXT: %[[S0:.*]] = prim.slice %arg0, start = [0, 0], limit = [4, 1], strides = [1, 1] : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[R0:.*]] = prim.reshape %[[S0]] : tensor<4x1xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[S1:.*]] = prim.slice %arg0, start = [0, 2], limit = [4, 3], strides = [1, 1] : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[R1:.*]] = prim.reshape %[[S1]] : tensor<4x1xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[S2:.*]] = prim.slice %arg1, start = [0, 1, 0], limit = [1, 3, 6], strides = [1, 1, 2] : tensor<1x5x6xf32> -> tensor<1x2x3xf32>
// CHECK-NEXT: %[[R2:.*]] = prim.reshape %[[S2]] : tensor<1x2x3xf32> -> tensor<2x1x3xf32>
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]]
func.func @slices_through_layout_ops(%x: tensor<4x3xf32>, %y: tensor<1x5x6xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<2x1x3xf32>) {
  %t = prim.transpose %x, permutation = [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
  %0 = prim.slice %t, start = [0, 0], limit = [1, 4], strides = [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %1 = prim.slice %t, start = [2, 0], limit = [3, 4], strides = [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %r = prim.reshape %y : tensor<1x5x6xf32> -> tensor<5x1x6xf32>
  %2 = prim.slice %r, start = [1, 0, 0], limit = [3, 1, 6], strides = [1, 1, 2] : tensor<5x1x6xf32> -> tensor<2x1x3xf32>
  return %0, %1, %2 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<2x1x3xf32>
}

// -----

// A transpose with another use than slices stays whole, its slices below it.
// CHECK-LABEL: func.func @transpose_with_other_uses
// CHECK: %[[T:.*]] = prim.transpose %arg0
// CHECK: prim.slice %[[T]]
func.func @transpose_with_other_uses(%x: tensor<4x3xf32>) -> (tensor<3x4xf32>, tensor<1x4xf32>) {
  %t = prim.transpose %x, permutation = [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
  %0 = prim.slice %t, start = [0, 0], limit = [1, 4], strides = [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  return %t, %0 : tensor<3x4xf32>, tensor<1x4xf32>
}

// -----

// A patch embedding's product [1, H, W, C] moved to [1, C, H, W], flattened to
// [1, C, H * W] and moved back to [1, H * W, C]: H and W are consecutive dims of the
// product, so the flattening applies to it and the transposes cancel. Where the merged
// dims are not consecutive in x, the transposes stay.
// CHECK-LABEL: func.func @patch_embedding_layout
// CHECK-NEXT: %[[R:.*]] = prim.reshape %arg0 : tensor<1x2x3x4xf32> -> tensor<1x6x4xf32>
// CHECK-NEXT: %[[T:.*]] = prim.transpose %arg0, permutation = [0, 3, 2, 1]
// CHECK-NEXT: %[[F:.*]] = prim.reshape %[[T]] : tensor<1x4x3x2xf32> -> tensor<1x4x6xf32>
// CHECK-NEXT: %[[B:.*]] = prim.transpose %[[F]], permutation = [0, 2, 1]
// CHECK-NEXT: return %[[R]], %[[B]]
func.func @patch_embedding_layout(%x: tensor<1x2x3x4xf32>) -> (tensor<1x6x4xf32>, tensor<1x6x4xf32>) {
  %t = prim.transpose %x, permutation = [0, 3, 1, 2] : tensor<1x2x3x4xf32> -> tensor<1x4x2x3xf32>
  %f = prim.reshape %t : tensor<1x4x2x3xf32> -> tensor<1x4x6xf32>
  %b = prim.transpose %f, permutation = [0, 2, 1] : tensor<1x4x6xf32> -> tensor<1x6x4xf32>
  %t2 = prim.transpose %x, permutation = [0, 3, 2, 1] : tensor<1x2x3x4xf32> -> tensor<1x4x3x2xf32>
  %f2 = prim.reshape %t2 : tensor<1x4x3x2xf32> -> tensor<1x4x6xf32>
  %b2 = prim.transpose %f2, permutation = [0, 2, 1] : tensor<1x4x6xf32> -> tensor<1x6x4xf32>
  return %b, %b2 : tensor<1x6x4xf32>, tensor<1x6x4xf32>
}

// -----

// Segformer's sequence [1, H * W, C] moved to [1, C, H * W], split into 2 x 2 patches of
// its 4 x 4 image ([1, C, 2, 2, 2, 2]) and moved to patch-major order: x's own dims
// split so, and one transpose instead of two.
// CHECK-LABEL: func.func @patches_of_a_sequence
// CHECK-NEXT: %[[R:.*]] = prim.reshape %arg0 : tensor<1x16x3xf32> -> tensor<1x2x2x2x2x3xf32>
// CHECK-NEXT: %[[T:.*]] = prim.transpose %[[R]], permutation = [0, 1, 3, 5, 2, 4]
// CHECK-NEXT: return %[[T]]
func.func @patches_of_a_sequence(%x: tensor<1x16x3xf32>) -> tensor<1x2x2x3x2x2xf32> {
  %t = prim.transpose %x, permutation = [0, 2, 1] : tensor<1x16x3xf32> -> tensor<1x3x16xf32>
  %r = prim.reshape %t : tensor<1x3x16xf32> -> tensor<1x3x2x2x2x2xf32>
  %p = prim.transpose %r, permutation = [0, 2, 4, 1, 3, 5] : tensor<1x3x2x2x2x2xf32> -> tensor<1x2x2x3x2x2xf32>
  return %p : tensor<1x2x2x3x2x2xf32>
}
