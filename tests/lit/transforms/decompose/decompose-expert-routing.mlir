// Mixture-of-experts routing (decompose/ExpertRouting.cpp). histc: each element's bin,
// trunc((x - min) * bins / (max - min)) with the top edge in the last bin, -1 outside
// [min, max], compared with every bin and counted. _grouped_mm: every row times every
// group's matrix in one dot_general, each row keeping its own group's product (its
// group: how many group ends offs holds at or before it).
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @histc_fixed_range
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32>)
// CHECK-DAG: %[[BINS:.*]] = prim.constant dense<4.000000e+00> : tensor<6xf32>
// CHECK-DAG: %[[TOP:.*]] = prim.constant dense<3.000000e+00> : tensor<6xf32>
// CHECK-DAG: %[[NONE:.*]] = prim.constant dense<-1.000000e+00> : tensor<6xf32>
// CHECK: %[[SCALED:.*]] = prim.mul %[[X]], %[[BINS]]
// CHECK: %[[POS:.*]] = prim.div %[[SCALED]], %[[TOP]]
// CHECK: %[[FLOOR:.*]] = prim.floor %[[POS]]
// CHECK: %[[BIN:.*]] = prim.min %[[FLOOR]], %[[TOP]]
// CHECK: %[[GE:.*]] = prim.compare GE, %[[X]]
// CHECK: %[[LE:.*]] = prim.compare LE, %[[X]], %[[TOP]]
// CHECK: %[[IN:.*]] = prim.select %[[GE]], %[[LE]]
// CHECK: %[[OR:.*]] = prim.select %[[IN]], %[[BIN]], %[[NONE]]
// CHECK: %[[IOTA:.*]] = prim.iota 1 : tensor<6x4xf32>
// CHECK: %[[SPREAD:.*]] = prim.broadcast_in_dim %[[OR]], dims = [0] : tensor<6xf32> -> tensor<6x4xf32>
// CHECK: %[[HIT:.*]] = prim.compare EQ, %[[SPREAD]], %[[IOTA]]
// CHECK: %[[ONES:.*]] = prim.select %[[HIT]]
// CHECK: %[[COUNT:.*]] = prim.reduce SUM, %[[ONES]], %{{.*}}, dims = [0] : tensor<6x4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK: return %[[COUNT]]
func.func @histc_fixed_range(%x: tensor<6xf32>) -> tensor<4xf32> {
  %0 = "aten.histc"(%x) {bins = 4 : i64, min = 0 : i64, max = 3 : i64} : (tensor<6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// min == max (here both absent: 0): the data's range, widened by 1 each way when all
// elements are equal; half floats count in f32.
// CHECK-LABEL: func.func @histc_data_range
// CHECK: %[[X:.*]] = prim.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: %[[LOW:.*]] = prim.reduce MIN, %[[X]]
// CHECK: %[[HIGH:.*]] = prim.reduce MAX, %[[X]]
// CHECK: %[[SINGLE:.*]] = prim.compare EQ, %[[LOW]], %[[HIGH]] : tensor<f32>
// CHECK: %[[BELOW:.*]] = prim.sub %[[LOW]]
// CHECK: prim.select %[[SINGLE]], %[[BELOW]], %[[LOW]]
// CHECK: %[[ABOVE:.*]] = prim.add %[[HIGH]]
// CHECK: prim.select %[[SINGLE]], %[[ABOVE]], %[[HIGH]]
// CHECK: prim.reduce SUM, %{{.*}}, %{{.*}}, dims = [0] : tensor<6x5xf32>, tensor<f32> -> tensor<5xf32>
// CHECK: prim.convert %{{.*}} : tensor<5xf32> -> tensor<5xf16>
func.func @histc_data_range(%x: tensor<2x3xf16>) -> tensor<5xf16> {
  %0 = "aten.histc"(%x) {bins = 5 : i64} : (tensor<2x3xf16>) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

// Rows in groups: bf16 computes in f32 (the low-precision rewrite) and rounds once.
// CHECK-LABEL: func.func @grouped_mm_rows
// CHECK-SAME: (%{{.*}}: tensor<6x8xbf16>, %{{.*}}: tensor<3x8x16xbf16>, %[[OFFS:.*]]: tensor<3xi32>)
// CHECK: %[[ROW:.*]] = prim.iota 0 : tensor<6x3xi32>
// CHECK: %[[ENDS:.*]] = prim.broadcast_in_dim %[[OFFS]], dims = [1] : tensor<3xi32> -> tensor<6x3xi32>
// CHECK: %[[PAST:.*]] = prim.compare GE, %[[ROW]], %[[ENDS]]
// CHECK: %[[PASTN:.*]] = prim.convert %[[PAST]] : tensor<6x3xi1> -> tensor<6x3xi32>
// CHECK: %[[GROUP:.*]] = prim.reduce SUM, %[[PASTN]], %{{.*}}, dims = [1] : tensor<6x3xi32>, tensor<i32> -> tensor<6xi32>
// CHECK: %[[ALL:.*]] = prim.dot_general %{{.*}}, %{{.*}}, batch = [] x [], contract = [1] x [1] : (tensor<6x8xf32>, tensor<3x8x16xf32>) -> tensor<6x3x16xf32>
// CHECK: %[[EACH:.*]] = prim.iota 1 : tensor<6x3xi32>
// CHECK: %[[MINE:.*]] = prim.broadcast_in_dim %[[GROUP]], dims = [0]
// CHECK: %[[OWN:.*]] = prim.compare EQ, %[[MINE]], %[[EACH]]
// CHECK: %[[OWN3:.*]] = prim.broadcast_in_dim %[[OWN]], dims = [0, 1] : tensor<6x3xi1> -> tensor<6x3x16xi1>
// CHECK: %[[KEPT:.*]] = prim.select %[[OWN3]], %[[ALL]]
// CHECK: %[[OUT:.*]] = prim.reduce SUM, %[[KEPT]], %{{.*}}, dims = [1] : tensor<6x3x16xf32>, tensor<f32> -> tensor<6x16xf32>
// CHECK: prim.convert %[[OUT]] : tensor<6x16xf32> -> tensor<6x16xbf16>
func.func @grouped_mm_rows(%x: tensor<6x8xbf16>, %w: tensor<3x8x16xbf16>, %offs: tensor<3xi32>) -> tensor<6x16xbf16> {
  %0 = "aten._grouped_mm"(%x, %w, %offs) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<6x8xbf16>, tensor<3x8x16xbf16>, tensor<3xi32>) -> tensor<6x16xbf16>
  return %0 : tensor<6x16xbf16>
}

// -----

// One product per group: a batched dot_general.
// CHECK-LABEL: func.func @grouped_mm_batched
// CHECK: %[[P:.*]] = prim.dot_general %{{.*}}, %{{.*}}, batch = [0] x [0], contract = [2] x [1] : (tensor<3x4x8xf32>, tensor<3x8x16xf32>) -> tensor<3x4x16xf32>
// CHECK: return %[[P]]
func.func @grouped_mm_batched(%x: tensor<3x4x8xf32>, %w: tensor<3x8x16xf32>) -> tensor<3x4x16xf32> {
  %0 = "aten._grouped_mm"(%x, %w) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<3x4x8xf32>, tensor<3x8x16xf32>) -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}
