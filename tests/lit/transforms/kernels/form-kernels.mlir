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

