// Diagnostics of the prim verifiers and type inference.
// RUN: pt2c-opt %s --split-input-file --verify-diagnostics

func.func @broadcast_rank(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects one broadcast dimension per operand dimension, got 2 for rank 1}}
  %0 = prim.broadcast_in_dim %x, dims = [0, 1] : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_out_of_range(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{broadcast dimension 2 out of range for rank 2}}
  %0 = prim.broadcast_in_dim %x, dims = [2] : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_twice(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{broadcast dimension 1 used twice}}
  %0 = prim.broadcast_in_dim %x, dims = [1, 1] : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @broadcast_size(%x: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operand dimension 0 of size 3 cannot broadcast to size 4}}
  %0 = prim.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @broadcast_dynamic_sizes(%x: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{expects 1 dynamic sizes, one per dynamic result dimension}}
  %0 = prim.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @broadcast_element_type(%x: tensor<3xf32>) -> tensor<2x3xf16> {
  // expected-error @+1 {{changes the element type from 'f32' to 'f16'}}
  %0 = prim.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{cannot reshape 6 elements into 7}}
  %0 = prim.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @reshape_dynamic_sizes(%x: tensor<?x3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{expects 1 dynamic sizes, one per dynamic result dimension}}
  %0 = prim.reshape %x : tensor<?x3xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @transpose_not_permutation(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{permutation dimension 0 used twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.transpose %x, permutation = [0, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.transpose %x, permutation = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dot_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+2 {{lhs and rhs element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_contracting_size(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{size mismatch between lhs dimension 1 and rhs dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<5x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_dims_count(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{lhs and rhs have different numbers of batching or contracting dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.dot_general %a, %b, batch = [] x [], contract = [1] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_batch_and_contract(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{lhs batching/contracting dimension 0 used twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.dot_general %a, %b, batch = [0] x [0], contract = [0] x [1] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @dim_size_range(%x: tensor<?x3xf32>) -> index {
  // expected-error @+1 {{dimension 2 out of range for rank 2}}
  %0 = prim.dim_size %x, 2 : tensor<?x3xf32>
  return %0 : index
}

// -----

func.func @select_shape(%p: tensor<3xi1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = prim.select %p, %x, %x : tensor<3xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @convert_shape(%x: tensor<2xi32>) -> tensor<3xf32> {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = prim.convert %x : tensor<2xi32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @binary_types(%x: tensor<2xf32>, %y: tensor<2xf16>) -> tensor<2xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "prim.add"(%x, %y) : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @float_only(%x: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = prim.exp %x : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @nms_keep_scores_per_box(%b: tensor<3x4xf32>, %s: tensor<?xf32>) -> tensor<3xi1> {
  // expected-error @+1 {{expects boxes [N, 4] and scores [N] of one type}}
  %order, %kept = prim.nms_keep %b, %s, iou_threshold = 5.000000e-01 : tensor<3x4xf32>, tensor<?xf32> -> tensor<3xi64>, tensor<3xi1>
  return %kept : tensor<3xi1>
}

// -----

func.func @nms_keep_results(%b: tensor<?x4xf32>, %s: tensor<?xf32>) -> tensor<?xi1> {
  // expected-error @+1 {{results must be 'tensor<?xi64>' and 'tensor<?xi1>'}}
  %order, %kept = prim.nms_keep %b, %s, iou_threshold = 5.000000e-01 : tensor<?x4xf32>, tensor<?xf32> -> tensor<?xi32>, tensor<?xi1>
  return %kept : tensor<?xi1>
}
