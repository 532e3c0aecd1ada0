// prim.nms_keep lowers to torchvision's CPU nms as scalar loops (lower/NonMaxSuppression.cpp):
// an insertion sort of the scores (descending; an entry moves up only past strictly
// smaller scores or past a number when it is NaN, so ties keep index order), then the
// greedy walk over that order, with the IoU computed in the boxes' type and compared
// with the threshold in f64.
// RUN: pt2c-opt %s --split-input-file --pt2c-lower-prim-to-linalg --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @nms_keep
// CHECK-SAME: (%[[B:.*]]: tensor<?x4xf32>, %[[S:.*]]: tensor<?xf32>)
// CHECK-DAG: %[[THRESHOLD:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[N:.*]] = tensor.dim %[[S]], %[[ZERO]]
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?xi64>
// The sort: entry i moves up past the sorted entries it goes before.
// CHECK: %[[ORDER:.*]] = scf.for %[[I:.*]] = %[[ZERO]] to %[[N]] step %[[ONE]] iter_args(%[[SORTED:.*]] = %[[EMPTY]])
// CHECK: %[[SCORE:.*]] = tensor.extract %[[S]][%[[I]]]
// CHECK: %[[PLACE:.*]]:2 = scf.while (%[[K:.*]] = %[[I]], %{{.*}} = %[[SORTED]])
// CHECK: arith.cmpi ugt, %[[K]], %[[ZERO]]
// CHECK: %[[OTHER:.*]] = tensor.extract %[[S]]
// CHECK-DAG: %[[NUMBER:.*]] = arith.cmpf ord, %[[OTHER]], %[[OTHER]]
// CHECK-DAG: %[[NAN:.*]] = arith.cmpf uno, %[[SCORE]], %[[SCORE]]
// CHECK: %[[NAN_FIRST:.*]] = arith.andi %[[NAN]], %[[NUMBER]]
// CHECK: %[[LARGER:.*]] = arith.cmpf ogt, %[[SCORE]], %[[OTHER]]
// CHECK: arith.ori %[[LARGER]], %[[NAN_FIRST]]
// CHECK: scf.condition
// CHECK: } do {
// CHECK: tensor.insert
// CHECK: %[[SELF:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: tensor.insert %[[SELF]] into %[[PLACE]]#1[%[[PLACE]]#0]
// The walk: every box marked kept; a kept one unmarks the later ones it overlaps.
// CHECK: %[[MARKS:.*]] = tensor.empty(%[[N]]) : tensor<?xi1>
// CHECK: %[[ALL:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%[[MARKS]] : tensor<?xi1>)
// CHECK: %[[KEPT:.*]] = scf.for %[[R:.*]] = %[[ZERO]] to %[[N]] step %[[ONE]] iter_args(%[[M:.*]] = %[[ALL]])
// CHECK: %[[ALIVE:.*]] = tensor.extract %[[M]][%[[R]]]
// CHECK: scf.if %[[ALIVE]]
// CHECK: tensor.extract %[[ORDER]][%[[R]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[R]], %[[ONE]]
// CHECK: scf.for %[[Q:.*]] = %[[NEXT]] to %[[N]] step %[[ONE]] iter_args(%[[M2:.*]] = %[[M]])
// CHECK: tensor.extract %[[ORDER]][%[[Q]]]
// CHECK: %[[IOU:.*]] = arith.divf
// CHECK: %[[WIDE:.*]] = arith.extf %[[IOU]] : f32 to f64
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[WIDE]], %[[THRESHOLD]] : f64
// CHECK: %[[MARK:.*]] = arith.select %[[ABOVE]], %[[FALSE]], %{{.*}} : i1
// CHECK: tensor.insert %[[MARK]] into %[[M2]][%[[Q]]]
// CHECK: } else {
// CHECK: scf.yield %[[M]]
// CHECK: return %[[ORDER]], %[[KEPT]]
func.func @nms_keep(%b: tensor<?x4xf32>, %s: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xi1>) {
  %order, %kept = prim.nms_keep %b, %s, iou_threshold = 5.000000e-01 : tensor<?x4xf32>, tensor<?xf32> -> tensor<?xi64>, tensor<?xi1>
  return %order, %kept : tensor<?xi64>, tensor<?xi1>
}

// -----

// f64 boxes compare their IoU with the threshold as it is.
// CHECK-LABEL: func.func @nms_keep_f64
// CHECK: %[[IOU:.*]] = arith.divf %{{.*}} : f64
// CHECK-NEXT: arith.cmpf ogt, %[[IOU]], %{{.*}} : f64
func.func @nms_keep_f64(%b: tensor<3x4xf64>, %s: tensor<3xf64>) -> (tensor<3xi64>, tensor<3xi1>) {
  %order, %kept = prim.nms_keep %b, %s, iou_threshold = 7.000000e-01 : tensor<3x4xf64>, tensor<3xf64> -> tensor<3xi64>, tensor<3xi1>
  return %order, %kept : tensor<3xi64>, tensor<3xi1>
}
