// Diagnostics of the aten ops: ODS attribute constraints and the shape rules
// (ir/aten/AtenShapeRules.cpp).
// RUN: pt2c-opt %s --split-input-file --verify-diagnostics

func.func @addmm_result(%b: tensor<5xf32>, %x: tensor<4x3xf32>, %w: tensor<3x5xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{result dim 1 has size 6, expected 5}}
  %0 = "aten.addmm"(%b, %x, %w) : (tensor<5xf32>, tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @matmul_rank(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{result rank 2 differs from the expected rank 1}}
  %0 = "aten.matmul"(%a, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @transpose_dim(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{dimension 2 out of range for rank 2}}
  %0 = "aten.transpose.int"(%x) {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @view_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{cannot view 6 elements as 7}}
  %0 = "aten.view"(%x) {size = array<i64: 7>} : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand sizes 3 and 4 do not broadcast}}
  %0 = "aten.add.Tensor"(%x, %y) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @expand(%x: tensor<3x2xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{cannot expand size 2 to 5}}
  %0 = "aten.expand"(%x) {size = array<i64: 3, 5>} : (tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @missing_attribute(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{requires attribute 'dim1'}}
  %0 = "aten.transpose.int"(%x) {dim0 = 0 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @attribute_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{attribute 'alpha' failed to satisfy constraint}}
  %0 = "aten.add.Tensor"(%x, %x) {alpha = "two"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
