// pt2c-functionalize: in-place ops and writes through views become value semantics.
// RUN: pt2c-opt %s --split-input-file --pt2c-functionalize | FileCheck %s

// In-place ops on intermediates (ResNet's residual tail) become their functional
// forms, and later readers read the new values.
// CHECK-LABEL: func.func @in_place_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[M:.*]] = "aten.mul.Tensor"(%[[X]], %[[X]])
// CHECK-NEXT: %[[A:.*]] = "aten.add.Tensor"(%[[M]], %[[Y]]) <{alpha = 1 : i64}>
// CHECK-NEXT: %[[R:.*]] = "aten.relu"(%[[A]])
// CHECK-NEXT: %[[N:.*]] = "aten.neg"(%[[R]])
// CHECK-NEXT: return %[[N]]
func.func @in_place_chain(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.mul.Tensor"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.add_.Tensor"(%0, %y) {alpha = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "aten.relu_"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "aten.neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// x.view(6).mul_(2), then x read: the view's new value is reshaped back into x.
// CHECK-LABEL: func.func @in_place_on_a_view
// CHECK: %[[X:.*]] = "aten.relu"
// CHECK-NEXT: %[[V:.*]] = "aten.view"(%[[X]])
// CHECK-NEXT: %[[M:.*]] = "aten.mul.Tensor"(%[[V]], %{{.*}})
// CHECK-NEXT: %[[NEW:.*]] = prim.reshape %[[M]] : tensor<6xf32> -> tensor<2x3xf32>
// CHECK-NEXT: "aten.neg"(%[[NEW]])
func.func @in_place_on_a_view(%x: tensor<2x3xf32>, %two: tensor<f32>) -> tensor<2x3xf32> {
  %0 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "aten.view"(%0) {size = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  %2 = "aten.mul_.Tensor"(%1, %two) : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  %3 = "aten.neg"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// -----

// x[:, 0] += y with a view of x (x.t()) taken before the write and read after it: the
// column is scattered back (slice + concatenate), the read replays t() on the new x.
// CHECK-LABEL: func.func @write_then_read_another_alias
// CHECK: %[[X:.*]] = "aten.clone"
// CHECK: %[[COL:.*]] = "aten.select.int"(%[[X]]) <{dim = 1 : i64, index = 0 : i64}>
// CHECK-NEXT: %[[SUM:.*]] = "aten.add.Tensor"(%[[COL]], %{{.*}})
// CHECK-NEXT: %[[PIECE:.*]] = prim.reshape %[[SUM]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[REST:.*]] = prim.slice %[[X]], start = [0, 1], limit = [2, 3]
// CHECK-NEXT: %[[NEW:.*]] = prim.concatenate %[[PIECE]], %[[REST]] dim = 1
// CHECK-NEXT: %[[T:.*]] = "aten.t"(%[[NEW]])
// CHECK-NEXT: "aten.neg"(%[[T]])
func.func @write_then_read_another_alias(%a: tensor<2x3xf32>, %y: tensor<2xf32>) -> tensor<3x2xf32> {
  %x = "aten.clone"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "aten.t"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %0 = "aten.select.int"(%x) {dim = 1 : i64, index = 0 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = "aten.add_.Tensor"(%0, %y) {alpha = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = "aten.neg"(%t) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// The KV cache: cache[0, :, :t] = k (copy_ into a slice of a select of a state
// buffer), then the cache read (by a view) and written back. The write of the second
// row replays select+slice on the cache's new value.
// CHECK-LABEL: func.func @kv_cache
// CHECK-SAME: (%[[CACHE:.*]]: tensor<2x4x8xf32> {pt2c.state = "kv"}, %[[K:.*]]: tensor<4x5xf32> {pt2c.input = "k"})
// CHECK: %[[TAIL0:.*]] = prim.slice %{{.*}}, start = [0, 5], limit = [4, 8]
// CHECK-NEXT: %[[ROW0:.*]] = prim.concatenate %[[K]], %[[TAIL0]] dim = 1
// CHECK-NEXT: %[[ROW0X:.*]] = prim.reshape %[[ROW0]] : tensor<4x8xf32> -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[REST:.*]] = prim.slice %[[CACHE]], start = [1, 0, 0], limit = [2, 4, 8]
// CHECK-NEXT: %[[C1:.*]] = prim.concatenate %[[ROW0X]], %[[REST]] dim = 0
// CHECK-NEXT: %[[SEL1:.*]] = "aten.select.int"(%[[C1]]) <{dim = 0 : i64, index = 1 : i64}>
// CHECK-NEXT: %[[SL1:.*]] = "aten.slice.Tensor"(%[[SEL1]])
// CHECK-NEXT: %[[NEG:.*]] = "aten.neg"(%[[K]])
// CHECK: %[[C2:.*]] = prim.concatenate %{{.*}}, %{{.*}} dim = 0
// CHECK: %[[SUM:.*]] = "aten.sum"(%[[C2]])
// CHECK: return %[[C2]], %[[SUM]]
func.func @kv_cache(%cache: tensor<2x4x8xf32> {pt2c.state = "kv"}, %k: tensor<4x5xf32> {pt2c.input = "k"}) -> (tensor<2x4x8xf32> {pt2c.writeback = "kv"}, tensor<f32> {pt2c.output = "0"}) {
  %0 = "aten.select.int"(%cache) {dim = 0 : i64, index = 0 : i64} : (tensor<2x4x8xf32>) -> tensor<4x8xf32>
  %1 = "aten.slice.Tensor"(%0) {dim = 1 : i64, start = 0 : i64, end = 5 : i64, step = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x5xf32>
  %2 = "aten.copy_"(%1, %k) {non_blocking = false} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %3 = "aten.select.int"(%cache) {dim = 0 : i64, index = 1 : i64} : (tensor<2x4x8xf32>) -> tensor<4x8xf32>
  %4 = "aten.slice.Tensor"(%3) {dim = 1 : i64, start = 0 : i64, end = 5 : i64, step = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x5xf32>
  %n = "aten.neg"(%k) : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %5 = "aten.copy_"(%4, %n) {non_blocking = false} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %6 = "aten.sum"(%cache) : (tensor<2x4x8xf32>) -> tensor<f32>
  return %cache, %6 : tensor<2x4x8xf32>, tensor<f32>
}

// -----

// copy_ converts and broadcasts its source: out = zeros(...); out[:, :2] = a (f64,
// one row); the slice's write is a prim.convert and a broadcast.
// CHECK-LABEL: func.func @copy_converts_and_broadcasts
// CHECK: %[[C:.*]] = prim.convert %{{.*}} : tensor<2xf64> -> tensor<2xf32>
// CHECK-NEXT: %[[B:.*]] = prim.broadcast_in_dim %[[C]], dims = [1] : tensor<2xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[TAIL:.*]] = prim.slice %{{.*}}, start = [0, 2], limit = [3, 4]
// CHECK-NEXT: %[[NEW:.*]] = prim.concatenate %[[B]], %[[TAIL]] dim = 1
// CHECK-NEXT: return %[[NEW]]
func.func @copy_converts_and_broadcasts(%z: tensor<3x4xf32>, %a: tensor<2xf64>) -> tensor<3x4xf32> {
  %out = "aten.clone"(%z) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %0 = "aten.slice.Tensor"(%out) {dim = 1 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x2xf32>
  %1 = "aten.copy_"(%0, %a) {non_blocking = false} : (tensor<3x2xf32>, tensor<2xf64>) -> tensor<3x2xf32>
  return %out : tensor<3x4xf32>
}

// -----

// A buffer cache written with index_copy_ at a step counter kept in a second buffer:
// both are state, both written back.
// CHECK-LABEL: func.func @index_copy_cache
// CHECK: %[[STEP:.*]] = "aten.add.Scalar"(%{{.*}})
// CHECK: %[[NEW:.*]] = "aten.index_copy"(%{{.*}}, %[[STEP]], %{{.*}}) <{dim = 0 : i64}>
// CHECK: return %[[NEW]], %[[STEP]]
func.func @index_copy_cache(%cache: tensor<4x3xf32> {pt2c.state = "cache"}, %step: tensor<1xi64> {pt2c.state = "step"}, %x: tensor<1x3xf32> {pt2c.input = "x"}) -> (tensor<4x3xf32> {pt2c.writeback = "cache"}, tensor<1xi64> {pt2c.writeback = "step"}) {
  %0 = "aten.add_.Scalar"(%step) {other = 1 : i64, alpha = 1 : i64} : (tensor<1xi64>) -> tensor<1xi64>
  %1 = "aten.index_copy_"(%cache, %step, %x) {dim = 0 : i64} : (tensor<4x3xf32>, tensor<1xi64>, tensor<1x3xf32>) -> tensor<4x3xf32>
  return %cache, %0 : tensor<4x3xf32>, tensor<1xi64>
}

// -----

// masked_fill_ on a transposed view: the new values are transposed back.
// CHECK-LABEL: func.func @masked_fill_on_a_view
// CHECK: %[[T:.*]] = "aten.transpose.int"
// CHECK-NEXT: %[[F:.*]] = "aten.masked_fill.Scalar"(%[[T]], %{{.*}}) <{value = -1.000000e+00 : f64}>
// CHECK-NEXT: %[[NEW:.*]] = prim.transpose %[[F]], permutation = [1, 0]
// CHECK-NEXT: return %[[NEW]]
func.func @masked_fill_on_a_view(%a: tensor<2x3xf32>, %m: tensor<3x2xi1>) -> tensor<2x3xf32> {
  %x = "aten.clone"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = "aten.transpose.int"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %0 = "aten.masked_fill_.Scalar"(%t, %m) {value = -1.0 : f64} : (tensor<3x2xf32>, tensor<3x2xi1>) -> tensor<3x2xf32>
  return %x : tensor<2x3xf32>
}

// -----

// Input mutation: x[1:] *= 2 on the input; its final value is the input write-back
// result, and the output read before the write keeps the old value.
// CHECK-LABEL: func.func @input_mutation
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32> {pt2c.input = "x"})
// CHECK-NEXT: %[[OLD:.*]] = "aten.neg"(%[[X]])
// CHECK-NEXT: %[[S:.*]] = "aten.slice.Tensor"(%[[X]])
// CHECK-NEXT: %[[M:.*]] = "aten.mul.Scalar"(%[[S]])
// CHECK-NEXT: %[[HEAD:.*]] = prim.slice %[[X]], start = [0], limit = [1]
// CHECK-NEXT: %[[NEW:.*]] = prim.concatenate %[[HEAD]], %[[M]] dim = 0
// CHECK-NEXT: return %[[NEW]], %[[OLD]]
func.func @input_mutation(%x: tensor<4xf32> {pt2c.input = "x"}) -> (tensor<4xf32> {pt2c.input_writeback = "x"}, tensor<4xf32> {pt2c.output = "0"}) {
  %0 = "aten.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.slice.Tensor"(%x) {dim = 0 : i64, start = 1 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : (tensor<4xf32>) -> tensor<3xf32>
  %2 = "aten.mul_.Scalar"(%1) {other = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %x, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Pieces of split and unbind written in place land in their ranges of the base.
// CHECK-LABEL: func.func @split_and_unbind_pieces
// CHECK: %[[P:.*]]:2 = "aten.split.Tensor"
// CHECK-NEXT: %[[Z:.*]] = "aten.zero"(%[[P]]#1)
// CHECK-NEXT: %[[HEAD:.*]] = prim.slice %{{.*}}, start = [0, 0], limit = [2, 2]
// CHECK-NEXT: %[[X1:.*]] = prim.concatenate %[[HEAD]], %[[Z]] dim = 1
// CHECK-NEXT: %[[U:.*]]:2 = "aten.unbind.int"(%[[X1]])
// CHECK-NEXT: %[[F:.*]] = "aten.fill.Scalar"(%[[U]]#0) <{value = 5 : i64}>
// CHECK-NEXT: %[[R:.*]] = prim.reshape %[[F]] : tensor<4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[ROW:.*]] = prim.slice %[[X1]], start = [1, 0], limit = [2, 4]
// CHECK-NEXT: %[[X2:.*]] = prim.concatenate %[[R]], %[[ROW]] dim = 0
// CHECK-NEXT: return %[[X2]]
func.func @split_and_unbind_pieces(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %x = "aten.clone"(%a) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %p:2 = "aten.split.Tensor"(%x) {split_size = 2 : i64, dim = 1 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %0 = "aten.zero_"(%p#1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %u:2 = "aten.unbind.int"(%x) {dim = 0 : i64} : (tensor<2x4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %1 = "aten.fill_.Scalar"(%u#0) {value = 5 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<2x4xf32>
}

// -----

// `//=` is floor_divide_.Tensor, whose functional form is the default overload
// floor_divide (there is no floor_divide.Tensor); leaky_relu_ becomes leaky_relu.
// CHECK-LABEL: func.func @in_place_without_a_tensor_overload
// CHECK-SAME: (%[[X:.*]]: tensor<4xi64>, %[[Y:.*]]: tensor<4xi64>, %[[F:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:.*]] = "aten.abs"(%[[X]])
// CHECK-NEXT: %[[D:.*]] = "aten.floor_divide"(%[[A]], %[[Y]])
// CHECK-NEXT: %[[G:.*]] = "aten.abs"(%[[F]])
// CHECK-NEXT: %[[L:.*]] = "aten.leaky_relu"(%[[G]]) <{negative_slope = 1.000000e-01 : f64}>
// CHECK-NEXT: return %[[D]], %[[L]]
func.func @in_place_without_a_tensor_overload(%x: tensor<4xi64>, %y: tensor<4xi64>, %f: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xf32>) {
  %0 = "aten.abs"(%x) : (tensor<4xi64>) -> tensor<4xi64>
  %1 = "aten.floor_divide_.Tensor"(%0, %y) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = "aten.abs"(%f) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "aten.leaky_relu_"(%2) {negative_slope = 0.1 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %2 : tensor<4xi64>, tensor<4xf32>
}

// -----

// boxes[:, 2] = y where the rows are dynamic (a data-dependent count): prim.slice cannot
// cut a dynamic dim, so the column is spread over the dim by a gather of constant
// positions and selected where the view lies.
// CHECK-LABEL: func.func @write_column_of_dynamic_rows
// CHECK: %[[X:.*]] = "aten.clone"
// CHECK: %[[PIECE:.*]] = prim.reshape %{{.*}} : tensor<?xf32> -> tensor<?x1xf32>
// CHECK-NEXT: %[[AT:.*]] = prim.constant dense<0> : tensor<4xi64>
// CHECK-NEXT: %[[SPREAD:.*]] = prim.gather %[[PIECE]], %[[AT]], axis = 1 : tensor<?x1xf32>, tensor<4xi64> -> tensor<?x4xf32>
// CHECK-NEXT: %[[RANGE:.*]] = prim.constant dense<[false, false, true, false]> : tensor<4xi1>
// CHECK-NEXT: %[[ROWS:.*]] = prim.dim_size %[[X]], 0
// CHECK-NEXT: %[[WHERE:.*]] = prim.broadcast_in_dim %[[RANGE]], dims = [1] sizes(%[[ROWS]]) : tensor<4xi1> -> tensor<?x4xi1>
// CHECK-NEXT: %[[NEW:.*]] = prim.select %[[WHERE]], %[[SPREAD]], %[[X]]
// CHECK-NEXT: return %[[NEW]]
func.func @write_column_of_dynamic_rows(%a: tensor<?x4xf32>, %y: tensor<?xf32>) -> tensor<?x4xf32> {
  %x = "aten.clone"(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %0 = "aten.select.int"(%x) {dim = 1 : i64, index = 2 : i64} : (tensor<?x4xf32>) -> tensor<?xf32>
  %1 = "aten.copy_"(%0, %y) {non_blocking = false} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %x : tensor<?x4xf32>
}
