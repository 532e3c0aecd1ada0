// An aten op the pass cannot rewrite is reported by name; nothing is half-rewritten.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --verify-diagnostics

func.func @no_decomposition(%x: tensor<2x4xf32>, %y: tensor<3x4xf32>) -> tensor<5x4xf32> {
  // expected-error @+1 {{failed to legalize operation 'aten.cat' that was explicitly marked illegal}}
  %0 = "aten.cat"(%x, %y) {dim = 0 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
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
