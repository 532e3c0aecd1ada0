// topk and sort where TopK.cpp's static forms do not apply (decompose/SortPermutation.cpp):
// prim.argsort orders each row along the last dim, a gather at an iota takes topk's first
// k positions, and a gather of the input at the positions gives the values.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim -verify-diagnostics | FileCheck %s

// A sort along a dynamic dim: the whole permutation and the values at it.
// CHECK-LABEL: func.func @sort_dynamic_dim
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?xf32>
// CHECK: %[[P:.*]] = prim.argsort %[[X]] descending : tensor<?xf32> -> tensor<?xi64>
// CHECK: %[[V:.*]] = prim.gather %[[X]], %[[P]], axis = 0 : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
// CHECK: return %[[V]], %[[P]]
func.func @sort_dynamic_dim(%x: tensor<?xf32> {pt2c.input = "x", pt2c.dims = ["n"]}) -> (tensor<?xf32>, tensor<?xi64>)
    attributes {pt2c.symbols = [{name = "n", min = 1 : i64, max = 100 : i64, input = "x", dim = 0 : i64}]} {
  %v, %i = "aten.sort"(%x) {descending = true, pt2c.result_dims = [["n"], ["n"]]} : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>)
  return %v, %i : tensor<?xf32>, tensor<?xi64>
}

// -----

// topk(3) of a data-dependent count along dim 0 of [u0, 2]: the dim moved last, the
// first 3 positions of each row taken by a batched gather at an iota, then moved back.
// CHECK-LABEL: func.func @topk_static_k_of_a_selection
// CHECK: %[[T:.*]] = prim.transpose %{{.*}}, permutation = [1, 0] : tensor<?x2xf32> -> tensor<2x?xf32>
// CHECK: %[[P:.*]] = prim.argsort %[[T]] descending : tensor<2x?xf32> -> tensor<2x?xi64>
// CHECK: %[[K:.*]] = prim.iota 1 : tensor<2x3xi64>
// CHECK: %[[I:.*]] = prim.gather %[[P]], %[[K]], axis = 1 {batch_dims = 1 : i64} : tensor<2x?xi64>, tensor<2x3xi64> -> tensor<2x3xi64>
// CHECK: %[[V:.*]] = prim.gather %[[T]], %[[I]], axis = 1 {batch_dims = 1 : i64} : tensor<2x?xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
// CHECK-DAG: prim.transpose %[[V]], permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-DAG: prim.transpose %[[I]], permutation = [1, 0] : tensor<2x3xi64> -> tensor<3x2xi64>
func.func @topk_static_k_of_a_selection(%x: tensor<?x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 50 : i64, produced}]} {
  %v, %i = "aten.topk"(%x) {k = 3 : i64, dim = 0 : i64} : (tensor<?x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// A k known at run time (pt2c.sym.k): the iota takes its size from the symbol.
// CHECK-LABEL: func.func @topk_symbolic_k
// CHECK: %[[K:.*]] = prim.symbol "k", 1
// CHECK: %[[P:.*]] = prim.argsort %{{.*}} : tensor<?xi32> -> tensor<?xi64>
// CHECK: %[[FIRST:.*]] = prim.iota 0 sizes(%[[K]]) : tensor<?xi64>
// CHECK: prim.gather %[[P]], %[[FIRST]], axis = 0 : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
func.func @topk_symbolic_k(%x: tensor<?xi32> {pt2c.input = "x", pt2c.dims = ["n"]},
                           %y: tensor<?xf32> {pt2c.input = "y", pt2c.dims = ["k"]}) -> (tensor<?xi32>, tensor<?xi64>)
    attributes {pt2c.symbols = [{name = "n", min = 8 : i64, max = 100 : i64, input = "x", dim = 0 : i64},
                                {name = "k", min = 1 : i64, max = 8 : i64, input = "y", dim = 0 : i64}]} {
  %v, %i = "aten.topk"(%x) {k = 1 : i64, largest = false, pt2c.sym.k = "k", pt2c.result_dims = [["k"], ["k"]]} : (tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi64>)
  return %v, %i : tensor<?xi32>, tensor<?xi64>
}

// -----

// Static, but beyond the rank table (more than 8192 elements per row): sorted too.
// CHECK-LABEL: func.func @sort_too_long_for_the_rank_table
// CHECK-NOT: prim.reduce
// CHECK: %[[P:.*]] = prim.argsort %{{.*}} : tensor<2x10000xf64> -> tensor<2x10000xi64>
// CHECK: prim.gather %{{.*}}, %[[P]], axis = 1 {batch_dims = 1 : i64}
func.func @sort_too_long_for_the_rank_table(%x: tensor<2x10000xf64>) -> (tensor<2x10000xf64>, tensor<2x10000xi64>) {
  %v, %i = "aten.sort"(%x) : (tensor<2x10000xf64>) -> (tensor<2x10000xf64>, tensor<2x10000xi64>)
  return %v, %i : tensor<2x10000xf64>, tensor<2x10000xi64>
}

// -----

// The GPU lowerings have no sorting loop: a GPU module says so.
module attributes {pt2c.fused_ops} {
  func.func @topk_too_long_on_the_gpu(%x: tensor<2x10000xf32>) -> (tensor<2x100xf32>, tensor<2x100xi64>) {
    // expected-error @+1 {{compiles for --target cpu only so far}}
    %v, %i = "aten.topk"(%x) {k = 100 : i64} : (tensor<2x10000xf32>) -> (tensor<2x100xf32>, tensor<2x100xi64>)
    return %v, %i : tensor<2x100xf32>, tensor<2x100xi64>
  }
}
