// RUN: pt2c-opt %s -split-input-file -pt2c-form-kernels | FileCheck %s

// An elementwise producer with one consumer joins that consumer's kernel; constants are
// cloned in; the model function keeps only calls.
// CHECK-LABEL: func.func private @forward_kernel_0(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {pt2c.kernel}
// CHECK-NEXT: prim.constant
// CHECK-NEXT: prim.mul
// CHECK-NEXT: prim.dot_general
// CHECK-NEXT: return
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32> {pt2c.input = "x"}, %[[W:[^:]*]]: tensor<8x8xf32> {pt2c.weight = "w"}
// CHECK-NEXT: %[[D:.*]] = call @forward_kernel_0(%[[X]], %[[W]])
// CHECK-NEXT: return %[[D]]
func.func @forward(%x: tensor<4x8xf32> {pt2c.input = "x"}, %w: tensor<8x8xf32> {pt2c.weight = "w"}) -> tensor<4x8xf32> {
  %two = prim.constant dense<2.0> : tensor<4x8xf32>
  %s = prim.mul %x, %two : tensor<4x8xf32>
  %d = prim.dot_general %s, %w, batch = [] x [], contract = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A value with two consumers is not fused: it gets a kernel (and a buffer) of its own.
// CHECK-LABEL: func.func @forward(
// CHECK: %[[E:.*]] = call @forward_kernel_2(%arg0)
// CHECK: call @forward_kernel_1(%[[E]]
// CHECK: call @forward_kernel_0(%[[E]]
func.func @forward(%x: tensor<4xf32> {pt2c.input = "x"}) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = prim.exp %x : tensor<4xf32>
  %a = prim.tanh %e : tensor<4xf32>
  %b = prim.neg %e : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Outputs own their buffers: returning an input, or one value twice, adds copy kernels.
// CHECK-LABEL: func.func private @forward_kernel_0(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %[[C:.*]] = linalg.copy ins(%arg0 : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK-NEXT: return %[[C]]
// CHECK-LABEL: func.func @forward(
// CHECK-NEXT: %[[R:.*]] = prim.reshape %arg0
// CHECK-NEXT: %[[C0:.*]] = call @forward_kernel_0(%arg0)
// CHECK-NEXT: %[[C1:.*]] = call @forward_kernel_1(%[[R]])
// CHECK-NEXT: return %[[C0]], %[[C1]]
func.func @forward(%x: tensor<2x3xf32> {pt2c.input = "x"}) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %r = prim.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  return %x, %r : tensor<2x3xf32>, tensor<6xf32>
}

// -----

// Rotary embeddings: q * cos + rotate_half(q) * sin, rotate_half(q) = concatenate(-q[...,
// 32:], q[..., :32]). On the GPU (pt2c.fused_ops) a concatenation of equal parts is
// elementwise (prim::ConcatenateOp::joinsEqualStaticParts), so it joins its consumer's
// kernel with its producers: one kernel (tests/lit/codegen/cuda/gpu-rotary-one-launch.mlir
// lowers it to one launch).
// CHECK-LABEL: func.func private @forward_kernel_0(
// CHECK: prim.neg
// CHECK: prim.concatenate
// CHECK: prim.add
// CHECK-NOT: func.func private @forward_kernel_1
module attributes {pt2c.fused_ops} {
func.func @forward(%q: tensor<2x4x8x64xf32> {pt2c.input = "q"}, %cos: tensor<8x64xf32> {pt2c.input = "cos"}, %sin: tensor<8x64xf32> {pt2c.input = "sin"}) -> tensor<2x4x8x64xf32> {
  %c = prim.broadcast_in_dim %cos, dims = [2, 3] : tensor<8x64xf32> -> tensor<2x4x8x64xf32>
  %s = prim.broadcast_in_dim %sin, dims = [2, 3] : tensor<8x64xf32> -> tensor<2x4x8x64xf32>
  %x1 = prim.slice %q, start = [0, 0, 0, 0], limit = [2, 4, 8, 32], strides = [1, 1, 1, 1] : tensor<2x4x8x64xf32> -> tensor<2x4x8x32xf32>
  %x2 = prim.slice %q, start = [0, 0, 0, 32], limit = [2, 4, 8, 64], strides = [1, 1, 1, 1] : tensor<2x4x8x64xf32> -> tensor<2x4x8x32xf32>
  %n = prim.neg %x2 : tensor<2x4x8x32xf32>
  %r = prim.concatenate %n, %x1 dim = 3 : (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>) -> tensor<2x4x8x64xf32>
  %a = prim.mul %q, %c : tensor<2x4x8x64xf32>
  %b = prim.mul %r, %s : tensor<2x4x8x64xf32>
  %o = prim.add %a, %b : tensor<2x4x8x64xf32>
  return %o : tensor<2x4x8x64xf32>
}
}


// -----

// On the GPU a channels-last depthwise convolution that is one loop over its output
// (isDirectDepthwise) joins the elementwise kernel reading it: bias and SiLU in its
// launch, the previous bias as its prologue. The f16 activation that both the mean and
// the scale read in f32 crosses between kernels in f16: its widening conversion is
// copied into each reader's kernel instead of being a kernel's f32 result.
// CHECK-LABEL: func.func private @forward_kernel_0(
// CHECK-SAME: tensor<1x4x4x8xf16>, %{{.*}}: tensor<1x8x1x1xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT: prim.convert %{{.*}} : tensor<1x4x4x8xf16> -> tensor<1x4x4x8xf32>
// CHECK-NEXT: prim.broadcast_in_dim
// CHECK-NEXT: prim.mul
// CHECK-LABEL: func.func private @forward_kernel_1(%{{.*}}: tensor<1x4x4x8xf16>) -> tensor<1x8xf32>
// CHECK: prim.convert %{{.*}} : tensor<1x4x4x8xf16> -> tensor<1x4x4x8xf32>
// CHECK-NEXT: prim.reduce SUM
// CHECK-LABEL: func.func private @forward_kernel_2(
// CHECK-SAME: -> tensor<1x4x4x8xf16>
// CHECK: prim.add
// CHECK: prim.convolution {{.*}} groups = 8 {channels_last}
// CHECK: prim.add
// CHECK: prim.sigmoid
// CHECK: prim.mul
// CHECK-NEXT: return %{{.*}} : tensor<1x4x4x8xf16>
// CHECK-NOT: func.func private @forward_kernel_3
module attributes {pt2c.fused_ops} {
func.func @forward(%x: tensor<1x4x4x8xf16> {pt2c.input = "x"}, %b0: tensor<8xf16> {pt2c.input = "b0"},
                   %w: tensor<8x1x3x3xf16> {pt2c.input = "w"}, %b1: tensor<8xf16> {pt2c.input = "b1"},
                   %g: tensor<1x8x1x1xf32> {pt2c.input = "g"})
    -> (tensor<1x8xf32>, tensor<1x4x4x8xf32>) {
  %bb0 = prim.broadcast_in_dim %b0, dims = [3] : tensor<8xf16> -> tensor<1x4x4x8xf16>
  %a = prim.add %x, %bb0 : tensor<1x4x4x8xf16>
  %y = prim.convolution %a, %w, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 {channels_last} : (tensor<1x4x4x8xf16>, tensor<8x1x3x3xf16>) -> tensor<1x4x4x8xf16>
  %bb1 = prim.broadcast_in_dim %b1, dims = [3] : tensor<8xf16> -> tensor<1x4x4x8xf16>
  %s = prim.add %y, %bb1 : tensor<1x4x4x8xf16>
  %sg = prim.sigmoid %s : tensor<1x4x4x8xf16>
  %act = prim.mul %s, %sg : tensor<1x4x4x8xf16>
  %wide = prim.convert %act : tensor<1x4x4x8xf16> -> tensor<1x4x4x8xf32>
  %zero = prim.constant dense<0.0> : tensor<f32>
  %sum = prim.reduce SUM, %wide, %zero, dims = [1, 2] : tensor<1x4x4x8xf32>, tensor<f32> -> tensor<1x8xf32>
  %gb = prim.broadcast_in_dim %g, dims = [0, 3, 1, 2] : tensor<1x8x1x1xf32> -> tensor<1x4x4x8xf32>
  %scaled = prim.mul %wide, %gb : tensor<1x4x4x8xf32>
  return %sum, %scaled : tensor<1x8xf32>, tensor<1x4x4x8xf32>
}
}

// -----

// MobileViT's inverted residual in f32 (torch's layout): a depthwise convolution on the
// GPU is direct in NCHW too, and its bias and SiLU, which a GEMM reads, are its kernel's
// epilogue rather than the GEMM kernel's prologue (split off again as a launch of its
// own, SplitGemmPrologues.h): two kernels, the GEMM's alone.
// CHECK-LABEL: func.func private @forward_kernel_0(
// CHECK-NEXT: prim.dot_general
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @forward_kernel_1(
// CHECK: prim.convolution {{.*}} groups = 8 :
// CHECK: prim.add
// CHECK: prim.sigmoid
// CHECK: prim.mul
// CHECK-NEXT: return %{{.*}} : tensor<1x8x4x4xf32>
// CHECK-NOT: func.func private @forward_kernel_2
module attributes {pt2c.fused_ops} {
func.func @forward(%x: tensor<1x8x4x4xf32> {pt2c.input = "x"}, %w: tensor<8x1x3x3xf32> {pt2c.input = "w"},
                   %b: tensor<8xf32> {pt2c.input = "b"}, %p: tensor<16x8xf32> {pt2c.input = "p"})
    -> tensor<16x4x4xf32> {
  %y = prim.convolution %x, %w, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 : (tensor<1x8x4x4xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32>
  %bb = prim.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<1x8x4x4xf32>
  %s = prim.add %y, %bb : tensor<1x8x4x4xf32>
  %sg = prim.sigmoid %s : tensor<1x8x4x4xf32>
  %act = prim.mul %s, %sg : tensor<1x8x4x4xf32>
  %d = prim.dot_general %p, %act, batch = [] x [], contract = [1] x [1] : (tensor<16x8xf32>, tensor<1x8x4x4xf32>) -> tensor<16x1x4x4xf32>
  %r = prim.reshape %d : tensor<16x1x4x4xf32> -> tensor<16x4x4xf32>
  return %r : tensor<16x4x4xf32>
}
}

// -----

// On the GPU a reduction joins the elementwise kernel that reads it one element per
// output: a mean's division and its conversion back to f16 become the reduction
// launch's epilogue (pt2c-map-row-reductions-to-gpu), one kernel instead of two.
// Softmax's x - max reads the maximum once per input element (a broadcast): that
// reduction stays a kernel of its own.
// CHECK-LABEL: func.func private @forward_kernel_0(
// CHECK: prim.broadcast_in_dim
// CHECK-NEXT: prim.sub
// CHECK-LABEL: func.func private @forward_kernel_1(
// CHECK: prim.reduce MAX
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @forward_kernel_2(%{{.*}}: tensor<1x4x4x8xf16>) -> tensor<1x8xf16>
// CHECK: prim.convert %{{.*}} : tensor<1x4x4x8xf16> -> tensor<1x4x4x8xf32>
// CHECK-NEXT: prim.reduce SUM
// CHECK-NEXT: prim.div
// CHECK-NEXT: prim.convert %{{.*}} : tensor<1x8xf32> -> tensor<1x8xf16>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @forward(
// CHECK-COUNT-3: call @forward_kernel_
// CHECK-NOT: call
module attributes {pt2c.fused_ops} {
func.func @forward(%x: tensor<1x4x4x8xf16> {pt2c.input = "x"}, %z: tensor<2x64xf32> {pt2c.input = "z"})
    -> (tensor<1x8xf16>, tensor<2x64xf32>) {
  %wide = prim.convert %x : tensor<1x4x4x8xf16> -> tensor<1x4x4x8xf32>
  %zero = prim.constant dense<0.0> : tensor<f32>
  %sum = prim.reduce SUM, %wide, %zero, dims = [1, 2] : tensor<1x4x4x8xf32>, tensor<f32> -> tensor<1x8xf32>
  %n = prim.constant dense<16.0> : tensor<1x8xf32>
  %mean = prim.div %sum, %n : tensor<1x8xf32>
  %half = prim.convert %mean : tensor<1x8xf32> -> tensor<1x8xf16>
  %ninf = prim.constant dense<0xFF800000> : tensor<f32>
  %max = prim.reduce MAX, %z, %ninf, dims = [1] : tensor<2x64xf32>, tensor<f32> -> tensor<2xf32>
  %mb = prim.broadcast_in_dim %max, dims = [0] : tensor<2xf32> -> tensor<2x64xf32>
  %shifted = prim.sub %z, %mb : tensor<2x64xf32>
  %e = prim.exp %shifted : tensor<2x64xf32>
  return %half, %e : tensor<1x8xf16>, tensor<2x64xf32>
}
}

// -----

// A small row product is a reduction too: a squeeze-excitation gate's bias and SiLU join
// its kernel (one launch, pt2c-map-row-reductions-to-gpu). A classifier head's product
// (a matrix of more than 2^18 elements) stays a kernel of its own, a GEMM step.
// CHECK-LABEL: func.func private @forward_kernel_0(
// CHECK: prim.add
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @forward_kernel_1(
// CHECK-NEXT: prim.dot_general {{.*}} -> tensor<1x1024xf16>
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @forward_kernel_2(
// CHECK-NEXT: prim.dot_general {{.*}} -> tensor<1x8xf16>
// CHECK-NEXT: prim.add
// CHECK: prim.sigmoid
// CHECK: prim.mul
// CHECK-NEXT: return
// CHECK-LABEL: func.func @forward(
// CHECK-COUNT-3: call @forward_kernel_
// CHECK-NOT: call
module attributes {pt2c.fused_ops} {
func.func @forward(%x: tensor<1x32xf16> {pt2c.input = "x"}, %w: tensor<8x32xf16> {pt2c.input = "w"},
                   %b: tensor<1x8xf16> {pt2c.input = "b"}, %y: tensor<1x512xf16> {pt2c.input = "y"},
                   %v: tensor<1024x512xf16> {pt2c.input = "v"}, %c: tensor<1x1024xf16> {pt2c.input = "c"})
    -> (tensor<1x8xf16>, tensor<1x1024xf16>) {
  %p = prim.dot_general %x, %w, batch = [] x [], contract = [1] x [1] : (tensor<1x32xf16>, tensor<8x32xf16>) -> tensor<1x8xf16>
  %a = prim.add %p, %b : tensor<1x8xf16>
  %g = prim.sigmoid %a : tensor<1x8xf16>
  %s = prim.mul %a, %g : tensor<1x8xf16>
  %q = prim.dot_general %y, %v, batch = [] x [], contract = [1] x [1] : (tensor<1x512xf16>, tensor<1024x512xf16>) -> tensor<1x1024xf16>
  %h = prim.add %q, %c : tensor<1x1024xf16>
  return %s, %h : tensor<1x8xf16>, tensor<1x1024xf16>
}
}

// -----

// The CPU keeps a reduction's readers in kernels of their own.
// CHECK-LABEL: func.func private @forward_kernel_0(
// CHECK: prim.div
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @forward_kernel_1(
// CHECK: prim.reduce SUM
// CHECK-NEXT: return
func.func @forward(%x: tensor<4x8xf32> {pt2c.input = "x"}) -> tensor<4xf32> {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %sum = prim.reduce SUM, %x, %zero, dims = [1] : tensor<4x8xf32>, tensor<f32> -> tensor<4xf32>
  %n = prim.constant dense<8.0> : tensor<4xf32>
  %mean = prim.div %sum, %n : tensor<4xf32>
  return %mean : tensor<4xf32>
}
