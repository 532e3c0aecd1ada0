// RUN: pt2c-opt %s -split-input-file --pt2c-cuda-kernels-to-nvvm | FileCheck %s

// Rotary embeddings as transformers write them, the kernel function form-kernels makes
// of them (tests/lit/transforms/kernels/form-kernels.mlir): q * cos + rotate_half(q) *
// sin, rotate_half(q) = concatenate(-q[..., 32:], q[..., :32]). On the GPU the
// concatenation of equal parts lowers to their stack as one elementwise linalg.generic
// (selected by its index) and the slices read only elementwise are read in place, so
// elementwise fusion leaves one loop nest: one launch, no copy per slice or operand, no
// buffer in between (before: a copy per slice and per operand, 5 launches).
// CHECK: llvm.func @rotary_kernel(
// CHECK-NOT: llvm.func @rotary_kernel_
module attributes {pt2c.fused_ops} {
func.func private @rotary(%q: tensor<2x4x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<2x4x8x64xf32> attributes {pt2c.kernel} {
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

// The same with the tables as transformers hands them over, [1, 1, len, dim] broadcast
// over the heads: the size-1 dim the broadcast expands is sliced out of the table
// (lower/DataMovement.cpp), so every indexing map is a projected permutation and fusion
// goes through the stack's reshape; the fused loop nest computes in the stacked shape
// [.., 2, 32] straight into the result (pt2c-write-reshaped-results-in-place), where a
// copy would be a second launch.
// CHECK: llvm.func @rotary_tables_kernel(
// CHECK-NOT: llvm.func @rotary_tables_kernel_
module attributes {pt2c.fused_ops} {
func.func private @rotary_tables(%q: tensor<1x8x4x64xf16>, %cos: tensor<1x1x8x64xf16>, %sin: tensor<1x1x8x64xf16>) -> tensor<1x8x4x64xf16> attributes {pt2c.kernel} {
  %c = prim.broadcast_in_dim %cos, dims = [0, 2, 1, 3] : tensor<1x1x8x64xf16> -> tensor<1x8x4x64xf16>
  %s = prim.broadcast_in_dim %sin, dims = [0, 2, 1, 3] : tensor<1x1x8x64xf16> -> tensor<1x8x4x64xf16>
  %x1 = prim.slice %q, start = [0, 0, 0, 0], limit = [1, 8, 4, 32], strides = [1, 1, 1, 1] : tensor<1x8x4x64xf16> -> tensor<1x8x4x32xf16>
  %x2 = prim.slice %q, start = [0, 0, 0, 32], limit = [1, 8, 4, 64], strides = [1, 1, 1, 1] : tensor<1x8x4x64xf16> -> tensor<1x8x4x32xf16>
  %n = prim.neg %x2 : tensor<1x8x4x32xf16>
  %r = prim.concatenate %n, %x1 dim = 3 : (tensor<1x8x4x32xf16>, tensor<1x8x4x32xf16>) -> tensor<1x8x4x64xf16>
  %a = prim.mul %q, %c : tensor<1x8x4x64xf16>
  %b = prim.mul %r, %s : tensor<1x8x4x64xf16>
  %o = prim.add %a, %b : tensor<1x8x4x64xf16>
  return %o : tensor<1x8x4x64xf16>
}
}
