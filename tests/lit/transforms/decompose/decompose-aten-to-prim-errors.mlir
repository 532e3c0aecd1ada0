// An aten op the pass cannot rewrite is reported by name; nothing is half-rewritten.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --verify-diagnostics

// prim has boolean selects but no integer bit arithmetic.
func.func @integer_bitwise_and(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{failed to legalize operation 'aten.bitwise_and.Tensor' that was explicitly marked illegal}}
  %0 = "aten.bitwise_and.Tensor"(%x, %y) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @unknown_gelu_approximation(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{failed to legalize operation 'aten.gelu'}}
  %0 = "aten.gelu"(%x) {approximate = "sigmoid"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The dynamic size of the result would have to be computed (prim has no index math).
func.func @computed_dynamic_size(%x: tensor<?x4xf32>) -> tensor<8x?xf32> {
  // expected-error @+1 {{failed to legalize operation 'aten.view'}}
  %0 = "aten.view"(%x) {size = array<i64: 8, -1>} : (tensor<?x4xf32>) -> tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// -----

// cumsum's window spans the whole dim, so the dim must be static.
func.func @cumsum_dynamic(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // expected-error @+1 {{failed to legalize operation 'aten.cumsum'}}
  %0 = "aten.cumsum"(%x) {dim = 1 : i64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// Rows in groups need the groups' ends (ATen refuses this call too).
func.func @grouped_mm_without_offs(%x: tensor<6x8xf32>, %w: tensor<3x8x16xf32>) -> tensor<6x16xf32> {
  // expected-error @+1 {{failed to legalize operation 'aten._grouped_mm'}}
  %0 = "aten._grouped_mm"(%x, %w) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<6x8xf32>, tensor<3x8x16xf32>) -> tensor<6x16xf32>
  return %0 : tensor<6x16xf32>
}
