// RUN: pt2c-opt %s -split-input-file -pt2c-fold-weights | FileCheck %s

// f16 and bf16 models compute batch norm and sums in f32 and round back
// (decompose/LowPrecision.cpp). Folding sees through the converts: the scale goes into
// the convolution's weight (computed in f32, rounded to f16 once), the shift becomes an
// f16 bias, and the sum runs in f16: the shape of an f32 model's folded batch norm, which
// the CUDA plan fuses into a cuDNN convolution. Derived weights print as dense_resource
// blobs: "0x40000000" (the alignment) then the little-endian f16 bits.
// W' = [2, 2, 0.5, 0.5] (1.0 * s per output channel): 0x4000 0x4000 0x3800 0x3800;
// t = [1, -1]: 0x3C00 0xBC00.
// CHECK-LABEL: func.func @batch_norm_f16(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf16> {pt2c.input = "x"}, %[[W:[^:]*]]: tensor<2x2x1x1xf16> {pt2c.value = dense_resource<[[RW:[a-z_0-9]*]]>
// CHECK-SAME: %[[T:[^:]*]]: tensor<2xf16> {pt2c.value = dense_resource<[[RT:[a-z_0-9]*]]>
// CHECK-NEXT: %[[C:.*]] = prim.convolution %[[X]], %[[W]]
// CHECK-NEXT: %[[B:.*]] = prim.broadcast_in_dim %[[T]], dims = [1] : tensor<2xf16> -> tensor<1x2x4x4xf16>
// CHECK-NEXT: %[[S:.*]] = prim.add %[[C]], %[[B]] : tensor<1x2x4x4xf16>
// CHECK-NEXT: return %[[S]]
// CHECK-DAG: [[RW]]: "0x400000000040004000380038"
// CHECK-DAG: [[RT]]: "0x40000000003C00BC"
func.func @batch_norm_f16(%x: tensor<1x2x4x4xf16> {pt2c.input = "x"},
                  %w: tensor<2x2x1x1xf16> {pt2c.weight = "w", pt2c.value = dense<1.0> : tensor<2x2x1x1xf16>},
                  %s: tensor<2xf32> {pt2c.weight = "s", pt2c.value = dense<[2.0, 0.5]> : tensor<2xf32>},
                  %t: tensor<2xf32> {pt2c.weight = "t", pt2c.value = dense<[1.0, -1.0]> : tensor<2xf32>}) -> tensor<1x2x4x4xf16> {
  %c = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x2x4x4xf16>, tensor<2x2x1x1xf16>) -> tensor<1x2x4x4xf16>
  %cw = prim.convert %c : tensor<1x2x4x4xf16> -> tensor<1x2x4x4xf32>
  %bs = prim.broadcast_in_dim %s, dims = [1] : tensor<2xf32> -> tensor<1x2x4x4xf32>
  %m = prim.mul %cw, %bs : tensor<1x2x4x4xf32>
  %bt = prim.broadcast_in_dim %t, dims = [1] : tensor<2xf32> -> tensor<1x2x4x4xf32>
  %a = prim.add %m, %bt : tensor<1x2x4x4xf32>
  %r = prim.convert %a : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf16>
  return %r : tensor<1x2x4x4xf16>
}

// -----

// A sum of two bf16 values computed in f32 and rounded to bf16 is the bf16 sum (f32 has
// more than twice bf16's precision plus two bits).
// CHECK-LABEL: func.func @residual_bf16(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4xbf16> {pt2c.input = "a"}, %[[B:[^:]*]]: tensor<4xbf16> {pt2c.input = "b"})
// CHECK-NEXT: %[[S:.*]] = prim.add %[[A]], %[[B]] : tensor<4xbf16>
// CHECK-NEXT: return %[[S]]
func.func @residual_bf16(%a: tensor<4xbf16> {pt2c.input = "a"},
                         %b: tensor<4xbf16> {pt2c.input = "b"}) -> tensor<4xbf16> {
  %wa = prim.convert %a : tensor<4xbf16> -> tensor<4xf32>
  %wb = prim.convert %b : tensor<4xbf16> -> tensor<4xf32>
  %s = prim.add %wa, %wb : tensor<4xf32>
  %r = prim.convert %s : tensor<4xf32> -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

// Left alone: an f32 operand that is not a constant (its rounding to f16 is not the
// model's), and an exp (not exact in f16 after f32).
// CHECK-LABEL: func.func @kept(
// CHECK: prim.add %{{.*}} : tensor<4xf32>
// CHECK: prim.convert
// CHECK: prim.exp %{{.*}} : tensor<4xf32>
func.func @kept(%a: tensor<4xf16> {pt2c.input = "a"},
                %b: tensor<4xf32> {pt2c.input = "b"}) -> (tensor<4xf16>, tensor<4xf16>) {
  %wa = prim.convert %a : tensor<4xf16> -> tensor<4xf32>
  %s = prim.add %wa, %b : tensor<4xf32>
  %r = prim.convert %s : tensor<4xf32> -> tensor<4xf16>
  %e = prim.exp %wa : tensor<4xf32>
  %q = prim.convert %e : tensor<4xf32> -> tensor<4xf16>
  return %r, %q : tensor<4xf16>, tensor<4xf16>
}
