// Float reductions through the CPU pipeline come out in a form LLVM vectorizes: a row
// max stays llvm.intr.maximum (pt2c-select-minmax turns only elementwise max/min into
// a compare and a select, which no LLVM reduction recognizes), and a row sum's fadd may
// be reassociated. Then LLVM's -O3 (as pt2c runs it) gives 16-lane loops with one
// horizontal step per row.
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-aten-to-prim,pt2c-cpu-kernels-to-llvm)' \
// RUN:   | FileCheck %s
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-aten-to-prim,pt2c-cpu-kernels-to-llvm)' \
// RUN:   | mlir-translate --mlir-to-llvmir | opt -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu=znver4 -S \
// RUN:   | FileCheck %s --check-prefix=VECTOR

// CHECK-LABEL: llvm.func @row_max
// CHECK: llvm.intr.maximum
// CHECK-NOT: llvm.select
// CHECK: llvm.return
// VECTOR-LABEL: define void @row_max
// VECTOR: call <16 x float> @llvm.maximum.v16f32
// VECTOR: call float @llvm.vector.reduce.fmaximum.v16f32
func.func @row_max(%x: tensor<64x128xf32>) -> tensor<64xf32> {
  %0 = "aten.amax"(%x) {dim = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// CHECK-LABEL: llvm.func @row_sum
// CHECK: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc>}
// VECTOR-LABEL: define void @row_sum
// VECTOR: fadd reassoc <16 x float>
// VECTOR: call reassoc float @llvm.vector.reduce.fadd.v16f32
func.func @row_sum(%x: tensor<64x128xf32>) -> tensor<64xf32> {
  %0 = "aten.sum.dim_IntList"(%x) {dim = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// An elementwise maximum keeps the select form (NaN propagating, and faster than
// LLVM's expansion of llvm.maximum on x86).
// CHECK-LABEL: llvm.func @relu
// CHECK-NOT: llvm.intr.maximum
// CHECK: llvm.select
// CHECK: llvm.return
func.func @relu(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = "aten.relu"(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}
