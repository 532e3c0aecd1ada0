// prim.reduce, gather, slice, concatenate and iota parse, verify, print and parse
// again (custom and generic form), with their inferred result types.
// RUN: pt2c-opt %s | pt2c-opt | FileCheck %s
// RUN: pt2c-opt %s --mlir-print-op-generic | pt2c-opt | FileCheck %s

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<2x?x4xf32>, %p: tensor<3xi1>) -> (tensor<?xf32>, tensor<i1>) {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %true = prim.constant dense<true> : tensor<i1>
  // CHECK: prim.reduce SUM, %{{.*}}, %{{.*}}, dims = [0, 2] : tensor<2x?x4xf32>, tensor<f32> -> tensor<?xf32>
  %0 = prim.reduce SUM, %x, %zero, dims = [0, 2] : tensor<2x?x4xf32>, tensor<f32> -> tensor<?xf32>
  // CHECK: prim.reduce AND, %{{.*}}, %{{.*}}, dims = [0] : tensor<3xi1>, tensor<i1> -> tensor<i1>
  %1 = prim.reduce AND, %p, %true, dims = [0] : tensor<3xi1>, tensor<i1> -> tensor<i1>
  return %0, %1 : tensor<?xf32>, tensor<i1>
}

// CHECK-LABEL: func.func @gather
func.func @gather(%table: tensor<10x8xf32>, %ids: tensor<2x5xi64>, %x: tensor<2x7xf32>, %j: tensor<2x3xi32>) -> (tensor<2x5x8xf32>, tensor<2x3xf32>) {
  // CHECK: prim.gather %{{.*}}, %{{.*}}, axis = 0 : tensor<10x8xf32>, tensor<2x5xi64> -> tensor<2x5x8xf32>
  %0 = prim.gather %table, %ids, axis = 0 : tensor<10x8xf32>, tensor<2x5xi64> -> tensor<2x5x8xf32>
  // CHECK: prim.gather %{{.*}}, %{{.*}}, axis = 1 {batch_dims = 1 : i64} : tensor<2x7xf32>, tensor<2x3xi32> -> tensor<2x3xf32>
  %1 = prim.gather %x, %j, axis = 1 {batch_dims = 1 : i64} : tensor<2x7xf32>, tensor<2x3xi32> -> tensor<2x3xf32>
  return %0, %1 : tensor<2x5x8xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @slice_concatenate_iota
func.func @slice_concatenate_iota(%x: tensor<4x10xf32>) -> (tensor<2x3xf32>, tensor<6x10xf32>, tensor<3x4xi64>) {
  // ceil((9 - 1) / 3) = 3 columns.
  // CHECK: prim.slice %{{.*}}, start = [1, 1], limit = [3, 9], strides = [1, 3] : tensor<4x10xf32> -> tensor<2x3xf32>
  %0 = prim.slice %x, start = [1, 1], limit = [3, 9], strides = [1, 3] : tensor<4x10xf32> -> tensor<2x3xf32>
  %1 = prim.slice %x, start = [0, 0], limit = [2, 10], strides = [1, 1] : tensor<4x10xf32> -> tensor<2x10xf32>
  // CHECK: prim.concatenate %{{.*}}, %{{.*}} dim = 0 : (tensor<4x10xf32>, tensor<2x10xf32>) -> tensor<6x10xf32>
  %2 = prim.concatenate %x, %1 dim = 0 : (tensor<4x10xf32>, tensor<2x10xf32>) -> tensor<6x10xf32>
  // CHECK: prim.iota 1 : tensor<3x4xi64>
  %3 = prim.iota 1 : tensor<3x4xi64>
  return %0, %2, %3 : tensor<2x3xf32>, tensor<6x10xf32>, tensor<3x4xi64>
}
