// Diagnostics of the type inference and verifiers of prim.reduce, gather, slice,
// concatenate and iota.
// RUN: pt2c-opt %s --split-input-file --verify-diagnostics

func.func @reduce_dim(%x: tensor<2x3xf32>, %init: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+2 {{reduced dimension 2 out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce SUM, %x, %init, dims = [2] : tensor<2x3xf32>, tensor<f32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_twice(%x: tensor<2x3xf32>, %init: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+2 {{reduced dimension 1 listed twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce SUM, %x, %init, dims = [1, 1] : tensor<2x3xf32>, tensor<f32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_init_type(%x: tensor<2x3xf32>, %init: tensor<f64>) -> tensor<2xf32> {
  // expected-error @+2 {{init element type 'f64' differs from the operand's 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce MAX, %x, %init, dims = [1] : tensor<2x3xf32>, tensor<f64> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_logical_on_floats(%x: tensor<2x3xf32>, %init: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+2 {{AND and OR reduce i1 tensors, the other kinds numbers}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce OR, %x, %init, dims = [1] : tensor<2x3xf32>, tensor<f32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_result(%x: tensor<2x3xf32>, %init: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce SUM, %x, %init, dims = [1] : tensor<2x3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @gather_axis(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+2 {{axis 2 out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.gather %x, %i, axis = 2 : tensor<4x3xf32>, tensor<2xi64> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @gather_batch_dims(%x: tensor<4x3xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  // expected-error @+2 {{batch_dims 2 must be in [0, min(axis, indices rank)]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.gather %x, %i, axis = 1 {batch_dims = 2 : i64} : tensor<4x3xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @gather_batch_size(%x: tensor<4x3xf32>, %i: tensor<5x2xi64>) -> tensor<4x2xf32> {
  // expected-error @+2 {{batch dimension 0 has size 4 in the operand and 5 in the indices}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.gather %x, %i, axis = 1 {batch_dims = 1 : i64} : tensor<4x3xf32>, tensor<5x2xi64> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @gather_float_indices(%x: tensor<4x3xf32>, %i: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand #1 must be ranked tensor of signless integer values}}
  %0 = prim.gather %x, %i, axis = 0 : tensor<4x3xf32>, tensor<2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_limit(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+2 {{dimension 0 of size 4 cannot be sliced from 0 to 5 by 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.slice %x, start = [0], limit = [5], strides = [1] : tensor<4xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @slice_stride(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{dimension 0 of size 4 cannot be sliced from 0 to 4 by 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.slice %x, start = [0], limit = [4], strides = [0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_entries(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{expects one start, limit and stride per dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.slice %x, start = [0], limit = [4], strides = [1] : tensor<4x2xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @concatenate_sizes(%x: tensor<4x2xf32>, %y: tensor<4x3xf32>) -> tensor<8x2xf32> {
  // expected-error @+2 {{operands differ in the size of dimension 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.concatenate %x, %y dim = 0 : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @concatenate_types(%x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<8xf32> {
  // expected-error @+2 {{operands differ in element type or rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.concatenate %x, %y dim = 0 : (tensor<4xf32>, tensor<4xf64>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @iota_dim() -> tensor<3xi64> {
  // expected-error @+1 {{iota dimension 1 out of range for rank 1}}
  %0 = prim.iota 1 : tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @iota_dynamic_without_size() -> tensor<?xf32> {
  // expected-error @+1 {{expects one size per dynamic result dim}}
  %0 = prim.iota 0 : tensor<?xf32>
  return %0 : tensor<?xf32>
}
