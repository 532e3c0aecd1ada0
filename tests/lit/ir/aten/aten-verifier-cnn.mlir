// The shape rules of the CNN aten ops (AtenShapeRules.cpp) check traced result types.
// RUN: pt2c-opt %s --split-input-file --verify-diagnostics

func.func @convolution_output(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<1x64x111x112xf32> {
  // (224 + 6 - 6 - 1) / 2 + 1 = 112
  // expected-error @+1 {{result dim 2 has size 111, expected 112}}
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 3, 3>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x111x112xf32>
  return %0 : tensor<1x64x111x112xf32>
}

// -----

func.func @convolution_kernel_too_big(%x: tensor<1x3x4x4xf32>, %w: tensor<8x3x7x7xf32>) -> tensor<1x8x1x1xf32> {
  // expected-error @+1 {{kernel larger than the padded input}}
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<8x3x7x7xf32>) -> tensor<1x8x1x1xf32>
  return %0 : tensor<1x8x1x1xf32>
}

// -----

// ceil_mode: ceil((7 + 2 - 2 - 1) / 2) + 1 = 4.
func.func @pool_ceil_mode(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x3x4xf32> {
  // expected-error @+1 {{result dim 2 has size 3, expected 4}}
  %0 = "aten.avg_pool2d"(%x) {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x2x7x7xf32>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// ceil_mode's last window must start inside the input or its left padding: 5 + 2
// padded, kernel 3, stride 3 would give ceil(4 / 3) + 1 = 3 windows, but the third
// would start at 3 * 2 - 1 = 5, past the input: 2.
func.func @pool_ceil_mode_last_window(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x2xf32> {
  // expected-error @+1 {{result dim 2 has size 3, expected 2}}
  %0:2 = "aten.max_pool2d_with_indices"(%x) {kernel_size = array<i64: 3, 3>, stride = array<i64: 3, 3>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x3x2xf32>, tensor<1x1x3x2xi64>)
  return %0#0 : tensor<1x1x3x2xf32>
}

// -----

func.func @pool_padding_too_big(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{padding of at most half the kernel}}
  %0 = "aten.avg_pool2d"(%x) {kernel_size = array<i64: 2, 2>, padding = array<i64: 2, 2>} : (tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @mean_keepdim(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result rank 2 differs from the expected rank 3}}
  %0 = "aten.mean.dim"(%x) {dim = array<i64: -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @sum_dim_twice(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{dimension -2 appears twice in `dim`}}
  %0 = "aten.sum.dim_IntList"(%x) {dim = array<i64: 0, -2>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_pairs(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{result dim 1 has size 6, expected 7}}
  %0 = "aten.constant_pad_nd"(%x) {pad = array<i64: 1, 3>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @adaptive_pool_sizes(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32> {
  // expected-error @+1 {{result dim 3 has size 3, expected 2}}
  %0 = "aten._adaptive_avg_pool2d"(%x) {output_size = array<i64: 3, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}
