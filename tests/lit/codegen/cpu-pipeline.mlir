// The MLP of the walking skeleton (Linear 64->256, GELU, Linear 256->10) goes from aten
// through the driver's own named pipelines, pt2c-aten-to-prim and then, with the model
// function as one kernel, pt2c-cpu-kernels-to-llvm (prim -> linalg with
// elementwise fusion -> buffers with the result as an out-param -> loops -> the LLVM
// dialect with bare-pointer memrefs), in a context holding only what
// pt2c::registerAllDialects registers.
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-aten-to-prim,pt2c-cpu-kernels-to-llvm)' \
// RUN:   | FileCheck %s --implicit-check-not=aten. --implicit-check-not=prim. --implicit-check-not=linalg. --implicit-check-not=tensor. --implicit-check-not=memref. --implicit-check-not=bufferization. --implicit-check-not=math. --implicit-check-not=arith. --implicit-check-not=scf. --implicit-check-not=cf. --implicit-check-not=func.
// And the result translates to LLVM IR.
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-aten-to-prim,pt2c-cpu-kernels-to-llvm)' \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// Splat constants fold into the fused generic (no constant tensors left in memory), erf
// is a polynomial (no libm call), the five parameters and the result are pointers, and
// the last two parameters are the range of rows one call computes (pt2c-split-kernel-loops).
// CHECK-NOT: llvm.mlir.global
// CHECK-NOT: @erff
// CHECK: llvm.func @forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64) {
// CHECK-NOT: @erff
// CHECK: llvm.return

// LLVMIR: define void @forward(ptr %0, ptr %1, ptr %2, ptr %3, ptr %4, ptr %5, i64 %6, i64 %7)

func.func @forward(%x: tensor<4x64xf32>, %w1: tensor<256x64xf32>, %b1: tensor<256xf32>, %w2: tensor<10x256xf32>, %b2: tensor<10xf32>) -> tensor<4x10xf32> {
  %0 = "aten.t"(%w1) : (tensor<256x64xf32>) -> tensor<64x256xf32>
  %1 = "aten.addmm"(%b1, %x, %0) : (tensor<256xf32>, tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
  %2 = "aten.gelu"(%1) : (tensor<4x256xf32>) -> tensor<4x256xf32>
  %3 = "aten.t"(%w2) : (tensor<10x256xf32>) -> tensor<256x10xf32>
  %4 = "aten.addmm"(%b2, %2, %3) : (tensor<10xf32>, tensor<4x256xf32>, tensor<256x10xf32>) -> tensor<4x10xf32>
  return %4 : tensor<4x10xf32>
}
