// RUN: pt2c-opt %s -split-input-file -pt2c-fold-weights | FileCheck %s
// RUN: pt2c-opt %s -split-input-file -pt2c-fold-weights=max-elements=3 | FileCheck %s --check-prefix=BOUND

// Weights carry their values as `pt2c.value` here (the driver reads them from the
// artifact instead). Derived weights print as dense_resource blobs: "0x40000000" (the
// alignment, 64) then the little-endian f32 values.

// A weight-only chain becomes one derived weight; its broadcast to the activation's
// shape stays (it would be bigger than its inputs); the weights it read are removed.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x2xf32> {pt2c.input = "x"}, %[[D:[^:]*]]: tensor<2xf32> {pt2c.value = dense_resource<[[R:.*]]> : tensor<2xf32>, pt2c.weight = "#fold0"})
// CHECK-NEXT: %[[B:.*]] = prim.broadcast_in_dim %[[D]], dims = [1] : tensor<2xf32> -> tensor<4x2xf32>
// CHECK-NEXT: %[[M:.*]] = prim.mul %[[X]], %[[B]]
// CHECK-NEXT: return %[[M]]
// CHECK: [[R]]: "0x400000000000004000008040"
// 1 + 1 = 2, 3 + 1 = 4
func.func @chain(%x: tensor<4x2xf32> {pt2c.input = "x"},
                 %a: tensor<2xf32> {pt2c.weight = "a", pt2c.value = dense<[1.0, 3.0]> : tensor<2xf32>},
                 %b: tensor<2xf32> {pt2c.weight = "b", pt2c.value = dense<1.0> : tensor<2xf32>}) -> tensor<4x2xf32> {
  %s = prim.add %a, %b : tensor<2xf32>
  %bs = prim.broadcast_in_dim %s, dims = [1] : tensor<2xf32> -> tensor<4x2xf32>
  %m = prim.mul %x, %bs : tensor<4x2xf32>
  return %m : tensor<4x2xf32>
}

// -----

// Anything that reads a model input stays; so does a model state buffer (it changes
// between calls) and a plain reshape of a weight (free at run time).
// CHECK-LABEL: func.func @mixed(
// CHECK-SAME: {pt2c.input = "x"}, %[[W:[^:]*]]: tensor<2xf32> {pt2c.value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, pt2c.weight = "w"}, %[[S:[^:]*]]: tensor<2xf32> {pt2c.state = "s"})
// CHECK-NEXT: prim.add %arg0, %[[W]]
// CHECK-NEXT: prim.neg %[[S]]
// CHECK-NEXT: prim.reshape %[[W]]
// CHECK-NOT: #fold
func.func @mixed(%x: tensor<2xf32> {pt2c.input = "x"},
                 %w: tensor<2xf32> {pt2c.weight = "w", pt2c.value = dense<[1.0, 2.0]> : tensor<2xf32>},
                 %s: tensor<2xf32> {pt2c.state = "s"}) -> (tensor<2xf32>, tensor<2xf32>, tensor<1x2xf32>) {
  %a = prim.add %x, %w : tensor<2xf32>
  %n = prim.neg %s : tensor<2xf32>
  %r = prim.reshape %w : tensor<2xf32> -> tensor<1x2xf32>
  return %a, %n, %r : tensor<2xf32>, tensor<2xf32>, tensor<1x2xf32>
}

// -----

// Inference batch norm after a convolution (decompose/BatchNorm.cpp's formula): the
// scale goes into the convolution's weight, the shift becomes a bias vector.
//   alpha = gamma * rsqrt(var + eps) = [4, 8] * rsqrt([3, 15] + 1) = [2, 2]
//   W' = W * alpha = [2, 4];  beta = bias - mean * alpha = [0, 1] - [2, 2] = [-2, -1]
// CHECK-LABEL: func.func @conv_bn(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x1x2x2xf32> {pt2c.input = "x"}, %[[W:[^:]*]]: tensor<2x1x1x1xf32> {pt2c.value = dense_resource<[[RW:.*]]> : tensor<2x1x1x1xf32>, pt2c.weight = "#fold0"}, %[[BETA:[^:]*]]: tensor<2xf32> {pt2c.value = dense_resource<[[RB:.*]]> : tensor<2xf32>, pt2c.weight = "#fold1"})
// CHECK-NEXT: %[[C:.*]] = prim.convolution %[[X]], %[[W]]
// CHECK-NEXT: %[[B:.*]] = prim.broadcast_in_dim %[[BETA]], dims = [1]
// CHECK-NEXT: %[[A:.*]] = prim.add %[[C]], %[[B]]
// CHECK-NEXT: return %[[A]]
// CHECK-DAG: [[RB]]: "0x40000000000000C0000080BF"
// CHECK-DAG: [[RW]]: "0x400000000000004000008040"
func.func @conv_bn(%x: tensor<1x1x2x2xf32> {pt2c.input = "x"},
                   %w: tensor<2x1x1x1xf32> {pt2c.weight = "conv.weight", pt2c.value = dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>},
                   %gamma: tensor<2xf32> {pt2c.weight = "bn.weight", pt2c.value = dense<[4.0, 8.0]> : tensor<2xf32>},
                   %bias: tensor<2xf32> {pt2c.weight = "bn.bias", pt2c.value = dense<[0.0, 1.0]> : tensor<2xf32>},
                   %mean: tensor<2xf32> {pt2c.weight = "bn.running_mean", pt2c.value = dense<1.0> : tensor<2xf32>},
                   %var: tensor<2xf32> {pt2c.weight = "bn.running_var", pt2c.value = dense<[3.0, 15.0]> : tensor<2xf32>}) -> tensor<1x2x2x2xf32> {
  %y = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %eps = prim.constant dense<1.0> : tensor<2xf32>
  %ve = prim.add %var, %eps : tensor<2xf32>
  %r = prim.rsqrt %ve : tensor<2xf32>
  %alpha = prim.mul %r, %gamma : tensor<2xf32>
  %shift = prim.mul %mean, %alpha : tensor<2xf32>
  %beta = prim.sub %bias, %shift : tensor<2xf32>
  %ba = prim.broadcast_in_dim %alpha, dims = [1] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %scaled = prim.mul %y, %ba : tensor<1x2x2x2xf32>
  %bb = prim.broadcast_in_dim %beta, dims = [1] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %out = prim.add %scaled, %bb : tensor<1x2x2x2xf32>
  return %out : tensor<1x2x2x2xf32>
}

// -----

// A convolution with a bias, then a per-channel affine map: the scale distributes over
// the bias add, the two constant adds meet, one bias vector remains.
//   W' = [1, 2] * [2, 3] = [2, 6];  bias' = [1, 1] * [2, 3] + [0, 1] = [2, 4]
// CHECK-LABEL: func.func @conv_bias_scale(
// CHECK-SAME: %[[W:[^:]*]]: tensor<2x1x1x1xf32> {pt2c.value = dense_resource<[[RW:.*]]> : tensor<2x1x1x1xf32>, pt2c.weight = "#fold0"}, %[[B:[^:]*]]: tensor<2xf32> {pt2c.value = dense_resource<[[RB:.*]]> : tensor<2xf32>, pt2c.weight = "#fold1"})
// CHECK-NEXT: prim.convolution %arg0, %[[W]],
// CHECK-NEXT: prim.broadcast_in_dim %[[B]]
// CHECK-NEXT: prim.add
// CHECK-NEXT: return
// CHECK-DAG: [[RW]]: "0x40000000000000400000C040"
// CHECK-DAG: [[RB]]: "0x400000000000004000008040"
func.func @conv_bias_scale(%x: tensor<1x1x2x2xf32> {pt2c.input = "x"},
                           %w: tensor<2x1x1x1xf32> {pt2c.weight = "conv.weight", pt2c.value = dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>},
                           %b: tensor<2xf32> {pt2c.weight = "conv.bias", pt2c.value = dense<1.0> : tensor<2xf32>},
                           %s: tensor<2xf32> {pt2c.weight = "scale", pt2c.value = dense<[2.0, 3.0]> : tensor<2xf32>},
                           %t: tensor<2xf32> {pt2c.weight = "shift", pt2c.value = dense<[0.0, 1.0]> : tensor<2xf32>}) -> tensor<1x2x2x2xf32> {
  %y = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %bb = prim.broadcast_in_dim %b, dims = [1] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %yb = prim.add %y, %bb : tensor<1x2x2x2xf32>
  %bs = prim.broadcast_in_dim %s, dims = [1] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %m = prim.mul %yb, %bs : tensor<1x2x2x2xf32>
  %bt = prim.broadcast_in_dim %t, dims = [1] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %out = prim.add %m, %bt : tensor<1x2x2x2xf32>
  return %out : tensor<1x2x2x2xf32>
}

// -----

// A ResNet downsampling block's sum, (conv_a + b1) + (conv_b + b2): the two biases meet
// on conv_b's side, relu(conv_b + (b1 + b2) + conv_a), a convolution epilogue with a
// residual (ConvKernels.h). b1 + b2 = [1, 2] + [10, 20] = [11, 22].
// CHECK-LABEL: func.func @two_bias_adds(
// CHECK-SAME: %[[B:[^:]*]]: tensor<2xf32> {pt2c.value = dense_resource<[[RB:.*]]> : tensor<2xf32>, pt2c.weight = "#fold0"})
// CHECK: %[[A:.*]] = prim.convolution %arg0, %arg1,
// CHECK: %[[C:.*]] = prim.convolution %arg0, %arg2,
// CHECK: %[[BB:.*]] = prim.broadcast_in_dim %[[B]]
// CHECK: %[[CB:.*]] = prim.add %[[C]], %[[BB]]
// CHECK: %[[S:.*]] = prim.add %[[A]], %[[CB]]
// CHECK-NEXT: return %[[S]]
// CHECK: [[RB]]: "0x40000000000030410000B041"
func.func @two_bias_adds(%x: tensor<1x1x2x2xf32> {pt2c.input = "x"},
                         %wa: tensor<2x1x1x1xf32> {pt2c.weight = "a.weight"},
                         %wb: tensor<2x1x1x1xf32> {pt2c.weight = "b.weight"},
                         %b1: tensor<2xf32> {pt2c.weight = "a.bias", pt2c.value = dense<[1.0, 2.0]> : tensor<2xf32>},
                         %b2: tensor<2xf32> {pt2c.weight = "b.bias", pt2c.value = dense<[10.0, 20.0]> : tensor<2xf32>}) -> tensor<1x2x2x2xf32> {
  %a = prim.convolution %x, %wa, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %bb1 = prim.broadcast_in_dim %b1, dims = [1] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %ab = prim.add %a, %bb1 : tensor<1x2x2x2xf32>
  %c = prim.convolution %x, %wb, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %bb2 = prim.broadcast_in_dim %b2, dims = [1] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %cb = prim.add %c, %bb2 : tensor<1x2x2x2xf32>
  %out = prim.add %ab, %cb : tensor<1x2x2x2xf32>
  return %out : tensor<1x2x2x2xf32>
}

// -----

// linear -> batch norm 1d: the scale of output feature j goes into row j of the weight.
//   W' = [[1, 1], [1, 1], [1, 1]] * [1, 2, 3] by rows
// CHECK-LABEL: func.func @linear_bn(
// CHECK-NOT: prim.mul
// CHECK: prim.dot_general %arg0, %{{[^,]*}}, batch = [] x [], contract = [1] x [1]
// CHECK-NEXT: return
// CHECK: "0x400000000000803F0000803F00000040000000400000404000004040"
func.func @linear_bn(%x: tensor<4x2xf32> {pt2c.input = "x"},
                     %w: tensor<3x2xf32> {pt2c.weight = "fc.weight", pt2c.value = dense<1.0> : tensor<3x2xf32>},
                     %s: tensor<3xf32> {pt2c.weight = "scale", pt2c.value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}) -> tensor<4x3xf32> {
  %y = prim.dot_general %x, %w, batch = [] x [], contract = [1] x [1] : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
  %bs = prim.broadcast_in_dim %s, dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  %m = prim.mul %y, %bs : tensor<4x3xf32>
  return %m : tensor<4x3xf32>
}

// -----

// A scale after something that is not a convolution stays a run-time multiply (only
// its weight-only part is folded), as does a scale that varies along a spatial dim.
// CHECK-LABEL: func.func @not_after_conv(
// CHECK: prim.exp
// CHECK: prim.mul
// CHECK: prim.convolution
// CHECK: prim.mul
func.func @not_after_conv(%x: tensor<1x1x2x2xf32> {pt2c.input = "x"},
                          %w: tensor<2x1x1x1xf32> {pt2c.weight = "conv.weight", pt2c.value = dense<1.0> : tensor<2x1x1x1xf32>},
                          %s: tensor<2xf32> {pt2c.weight = "scale", pt2c.value = dense<[2.0, 3.0]> : tensor<2xf32>}) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %y = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %e = prim.exp %y : tensor<1x2x2x2xf32>
  %bs = prim.broadcast_in_dim %s, dims = [1] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %m = prim.mul %e, %bs : tensor<1x2x2x2xf32>
  %y2 = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %bw = prim.broadcast_in_dim %s, dims = [3] : tensor<2xf32> -> tensor<1x2x2x2xf32>
  %m2 = prim.mul %y2, %bw : tensor<1x2x2x2xf32>
  return %m, %m2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// An integer chain folds too; an integer division by zero is left to run time.
// CHECK-LABEL: func.func @ints(
// CHECK: pt2c.weight = "#fold0"
// CHECK: prim.div
// CHECK: "0x40000000FE00000000000000"
func.func @ints(%a: tensor<1xi64> {pt2c.weight = "a", pt2c.value = dense<2> : tensor<1xi64>},
                %z: tensor<1xi64> {pt2c.weight = "z", pt2c.value = dense<0> : tensor<1xi64>}) -> (tensor<1xi64>, tensor<1xi64>) {
  %c = prim.constant dense<127> : tensor<1xi64>
  %m = prim.mul %a, %c : tensor<1xi64>
  %d = prim.div %a, %z : tensor<1xi64>
  return %m, %d : tensor<1xi64>, tensor<1xi64>
}

// -----

// The size bound: with max-elements=3 the 4-element sum stays at run time.
// CHECK-LABEL: func.func @bound(
// CHECK-SAME: pt2c.weight = "#fold0"
// CHECK-NEXT: return
// BOUND-LABEL: func.func @bound(
// BOUND-SAME: %[[A:[^:]*]]: tensor<4xf32> {pt2c.value = dense<1.000000e+00> : tensor<4xf32>, pt2c.weight = "a"})
// BOUND-NEXT: %[[S:.*]] = prim.add %[[A]], %[[A]]
// BOUND-NEXT: return %[[S]]
func.func @bound(%a: tensor<4xf32> {pt2c.weight = "a", pt2c.value = dense<1.0> : tensor<4xf32>}) -> tensor<4xf32> {
  %s = prim.add %a, %a : tensor<4xf32>
  return %s : tensor<4xf32>
}
