// A decomposition that does not apply says why, after MLIR's "failed to legalize".
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --verify-diagnostics

// max_unpool2d compares every value's index with every output position: bounded.
func.func @unpool_too_large(%v: tensor<1x1x64x64xf32>, %i: tensor<1x1x64x64xi64>) -> tensor<1x1x128x128xf32> {
  // expected-error @+1 {{failed to legalize operation 'aten.max_unpool2d' that was explicitly marked illegal: writes 4096 indexed slices into 16384 positions: the one-hot table pt2c builds for it would exceed 16777216 entries}}
  %0 = "aten.max_unpool2d"(%v, %i) {output_size = array<i64: 128, 128>} : (tensor<1x1x64x64xf32>, tensor<1x1x64x64xi64>) -> tensor<1x1x128x128xf32>
  return %0 : tensor<1x1x128x128xf32>
}

// -----

// argmax along a dynamic dim has no static positions to count.
func.func @argmax_dynamic(%x: tensor<2x?xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{failed to legalize operation 'aten.argmax' that was explicitly marked illegal: argmax/argmin/max/min over a dynamic dim}}
  %0 = "aten.argmax"(%x) {dim = 1 : i64} : (tensor<2x?xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// x[mask] = v with several values: where each goes depends on the data.
func.func @index_put_mask_many_values(%x: tensor<2x3xf32>, %m: tensor<2x3xi1>, %v: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{failed to legalize operation 'aten.index_put' that was explicitly marked illegal: x[mask] = v with a bool mask and a value of several elements (where they go depends on how many elements the mask selects)}}
  %0 = "aten.index_put"(%x, %m, %v) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// An accumulating scatter sums every indexed slice into every position: bounded.
func.func @index_put_accumulate_too_large(%x: tensor<4096x4096xf32>, %i: tensor<64xi64>, %v: tensor<64x4096xf32>) -> tensor<4096x4096xf32> {
  // expected-error @+1 {{failed to legalize operation 'aten.index_put' that was explicitly marked illegal: adds 64 indexed slices into a tensor of 16777216 elements: the masked sum pt2c builds for it would exceed 268435456 terms}}
  %0 = "aten.index_put"(%x, %i, %v) {accumulate = true, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4096x4096xf32>, tensor<64xi64>, tensor<64x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
