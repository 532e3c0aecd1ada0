// A decomposition that does not apply says why, after MLIR's "failed to legalize".
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --verify-diagnostics

// topk unrolls one selection step per element: k is bounded.
func.func @topk_too_many(%x: tensor<2x1000xf32>) -> (tensor<2x100xf32>, tensor<2x100xi64>) {
  // expected-error @+1 {{failed to legalize operation 'aten.topk' that was explicitly marked illegal: topk/sort selects one element per step, at most 64 (asked for 100)}}
  %v, %i = "aten.topk"(%x) {k = 100 : i64} : (tensor<2x1000xf32>) -> (tensor<2x100xf32>, tensor<2x100xi64>)
  return %v, %i : tensor<2x100xf32>, tensor<2x100xi64>
}

// -----

// Max-pool indices that reach a result are not computed.
func.func @used_pool_indices(%x: tensor<1x1x1x8xf32>) -> tensor<1x1x4xi64> {
  // expected-error @+1 {{the indices of max_pool2d_with_indices are used}}
  %v, %i = "aten.max_pool2d_with_indices"(%x) {kernel_size = array<i64: 1, 2>} : (tensor<1x1x1x8xf32>) -> (tensor<1x1x1x4xf32>, tensor<1x1x1x4xi64>)
  %s = "aten.squeeze.dim"(%i) {dim = -2 : i64} : (tensor<1x1x1x4xi64>) -> tensor<1x1x4xi64>
  return %s : tensor<1x1x4xi64>
}

// -----

// argmax along a dynamic dim has no static positions to count.
func.func @argmax_dynamic(%x: tensor<2x?xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{failed to legalize operation 'aten.argmax' that was explicitly marked illegal: argmax/argmin/max/min over a dynamic dim}}
  %0 = "aten.argmax"(%x) {dim = 1 : i64} : (tensor<2x?xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
