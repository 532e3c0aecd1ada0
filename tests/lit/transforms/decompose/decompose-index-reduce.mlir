// argmax/max.dim and topk/sort: an index is the MIN of the positions that hold the
// extreme (first index on ties); NaNs count as the extreme; topk takes one element
// per step and marks its position taken.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// The max, the positions equal to it or NaN, and the lowest such position (7 when none).
// CHECK-LABEL: func.func @max_dim_keepdim
// CHECK-SAME: (%[[X:.*]]: tensor<2x7xf32>)
// CHECK: %[[M:.*]] = prim.reduce MAX, %[[X]], %{{.*}}, dims = [1]
// CHECK: %[[MB:.*]] = prim.broadcast_in_dim %[[M]]
// CHECK: %[[EQ:.*]] = prim.compare EQ, %[[X]], %[[MB]]
// CHECK: %[[NAN:.*]] = prim.compare NE, %[[X]], %[[X]]
// CHECK: %[[HIT:.*]] = prim.select %[[NAN]], %[[NAN]], %[[EQ]]
// CHECK: %[[IOTA:.*]] = prim.iota 0 : tensor<7xi64>
// CHECK: %[[POS:.*]] = prim.broadcast_in_dim %[[IOTA]]
// CHECK: %[[CAND:.*]] = prim.select %[[HIT]], %[[POS]], %{{.*}} : tensor<2x7xi1>, tensor<2x7xi64>
// CHECK: %[[I:.*]] = prim.reduce MIN, %[[CAND]], %{{.*}}, dims = [1]
// CHECK-DAG: prim.reshape %[[M]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK-DAG: prim.reshape %[[I]] : tensor<2xi64> -> tensor<2x1xi64>
func.func @max_dim_keepdim(%x: tensor<2x7xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>) {
  %v, %i = "aten.max.dim"(%x) {dim = -1 : i64, keepdim = true} : (tensor<2x7xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  return %v, %i : tensor<2x1xf32>, tensor<2x1xi64>
}

// -----

// argmin without a dim runs over the flattened tensor; integers have no NaN check.
// CHECK-LABEL: func.func @argmin_all
// CHECK: %[[F:.*]] = prim.reshape %{{.*}} : tensor<2x3xi64> -> tensor<6xi64>
// CHECK: prim.reduce MIN, %[[F]]
// CHECK-NOT: prim.compare NE
// CHECK: prim.reduce MIN
// CHECK-SAME: -> tensor<i64>
func.func @argmin_all(%x: tensor<2x3xi64>) -> tensor<i64> {
  %0 = "aten.argmin"(%x) : (tensor<2x3xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// top-2 along dim 0: two MAX steps; the second sees the first pick as -inf and may
// not pick a taken position; the picks are joined along dim 0.
// CHECK-LABEL: func.func @topk_two_steps
// CHECK-COUNT-2: prim.reduce MAX
// CHECK-NOT: prim.reduce MAX
// CHECK: %[[V:.*]] = prim.concatenate %{{.*}}, %{{.*}} dim = 0 : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[I:.*]] = prim.concatenate %{{.*}}, %{{.*}} dim = 0 : (tensor<1x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
// CHECK: return %[[V]], %[[I]]
func.func @topk_two_steps(%x: tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = "aten.topk"(%x) {k = 2 : i64, dim = 0 : i64} : (tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// Ascending: NaNs compete as +inf and their keys are shifted by n = 4, so a real +inf
// comes first; a key >= 4 gives position key - 4 and the value NaN.
// CHECK-LABEL: func.func @sort_ascending_nan_last
// CHECK: prim.constant dense<0x7FC00000> : tensor<f32>
// CHECK: %[[NAN:.*]] = prim.compare NE, %[[X:.*]], %[[X]] : tensor<4xf32>
// CHECK: prim.select %[[NAN]], %{{.*}}, %[[X]] : tensor<4xi1>, tensor<4xf32>
// CHECK: prim.select %[[NAN]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xi64>
// CHECK: prim.add
// CHECK-COUNT-4: prim.reduce MIN, %{{.*}} : tensor<4xf32>
// CHECK: prim.compare GE
func.func @sort_ascending_nan_last(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %v, %i = "aten.sort"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi64>)
  return %v, %i : tensor<4xf32>, tensor<4xi64>
}

// -----

// x[:, idx] (importer: pt2c.present_indices = [1]): dim 1 moved first, gathered, and
// the index dim put back in its place.
// CHECK-LABEL: func.func @index_after_slice
// CHECK: %[[T:.*]] = prim.transpose %{{.*}}, permutation = [1, 0, 2] : tensor<2x5x3xf32> -> tensor<5x2x3xf32>
// CHECK: %[[G:.*]] = prim.gather %[[T]], %{{.*}}, axis = 0 : tensor<5x2x3xf32>, tensor<4xi64> -> tensor<4x2x3xf32>
// CHECK: prim.transpose %[[G]], permutation = [1, 0, 2] : tensor<4x2x3xf32> -> tensor<2x4x3xf32>
func.func @index_after_slice(%x: tensor<2x5x3xf32>, %idx: tensor<4xi64>) -> tensor<2x4x3xf32> {
  %0 = "aten.index.Tensor"(%x, %idx) {pt2c.present_indices = array<i64: 1>} : (tensor<2x5x3xf32>, tensor<4xi64>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Tensor.repeat(2, 1, 3) of [3, 4]: broadcast to [2, 1, 1, 3, 3, 4], merged pairwise.
// CHECK-LABEL: func.func @repeat
// CHECK: %[[B:.*]] = prim.broadcast_in_dim %{{.*}}, dims = [3, 5] : tensor<3x4xf32> -> tensor<2x1x1x3x3x4xf32>
// CHECK: prim.reshape %[[B]] : tensor<2x1x1x3x3x4xf32> -> tensor<2x3x12xf32>
func.func @repeat(%x: tensor<3x4xf32>) -> tensor<2x3x12xf32> {
  %0 = "aten.repeat"(%x) {repeats = array<i64: 2, 1, 3>} : (tensor<3x4xf32>) -> tensor<2x3x12xf32>
  return %0 : tensor<2x3x12xf32>
}
