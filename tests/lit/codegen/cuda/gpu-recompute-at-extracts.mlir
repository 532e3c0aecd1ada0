// pt2c-recompute-at-extracts (compiler/codegen/cuda): an elementwise loop nest of cheap
// arithmetic read only through tensor.extract is computed where it is read.
// RUN: pt2c-opt %s --split-input-file --pt2c-lower-prim-to-linalg --linalg-fuse-elementwise-ops --canonicalize --pt2c-recompute-at-extracts | FileCheck %s

// A depthwise step after a ReLU convolution (MobileNet): the previous convolution's bias
// and ReLU, then a direct depthwise convolution (taps read with tensor.extract at
// clamped positions) and its bias. The bias + ReLU is computed at each tap from the
// input as the previous kernel wrote it: one loop nest, no temporary.
// CHECK-LABEL: func.func private @depthwise_after_relu
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         %[[X:.*]] = tensor.extract %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x6x6x8xf16>
// CHECK-NEXT:    %[[B:.*]] = tensor.extract %arg0[%{{.*}}] : tensor<8xf16>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[X]], %[[B]] : f16
// CHECK-NEXT:    arith.maximumf %[[S]]
// CHECK:         tensor.extract %arg2
// CHECK-COUNT-8: arith.maximumf
module attributes {pt2c.fused_ops} {
func.func private @depthwise_after_relu(%b0: tensor<8xf16>, %x: tensor<1x6x6x8xf16>, %w: tensor<8x1x3x3xf16>, %b1: tensor<8xf16>) -> tensor<1x6x6x8xf16> {
  %0 = prim.broadcast_in_dim %b0, dims = [3] : tensor<8xf16> -> tensor<1x6x6x8xf16>
  %1 = prim.add %x, %0 : tensor<1x6x6x8xf16>
  %z = prim.constant dense<0.0> : tensor<1x6x6x8xf16>
  %2 = prim.max %1, %z : tensor<1x6x6x8xf16>
  %6 = prim.convolution %2, %w, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 {channels_last} : (tensor<1x6x6x8xf16>, tensor<8x1x3x3xf16>) -> tensor<1x6x6x8xf16>
  %7 = prim.broadcast_in_dim %b1, dims = [3] : tensor<8xf16> -> tensor<1x6x6x8xf16>
  %8 = prim.add %6, %7 : tensor<1x6x6x8xf16>
  return %8 : tensor<1x6x6x8xf16>
}
}

// -----

// EfficientNet's: a SiLU (an exp and a division) before the depthwise convolution stays a
// loop nest of its own; repeated at every tap it cost more than the launch it saves.
// CHECK-LABEL: func.func private @depthwise_after_silu
// CHECK-COUNT-2: linalg.generic
module attributes {pt2c.fused_ops} {
func.func private @depthwise_after_silu(%x: tensor<1x6x6x8xf16>, %w: tensor<8x1x3x3xf16>) -> tensor<1x6x6x8xf16> {
  %2 = prim.convert %x : tensor<1x6x6x8xf16> -> tensor<1x6x6x8xf32>
  %3 = prim.sigmoid %2 : tensor<1x6x6x8xf32>
  %4 = prim.mul %2, %3 : tensor<1x6x6x8xf32>
  %5 = prim.convert %4 : tensor<1x6x6x8xf32> -> tensor<1x6x6x8xf16>
  %6 = prim.convolution %5, %w, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 {channels_last} : (tensor<1x6x6x8xf16>, tensor<8x1x3x3xf16>) -> tensor<1x6x6x8xf16>
  return %6 : tensor<1x6x6x8xf16>
}
}

// -----

// A loop nest that is also a result (read whole, not only through extracts) is
// computed once, as it was: recomputing it at the taps too would do its work twice.
// CHECK-LABEL: func.func private @also_returned
// CHECK-COUNT-2: linalg.generic
module attributes {pt2c.fused_ops} {
func.func private @also_returned(%x: tensor<1x6x6x8xf16>, %w: tensor<8x1x3x3xf16>) -> (tensor<1x6x6x8xf16>, tensor<1x6x6x8xf16>) {
  %z = prim.constant dense<0.0> : tensor<1x6x6x8xf16>
  %1 = prim.max %x, %z : tensor<1x6x6x8xf16>
  %6 = prim.convolution %1, %w, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 {channels_last} : (tensor<1x6x6x8xf16>, tensor<8x1x3x3xf16>) -> tensor<1x6x6x8xf16>
  return %1, %6 : tensor<1x6x6x8xf16>, tensor<1x6x6x8xf16>
}
}
