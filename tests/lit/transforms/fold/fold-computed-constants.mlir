// RUN: pt2c-opt %s -split-input-file -pt2c-fold-weights | FileCheck %s

// Values that no model input reaches are evaluated at compile time, whatever ops
// compute them (HostEvaluator.h, HostStructuredOps.h). Derived weights print as
// dense_resource blobs: "0x40000000" (the alignment, 64) then the little-endian values.

// A decoder's causal mask built from positions alone, as transformers builds it (a
// running sum of ones as a reduce_window, comparisons): one derived weight, stored
// though it is bigger than its (splat) sources because computing it takes a windowed
// reduction. pos = [1, 2, 3] - 1; keep[i][j] = pos[j] <= pos[i].
// CHECK-LABEL: func.func @causal_mask(
// CHECK-SAME: %[[X:[^:]*]]: tensor<3x3xf32> {pt2c.input = "x"}, %[[K:[^:]*]]: tensor<3x3xi1> {pt2c.value = dense_resource<[[R:.*]]> : tensor<3x3xi1>, pt2c.weight = "#fold0"})
// CHECK-NEXT: %[[NINF:.*]] = prim.constant
// CHECK-NEXT: %[[M:.*]] = prim.select %[[K]], %[[X]], %[[NINF]]
// CHECK-NEXT: return %[[M]]
// CHECK: [[R]]: "0x40000000010000010100010101"
func.func @causal_mask(%x: tensor<3x3xf32> {pt2c.input = "x"}) -> tensor<3x3xf32> {
  %ones = prim.constant dense<1> : tensor<3xi64>
  %zero = prim.constant dense<0> : tensor<i64>
  %sum = prim.reduce_window SUM, %ones, %zero, window = [3], strides = [1], dilations = [1], low = [2], high = [0] : tensor<3xi64>, tensor<i64> -> tensor<3xi64>
  %pos = prim.sub %sum, %ones : tensor<3xi64>
  %rows = prim.broadcast_in_dim %pos, dims = [0] : tensor<3xi64> -> tensor<3x3xi64>
  %cols = prim.broadcast_in_dim %pos, dims = [1] : tensor<3xi64> -> tensor<3x3xi64>
  %keep = prim.compare LE, %cols, %rows : tensor<3x3xi64>
  %ninf = prim.constant dense<0xFF800000> : tensor<3x3xf32>
  %m = prim.select %keep, %x, %ninf : tensor<3x3xi1>, tensor<3x3xf32>
  return %m : tensor<3x3xf32>
}

// -----

// A rotary table: positions (an iota) times frequencies as an outer product, then cos.
// cos([[0, 0], [1, 0.5]]) = [[1, 1], [0.5403023, 0.87758255]] in f32.
// CHECK-LABEL: func.func @rotary_table(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x2xf32> {pt2c.input = "x"}, %[[C:[^:]*]]: tensor<2x2xf32> {pt2c.value = dense_resource<[[R:.*]]> : tensor<2x2xf32>, pt2c.weight = "#fold0"})
// CHECK-NEXT: %[[Y:.*]] = prim.mul %[[X]], %[[C]]
// CHECK-NEXT: return %[[Y]]
// CHECK: [[R]]: "0x400000000000803F0000803F40510A3F40A9603F"
func.func @rotary_table(%x: tensor<2x2xf32> {pt2c.input = "x"}) -> tensor<2x2xf32> {
  %p = prim.iota 0 : tensor<2x1xf32>
  %f = prim.constant dense<[[1.0, 0.5]]> : tensor<1x2xf32>
  %t = prim.dot_general %p, %f, batch = [] x [], contract = [1] x [0] : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %c = prim.cos %t : tensor<2x2xf32>
  %y = prim.mul %x, %c : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Data movement and a reduction on a weight: w = [1, 2, 3, 4];
// slice [1:4:2] = [2, 4]; pad low 1 = [0, 2, 4]; gather at [3, 0, 9 (clamped to 3)] =
// [4, 1, 4]; their concatenation sums to 15 (0x41700000).
// CHECK-LABEL: func.func @moves(
// CHECK-SAME: %[[X:[^:]*]]: tensor<f32> {pt2c.input = "x"}, %[[S:[^:]*]]: tensor<f32> {pt2c.value = dense_resource<[[R:.*]]> : tensor<f32>, pt2c.weight = "#fold0"})
// CHECK-NEXT: %[[Y:.*]] = prim.add %[[X]], %[[S]]
// CHECK-NEXT: return %[[Y]]
// CHECK: [[R]]: "0x4000000000007041"
func.func @moves(%x: tensor<f32> {pt2c.input = "x"},
                 %w: tensor<4xf32> {pt2c.weight = "w", pt2c.value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}) -> tensor<f32> {
  %z = prim.constant dense<0.0> : tensor<f32>
  %s = prim.slice %w, start = [1], limit = [4], strides = [2] : tensor<4xf32> -> tensor<2xf32>
  %p = prim.pad %s, %z, low = [1], high = [0] : tensor<2xf32>, tensor<f32> -> tensor<3xf32>
  %i = prim.constant dense<[3, 0, 9]> : tensor<3xi64>
  %g = prim.gather %w, %i, axis = 0 : tensor<4xf32>, tensor<3xi64> -> tensor<3xf32>
  %c = prim.concatenate %p, %g dim = 0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
  %r = prim.reduce SUM, %c, %z, dims = [0] : tensor<6xf32>, tensor<f32> -> tensor<f32>
  %y = prim.add %x, %r : tensor<f32>
  return %y : tensor<f32>
}

// -----

// A mask from iotas alone (tril) is computed where it is read: one elementwise pass,
// as cheap as loading it, so it is not stored.
// CHECK-LABEL: func.func @tril(
// CHECK-NOT: #fold
// CHECK: prim.compare
func.func @tril(%x: tensor<3x3xf32> {pt2c.input = "x"}) -> tensor<3x3xf32> {
  %i = prim.iota 0 : tensor<3x3xi64>
  %j = prim.iota 1 : tensor<3x3xi64>
  %keep = prim.compare LE, %j, %i : tensor<3x3xi64>
  %zero = prim.constant dense<0.0> : tensor<3x3xf32>
  %m = prim.select %keep, %x, %zero : tensor<3x3xi1>, tensor<3x3xf32>
  return %m : tensor<3x3xf32>
}

// -----

// An attention bias that evaluates to the causal mask (0 where key j <= query i, -inf
// elsewhere) becomes the `causal` flag and its ops go away; a strict comparison (the
// diagonal masked too) is another mask and stays a bias.
// CHECK-LABEL: func.func @causal_bias(
// CHECK-NOT: prim.compare LE
// CHECK: %[[A:.*]] = prim.attention %arg0, %arg0, %arg0, scale = 5.000000e-01, causal = true, heads_inner = [false, false, false, false] : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
// CHECK: %[[KEEP:.*]] = prim.compare LT
// CHECK: %[[BIAS:.*]] = prim.select %[[KEEP]]
// CHECK: prim.attention %arg0, %arg0, %arg0 bias %[[BIAS]], scale = 5.000000e-01, causal = false
func.func @causal_bias(%x: tensor<1x2x3x4xf32> {pt2c.input = "x"}) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) {
  %i = prim.iota 2 : tensor<1x1x3x3xi64>
  %j = prim.iota 3 : tensor<1x1x3x3xi64>
  %zero = prim.constant dense<0.0> : tensor<1x1x3x3xf32>
  %ninf = prim.constant dense<0xFF800000> : tensor<1x1x3x3xf32>
  %keep = prim.compare LE, %j, %i : tensor<1x1x3x3xi64>
  %bias = prim.select %keep, %zero, %ninf : tensor<1x1x3x3xi1>, tensor<1x1x3x3xf32>
  %a = prim.attention %x, %x, %x bias %bias, scale = 5.000000e-01, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x3x3xf32> -> tensor<1x2x3x4xf32>
  %strict = prim.compare LT, %j, %i : tensor<1x1x3x3xi64>
  %sbias = prim.select %strict, %zero, %ninf : tensor<1x1x3x3xi1>, tensor<1x1x3x3xf32>
  %b = prim.attention %x, %x, %x bias %sbias, scale = 5.000000e-01, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x3x3xf32> -> tensor<1x2x3x4xf32>
  return %a, %b : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
}

// -----

// A rotary table as transformers computes it: positions times frequencies as a
// broadcast product (no dot_general), then cos. Stored though it is bigger than its
// sources: each element costs a cos at run time.
// cos([[0, 0], [1, 0.5]]) = [[1, 1], [0.5403023, 0.87758255]] in f32.
// CHECK-LABEL: func.func @rotary_table_broadcast(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x2xf32> {pt2c.input = "x"}, %[[C:[^:]*]]: tensor<2x2xf32> {pt2c.value = dense_resource<[[R:.*]]> : tensor<2x2xf32>, pt2c.weight = "#fold0"})
// CHECK-NEXT: %[[Y:.*]] = prim.mul %[[X]], %[[C]]
// CHECK-NEXT: return %[[Y]]
// CHECK: [[R]]: "0x400000000000803F0000803F40510A3F40A9603F"
func.func @rotary_table_broadcast(%x: tensor<2x2xf32> {pt2c.input = "x"}) -> tensor<2x2xf32> {
  %p = prim.iota 0 : tensor<2xf32>
  %f = prim.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %pb = prim.broadcast_in_dim %p, dims = [0] : tensor<2xf32> -> tensor<2x2xf32>
  %fb = prim.broadcast_in_dim %f, dims = [1] : tensor<2xf32> -> tensor<2x2xf32>
  %t = prim.mul %pb, %fb : tensor<2x2xf32>
  %c = prim.cos %t : tensor<2x2xf32>
  %y = prim.mul %x, %c : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Guards on values no input reaches (transformers checks its position ids, an iota, for
// packed sequences): one the traced value satisfies can never fail and leaves the
// results, with the ops computing it; one it does not satisfy stays, so that every run
// reports it; a guard on the input stays.
// CHECK-LABEL: func.func @constant_guards(
// CHECK-SAME: -> (tensor<3xf32> {pt2c.output = "y"}, tensor<i1> {pt2c.guard = {expected = 0.000000e+00 : f64, message = "never"}}, tensor<i1> {pt2c.guard = {expected = 1.000000e+00 : f64, message = "input"}})
// CHECK: %[[NEVER:.*]] = prim.compare EQ
// CHECK: %[[IN:.*]] = prim.compare GT
// CHECK: return %{{.*}}, %[[NEVER]], %[[IN]] :
func.func @constant_guards(%x: tensor<3xf32> {pt2c.input = "x"}) -> (tensor<3xf32> {pt2c.output = "y"}, tensor<i1> {pt2c.guard = {expected = 1.0 : f64, message = "always"}}, tensor<i1> {pt2c.guard = {expected = 0.0 : f64, message = "never"}}, tensor<i1> {pt2c.guard = {expected = 1.0 : f64, message = "input"}}) {
  %pos = prim.iota 0 : tensor<3xi64>
  %two = prim.constant dense<2> : tensor<i64>
  %last = prim.slice %pos, start = [2], limit = [3], strides = [1] : tensor<3xi64> -> tensor<1xi64>
  %lastr = prim.reshape %last : tensor<1xi64> -> tensor<i64>
  %ok = prim.compare EQ, %lastr, %two : tensor<i64>
  %zero = prim.constant dense<0.0> : tensor<f32>
  %sum = prim.reduce SUM, %x, %zero, dims = [0] : tensor<3xf32>, tensor<f32> -> tensor<f32>
  %pos_sum = prim.compare GT, %sum, %zero : tensor<f32>
  return %x, %ok, %ok, %pos_sum : tensor<3xf32>, tensor<i1>, tensor<i1>, tensor<i1>
}
