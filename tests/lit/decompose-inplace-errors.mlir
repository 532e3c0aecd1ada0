// An in-place op whose tensor is read afterwards (directly, through a view of it, or
// through the tensor it is a view of) cannot become its functional form yet: the
// error names the op and the later reader.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --verify-diagnostics

func.func @read_after_write(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "aten.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+2 {{in-place aten.relu_ modifies a tensor that aten.exp reads afterwards}}
  // expected-error @+1 {{failed to legalize operation 'aten.relu_'}}
  %1 = "aten.relu_"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-note @+1 {{the later reader}}
  %2 = "aten.exp"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Writing through a view changes the base: `a` is read afterwards.
func.func @write_through_view(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %a = "aten.mul.Tensor"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %v = "aten.view"(%a) {size = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  // expected-error @+2 {{in-place aten.relu_ modifies a tensor that aten.add.Scalar reads afterwards}}
  // expected-error @+1 {{failed to legalize operation 'aten.relu_'}}
  %r = "aten.relu_"(%v) : (tensor<6xf32>) -> tensor<6xf32>
  // expected-note @+1 {{the later reader}}
  %b = "aten.add.Scalar"(%a) {other = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r, %b : tensor<6xf32>, tensor<2x3xf32>
}

// -----

// A view taken before the write sees it: `s` is read afterwards.
func.func @view_read_after_write(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %a = "aten.mul.Tensor"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = "aten.select.int"(%a) {dim = 0 : i64, index = 0 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  // expected-error @+2 {{in-place aten.add_.Tensor modifies a tensor that aten.neg reads afterwards}}
  // expected-error @+1 {{failed to legalize operation 'aten.add_.Tensor'}}
  %r = "aten.add_.Tensor"(%a, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-note @+1 {{the later reader}}
  %n = "aten.neg"(%s) : (tensor<3xf32>) -> tensor<3xf32>
  return %r, %n : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Returning the old value is reading it afterwards too.
func.func @old_value_returned(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "aten.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+2 {{in-place aten.hardswish_ modifies a tensor that func.return reads afterwards}}
  // expected-error @+1 {{failed to legalize operation 'aten.hardswish_'}}
  %1 = "aten.hardswish_"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-note @+1 {{the later reader}}
  return %1, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// max_pool2d_with_indices computes only the values.
func.func @pool_indices_used(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  // expected-error @+2 {{the indices of max_pool2d_with_indices are used; pt2c computes only the pooled values}}
  // expected-error @+1 {{failed to legalize operation 'aten.max_pool2d_with_indices'}}
  %0:2 = "aten.max_pool2d_with_indices"(%x) {kernel_size = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %0#1 : tensor<1x1x2x2xi64>
}
