// The aten shape rules with dynamic dims (model.py's dynamic_shapes): a dynamic size is
// compatible with any size, what is static is still checked.
// RUN: pt2c-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @attention_block(
func.func @attention_block(%x: tensor<?x?x16xf32>, %w: tensor<48x16xf32>, %b: tensor<48xf32>)
    -> tensor<?x2x?x8xf32> {
  %qkv = "aten.linear"(%x, %w, %b) : (tensor<?x?x16xf32>, tensor<48x16xf32>, tensor<48xf32>) -> tensor<?x?x48xf32>
  %r = "aten.relu"(%qkv) : (tensor<?x?x48xf32>) -> tensor<?x?x48xf32>
  %q = "aten.slice.Tensor"(%r) {dim = 2 : i64, start = 0 : i64, end = 16 : i64} : (tensor<?x?x48xf32>) -> tensor<?x?x16xf32>
  %v = "aten.view"(%q) {size = array<i64: 2, 8, 2, 8>} : (tensor<?x?x16xf32>) -> tensor<?x?x2x8xf32>
  %t = "aten.transpose.int"(%v) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  return %t : tensor<?x2x?x8xf32>
}

// -----

func.func @static_dims_still_checked(%x: tensor<?x?x16xf32>, %w: tensor<48x16xf32>) -> tensor<?x?x32xf32> {
  // expected-error @+1 {{result dim 2 has size 32, expected 48}}
  %0 = "aten.linear"(%x, %w) : (tensor<?x?x16xf32>, tensor<48x16xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

func.func @rank_still_checked(%x: tensor<?x16xf32>, %y: tensor<16x?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{result rank 1 differs from the expected rank 2}}
  %0 = "aten.matmul"(%x, %y) : (tensor<?x16xf32>, tensor<16x?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @nms_boxes_have_four_coordinates(%boxes: tensor<?x5xf32>, %scores: tensor<?xf32>) -> tensor<?xi64> {
  // expected-error @+1 {{expects dets [N, 4] and scores [N]}}
  %0 = "aten.torchvision_nms"(%boxes, %scores) {iou_threshold = 5.000000e-01 : f64} : (tensor<?x5xf32>, tensor<?xf32>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

func.func @nms_one_score_per_box(%boxes: tensor<3x4xf32>, %scores: tensor<2xf32>) -> tensor<?xi64> {
  // expected-error @+1 {{has 3 boxes but 2 scores}}
  %0 = "aten.torchvision_nms"(%boxes, %scores) {iou_threshold = 5.000000e-01 : f64} : (tensor<3x4xf32>, tensor<2xf32>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}
