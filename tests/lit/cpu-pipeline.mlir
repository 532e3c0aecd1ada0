// The MLP of the walking skeleton (Linear 64->256, GELU, Linear 256->10) goes from
// aten through pt2c's passes and upstream bufferization and lowering to the LLVM
// dialect, in a context holding only what pt2c::registerAllDialects registers.
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-decompose-aten-to-prim,pt2c-lower-prim-to-linalg,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(convert-linalg-to-loops),lower-affine,expand-strided-metadata,convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,convert-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | FileCheck %s --implicit-check-not=aten. --implicit-check-not=prim. --implicit-check-not=linalg. --implicit-check-not=tensor. --implicit-check-not=memref. --implicit-check-not=bufferization. --implicit-check-not=math. --implicit-check-not=arith. --implicit-check-not=scf. --implicit-check-not=cf. --implicit-check-not=func.
// The same with elementwise fusion and canonicalization, as the codegen pipeline runs it.
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-decompose-aten-to-prim,canonicalize,pt2c-lower-prim-to-linalg,func.func(linalg-fuse-elementwise-ops),canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(convert-linalg-to-loops),lower-affine,expand-strided-metadata,convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,convert-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | FileCheck %s --check-prefix=FUSED
// And the result translates to LLVM IR.
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-decompose-aten-to-prim,pt2c-lower-prim-to-linalg,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(convert-linalg-to-loops),lower-affine,expand-strided-metadata,convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,convert-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// CHECK: llvm.func @erff(f32) -> f32
// CHECK: llvm.func @forward(
// CHECK: llvm.call @erff
// CHECK: llvm.return

// Splat constants fold into the fused generic: no constant tensors are left in memory.
// FUSED-NOT: llvm.mlir.global
// FUSED: llvm.func @forward(
// FUSED-NOT: llvm.mlir.global

// LLVMIR: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @forward(
// LLVMIR: call float @erff(

func.func @forward(%x: tensor<4x64xf32>, %w1: tensor<256x64xf32>, %b1: tensor<256xf32>, %w2: tensor<10x256xf32>, %b2: tensor<10xf32>) -> tensor<4x10xf32> {
  %0 = "aten.t"(%w1) : (tensor<256x64xf32>) -> tensor<64x256xf32>
  %1 = "aten.addmm"(%b1, %x, %0) : (tensor<256xf32>, tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
  %2 = "aten.gelu"(%1) : (tensor<4x256xf32>) -> tensor<4x256xf32>
  %3 = "aten.t"(%w2) : (tensor<10x256xf32>) -> tensor<256x10xf32>
  %4 = "aten.addmm"(%b2, %2, %3) : (tensor<10xf32>, tensor<4x256xf32>, tensor<256x10xf32>) -> tensor<4x10xf32>
  return %4 : tensor<4x10xf32>
}
