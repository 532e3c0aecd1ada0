// Diagnostics of the type inference of prim.reduce_window, convolution and pad.
// RUN: pt2c-opt %s --split-input-file --verify-diagnostics

func.func @window_init_type(%x: tensor<4x4xf32>, %init: tensor<i32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{init has element type 'i32', expected the operand's 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce_window MAX, %x, %init, window = [2, 2], strides = [2, 2], dilations = [1, 1], low = [0, 0], high = [0, 0] : tensor<4x4xf32>, tensor<i32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @window_rank(%x: tensor<4x4xf32>, %init: tensor<f32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{expects 2 entries in window_strides, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce_window MAX, %x, %init, window = [2, 2], strides = [2], dilations = [1, 1], low = [0, 0], high = [0, 0] : tensor<4x4xf32>, tensor<f32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @window_too_big(%x: tensor<4x4xf32>, %init: tensor<f32>) -> tensor<1x1xf32> {
  // expected-error @+2 {{window of 3 taps (dilation 2) does not fit in 4 padded elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce_window MAX, %x, %init, window = [3, 1], strides = [1, 1], dilations = [2, 1], low = [0, 0], high = [0, 0] : tensor<4x4xf32>, tensor<f32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @window_stride(%x: tensor<4x4xf32>, %init: tensor<f32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{stride must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce_window MAX, %x, %init, window = [1, 1], strides = [0, 1], dilations = [1, 1], low = [0, 0], high = [0, 0] : tensor<4x4xf32>, tensor<f32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @window_result(%x: tensor<4x4xf32>, %init: tensor<f32>) -> tensor<3x3xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.reduce_window MAX, %x, %init, window = [2, 2], strides = [2, 2], dilations = [1, 1], low = [0, 0], high = [0, 0] : tensor<4x4xf32>, tensor<f32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{lhs has 6 channels, but rhs expects 2 groups of 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 2 : (tensor<1x6x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_output_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32> {
  // expected-error @+2 {{5 output channels do not split into 3 groups}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 3 : (tensor<1x6x8x8xf32>, tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32>
  return %0 : tensor<1x5x6x6xf32>
}

// -----

func.func @conv_element_types(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf16>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{lhs and rhs element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf16>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_rank(%x: tensor<2x8xf32>, %w: tensor<4x2xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{expects lhs [N, C, spatial...] and rhs [O, C/G, kernel...] of the same rank >= 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.convolution %x, %w, strides = [], low = [], high = [], dilations = [], groups = 1 : (tensor<2x8xf32>, tensor<4x2xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @conv_padding(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{padding must be >= 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.convolution %x, %w, strides = [1, 1], low = [-1, 0], high = [1, 0], dilations = [1, 1], groups = 1 : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @pad_value_type(%x: tensor<2xf32>, %v: tensor<f64>) -> tensor<4xf32> {
  // expected-error @+2 {{padding_value has element type 'f64', expected the operand's 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.pad %x, %v, low = [1], high = [1] : tensor<2xf32>, tensor<f64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pad_rank(%x: tensor<2x2xf32>, %v: tensor<f32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{expects 2 entries in edge_padding_low, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = prim.pad %x, %v, low = [1], high = [1, 0] : tensor<2x2xf32>, tensor<f32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
