// RUN: pt2c-opt %s --split-input-file --pt2c-channels-last-convolutions --canonicalize | FileCheck %s

// Half convolutions with weight filters compute channels-last; canonicalization sinks
// the transposes back to NCHW below the bias + SiLU, the mean's conversion and sum, the
// ReLU (its zeros a splat) and the max pooling, where they cancel against the next
// convolution's or reach the results. What is left: the input's transpose and the
// pooled result's.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x4x8x8xf16> {{.*}}, %[[W1:[a-z0-9]+]]: tensor<8x4x1x1xf16> {{.*}}, %[[B:[a-z0-9]+]]: tensor<8xf16> {{.*}}, %[[W2:[a-z0-9]+]]: tensor<8x1x3x3xf16> {{.*}})
// CHECK-DAG: %[[ZEROS:.*]] = prim.constant dense<0.000000e+00> : tensor<1x8x8x8xf16>
// CHECK: %[[XT:.*]] = prim.transpose %[[X]], permutation = [0, 2, 3, 1] : tensor<1x4x8x8xf16> -> tensor<1x8x8x4xf16>
// CHECK-NEXT: %[[Y1:.*]] = prim.convolution %[[XT]], %[[W1]], {{.*}} groups = 1 {channels_last} : (tensor<1x8x8x4xf16>, tensor<8x4x1x1xf16>) -> tensor<1x8x8x8xf16>
// CHECK-NEXT: %[[BB:.*]] = prim.broadcast_in_dim %[[B]], dims = [3]
// CHECK-NEXT: %[[S:.*]] = prim.add %[[Y1]], %[[BB]]
// CHECK-NEXT: %[[G:.*]] = prim.sigmoid %[[S]]
// CHECK-NEXT: %[[A:.*]] = prim.mul %[[S]], %[[G]]
// CHECK-NEXT: %[[Y2:.*]] = prim.convolution %[[A]], %[[W2]], {{.*}} groups = 8 {channels_last}
// CHECK-NEXT: %[[WIDE:.*]] = prim.convert %[[Y2]]
// CHECK-NEXT: %[[SUM:.*]] = prim.reduce SUM, %[[WIDE]], %{{.*}}, dims = [1, 2] : tensor<1x8x8x8xf32>, tensor<f32> -> tensor<1x8xf32>
// CHECK-NEXT: %[[RELU:.*]] = prim.max %[[Y2]], %[[ZEROS]]
// CHECK-NEXT: %[[POOL:.*]] = prim.reduce_window MAX, %[[RELU]], %{{.*}}, window = [1, 3, 3, 1], strides = [1, 2, 2, 1], dilations = [1, 1, 1, 1], low = [0, 1, 1, 0], high = [0, 1, 1, 0] : tensor<1x8x8x8xf16>, tensor<f16> -> tensor<1x4x4x8xf16>
// CHECK-NEXT: %[[OUT:.*]] = prim.transpose %[[POOL]], permutation = [0, 3, 1, 2] : tensor<1x4x4x8xf16> -> tensor<1x8x4x4xf16>
// CHECK-NEXT: return %[[SUM]], %[[OUT]]
module attributes {pt2c.fused_ops} {
  func.func @block(%x: tensor<1x4x8x8xf16> {pt2c.input = "x"},
                   %w1: tensor<8x4x1x1xf16> {pt2c.weight = "expand.weight"},
                   %b: tensor<8xf16> {pt2c.weight = "expand.bias"},
                   %w2: tensor<8x1x3x3xf16> {pt2c.weight = "depthwise.weight"})
      -> (tensor<1x8xf32>, tensor<1x8x4x4xf16>) {
    %y1 = prim.convolution %x, %w1, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x4x8x8xf16>, tensor<8x4x1x1xf16>) -> tensor<1x8x8x8xf16>
    %bb = prim.broadcast_in_dim %b, dims = [1] : tensor<8xf16> -> tensor<1x8x8x8xf16>
    %s = prim.add %y1, %bb : tensor<1x8x8x8xf16>
    %g = prim.sigmoid %s : tensor<1x8x8x8xf16>
    %a = prim.mul %s, %g : tensor<1x8x8x8xf16>
    %y2 = prim.convolution %a, %w2, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 : (tensor<1x8x8x8xf16>, tensor<8x1x3x3xf16>) -> tensor<1x8x8x8xf16>
    %wide = prim.convert %y2 : tensor<1x8x8x8xf16> -> tensor<1x8x8x8xf32>
    %zero32 = prim.constant dense<0.0> : tensor<f32>
    %sum = prim.reduce SUM, %wide, %zero32, dims = [2, 3] : tensor<1x8x8x8xf32>, tensor<f32> -> tensor<1x8xf32>
    %zeros = prim.constant dense<0.0> : tensor<1x8x8x8xf16>
    %relu = prim.max %y2, %zeros : tensor<1x8x8x8xf16>
    %ninf = prim.constant dense<0xFC00> : tensor<f16>
    %pool = prim.reduce_window MAX, %relu, %ninf, window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 1, 1], high = [0, 0, 1, 1] : tensor<1x8x8x8xf16>, tensor<f16> -> tensor<1x8x4x4xf16>
    return %sum, %pool : tensor<1x8xf32>, tensor<1x8x4x4xf16>
  }
}

// -----

// f32 keeps torch's layout (cuDNN's FMA kernels are fast on NCHW), as does a half
// convolution whose filter is computed from the input.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: channels_last
// CHECK-NOT: prim.transpose
// CHECK: return
module attributes {pt2c.fused_ops} {
  func.func @kept(%x: tensor<1x4x8x8xf32> {pt2c.input = "x"},
                  %w: tensor<8x4x1x1xf32> {pt2c.weight = "conv.weight"},
                  %h: tensor<1x4x8x8xf16> {pt2c.input = "h"},
                  %f: tensor<8x4x1x1xf16> {pt2c.input = "f"})
      -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf16>) {
    %0 = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
    %1 = prim.convolution %h, %f, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x4x8x8xf16>, tensor<8x4x1x1xf16>) -> tensor<1x8x8x8xf16>
    return %0, %1 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf16>
  }
}
