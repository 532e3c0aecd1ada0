// The generated aten ops follow the conventions the importer relies on: Tensor
// arguments are operands in schema order (optional and list ones included), the rest
// are attributes named like the schema arguments, absent when defaulted.
// RUN: pt2c-opt %s | pt2c-opt | FileCheck %s

// CHECK-LABEL: func.func @conventions
func.func @conventions(%x: tensor<2x4xf32>, %w: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<5x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  // CHECK: "aten.gelu"(%{{.*}}) <{approximate = "tanh"}>
  %0 = "aten.gelu"(%x) {approximate = "tanh"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // A Scalar attribute is an integer or a float attribute, as the caller passed it.
  // CHECK: "aten.add.Tensor"(%{{.*}}, %{{.*}}) <{alpha = 2 : i64}>
  %1 = "aten.add.Tensor"(%0, %x) {alpha = 2 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: "aten.add.Scalar"(%{{.*}}) <{other = 5.000000e-01 : f64}>
  %2 = "aten.add.Scalar"(%1) {other = 0.5 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  // Tensor[] is variadic.
  // CHECK: "aten.cat"(%{{.*}}, %{{.*}}) <{dim = 0 : i64}>
  %3 = "aten.cat"(%x, %y) {dim = 0 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  // Tensor? is optional; several optional operands carry segment sizes.
  // CHECK: "aten.native_layer_norm"(%{{.*}}, %{{.*}}) <{eps = 1.000000e-05 : f64, normalized_shape = array<i64: 4>, operandSegmentSizes = array<i32: 1, 1, 0>}>
  %4:3 = "aten.native_layer_norm"(%x, %w) <{eps = 1.0e-5 : f64, normalized_shape = array<i64: 4>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  // ScalarType is the pt2c DType number (3 = F16); MemoryFormat the torch enum's.
  // CHECK: "aten._to_copy"(%{{.*}}) <{dtype = 3 : i64, memory_format = 0 : i64}>
  %5 = "aten._to_copy"(%x) {dtype = 3 : i64, memory_format = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf16>
  // In-place overloads exist too (their name keeps the trailing underscore).
  // CHECK: "aten.add_.Tensor"
  %6 = "aten.add_.Tensor"(%x, %2) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2, %3, %4#0, %6 : tensor<2x4xf32>, tensor<5x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
