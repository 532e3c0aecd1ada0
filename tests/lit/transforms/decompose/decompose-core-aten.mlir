// Core ATen opset ops whose decomposition is more than one prim op: floor division
// and Python's remainder as corrections of C's fmod (prim.rem), reflection and
// replication pads and flip as gathers at constant positions, var in two passes,
// slice_scatter as a view write-back and col2im as a product with a 0/1 matrix.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// Integer floor division: the truncating quotient, one less where the remainder is
// non-zero and its sign is not the divisor's.
// CHECK-LABEL: func.func @floor_divide_integers
// CHECK-SAME: (%[[A:.*]]: tensor<6xi64>, %[[D:.*]]: tensor<6xi64>)
// CHECK-DAG: %[[Q:.*]] = prim.div %[[A]], %[[D]] : tensor<6xi64>
// CHECK-DAG: %[[R:.*]] = prim.rem %[[A]], %[[D]] : tensor<6xi64>
// CHECK-DAG: %[[NZ:.*]] = prim.compare NE, %[[R]], %{{.*}}
// CHECK-DAG: %[[RN:.*]] = prim.compare LT, %[[R]], %{{.*}}
// CHECK-DAG: %[[DN:.*]] = prim.compare LT, %[[D]], %{{.*}}
// CHECK-DAG: %[[DIFF:.*]] = prim.compare NE, %[[RN]], %[[DN]]
// CHECK-DAG: %[[PAST:.*]] = prim.select %[[NZ]], %[[DIFF]], %{{.*}}
// CHECK-DAG: %[[LOWER:.*]] = prim.sub %[[Q]], %{{.*}} : tensor<6xi64>
// CHECK: prim.select %[[PAST]], %[[LOWER]], %[[Q]]
func.func @floor_divide_integers(%a: tensor<6xi64>, %d: tensor<6xi64>) -> tensor<6xi64> {
  %0 = "aten.div.Tensor_mode"(%a, %d) {rounding_mode = "floor"} : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  return %0 : tensor<6xi64>
}

// -----

// Float floor division as ATen's kernel: (a - fmod(a, b)) / b, corrected by the signs,
// floored, rounded up past .5, and a / b itself for a zero divisor.
// CHECK-LABEL: func.func @floor_divide_floats
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf32>)
// CHECK: %[[MOD:.*]] = prim.rem %[[A]], %[[D]] : tensor<4xf32>
// CHECK: %[[WHOLE:.*]] = prim.sub %[[A]], %[[MOD]]
// CHECK: %[[DIV:.*]] = prim.div %[[WHOLE]], %[[D]]
// CHECK: %[[ADJ:.*]] = prim.select %{{.*}}, %{{.*}}, %[[DIV]]
// CHECK: %[[FL:.*]] = prim.floor %[[ADJ]]
// CHECK: %[[FRAC:.*]] = prim.sub %[[ADJ]], %[[FL]]
// CHECK: %[[UP:.*]] = prim.compare GT, %[[FRAC]], %{{.*}}
// CHECK: %[[ROUNDED:.*]] = prim.select %[[UP]], %{{.*}}, %[[FL]]
// CHECK: %[[ZERO:.*]] = prim.compare EQ, %[[D]], %{{.*}}
// CHECK: %[[RAW:.*]] = prim.div %[[A]], %[[D]]
// CHECK: prim.select %[[ZERO]], %[[RAW]], %[[ROUNDED]]
func.func @floor_divide_floats(%a: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.div.Tensor_mode"(%a, %d) {rounding_mode = "floor"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// remainder: fmod moved by the divisor where their signs differ; fmod is prim.rem.
// CHECK-LABEL: func.func @remainder_and_fmod
// CHECK: %[[R:.*]] = prim.rem %arg0, %{{.*}} : tensor<5xi32>
// CHECK: %[[MOVED:.*]] = prim.add %[[R]], %{{.*}}
// CHECK: prim.select %{{.*}}, %[[MOVED]], %[[R]]
// CHECK: prim.rem %arg0, %{{.*}} : tensor<5xi32>
func.func @remainder_and_fmod(%a: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>) {
  %0 = "aten.remainder.Scalar"(%a) {other = -3 : i64} : (tensor<5xi32>) -> tensor<5xi32>
  %1 = "aten.fmod.Scalar"(%a) {other = -3 : i64} : (tensor<5xi32>) -> tensor<5xi32>
  return %0, %1 : tensor<5xi32>, tensor<5xi32>
}

// -----

// Reflection mirrors without repeating the edge, replication clamps to it; each
// padded dim is one gather, the last dim first (pairs start from the last dim).
// CHECK-LABEL: func.func @pads_and_flip
// CHECK-DAG: %[[REFW:.*]] = prim.constant dense<[2, 1, 0, 1, 2, 3, 2]> : tensor<7xi64>
// CHECK-DAG: %[[REFH:.*]] = prim.constant dense<[1, 0, 1, 2, 1, 0]> : tensor<6xi64>
// CHECK-DAG: %[[REPW:.*]] = prim.constant dense<[0, 0, 0, 1, 2, 3]> : tensor<6xi64>
// CHECK-DAG: %[[FLIP:.*]] = prim.constant dense<[3, 2, 1, 0]> : tensor<4xi64>
// CHECK: %[[W:.*]] = prim.gather %arg0, %[[REFW]], axis = 3 : tensor<1x2x3x4xf32>, tensor<7xi64> -> tensor<1x2x3x7xf32>
// CHECK: prim.gather %[[W]], %[[REFH]], axis = 2 : tensor<1x2x3x7xf32>, tensor<6xi64> -> tensor<1x2x6x7xf32>
// CHECK: prim.gather %arg0, %[[REPW]], axis = 3 : tensor<1x2x3x4xf32>, tensor<6xi64> -> tensor<1x2x3x6xf32>
// CHECK: prim.gather %arg0, %[[FLIP]], axis = 3 : tensor<1x2x3x4xf32>, tensor<4xi64> -> tensor<1x2x3x4xf32>
func.func @pads_and_flip(%x: tensor<1x2x3x4xf32>) -> (tensor<1x2x6x7xf32>, tensor<1x2x3x6xf32>, tensor<1x2x3x4xf32>) {
  %0 = "aten.reflection_pad2d"(%x) {padding = array<i64: 2, 1, 1, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x7xf32>
  %1 = "aten.replication_pad2d"(%x) {padding = array<i64: 2, 0, 0, 0>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x6xf32>
  %2 = "aten.flip"(%x) {dims = array<i64: -1>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %0, %1, %2 : tensor<1x2x6x7xf32>, tensor<1x2x3x6xf32>, tensor<1x2x3x4xf32>
}

// -----

// var: the mean, the squared distances from it, their sum over N - correction
// (6 - 1 = 5).
// CHECK-LABEL: func.func @variance
// CHECK-DAG: %[[N:.*]] = prim.constant dense<6.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[DOF:.*]] = prim.constant dense<5.000000e+00> : tensor<2xf32>
// CHECK: %[[S:.*]] = prim.reduce SUM, %arg0, %{{.*}} dims = [1]
// CHECK: %[[M:.*]] = prim.div %[[S]], %[[N]]
// CHECK: %[[MB:.*]] = prim.broadcast_in_dim %[[M]]
// CHECK: %[[C:.*]] = prim.sub %arg0, %[[MB]]
// CHECK: %[[SQ:.*]] = prim.mul %[[C]], %[[C]]
// CHECK: %[[T:.*]] = prim.reduce SUM, %[[SQ]], %{{.*}} dims = [1]
// CHECK: prim.div %[[T]], %[[DOF]]
func.func @variance(%x: tensor<2x6xf32>) -> tensor<2xf32> {
  %0 = "aten.var.correction"(%x) {dim = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// slice_scatter with a step writes every other row; without one, a range is replaced
// by concatenating the pieces around it.
// CHECK-LABEL: func.func @slice_scatter
// CHECK: %[[HEAD:.*]] = prim.slice %arg0, start = [0, 0], limit = [1, 3]
// CHECK: %[[TAIL:.*]] = prim.slice %arg0, start = [3, 0], limit = [5, 3]
// CHECK: prim.concatenate %[[HEAD]], %arg1, %[[TAIL]] dim = 0
func.func @slice_scatter(%x: tensor<5x3xf32>, %src: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %0 = "aten.slice_scatter"(%x, %src) {dim = 0 : i64, start = 1 : i64, end = 3 : i64} : (tensor<5x3xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// col2im: a 2x2 kernel over two blocks side by side folds into a 2x3 image through a
// 0/1 matrix whose row (kernel offset, block) marks the pixel it covers: the blocks
// overlap in the middle column (rows 1 and 2, 5 and 6 hit pixels 1 and 4).
// CHECK-LABEL: func.func @col2im
// CHECK: %[[M:.*]] = prim.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<8x6xf32>
// CHECK: %[[X:.*]] = prim.reshape %arg0 : tensor<1x4x2xf32> -> tensor<1x1x8xf32>
// CHECK: %[[I:.*]] = prim.dot_general %[[X]], %[[M]], batch = [] x [], contract = [2] x [0]
// CHECK: prim.reshape %[[I]] : tensor<1x1x6xf32> -> tensor<1x1x2x3xf32>
func.func @col2im(%x: tensor<1x4x2xf32>) -> tensor<1x1x2x3xf32> {
  %0 = "aten.col2im"(%x) {output_size = array<i64: 2, 3>, kernel_size = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x2xf32>) -> tensor<1x1x2x3xf32>
  return %0 : tensor<1x1x2x3xf32>
}

// -----

// embedding_bag (mean): position k's bag is the count of offsets <= k, minus one; the
// bags' members as a [bags, n] 0/1 matrix times the gathered rows, divided by each
// bag's size (at least 1: an empty bag gives 0). The unused backward results are
// zeros that canonicalization drops.
// CHECK-LABEL: func.func @embedding_bag_mean
// CHECK-SAME: (%[[W:.*]]: tensor<5x2xf32>, %[[I:.*]]: tensor<4xi64>, %[[O:.*]]: tensor<2xi64>)
// CHECK: %[[K:.*]] = prim.iota 1 : tensor<2x4xi64>
// CHECK-NEXT: %[[STARTS:.*]] = prim.broadcast_in_dim %[[O]], dims = [0]
// CHECK-NEXT: %[[BEGUN:.*]] = prim.compare LE, %[[STARTS]], %[[K]]
// CHECK: %[[BAG:.*]] = prim.sub
// CHECK: %[[MEMBER:.*]] = prim.compare EQ
// CHECK-NEXT: %[[ROWS:.*]] = prim.gather %[[W]], %[[I]], axis = 0 : tensor<5x2xf32>, tensor<4xi64> -> tensor<4x2xf32>
// CHECK: %[[SUMS:.*]] = prim.dot_general %{{.*}}, %[[ROWS]], batch = [] x [], contract = [1] x [0] : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[SIZE:.*]] = prim.max
// CHECK: prim.div %[[SUMS]]
func.func @embedding_bag_mean(%w: tensor<5x2xf32>, %i: tensor<4xi64>, %o: tensor<2xi64>) -> tensor<2x2xf32> {
  %0:4 = "aten._embedding_bag"(%w, %i, %o) {mode = 1 : i64} : (tensor<5x2xf32>, tensor<4xi64>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<4xi64>, tensor<2xi64>, tensor<2xi64>)
  return %0#0 : tensor<2x2xf32>
}
