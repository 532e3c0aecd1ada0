// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// A grouped, strided convolution with bias: symmetric padding becomes low = high, the
// bias a broadcast add over the channel dim.
// CHECK-LABEL: func.func @convolution_with_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK-NEXT: %[[C:.*]] = prim.convolution %[[X]], %[[W]], strides = [2, 2], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 2 : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
// CHECK-NEXT: %[[BB:.*]] = prim.broadcast_in_dim %[[B]], dims = [1] : tensor<6xf32> -> tensor<1x6x4x4xf32>
// CHECK-NEXT: %[[R:.*]] = prim.add %[[C]], %[[BB]]
// CHECK-NEXT: return %[[R]]
func.func @convolution_with_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x4x4xf32> {
  %0 = "aten.convolution"(%x, %w, %b) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// -----

// One-entry lists stand for every spatial dim; no bias, no add.
// CHECK-LABEL: func.func @convolution_one_entry_lists
// CHECK-NEXT: %[[C:.*]] = prim.convolution %{{.*}}, %{{.*}}, strides = [1], low = [2], high = [2], dilations = [2], groups = 1 : (tensor<2x3x10xf32>, tensor<5x3x3xf32>) -> tensor<2x5x10xf32>
// CHECK-NEXT: return %[[C]]
func.func @convolution_one_entry_lists(%x: tensor<2x3x10xf32>, %w: tensor<5x3x3xf32>) -> tensor<2x5x10xf32> {
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 1>, padding = array<i64: 2>, dilation = array<i64: 2>, transposed = false, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<2x3x10xf32>, tensor<5x3x3xf32>) -> tensor<2x5x10xf32>
  return %0 : tensor<2x5x10xf32>
}

// -----

// A patch embedding (4 x 4 windows, stride 4, tiling the 8 x 8 input): the patches as
// rows, one matrix product with the weight, the bias on the product's rows (a GEMM
// epilogue), then back to [N, O, H, W]. A strided convolution whose windows overlap
// stays a convolution.
// CHECK-LABEL: func.func @patch_embedding
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<5x3x4x4xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK-NEXT: %[[S:.*]] = prim.reshape %[[X]] : tensor<2x3x8x8xf32> -> tensor<2x3x2x4x2x4xf32>
// CHECK-NEXT: %[[T:.*]] = prim.transpose %[[S]], permutation = [0, 2, 4, 1, 3, 5] : tensor<2x3x2x4x2x4xf32> -> tensor<2x2x2x3x4x4xf32>
// CHECK-NEXT: %[[P:.*]] = prim.reshape %[[T]] : tensor<2x2x2x3x4x4xf32> -> tensor<8x48xf32>
// CHECK-NEXT: %[[F:.*]] = prim.reshape %[[W]] : tensor<5x3x4x4xf32> -> tensor<5x48xf32>
// CHECK-NEXT: %[[M:.*]] = prim.dot_general %[[P]], %[[F]], batch = [] x [], contract = [1] x [1] : (tensor<8x48xf32>, tensor<5x48xf32>) -> tensor<8x5xf32>
// CHECK-NEXT: %[[BB:.*]] = prim.broadcast_in_dim %[[B]], dims = [1] : tensor<5xf32> -> tensor<8x5xf32>
// CHECK-NEXT: %[[A:.*]] = prim.add %[[M]], %[[BB]]
// CHECK-NEXT: %[[R:.*]] = prim.reshape %[[A]] : tensor<8x5xf32> -> tensor<2x2x2x5xf32>
// CHECK-NEXT: %[[O:.*]] = prim.transpose %[[R]], permutation = [0, 3, 1, 2] : tensor<2x2x2x5xf32> -> tensor<2x5x2x2xf32>
// CHECK-NEXT: return %[[O]]
// CHECK-LABEL: func.func @overlapping_windows
// CHECK: prim.convolution
func.func @patch_embedding(%x: tensor<2x3x8x8xf32>, %w: tensor<5x3x4x4xf32>, %b: tensor<5xf32>) -> tensor<2x5x2x2xf32> {
  %0 = "aten.convolution"(%x, %w, %b) {stride = array<i64: 4, 4>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<5x3x4x4xf32>, tensor<5xf32>) -> tensor<2x5x2x2xf32>
  return %0 : tensor<2x5x2x2xf32>
}
func.func @overlapping_windows(%x: tensor<2x3x8x8xf32>, %w: tensor<5x3x4x4xf32>) -> tensor<2x5x3x3xf32> {
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<5x3x4x4xf32>) -> tensor<2x5x3x3xf32>
  return %0 : tensor<2x5x3x3xf32>
}

// -----

// Inference batch norm as ATen's CPU kernel computes it: alpha = rsqrt(var + eps) *
// weight, beta = bias - mean * alpha, out = x * alpha + beta (per channel, dim 1).
// The empty saved statistics are dropped.
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x4xf32>, %[[W:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[EPS:.*]] = prim.constant dense<9.99999974E-6> : tensor<3xf32>
// CHECK-NEXT: %[[VE:.*]] = prim.add %[[V]], %[[EPS]]
// CHECK-NEXT: %[[INV:.*]] = prim.rsqrt %[[VE]]
// CHECK-NEXT: %[[ALPHA:.*]] = prim.mul %[[INV]], %[[W]]
// CHECK-NEXT: %[[MA:.*]] = prim.mul %[[M]], %[[ALPHA]]
// CHECK-NEXT: %[[BETA:.*]] = prim.sub %[[B]], %[[MA]]
// CHECK-NEXT: %[[AB:.*]] = prim.broadcast_in_dim %[[ALPHA]], dims = [1] : tensor<3xf32> -> tensor<2x3x4x4xf32>
// CHECK-NEXT: %[[XA:.*]] = prim.mul %[[X]], %[[AB]]
// CHECK-NEXT: %[[BB:.*]] = prim.broadcast_in_dim %[[BETA]], dims = [1] : tensor<3xf32> -> tensor<2x3x4x4xf32>
// CHECK-NEXT: %[[R:.*]] = prim.add %[[XA]], %[[BB]]
// CHECK-NEXT: return %[[R]]
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0:3 = "aten.native_batch_norm"(%x, %w, %b, %m, %v) {training = false, momentum = 0.1 : f64, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<2x3x4x4xf32>
}

// -----

// torch.export's form, without weight and bias: beta = -(mean * alpha).
// CHECK-LABEL: func.func @batch_norm_legit_no_training
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK: %[[ALPHA:.*]] = prim.rsqrt
// CHECK-NEXT: %[[MA:.*]] = prim.mul %[[M]], %[[ALPHA]]
// CHECK-NEXT: %[[BETA:.*]] = prim.neg %[[MA]]
// CHECK: prim.broadcast_in_dim %[[BETA]], dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
func.func @batch_norm_legit_no_training(%x: tensor<2x3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %0:3 = "aten._native_batch_norm_legit_no_training"(%x, %m, %v) {momentum = 0.1 : f64, eps = 1.0e-03 : f64, operandSegmentSizes = array<i32: 1, 0, 0, 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<2x3xf32>
}

// -----

// ceil_mode max pooling: 7 -> 4 positions need one extra element of high padding
// (4 * 2 + 1 = 9 = 1 + 7 + 1); padding is -inf, the init of MAX. The unused indices
// disappear.
// CHECK-LABEL: func.func @max_pool_ceil_mode
// CHECK: %[[NINF:.*]] = prim.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[R:.*]] = prim.reduce_window MAX, %{{.*}}, %[[NINF]], window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 1, 1], high = [0, 0, 1, 1] : tensor<1x2x7x7xf32>, tensor<f32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @max_pool_ceil_mode(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0:2 = "aten.max_pool2d_with_indices"(%x) {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x2x7x7xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
  return %0#0 : tensor<1x2x4x4xf32>
}

// -----

// Floor mode with stride = [] (the kernel) on a 3-D input leaves the last row unread:
// no high padding. Integer max pooling starts from the lowest integer.
// CHECK-LABEL: func.func @max_pool_default_stride
// CHECK: %[[LOW:.*]] = prim.constant dense<-2147483648> : tensor<i32>
// CHECK: prim.reduce_window MAX, %{{.*}}, %[[LOW]], window = [1, 2, 2], strides = [1, 2, 2], dilations = [1, 1, 1], low = [0, 0, 0], high = [0, 0, 0] : tensor<3x5x5xi32>, tensor<i32> -> tensor<3x2x2xi32>
func.func @max_pool_default_stride(%x: tensor<3x5x5xi32>) -> tensor<3x2x2xi32> {
  %0:2 = "aten.max_pool2d_with_indices"(%x) {kernel_size = array<i64: 2>, stride = array<i64>} : (tensor<3x5x5xi32>) -> (tensor<3x2x2xi32>, tensor<3x2x2xi64>)
  return %0#0 : tensor<3x2x2xi32>
}

// -----

// Average pooling divides the window sums by ATen's divisors, computed at compile
// time: without count_include_pad, border windows count only the elements inside.
// CHECK-LABEL: func.func @avg_pool_divisors
// CHECK-DAG: %[[DIV:.*]] = prim.constant dense<{{\[}}[4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<4x4xf32>
// CHECK-DAG: %[[ZERO:.*]] = prim.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[SUM:.*]] = prim.reduce_window SUM, %{{.*}}, %[[ZERO]], window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 1, 1], high = [0, 0, 1, 1]
// CHECK-NEXT: %[[DB:.*]] = prim.broadcast_in_dim %[[DIV]], dims = [2, 3] : tensor<4x4xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[R:.*]] = prim.div %[[SUM]], %[[DB]]
// CHECK-NEXT: return %[[R]]
func.func @avg_pool_divisors(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0 = "aten.avg_pool2d"(%x) {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// With count_include_pad (the default) and no ceil_mode, every window counts 9: a
// splat divisor. divisor_override replaces it.
// CHECK-LABEL: func.func @avg_pool_uniform
// CHECK-DAG: %[[NINE:.*]] = prim.constant dense<9.000000e+00> : tensor<1x2x3x3xf32>
// CHECK-DAG: %[[FIVE:.*]] = prim.constant dense<5.000000e+00> : tensor<1x2x3x3xf32>
// CHECK: %[[S:.*]] = prim.reduce_window SUM
// CHECK-NEXT: %[[A:.*]] = prim.div %[[S]], %[[NINE]]
// CHECK-NEXT: %[[S2:.*]] = prim.reduce_window SUM
// CHECK-NEXT: %[[B:.*]] = prim.div %[[S2]], %[[FIVE]]
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @avg_pool_uniform(%x: tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %0 = "aten.avg_pool2d"(%x) {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  %1 = "aten.avg_pool2d"(%x) {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, divisor_override = 5 : i64} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  return %0, %1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Adaptive average pooling: equal sizes are the identity; sizes that divide are a
// regular pooling (kernel = stride = in / out); others multiply by averaging
// matrices, [out, in] with 1/len over ATen's window [floor(i*in/out), ceil((i+1)*in/out)).
// CHECK-LABEL: func.func @adaptive_avg_pool
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x6x7xf32>)
// CHECK-DAG: %[[COUNT:.*]] = prim.constant dense<1.400000e+01> : tensor<1x2x3x1xf32>
// CHECK-DAG: %[[ROWS:.*]] = prim.constant dense<{{\[}}[5.000000e-01, 5.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 5.000000e-01, 5.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 5.000000e-01, 5.000000e-01, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 5.000000e-01, 5.000000e-01]]> : tensor<4x6xf32>
// CHECK-DAG: %[[COLS:.*]] = prim.constant dense<{{\[}}[0.333333343, 0.333333343, 0.333333343, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.333333343, 0.333333343, 0.333333343, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.333333343, 0.333333343, 0.333333343]]> : tensor<3x7xf32>
// CHECK: %[[BYCOLS:.*]] = prim.dot_general %[[X]], %[[COLS]], batch = [] x [], contract = [3] x [1] : (tensor<1x2x6x7xf32>, tensor<3x7xf32>) -> tensor<1x2x6x3xf32>
// CHECK-NEXT: %[[BOTH:.*]] = prim.dot_general %[[BYCOLS]], %[[ROWS]], batch = [] x [], contract = [2] x [1] : (tensor<1x2x6x3xf32>, tensor<4x6xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT: %[[T:.*]] = prim.transpose %[[BOTH]], permutation = [0, 1, 3, 2] : tensor<1x2x3x4xf32> -> tensor<1x2x4x3xf32>
// CHECK-NEXT: %[[S:.*]] = prim.reduce_window SUM, %[[X]], %{{.*}}, window = [1, 1, 2, 7], strides = [1, 1, 2, 7], dilations = [1, 1, 1, 1], low = [0, 0, 0, 0], high = [0, 0, 0, 0]
// CHECK-NEXT: %[[E:.*]] = prim.div %[[S]], %[[COUNT]] : tensor<1x2x3x1xf32>
// CHECK-NEXT: return %[[X]], %[[T]], %[[E]]
func.func @adaptive_avg_pool(%x: tensor<1x2x6x7xf32>) -> (tensor<1x2x6x7xf32>, tensor<1x2x4x3xf32>, tensor<1x2x3x1xf32>) {
  %0 = "aten._adaptive_avg_pool2d"(%x) {output_size = array<i64: 6, 7>} : (tensor<1x2x6x7xf32>) -> tensor<1x2x6x7xf32>
  %1 = "aten._adaptive_avg_pool2d"(%x) {output_size = array<i64: 4, 3>} : (tensor<1x2x6x7xf32>) -> tensor<1x2x4x3xf32>
  %2 = "aten._adaptive_avg_pool2d"(%x) {output_size = array<i64: 3, 1>} : (tensor<1x2x6x7xf32>) -> tensor<1x2x3x1xf32>
  return %0, %1, %2 : tensor<1x2x6x7xf32>, tensor<1x2x4x3xf32>, tensor<1x2x3x1xf32>
}

// -----

// Reductions: mean = sum / count then keepdim as a reshape; sum of bools in int64;
// amax over all dims (dim = []) from -inf; sum of f16 accumulates in f32.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[P:.*]]: tensor<2x3xi1>, %[[H:.*]]: tensor<8xf16>)
// CHECK-DAG: %[[N:.*]] = prim.constant dense<8.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[Z:.*]] = prim.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ZI:.*]] = prim.constant dense<0> : tensor<i64>
// CHECK-DAG: %[[NINF:.*]] = prim.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[S:.*]] = prim.reduce SUM, %[[X]], %[[Z]], dims = [0, 2] : tensor<2x3x4xf32>, tensor<f32> -> tensor<3xf32>
// CHECK-NEXT: %[[M:.*]] = prim.div %[[S]], %[[N]]
// CHECK-NEXT: %[[MK:.*]] = prim.reshape %[[M]] : tensor<3xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT: %[[PI:.*]] = prim.convert %[[P]] : tensor<2x3xi1> -> tensor<2x3xi64>
// CHECK-NEXT: %[[C:.*]] = prim.reduce SUM, %[[PI]], %[[ZI]], dims = [1] : tensor<2x3xi64>, tensor<i64> -> tensor<2xi64>
// CHECK-NEXT: %[[A:.*]] = prim.reduce MAX, %[[X]], %[[NINF]], dims = [0, 1, 2] : tensor<2x3x4xf32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT: %[[HF:.*]] = prim.convert %[[H]] : tensor<8xf16> -> tensor<8xf32>
// CHECK-NEXT: %[[HS:.*]] = prim.reduce SUM, %[[HF]], %[[Z]], dims = [0]
// CHECK-NEXT: %[[HR:.*]] = prim.convert %[[HS]] : tensor<f32> -> tensor<f16>
// CHECK-NEXT: return %[[MK]], %[[C]], %[[A]], %[[HR]]
func.func @reductions(%x: tensor<2x3x4xf32>, %p: tensor<2x3xi1>, %h: tensor<8xf16>) -> (tensor<1x3x1xf32>, tensor<2xi64>, tensor<f32>, tensor<f16>) {
  %0 = "aten.mean.dim"(%x) {dim = array<i64: 0, -1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %1 = "aten.sum.dim_IntList"(%p) {dim = array<i64: 1>} : (tensor<2x3xi1>) -> tensor<2xi64>
  %2 = "aten.amax"(%x) {dim = array<i64>} : (tensor<2x3x4xf32>) -> tensor<f32>
  %3 = "aten.sum.dim_IntList"(%h) : (tensor<8xf16>) -> tensor<f16>
  return %0, %1, %2, %3 : tensor<1x3x1xf32>, tensor<2xi64>, tensor<f32>, tensor<f16>
}

// -----

// hardtanh clamps with its Scalars (relu6: 0, 6); hardsigmoid and hardswish share
// the ramp min(max(x + 3, 0), 6) and divide by 6 last, as ATen does.
// CHECK-LABEL: func.func @activations
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[ZERO:.*]] = prim.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[THREE:.*]] = prim.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[SIX:.*]] = prim.constant dense<6.000000e+00> : tensor<4xf32>
// CHECK: %[[L:.*]] = prim.max %[[X]], %[[ZERO]]
// CHECK-NEXT: %[[T:.*]] = prim.min %[[L]], %[[SIX]]
// CHECK-NEXT: %[[S:.*]] = prim.add %[[X]], %[[THREE]]
// CHECK-NEXT: %[[SL:.*]] = prim.max %[[S]], %[[ZERO]]
// CHECK-NEXT: %[[RAMP:.*]] = prim.min %[[SL]], %[[SIX]]
// CHECK-NEXT: %[[HSIG:.*]] = prim.div %[[RAMP]], %[[SIX]]
// CHECK: %[[P:.*]] = prim.mul %[[X]], %{{.*}}
// CHECK-NEXT: %[[HSW:.*]] = prim.div %[[P]], %[[SIX]]
// CHECK-NEXT: return %[[T]], %[[HSIG]], %[[HSW]]
func.func @activations(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "aten.hardtanh"(%x) {min_val = 0 : i64, max_val = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.hardsigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "aten.hardswish"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// constant_pad_nd: (before, after) pairs from the last dim backwards.
// CHECK-LABEL: func.func @constant_pad
// CHECK: %[[V:.*]] = prim.constant dense<-1.500000e+00> : tensor<f32>
// CHECK: prim.pad %{{.*}}, %[[V]], low = [0, 2, 1], high = [0, 3, 0] : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x8x5xf32>
func.func @constant_pad(%x: tensor<2x3x4xf32>) -> tensor<2x8x5xf32> {
  %0 = "aten.constant_pad_nd"(%x) {pad = array<i64: 1, 0, 2, 3>, value = -1.5 : f64} : (tensor<2x3x4xf32>) -> tensor<2x8x5xf32>
  return %0 : tensor<2x8x5xf32>
}

// -----

// A transposed convolution whose windows tile the output (kernel = stride): one product
// contracting the input's channels, each position's patch [O, 2, 2] interleaved into
// place, then the bias.
// CHECK-LABEL: func.func @transposed_tiling
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x5x7xf32>, %[[W:.*]]: tensor<6x5x2x2xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK-NEXT: %[[F:.*]] = prim.reshape %[[W]] : tensor<6x5x2x2xf32> -> tensor<6x20xf32>
// CHECK-NEXT: %[[M:.*]] = prim.dot_general %[[X]], %[[F]], batch = [] x [], contract = [1] x [0] : (tensor<2x6x5x7xf32>, tensor<6x20xf32>) -> tensor<2x5x7x20xf32>
// CHECK-NEXT: %[[S:.*]] = prim.reshape %[[M]] : tensor<2x5x7x20xf32> -> tensor<2x5x7x5x2x2xf32>
// CHECK-NEXT: %[[T:.*]] = prim.transpose %[[S]], permutation = [0, 3, 1, 4, 2, 5] : tensor<2x5x7x5x2x2xf32> -> tensor<2x5x5x2x7x2xf32>
// CHECK-NEXT: %[[Y:.*]] = prim.reshape %[[T]] : tensor<2x5x5x2x7x2xf32> -> tensor<2x5x10x14xf32>
// CHECK-NEXT: %[[BB:.*]] = prim.broadcast_in_dim %[[B]], dims = [1]
// CHECK-NEXT: %[[R:.*]] = prim.add %[[Y]], %[[BB]]
// CHECK-NEXT: return %[[R]]
func.func @transposed_tiling(%x: tensor<2x6x5x7xf32>, %w: tensor<6x5x2x2xf32>, %b: tensor<5xf32>) -> tensor<2x5x10x14xf32> {
  %0 = "aten.convolution"(%x, %w, %b) {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<2x6x5x7xf32>, tensor<6x5x2x2xf32>, tensor<5xf32>) -> tensor<2x5x10x14xf32>
  return %0 : tensor<2x5x10x14xf32>
}

// -----

// Overlapping windows (kernel 4, stride 2, padding 1, 2 groups): the input with a zero
// after each element (3 -> 6), padded by 4 - 1 - 1 = 2 before and 1 after (to the
// output's 6), convolved with the kernel reversed and each group's [in, out] swapped.
// CHECK-LABEL: func.func @transposed_overlapping
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x3xf32>, %[[W:.*]]: tensor<4x2x4xf32>)
// CHECK-DAG: %[[REV:.*]] = prim.constant dense<[3, 2, 1, 0]> : tensor<4xi64>
// CHECK-DAG: %[[ZERO:.*]] = prim.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[U:.*]] = prim.reshape %[[X]] : tensor<1x4x3xf32> -> tensor<1x4x3x1xf32>
// CHECK-NEXT: %[[P:.*]] = prim.pad %[[U]], %[[ZERO]], low = [0, 0, 0, 0], high = [0, 0, 0, 1]
// CHECK-NEXT: %[[I:.*]] = prim.reshape %[[P]] : tensor<1x4x3x2xf32> -> tensor<1x4x6xf32>
// CHECK-NEXT: %[[G:.*]] = prim.reshape %[[W]] : tensor<4x2x4xf32> -> tensor<2x2x2x4xf32>
// CHECK-NEXT: %[[GT:.*]] = prim.transpose %[[G]], permutation = [0, 2, 1, 3]
// CHECK-NEXT: %[[F:.*]] = prim.reshape %[[GT]] : tensor<2x2x2x4xf32> -> tensor<4x2x4xf32>
// CHECK-NEXT: %[[FR:.*]] = prim.gather %[[F]], %[[REV]], axis = 2
// CHECK-NEXT: %[[C:.*]] = prim.convolution %[[I]], %[[FR]], strides = [1], low = [2], high = [1], dilations = [1], groups = 2 : (tensor<1x4x6xf32>, tensor<4x2x4xf32>) -> tensor<1x4x6xf32>
// CHECK-NEXT: return %[[C]]
func.func @transposed_overlapping(%x: tensor<1x4x3xf32>, %w: tensor<4x2x4xf32>) -> tensor<1x4x6xf32> {
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 0>, groups = 2 : i64} : (tensor<1x4x3xf32>, tensor<4x2x4xf32>) -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

// A stride beyond the kernel (2 taps, stride 3): the interleaved input (9) ends in more
// zeros than the output (8) reaches, so it is cropped rather than padded after.
// CHECK-LABEL: func.func @transposed_cropping
// CHECK: %[[I:.*]] = prim.reshape %{{.*}} : tensor<1x2x3x3xf32> -> tensor<1x2x9xf32>
// CHECK-NEXT: %[[S:.*]] = prim.slice %[[I]], start = [0, 0, 0], limit = [1, 2, 8], strides = [1, 1, 1]
// CHECK: prim.convolution %[[S]], %{{.*}}, strides = [1], low = [1], high = [0], dilations = [1], groups = 1 : (tensor<1x2x8xf32>, tensor<1x2x2xf32>) -> tensor<1x1x8xf32>
func.func @transposed_cropping(%x: tensor<1x2x3xf32>, %w: tensor<2x1x2xf32>) -> tensor<1x1x8xf32> {
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 3>, padding = array<i64: 0>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 0>, groups = 1 : i64} : (tensor<1x2x3xf32>, tensor<2x1x2xf32>) -> tensor<1x1x8xf32>
  return %0 : tensor<1x1x8xf32>
}
