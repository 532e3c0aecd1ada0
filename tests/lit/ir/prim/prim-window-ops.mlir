// prim.reduce_window, convolution and pad parse, verify, print and parse again (custom
// and generic form), with their inferred result types.
// RUN: pt2c-opt %s | pt2c-opt | FileCheck %s
// RUN: pt2c-opt %s --mlir-print-op-generic | pt2c-opt | FileCheck %s

// ResNet's stem pooling: 3x3 window, stride 2, padding 1: floor((112 + 2 - 3) / 2) + 1
// = 56. A ceil_mode pool pads one more on the high side: floor((7 + 0 + 1 - 3) / 2) + 1
// = 3. Dynamic dims stay dynamic.
// CHECK-LABEL: func.func @reduce_window
func.func @reduce_window(%x: tensor<1x64x112x112xf32>, %y: tensor<?x8x7x7xf32>) -> (tensor<1x64x56x56xf32>, tensor<?x8x3x3xf32>) {
  %ninf = prim.constant dense<0xFF800000> : tensor<f32>
  %zero = prim.constant dense<0.0> : tensor<f32>
  // CHECK: prim.reduce_window MAX, %{{.*}}, %{{.*}}, window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 1, 1], high = [0, 0, 1, 1] : tensor<1x64x112x112xf32>, tensor<f32> -> tensor<1x64x56x56xf32>
  %0 = prim.reduce_window MAX, %x, %ninf, window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 1, 1], high = [0, 0, 1, 1] : tensor<1x64x112x112xf32>, tensor<f32> -> tensor<1x64x56x56xf32>
  // CHECK: prim.reduce_window SUM, %{{.*}}, %{{.*}}, window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 0, 0], high = [0, 0, 1, 1] : tensor<?x8x7x7xf32>, tensor<f32> -> tensor<?x8x3x3xf32>
  %1 = prim.reduce_window SUM, %y, %zero, window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 0, 0], high = [0, 0, 1, 1] : tensor<?x8x7x7xf32>, tensor<f32> -> tensor<?x8x3x3xf32>
  return %0, %1 : tensor<1x64x56x56xf32>, tensor<?x8x3x3xf32>
}

// A 7x7 stride-2 stem convolution, a depthwise one (32 groups of one channel), a
// dilated grouped one and a 1-D one: out = floor((in + low + high - dil * (k - 1) - 1)
// / stride) + 1.
// CHECK-LABEL: func.func @convolution
func.func @convolution(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %d: tensor<2x32x10x10xf32>, %dw: tensor<32x1x3x3xf32>, %gw: tensor<8x16x3x3xf32>, %s: tensor<?x4x20xf32>, %sw: tensor<6x4x5xf32>) -> (tensor<1x64x112x112xf32>, tensor<2x32x10x10xf32>, tensor<2x8x6x6xf32>, tensor<?x6x6xf32>) {
  // CHECK: prim.convolution %{{.*}}, %{{.*}}, strides = [2, 2], low = [3, 3], high = [3, 3], dilations = [1, 1], groups = 1 : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  %0 = prim.convolution %x, %w, strides = [2, 2], low = [3, 3], high = [3, 3], dilations = [1, 1], groups = 1 : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  // CHECK: prim.convolution %{{.*}}, %{{.*}}, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 32 : (tensor<2x32x10x10xf32>, tensor<32x1x3x3xf32>) -> tensor<2x32x10x10xf32>
  %1 = prim.convolution %d, %dw, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 32 : (tensor<2x32x10x10xf32>, tensor<32x1x3x3xf32>) -> tensor<2x32x10x10xf32>
  // CHECK: prim.convolution %{{.*}}, %{{.*}}, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [2, 2], groups = 2 : (tensor<2x32x10x10xf32>, tensor<8x16x3x3xf32>) -> tensor<2x8x6x6xf32>
  %2 = prim.convolution %d, %gw, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [2, 2], groups = 2 : (tensor<2x32x10x10xf32>, tensor<8x16x3x3xf32>) -> tensor<2x8x6x6xf32>
  // CHECK: prim.convolution %{{.*}}, %{{.*}}, strides = [3], low = [2], high = [0], dilations = [1], groups = 1 : (tensor<?x4x20xf32>, tensor<6x4x5xf32>) -> tensor<?x6x6xf32>
  %3 = prim.convolution %s, %sw, strides = [3], low = [2], high = [0], dilations = [1], groups = 1 : (tensor<?x4x20xf32>, tensor<6x4x5xf32>) -> tensor<?x6x6xf32>
  return %0, %1, %2, %3 : tensor<1x64x112x112xf32>, tensor<2x32x10x10xf32>, tensor<2x8x6x6xf32>, tensor<?x6x6xf32>
}

// CHECK-LABEL: func.func @pad
func.func @pad(%x: tensor<2x?xi32>) -> tensor<5x?xi32> {
  %c = prim.constant dense<7> : tensor<i32>
  // CHECK: prim.pad %{{.*}}, %{{.*}}, low = [1, 0], high = [2, 3] : tensor<2x?xi32>, tensor<i32> -> tensor<5x?xi32>
  %0 = prim.pad %x, %c, low = [1, 0], high = [2, 3] : tensor<2x?xi32>, tensor<i32> -> tensor<5x?xi32>
  return %0 : tensor<5x?xi32>
}
