// Shape rules of the index/reduce, split, resize and in-place families
// (ir/aten/AtenShapeRules.cpp): a consistent op verifies, a wrong result size is named.
// RUN: pt2c-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @consistent(
func.func @consistent(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>, %i: tensor<3xi64>) {
  %cat = "aten.cat"(%x, %y) {dim = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  %am = "aten.argmax"(%x) {dim = -1 : i64, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
  %all = "aten.argmin"(%x) : (tensor<2x3x4xf32>) -> tensor<i64>
  %mv, %mi = "aten.max.dim"(%x) {dim = 1 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %tv, %ti = "aten.topk"(%x) {k = 2 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xi64>)
  %rep = "aten.repeat"(%x) {repeats = array<i64: 2, 1, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x6x4xf32>
  %s:2 = "aten.split.Tensor"(%x) {split_size = 2 : i64, dim = 1 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x2x4xf32>, tensor<2x1x4xf32>)
  %c:2 = "aten.unsafe_chunk"(%x) {chunks = 2 : i64, dim = 2 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>)
  %u:3 = "aten.unbind.int"(%x) {dim = 1 : i64} : (tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  %t = "aten.transpose_"(%x) {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %sum = "aten.sum"(%x) : (tensor<2x3x4xf32>) -> tensor<f32>
  %ic = "aten.index_copy"(%y, %i, %x) {dim = 1 : i64} : (tensor<2x5x4xf32>, tensor<3xi64>, tensor<2x3x4xf32>) -> tensor<2x5x4xf32>
  return
}

// -----

func.func @cat_size(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> tensor<2x9xf32> {
  // expected-error @+1 {{result dim 1 has size 9, expected 8}}
  %0 = "aten.cat"(%x, %y) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

func.func @topk_size(%x: tensor<2x10xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{result dim 1 has size 4, expected 3}}
  %v, %i = "aten.topk"(%x) {k = 3 : i64} : (tensor<2x10xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return %v : tensor<2x4xf32>
}

// -----

func.func @argmax_keepdim(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{result rank 1 differs from the expected rank 2}}
  %0 = "aten.argmax"(%x) {dim = 1 : i64, keepdim = true} : (tensor<2x3xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @repeat_size(%x: tensor<3xf32>) -> tensor<2x7xf32> {
  // expected-error @+1 {{result dim 1 has size 7, expected 6}}
  %0 = "aten.repeat"(%x) {repeats = array<i64: 2, 2>} : (tensor<3xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

func.func @split_first_piece(%x: tensor<5x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{result dim 0 has size 3, expected 2}}
  %0:3 = "aten.split.Tensor"(%x) {split_size = 2 : i64} : (tensor<5x4xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>, tensor<1x4xf32>)
  return %0#0 : tensor<3x4xf32>
}
