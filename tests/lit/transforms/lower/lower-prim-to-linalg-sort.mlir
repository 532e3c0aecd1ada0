// prim.argsort lowers to a bottom-up merge sort per row (lower/Sort.cpp): the row's
// positions in half 0 of a [2, n] scratch tensor, ceil(log2 n) passes (64 - ctlz(n - 1))
// that merge runs of 2^p from one half into the other, each step taking the right run's
// head only where it strictly precedes the left's (stable), then a copy of the half the
// last pass wrote into the row of the result.
// RUN: pt2c-opt %s --split-input-file --pt2c-lower-prim-to-linalg --canonicalize | FileCheck %s
// RUN: pt2c-opt %s --split-input-file --pt2c-bufferize-kernels | FileCheck %s --check-prefix=BUFFERS

// Descending floats along a dynamic last dim: rows of 3, n as this run has it.
// CHECK-LABEL: func.func @argsort_rows
// CHECK-SAME: (%[[X:.*]]: tensor<3x?xf32>)
// CHECK-DAG: %[[SIXTYFOUR:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : index
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<3x?xf32>
// CHECK: %[[CLZ:.*]] = math.ctlz %{{.*}} : i64
// CHECK: %[[PASSES:.*]] = arith.subi %[[SIXTYFOUR]], %[[CLZ]] : i64
// CHECK: %[[OUT:.*]] = tensor.empty(%{{.*}}) : tensor<3x?xi64>
// CHECK: %[[SCRATCH:.*]] = tensor.empty(%[[N]]) : tensor<2x?xi64>
// CHECK: scf.for %[[ROW:[^ ]+]] = %{{.*}} to %[[THREE]] step %{{.*}} iter_args(%{{.*}} = %[[OUT]], %{{.*}} = %[[SCRATCH]])
// CHECK: scf.for {{.*}} to %[[N]]
// CHECK: tensor.insert
// CHECK: scf.for %[[PASS:[^ ]+]] =
// CHECK: %[[WIDTH:.*]] = arith.shli %{{.*}}, %[[PASS]] : index
// CHECK: scf.for %[[LO:[^ ]+]] = %{{.*}} to %[[N]] step
// CHECK: scf.for %[[K:[^ ]+]] = %[[LO]] to
// CHECK: %[[LEFT:.*]] = tensor.extract
// CHECK: %[[RIGHT:.*]] = tensor.extract
// CHECK: %[[LV:.*]] = tensor.extract %[[X]]
// CHECK: %[[RV:.*]] = tensor.extract %[[X]]
// CHECK: %[[NUMBER:.*]] = arith.cmpf ord, %[[LV]], %[[LV]] : f32
// CHECK: %[[GREATER:.*]] = arith.cmpf ugt, %[[RV]], %[[LV]] : f32
// CHECK: arith.andi %[[GREATER]], %[[NUMBER]] : i1
// CHECK: %[[TAKE:.*]] = arith.andi
// CHECK: arith.select %[[TAKE]], %[[RIGHT]], %[[LEFT]] : i64
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%{{.*}}, %[[K]]] : tensor<2x?xi64>
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] : tensor<3x?xi64>
// BUFFERS-LABEL: func.func @argsort_rows
// BUFFERS-COUNT-2: memref.alloc
// BUFFERS-NOT: memref.alloc
// BUFFERS-NOT: memref.copy {{.*}}memref<2x?xi64>
func.func @argsort_rows(%x: tensor<3x?xf32>) -> tensor<3x?xi64> {
  %0 = prim.argsort %x descending : tensor<3x?xf32> -> tensor<3x?xi64>
  return %0 : tensor<3x?xi64>
}

// -----

// Ascending integers: a plain signed less-than, no NaN test; a static dim of 5 needs
// 3 passes.
// CHECK-LABEL: func.func @argsort_ints
// BUFFERS-LABEL: func.func @argsort_ints
// CHECK-NOT: arith.cmpf
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: return %{{.*}} : tensor<5xi64>
func.func @argsort_ints(%x: tensor<5xi32>) -> tensor<5xi64> {
  %0 = prim.argsort %x : tensor<5xi32> -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

// Bools order false before true: unsigned.
// CHECK-LABEL: func.func @argsort_bools
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
func.func @argsort_bools(%x: tensor<4xi1>) -> tensor<4xi64> {
  %0 = prim.argsort %x descending : tensor<4xi1> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
