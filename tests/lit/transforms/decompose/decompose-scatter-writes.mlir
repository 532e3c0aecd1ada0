// Writes at computed positions (decompose/ScatterWrites.cpp, Scatter.h): each written
// position j finds the index k that writes it (a one-hot compare of every index with
// every position) and gathers slice k (the last k, as eager's loop leaves it), or sums
// every k that hits it (accumulate). Max-pool indices follow ATen's loop over window
// offsets; a sort longer than 64 elements counts ranks (TopK.cpp).
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim | FileCheck %s

// x[i] = v: negative indices wrap, -1 marks the rows no index writes.
// CHECK-LABEL: func.func @index_put_rows
// CHECK-SAME: (%[[X:.*]]: tensor<4x2xf32>, %[[I:.*]]: tensor<3xi64>, %[[V:.*]]: tensor<3x2xf32>)
// CHECK: %[[NEG:.*]] = prim.compare LT, %[[I]]
// CHECK: %[[IDX:.*]] = prim.select %[[NEG]]
// CHECK-NEXT: %[[W:.*]] = prim.broadcast_in_dim %[[IDX]], dims = [0] : tensor<3xi64> -> tensor<3x4xi64>
// CHECK-NEXT: %[[J:.*]] = prim.iota 1 : tensor<3x4xi64>
// CHECK-NEXT: %[[HIT:.*]] = prim.compare EQ, %[[W]], %[[J]]
// CHECK-NEXT: %[[NONE:.*]] = prim.constant dense<-1> : tensor<3x4xi64>
// CHECK-NEXT: %[[K:.*]] = prim.iota 0 : tensor<3x4xi64>
// CHECK-NEXT: %[[KS:.*]] = prim.select %[[HIT]], %[[K]], %[[NONE]]
// CHECK: %[[LAST:.*]] = prim.reduce MAX, %[[KS]], %{{.*}}, dims = [0] : tensor<3x4xi64>, tensor<i64> -> tensor<4xi64>
// CHECK: %[[FOUND:.*]] = prim.compare GE, %[[LAST]]
// CHECK-NEXT: %[[G:.*]] = prim.gather %[[V]], %[[LAST]], axis = 0 : tensor<3x2xf32>, tensor<4xi64> -> tensor<4x2xf32>
// CHECK-NEXT: %[[F:.*]] = prim.broadcast_in_dim %[[FOUND]], dims = [0] : tensor<4xi1> -> tensor<4x2xi1>
// CHECK-NEXT: %[[R:.*]] = prim.select %[[F]], %[[G]], %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @index_put_rows(%x: tensor<4x2xf32>, %i: tensor<3xi64>, %v: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %0 = "aten.index_put"(%x, %i, %v) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4x2xf32>, tensor<3xi64>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// x[i] = v where the rows and the index count are dynamic (torchvision's pooler writes
// each level's boxes back): the one-hot table is [count, rows], both run-time sizes.
// CHECK-LABEL: func.func @index_put_dynamic_rows
// CHECK-SAME: (%[[X:.*]]: tensor<?x2xf32>, %[[I:.*]]: tensor<?xi64>, %[[V:.*]]: tensor<?x2xf32>)
// CHECK: %[[IDX:.*]] = prim.select %{{.*}} : tensor<?xi1>, tensor<?xi64>
// CHECK: %[[N:.*]] = prim.dim_size %[[IDX]], 0
// CHECK-NEXT: %[[ROWS:.*]] = prim.dim_size %[[X]], 0
// CHECK-NEXT: %[[W:.*]] = prim.broadcast_in_dim %[[IDX]], dims = [0] sizes(%[[N]], %[[ROWS]]) : tensor<?xi64> -> tensor<?x?xi64>
// CHECK-NEXT: %[[J:.*]] = prim.iota 1 sizes(%[[N]], %[[ROWS]]) : tensor<?x?xi64>
// CHECK-NEXT: prim.compare EQ, %[[W]], %[[J]]
// CHECK: %[[LAST:.*]] = prim.reduce MAX, %{{.*}}, dims = [0] : tensor<?x?xi64>, tensor<i64> -> tensor<?xi64>
// CHECK: %[[G:.*]] = prim.gather %[[V]], %[[LAST]], axis = 0 : tensor<?x2xf32>, tensor<?xi64> -> tensor<?x2xf32>
// CHECK: %[[R:.*]] = prim.select %{{.*}}, %[[G]], %[[X]] : tensor<?x2xi1>, tensor<?x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @index_put_dynamic_rows(%x: tensor<?x2xf32>, %i: tensor<?xi64>, %v: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %0 = "aten.index_put"(%x, %i, %v) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<?x2xf32>, tensor<?xi64>, tensor<?x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// x.index_put_((i,), v, accumulate=True): every index that hits a position adds there.
// CHECK-LABEL: func.func @index_put_accumulate
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %{{.*}}: tensor<3xi64>, %[[V:.*]]: tensor<f32>)
// CHECK: %[[VALUES:.*]] = prim.broadcast_in_dim %[[V]], dims = [] : tensor<f32> -> tensor<3xf32>
// CHECK: %[[HIT:.*]] = prim.compare EQ
// CHECK: %[[SPREAD:.*]] = prim.broadcast_in_dim %[[VALUES]], dims = [0] : tensor<3xf32> -> tensor<3x4xf32>
// CHECK: %[[ADDED:.*]] = prim.select %{{.*}}, %[[SPREAD]], %{{.*}} : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK: %[[SUM:.*]] = prim.reduce SUM, %[[ADDED]], %{{.*}}, dims = [0] : tensor<3x4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = prim.add %[[X]], %[[SUM]]
// CHECK-NEXT: return %[[R]]
func.func @index_put_accumulate(%x: tensor<4xf32>, %i: tensor<3xi64>, %v: tensor<f32>) -> tensor<4xf32> {
  %0 = "aten.index_put"(%x, %i, %v) {accumulate = true, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<3xi64>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x[mask] = c with one value: a select.
// CHECK-LABEL: func.func @index_put_mask
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[M:.*]]: tensor<2x3xi1>, %[[V:.*]]: tensor<f32>)
// CHECK: %[[C:.*]] = prim.broadcast_in_dim %[[V]], dims = [] : tensor<f32> -> tensor<2x3xf32>
// CHECK: %[[R:.*]] = prim.select %{{.*}}, %[[C]], %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @index_put_mask(%x: tensor<2x3xf32>, %m: tensor<2x3xi1>, %v: tensor<f32>) -> tensor<2x3xf32> {
  %0 = "aten.index_put"(%x, %m, %v) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<2x3xi1>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// max_unpool2d: one index list per (image, channel) plane, a gather with a batch dim.
// CHECK-LABEL: func.func @unpool
// CHECK: %[[V:.*]] = prim.reshape %{{.*}} : tensor<1x2x1x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %[[I:.*]] = prim.reshape %{{.*}} : tensor<1x2x1x2xi64> -> tensor<2x2xi64>
// CHECK-NEXT: %[[ZEROS:.*]] = prim.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK-NEXT: prim.broadcast_in_dim %[[I]], dims = [0, 1] : tensor<2x2xi64> -> tensor<2x2x4xi64>
// CHECK: %[[LAST:.*]] = prim.reduce MAX, %{{.*}}, %{{.*}}, dims = [1] : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
// CHECK: prim.gather %[[V]], %[[LAST]], axis = 1 {batch_dims = 1 : i64} : tensor<2x2xf32>, tensor<2x4xi64> -> tensor<2x4xf32>
// CHECK: %[[R:.*]] = prim.select %{{.*}}, %{{.*}}, %[[ZEROS]]
// CHECK-NEXT: prim.reshape %[[R]] : tensor<2x4xf32> -> tensor<1x2x2x2xf32>
func.func @unpool(%v: tensor<1x2x1x2xf32>, %i: tensor<1x2x1x2xi64>) -> tensor<1x2x2x2xf32> {
  %0 = "aten.max_unpool2d"(%v, %i) {output_size = array<i64: 2, 2>} : (tensor<1x2x1x2xf32>, tensor<1x2x1x2xi64>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// Used max-pool indices, 2x2 windows over [2, 4]: the choice starts at each window's
// first position (0, 2), and moves to offset (0, 1) = (1, 3), (1, 0) = (4, 6) and
// (1, 1) = (5, 7) where the value there is larger or NaN.
// CHECK-LABEL: func.func @pool_indices
// CHECK: %[[P:.*]] = prim.pad
// CHECK-NEXT: %[[START:.*]] = prim.constant dense<{{\[\[}}0, 2]]> : tensor<1x2xi64>
// CHECK: %[[A:.*]] = prim.slice %[[P]], start = [0, 0, 0, 0]
// CHECK-NEXT: %[[B:.*]] = prim.slice %[[P]], start = [0, 0, 0, 1]
// CHECK-NEXT: %[[GT:.*]] = prim.compare GT, %[[B]], %[[A]]
// CHECK-NEXT: %[[NAN:.*]] = prim.compare NE, %[[B]], %[[B]]
// CHECK-NEXT: %[[MOVES:.*]] = prim.select %[[NAN]], %[[NAN]], %[[GT]]
// CHECK: prim.constant dense<{{\[\[}}1, 3]]> : tensor<1x2xi64>
// CHECK: prim.constant dense<{{\[\[}}4, 6]]> : tensor<1x2xi64>
// CHECK: prim.constant dense<{{\[\[}}5, 7]]> : tensor<1x2xi64>
// CHECK: %[[R:.*]] = prim.select
// CHECK-NEXT: return %[[R]]
func.func @pool_indices(%x: tensor<1x1x2x4xf32>) -> tensor<1x1x1x2xi64> {
  %v, %i = "aten.max_pool2d_with_indices"(%x) {kernel_size = array<i64: 2, 2>} : (tensor<1x1x2x4xf32>) -> (tensor<1x1x1x2xf32>, tensor<1x1x1x2xi64>)
  return %i : tensor<1x1x1x2xi64>
}

// -----

// A sort of 65 elements (past the 64 selection steps) by rank: i's rank counts the j
// before it (smaller, NaN largest, equal ones by position); position r takes the i of
// rank r.
// CHECK-LABEL: func.func @sort_by_rank
// CHECK-SAME: (%[[X:.*]]: tensor<65xf32>)
// CHECK-NEXT: %[[XI:.*]] = prim.broadcast_in_dim %[[X]], dims = [0] : tensor<65xf32> -> tensor<65x65xf32>
// CHECK-NEXT: %[[XJ:.*]] = prim.broadcast_in_dim %[[X]], dims = [1] : tensor<65xf32> -> tensor<65x65xf32>
// CHECK: prim.compare LT, %[[XJ]], %[[XI]]
// CHECK: %[[BEFORE:.*]] = prim.convert %{{.*}} : tensor<65x65xi1> -> tensor<65x65xi64>
// CHECK: %[[RANK:.*]] = prim.reduce SUM, %[[BEFORE]], %{{.*}}, dims = [1] : tensor<65x65xi64>, tensor<i64> -> tensor<65xi64>
// CHECK-NEXT: %[[RI:.*]] = prim.broadcast_in_dim %[[RANK]], dims = [1] : tensor<65xi64> -> tensor<65x65xi64>
// CHECK-NEXT: %[[R:.*]] = prim.iota 0 : tensor<65x65xi64>
// CHECK-NEXT: prim.compare EQ, %[[RI]], %[[R]]
// CHECK: %[[ORDER:.*]] = prim.reduce MAX, %{{.*}}, %{{.*}}, dims = [1] : tensor<65x65xi64>, tensor<i64> -> tensor<65xi64>
// CHECK-NEXT: %[[VALUES:.*]] = prim.gather %[[X]], %[[ORDER]], axis = 0
// CHECK-NEXT: return %[[VALUES]], %[[ORDER]]
func.func @sort_by_rank(%x: tensor<65xf32>) -> (tensor<65xf32>, tensor<65xi64>) {
  %v, %i = "aten.sort"(%x) : (tensor<65xf32>) -> (tensor<65xf32>, tensor<65xi64>)
  return %v, %i : tensor<65xf32>, tensor<65xi64>
}

// -----

// max_unpool2d of a pooling whose 2x2 windows tile the plane: each value and index is
// repeated over its window and kept where the index names the position (no one-hot
// table).
// CHECK-LABEL: func.func @unpool_tiles
// CHECK: %[[POOLED:.*]] = prim.reduce_window MAX
// CHECK: %[[V:.*]] = prim.broadcast_in_dim %[[POOLED]], dims = [0, 1, 2, 4] : tensor<1x1x2x2xf32> -> tensor<1x1x2x2x2x2xf32>
// CHECK-NEXT: %[[VP:.*]] = prim.reshape %[[V]] : tensor<1x1x2x2x2x2xf32> -> tensor<1x1x4x4xf32>
// CHECK: %[[VALUES:.*]] = prim.pad %[[VP]]
// CHECK: %[[I:.*]] = prim.reshape %{{.*}} : tensor<1x1x2x2x2x2xi64> -> tensor<1x1x4x4xi64>
// CHECK: %[[INDICES:.*]] = prim.pad %[[I]]
// CHECK-NEXT: %[[ROW:.*]] = prim.iota 2 : tensor<1x1x4x4xi64>
// CHECK-NEXT: %[[COL:.*]] = prim.iota 3 : tensor<1x1x4x4xi64>
// CHECK-NEXT: %[[W:.*]] = prim.constant dense<4> : tensor<1x1x4x4xi64>
// CHECK-NEXT: %[[RW:.*]] = prim.mul %[[ROW]], %[[W]]
// CHECK-NEXT: %[[FLAT:.*]] = prim.add %[[RW]], %[[COL]]
// CHECK-NEXT: %[[HERE:.*]] = prim.compare EQ, %[[INDICES]], %[[FLAT]]
// CHECK-NEXT: %[[ZERO:.*]] = prim.constant dense<0.000000e+00> : tensor<1x1x4x4xf32>
// CHECK-NEXT: %[[R:.*]] = prim.select %[[HERE]], %[[VALUES]], %[[ZERO]]
// CHECK-NEXT: return %[[R]]
func.func @unpool_tiles(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %v, %i = "aten.max_pool2d_with_indices"(%x) {kernel_size = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  %0 = "aten.max_unpool2d"(%v, %i) {output_size = array<i64: 4, 4>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// zeros.scatter_(1, labels, 1.0) (one-hot labels): dim 1 last, the rows are batch
// dims of the scatter, each row writing its own positions.
// CHECK-LABEL: func.func @scatter_one_hot
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xf32>, %[[I:.*]]: tensor<3x1xi64>)
// CHECK-NEXT: %[[ONES:.*]] = prim.constant dense<1.000000e+00> : tensor<3x1xf32>
// CHECK-NEXT: prim.broadcast_in_dim %[[I]], dims = [0, 1] : tensor<3x1xi64> -> tensor<3x1x5xi64>
// CHECK: %[[LAST:.*]] = prim.reduce MAX, %{{.*}}, %{{.*}}, dims = [1] : tensor<3x1x5xi64>, tensor<i64> -> tensor<3x5xi64>
// CHECK: %[[G:.*]] = prim.gather %[[ONES]], %[[LAST]], axis = 1 {batch_dims = 1 : i64}
// CHECK: %[[R:.*]] = prim.select %{{.*}}, %[[G]], %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @scatter_one_hot(%x: tensor<3x5xf32>, %i: tensor<3x1xi64>) -> tensor<3x5xf32> {
  %0 = "aten.scatter.value"(%x, %i) {dim = 1 : i64, value = 1.0 : f64} : (tensor<3x5xf32>, tensor<3x1xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// index_fill(x, 1, i, 2.5): negative indices wrap; the columns that some index names
// take the value (a gather of a constant source), the others keep x's.
// CHECK-LABEL: func.func @index_fill_columns
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK: %[[NEG:.*]] = prim.compare LT, %[[I]]
// CHECK: %[[IDX:.*]] = prim.select %[[NEG]]
// CHECK-NEXT: %[[FILL:.*]] = prim.constant dense<2.500000e+00> : tensor<2x2xf32>
// CHECK-NEXT: prim.broadcast_in_dim %[[IDX]], dims = [0] : tensor<2xi64> -> tensor<2x4xi64>
// CHECK: %[[LAST:.*]] = prim.reduce MAX, %{{.*}}, %{{.*}}, dims = [0] : tensor<2x4xi64>, tensor<i64> -> tensor<4xi64>
// CHECK: %[[G:.*]] = prim.gather %[[FILL]], %[[LAST]], axis = 1 : tensor<2x2xf32>, tensor<4xi64> -> tensor<2x4xf32>
// CHECK-NEXT: %[[COLS:.*]] = prim.broadcast_in_dim %{{.*}}, dims = [1] : tensor<4xi1> -> tensor<2x4xi1>
// CHECK-NEXT: %[[R:.*]] = prim.select %[[COLS]], %[[G]], %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @index_fill_columns(%x: tensor<2x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {
  %0 = "aten.index_fill.int_Scalar"(%x, %i) {dim = 1 : i64, value = 2.5 : f64} : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// scatter_reduce (amax, without self): the one-hot table hit[row, k, j], each position's
// MAX over the k that hit it (-inf where none does), and self kept where none does.
// CHECK-LABEL: func.func @scatter_reduce_amax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<2x2xi64>, %[[S:.*]]: tensor<2x2xf32>)
// CHECK: %[[WANT:.*]] = prim.broadcast_in_dim %[[I]], dims = [0, 1] : tensor<2x2xi64> -> tensor<2x2x3xi64>
// CHECK-NEXT: %[[IOTA:.*]] = prim.iota 2 : tensor<2x2x3xi64>
// CHECK-NEXT: %[[HIT:.*]] = prim.compare EQ, %[[WANT]], %[[IOTA]]
// CHECK-NEXT: %[[SPREAD:.*]] = prim.broadcast_in_dim %[[S]], dims = [0, 1]
// CHECK-NEXT: %[[NEGINF:.*]] = prim.constant dense<0xFF800000> : tensor<2x2x3xf32>
// CHECK-NEXT: %[[TERMS:.*]] = prim.select %[[HIT]], %[[SPREAD]], %[[NEGINF]]
// CHECK: %[[MAX:.*]] = prim.reduce MAX, %[[TERMS]], %{{.*}}, dims = [1]
// CHECK: %[[TOUCHED:.*]] = prim.reduce OR, %[[HIT]], %{{.*}}, dims = [1]
// CHECK-NEXT: %[[R:.*]] = prim.select %[[TOUCHED]], %[[MAX]], %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @scatter_reduce_amax(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>, %s: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %0 = "aten.scatter_reduce.two"(%x, %i, %s) {dim = 1 : i64, reduce = "amax", include_self = false} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// masked_scatter: the flattened mask's inclusive prefix count by shifted adds (1, 2, 4),
// minus one, is where each true position reads the source.
// CHECK-LABEL: func.func @masked_scatter
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[M:.*]]: tensor<2x1xi1>, %[[S:.*]]: tensor<6xf32>)
// CHECK: %[[MASK:.*]] = prim.broadcast_in_dim %[[M]], dims = [0, 1] : tensor<2x1xi1> -> tensor<2x3xi1>
// CHECK: prim.pad %{{.*}}, low = [1], high = [0]
// CHECK: prim.pad %{{.*}}, low = [2], high = [0]
// CHECK: prim.pad %{{.*}}, low = [4], high = [0]
// CHECK: %[[COUNT:.*]] = prim.add
// CHECK: %[[FROM:.*]] = prim.sub %[[COUNT]]
// CHECK-NEXT: %[[TAKEN:.*]] = prim.gather %[[S]], %[[FROM]], axis = 0
// CHECK-NEXT: %[[PLACED:.*]] = prim.reshape %[[TAKEN]] : tensor<6xf32> -> tensor<2x3xf32>
// CHECK-NEXT: prim.select %[[MASK]], %[[PLACED]], %[[X]]
func.func @masked_scatter(%x: tensor<2x3xf32>, %m: tensor<2x1xi1>, %s: tensor<6xf32>) -> tensor<2x3xf32> {
  %0 = "aten.masked_scatter"(%x, %m, %s) : (tensor<2x3xf32>, tensor<2x1xi1>, tensor<6xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
