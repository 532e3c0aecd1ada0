// Data-dependent sizes (decompose/DataDependent.cpp): aten.nonzero's row count is the
// trace's data-dependent symbol (pt2c.symbols entry with `produced`), which prim.nonzero
// names so that the plan binds it to the count the op returns.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @nonzero_rows
// CHECK-SAME: (%[[X:[^:]*]]: tensor<3x4xf32>
// CHECK: %[[ROWS:.*]], %{{.*}} = prim.nonzero %[[X]], "u0" : tensor<3x4xf32> -> tensor<?x2xi64>, tensor<i64>
// CHECK: return %[[ROWS]]
func.func @nonzero_rows(%x: tensor<3x4xf32> {pt2c.input = "x"}) -> tensor<?x2xi64>
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 12 : i64, produced}]} {
  %0 = "aten.nonzero"(%x) {pt2c.result_dims = [["u0", "2"]]} : (tensor<3x4xf32>) -> tensor<?x2xi64>
  return %0 : tensor<?x2xi64>
}

// -----

// A row count the trace did not make a symbol (an artifact of an older exporter) has no
// value the run could bind.
func.func @nonzero_without_symbol(%x: tensor<5xi1> {pt2c.input = "x"}) -> tensor<?x1xi64> {
  // expected-error @+1 {{nonzero's row count is not a data-dependent size of the trace}}
  %0 = "aten.nonzero"(%x) : (tensor<5xi1>) -> tensor<?x1xi64>
  return %0 : tensor<?x1xi64>
}

// -----

// torchvision::nms: prim.nms_keep orders the boxes by score and marks the ones kept, a
// prim.nonzero of the mask binds nms's kept-box count u0, and the kept positions index
// the order back to box indices.
// CHECK-LABEL: func.func @nms_kept_boxes
// CHECK-SAME: (%[[B:[^:]*]]: tensor<5x4xf32> {{.*}}, %[[S:[^:]*]]: tensor<5xf32>
// CHECK: %[[ORDER:.*]], %[[KEPT:.*]] = prim.nms_keep %[[B]], %[[S]], iou_threshold = 5.000000e-01 : tensor<5x4xf32>, tensor<5xf32> -> tensor<5xi64>, tensor<5xi1>
// CHECK: %[[POS:.*]], %{{.*}} = prim.nonzero %[[KEPT]], "u0" : tensor<5xi1> -> tensor<?x1xi64>, tensor<i64>
// CHECK: %[[U0:.*]] = prim.symbol "u0", 0
// CHECK: %[[FLAT:.*]] = prim.reshape %[[POS]] sizes(%[[U0]]) : tensor<?x1xi64> -> tensor<?xi64>
// CHECK: %[[KEEP:.*]] = prim.gather %[[ORDER]], %[[FLAT]], axis = 0 : tensor<5xi64>, tensor<?xi64> -> tensor<?xi64>
// CHECK: return %[[KEEP]]
func.func @nms_kept_boxes(%boxes: tensor<5x4xf32> {pt2c.input = "boxes"},
                          %scores: tensor<5xf32> {pt2c.input = "scores"}) -> tensor<?xi64>
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 5 : i64, produced}]} {
  %0 = "aten.torchvision_nms"(%boxes, %scores) {iou_threshold = 5.000000e-01 : f64, pt2c.result_dims = [["u0"]]} : (tensor<5x4xf32>, tensor<5xf32>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// Boxes that are themselves a selection (u0 of them, batched_nms's per-class offsets
// over a score filter): the mask has u0 entries, the kept count is u1.
// CHECK-LABEL: func.func @nms_of_a_selection
// CHECK: prim.nms_keep %{{.*}}, iou_threshold = 3.000000e-01 : tensor<?x4xf64>, tensor<?xf64> -> tensor<?xi64>, tensor<?xi1>
// CHECK: prim.nonzero %{{.*}}, "u1" : tensor<?xi1> -> tensor<?x1xi64>, tensor<i64>
// CHECK: prim.gather {{.*}} : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
func.func @nms_of_a_selection(%boxes: tensor<?x4xf64>, %scores: tensor<?xf64>) -> tensor<?xi64>
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 8 : i64, produced},
                                {name = "u1", min = 0 : i64, max = 8 : i64, produced}]} {
  %0 = "aten.torchvision_nms"(%boxes, %scores) {iou_threshold = 3.000000e-01 : f64, pt2c.result_dims = [["u1"]]} : (tensor<?x4xf64>, tensor<?xf64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @nms_without_symbol(%boxes: tensor<5x4xf32> {pt2c.input = "boxes"},
                              %scores: tensor<5xf32> {pt2c.input = "scores"}) -> tensor<?xi64> {
  // expected-error @+1 {{nms's kept-box count is not a data-dependent size of the trace}}
  %0 = "aten.torchvision_nms"(%boxes, %scores) {iou_threshold = 5.000000e-01 : f64} : (tensor<5x4xf32>, tensor<5xf32>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}
