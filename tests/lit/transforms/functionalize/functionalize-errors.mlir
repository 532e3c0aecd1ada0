// What pt2c-functionalize refuses, with the reason.
// RUN: pt2c-opt %s --split-input-file --pt2c-functionalize --verify-diagnostics

// Weights are constants of the compiled model: writing one (self.weight.mul_(2)) would
// be lost after the run, so it is an error.
func.func @writes_a_weight(%w: tensor<3xf32> {pt2c.weight = "lin.weight"}, %x: tensor<3xf32> {pt2c.input = "x"}) -> (tensor<3xf32> {pt2c.output = "0"}) {
  // expected-error @+1 {{in-place aten.mul_.Tensor writes weight 'lin.weight' (a parameter or constant tensor of the model); pt2c compiles weights as constants}}
  %0 = "aten.mul_.Tensor"(%w, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An input written in place needs a write-back result (the exporter makes one).
func.func @input_without_writeback(%x: tensor<3xf32> {pt2c.input = "x"}) -> (tensor<3xf32> {pt2c.output = "0"}) {
  // expected-error @+1 {{in-place aten.relu_ writes input 'x', which has no pt2c.input_writeback result}}
  %0 = "aten.relu_"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// So does a state buffer.
func.func @state_without_writeback(%s: tensor<3xf32> {pt2c.state = "count"}) -> (tensor<3xf32> {pt2c.output = "0"}) {
  // expected-error @+1 {{in-place aten.relu_ writes buffer 'count', which has no pt2c.writeback result}}
  %0 = "aten.relu_"(%s) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Several elements of an expanded view share one element of its base.
func.func @write_through_expand(%a: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %x = "aten.clone"(%a) : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %0 = "aten.expand"(%x) {size = array<i64: 2, 3>} : (tensor<1x3xf32>) -> tensor<2x3xf32>
  // expected-error @+1 {{cannot functionalize in-place aten.relu_: writing through aten.expand (a view) is not supported}}
  %1 = "aten.relu_"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %x : tensor<1x3xf32>
}

// -----

// A strided slice is written through with constant positions: static sizes only.
func.func @write_through_strided_slice_of_dynamic_size(%a: tensor<?xf32>) -> tensor<?xf32> {
  %x = "aten.clone"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  %0 = "aten.slice.Tensor"(%x) {dim = 0 : i64, start = 0 : i64, step = 2 : i64} : (tensor<?xf32>) -> tensor<?xf32>
  // expected-error @+1 {{writing through a strided view of a tensor with dynamic sizes}}
  %1 = "aten.relu_"(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %x : tensor<?xf32>
}
