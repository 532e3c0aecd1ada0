// RUN: pt2c-opt %s --pt2c-cuda-kernels-to-nvvm | FileCheck %s

// A ViT's class token joined before its patches, then the position embedding added: on
// the GPU the concatenation of parts of different sizes lowers to one elementwise loop
// that reads each element from the part its index falls in (clamped into every part, so
// no read is out of bounds) and fusion adds the embedding in the same loop: one launch
// (before: a copy per part and one for the add, 3 launches).
// CHECK: gpu.launch_func @pt2c_kernels::@class_token_kernel
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.func @class_token_kernel(
// CHECK-NOT: llvm.func @class_token_kernel_
module attributes {pt2c.fused_ops} {
func.func private @class_token(%cls: tensor<1x1x8xf32>, %patches: tensor<1x3x8xf32>, %pos: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> attributes {pt2c.kernel} {
  %c = prim.concatenate %cls, %patches dim = 1 : (tensor<1x1x8xf32>, tensor<1x3x8xf32>) -> tensor<1x4x8xf32>
  %o = prim.add %c, %pos : tensor<1x4x8xf32>
  return %o : tensor<1x4x8xf32>
}
}
