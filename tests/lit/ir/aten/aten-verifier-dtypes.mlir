// Dtype rules (ir/aten/AtenDtypeRules.cpp): result element types follow PyTorch's type
// promotion and each op's own dtype behaviour (every result checked here was confirmed
// with torch); a result of another dtype, or operand dtypes PyTorch rejects, are named.
// RUN: pt2c-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Promotion: dimensioned tensors > zero-dim tensors > Python numbers; a lower class only
// counts if its category (bool < integer < floating) is higher.
// CHECK-LABEL: func.func @promotion(
func.func @promotion(%i64: tensor<2xi64>, %i32: tensor<2xi32>, %b: tensor<2xi1>,
                     %f16: tensor<2xf16>, %bf16: tensor<2xbf16>, %u8: tensor<2xui8>,
                     %i8: tensor<2xi8>, %z_i64: tensor<i64>, %z_f32: tensor<f32>,
                     %z_f64: tensor<f64>, %z_i32: tensor<i32>) {
  // int tensor + float number: the default dtype
  %0 = "aten.add.Scalar"(%i64) {other = 2.5 : f64} : (tensor<2xi64>) -> tensor<2xf32>
  // int32 tensor * int number: the tensor's integer type
  %1 = "aten.mul.Scalar"(%i32) {other = 2 : i64} : (tensor<2xi32>) -> tensor<2xi32>
  // bool tensor + int64 zero-dim tensor: the zero-dim tensor's type
  %2 = "aten.add.Tensor"(%b, %z_i64) : (tensor<2xi1>, tensor<i64>) -> tensor<2xi64>
  // f16 tensor + f32 zero-dim tensor: same category, the tensor wins
  %3 = "aten.add.Tensor"(%f16, %z_f32) : (tensor<2xf16>, tensor<f32>) -> tensor<2xf16>
  // int tensor + f64 zero-dim tensor: higher category, its own dtype (not the default)
  %4 = "aten.mul.Tensor"(%i64, %z_f64) : (tensor<2xi64>, tensor<f64>) -> tensor<2xf64>
  // f16 with bf16: f32; uint8 with int8: int16
  %5 = "aten.add.Tensor"(%f16, %bf16) : (tensor<2xf16>, tensor<2xbf16>) -> tensor<2xf32>
  %6 = "aten.maximum"(%u8, %i8) : (tensor<2xui8>, tensor<2xi8>) -> tensor<2xi16>
  // two zero-dim tensors promote as tensors
  %7 = "aten.add.Tensor"(%z_i32, %z_f32) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  // bool + bool number stays bool
  %8 = "aten.add.Scalar"(%b) {other = true} : (tensor<2xi1>) -> tensor<2xi1>
  %9 = "aten.pow.Tensor_Scalar"(%i64) {exponent = 2.5 : f64} : (tensor<2xi64>) -> tensor<2xf32>
  %10 = "aten.pow.Scalar"(%i32) {self = 2 : i64} : (tensor<2xi32>) -> tensor<2xi32>
  %11 = "aten.bitwise_and.Tensor"(%b, %i32) : (tensor<2xi1>, tensor<2xi32>) -> tensor<2xi32>
  %12 = "aten.cat"(%i64, %f16) : (tensor<2xi64>, tensor<2xf16>) -> tensor<4xf16>
  return
}

// -----

// CHECK-LABEL: func.func @kinds_of_ops(
func.func @kinds_of_ops(%i64: tensor<2x3xi64>, %f32: tensor<2x3xf32>, %b: tensor<2x3xi1>,
                        %f16: tensor<2x3xf16>, %u8: tensor<2x3xui8>, %idx: tensor<4xi32>,
                        %w16: tensor<10x3xf16>, %z_f32: tensor<f32>) {
  // true division of integers: the default dtype
  %0 = "aten.div.Tensor"(%i64, %i64) : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %1 = "aten.div.Scalar"(%b) {other = true} : (tensor<2x3xi1>) -> tensor<2x3xf32>
  // comparisons: bool
  %2 = "aten.eq.Scalar"(%f32) {other = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = "aten.lt.Tensor"(%f16, %i64) : (tensor<2x3xf16>, tensor<2x3xi64>) -> tensor<2x3xi1>
  %4 = "aten.logical_and"(%f32, %i64) : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xi1>
  // where promotes its values, the zero-dim one less
  %5 = "aten.where.self"(%b, %f16, %z_f32) : (tensor<2x3xi1>, tensor<2x3xf16>, tensor<f32>) -> tensor<2x3xf16>
  // float-only unary ops on integers: the default dtype
  %6 = "aten.exp"(%i64) : (tensor<2x3xi64>) -> tensor<2x3xf32>
  %7 = "aten.sigmoid"(%b) : (tensor<2x3xi1>) -> tensor<2x3xf32>
  %8 = "aten.abs"(%i64) : (tensor<2x3xi64>) -> tensor<2x3xi64>
  // reductions
  %9 = "aten.argmax"(%f32) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  %10 = "aten.sum"(%b) : (tensor<2x3xi1>) -> tensor<i64>
  %11 = "aten.sum.dim_IntList"(%i64) {dim = array<i64: 1>, dtype = 3 : i64} : (tensor<2x3xi64>) -> tensor<2xf16>
  %12 = "aten.cumsum"(%u8) {dim = 1 : i64} : (tensor<2x3xui8>) -> tensor<2x3xi64>
  %13 = "aten.mean.dim"(%f16) {dim = array<i64: 1>} : (tensor<2x3xf16>) -> tensor<2xf16>
  %14:2 = "aten.max.dim"(%f16) {dim = 1 : i64} : (tensor<2x3xf16>) -> (tensor<2xf16>, tensor<2xi64>)
  %15 = "aten.all"(%u8) : (tensor<2x3xui8>) -> tensor<ui8>
  %16 = "aten.any"(%f32) : (tensor<2x3xf32>) -> tensor<i1>
  %17 = "aten.softmax.int"(%f16) {dim = 1 : i64, dtype = 1 : i64} : (tensor<2x3xf16>) -> tensor<2x3xf32>
  // factories: int fill -> int64, float fill -> default, bool fill -> bool
  %18 = "aten.full"() {size = array<i64: 2>, fill_value = 7 : i64} : () -> tensor<2xi64>
  %19 = "aten.full"() {size = array<i64: 2>, fill_value = 7.5 : f64} : () -> tensor<2xf32>
  %20 = "aten.full"() {size = array<i64: 2>, fill_value = true} : () -> tensor<2xi1>
  %21 = "aten.arange"() {end = 5 : i64} : () -> tensor<5xi64>
  %22 = "aten.arange.start_step"() {start = 0 : i64, end = 2 : i64, step = 5.000000e-01 : f64} : () -> tensor<4xf32>
  %23 = "aten.scalar_tensor"() {s = 3 : i64} : () -> tensor<f32>
  %24 = "aten.zeros"() {size = array<i64: 2>} : () -> tensor<2xf32>
  %25 = "aten.new_ones"(%i64) {size = array<i64: 2>} : (tensor<2x3xi64>) -> tensor<2xi64>
  %26 = "aten._to_copy"(%f32) {dtype = 10 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // the weight's dtype, whatever the (int32) indices
  %27 = "aten.embedding"(%w16, %idx) : (tensor<10x3xf16>, tensor<4xi32>) -> tensor<4x3xf16>
  // CPU's mixed layer norm: f16 input, f32 parameters, f32 statistics
  %w = "aten.ones"() {size = array<i64: 3>} : () -> tensor<3xf32>
  %28:3 = "aten.native_layer_norm"(%f16, %w, %w) {normalized_shape = array<i64: 3>, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf16>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf16>, tensor<2x1xf32>, tensor<2x1xf32>)
  // in-place: computed in f32, written into the f16 self
  %29 = "aten.add_.Tensor"(%f16, %f32) : (tensor<2x3xf16>, tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

func.func @int_plus_float(%x: tensor<2xi64>, %y: tensor<2xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{result #0 has element type 'i64', but PyTorch's dtype rules give 'f32'}}
  %0 = "aten.add.Tensor"(%x, %y) : (tensor<2xi64>, tensor<2xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @int_true_division(%x: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{result #0 has element type 'i64', but PyTorch's dtype rules give 'f32'}}
  %0 = "aten.div.Tensor"(%x, %x) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @zero_dim_does_not_widen(%x: tensor<2xf16>, %y: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 has element type 'f32', but PyTorch's dtype rules give 'f16'}}
  %0 = "aten.add.Tensor"(%x, %y) : (tensor<2xf16>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @comparison_is_bool(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 has element type 'f32', but PyTorch's dtype rules give 'i1'}}
  %0 = "aten.gt.Scalar"(%x) {other = 0.0 : f64} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @indices_are_int64(%x: tensor<2x3xf32>) -> tensor<2x1xi32> {
  // expected-error @+1 {{result #1 has element type 'i32', but PyTorch's dtype rules give 'i64'}}
  %v, %i = "aten.topk"(%x) {k = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x1xi32>)
  return %i : tensor<2x1xi32>
}

// -----

func.func @in_place_cannot_narrow(%x: tensor<2xi64>, %y: tensor<2xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{result type f32 cannot be cast to self's type i64 of the in-place op}}
  %0 = "aten.add_.Tensor"(%x, %y) : (tensor<2xi64>, tensor<2xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @in_place_true_division(%x: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{result type f32 cannot be cast to self's type i64 of the in-place op}}
  %0 = "aten.div_.Scalar"(%x) {other = 2 : i64} : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @matmul_does_not_promote(%a: tensor<2x3xf16>, %b: tensor<3x4xf32>) -> tensor<2x4xf16> {
  // expected-error @+1 {{expects operands of one dtype (PyTorch does not promote them), got f16 and f32}}
  %0 = "aten.mm"(%a, %b) : (tensor<2x3xf16>, tensor<3x4xf32>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

func.func @mean_of_integers(%x: tensor<2x3xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{cannot infer an output dtype: the input or `dtype` must be floating-point, got i64}}
  %0 = "aten.mean.dim"(%x) {dim = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @bool_subtraction(%x: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{subtraction with a bool operand is not supported}}
  %0 = "aten.sub.Tensor"(%x, %x) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @float_alpha_for_integers(%x: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{`alpha` must not be a floating point number for a i64 result}}
  %0 = "aten.add.Tensor"(%x, %x) {alpha = 0.5 : f64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @float_mask(%x: tensor<2xf32>, %m: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the mask must be i1, got f32}}
  %0 = "aten.masked_fill.Scalar"(%x, %m) {value = 0.0 : f64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @float_where_condition(%c: tensor<2xf32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the condition must be i1 or ui8, got f32}}
  %0 = "aten.where.self"(%c, %x, %x) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @gelu_of_integers(%x: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{expects a floating-point input, got i64}}
  %0 = "aten.gelu"(%x) : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @float_indices(%w: tensor<10x3xf32>, %i: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{the indices must be i64 or i32, got f32}}
  %0 = "aten.embedding"(%w, %i) : (tensor<10x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @unknown_dtype_number(%x: tensor<2xf32>) -> tensor<f32> {
  // expected-error @+1 {{`dtype` 42 names no dtype}}
  %0 = "aten.sum"(%x) {dtype = 42 : i64} : (tensor<2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @norm_parameters(%x: tensor<2x3xf32>, %w: tensor<3xf16>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects parameters of the input's dtype f32, got f16}}
  %0:3 = "aten.native_layer_norm"(%x, %w, %w) {normalized_shape = array<i64: 3>, eps = 1.0e-05 : f64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<3xf16>, tensor<3xf16>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %0#0 : tensor<2x3xf32>
}

// -----

func.func @scatter_source_dtype(%x: tensor<3x4xf16>, %i: tensor<3x4xi64>, %s: tensor<3x4xf32>) -> tensor<3x4xf16> {
  // expected-error @+1 {{the source must be f16, got f32}}
  %0 = "aten.scatter.src"(%x, %i, %s) {dim = 1 : i64} : (tensor<3x4xf16>, tensor<3x4xi64>, tensor<3x4xf32>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

func.func @index_add_index_dtype(%x: tensor<3x4xf32>, %i: tensor<2xi16>, %s: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{the index must be i64 or i32, got i16}}
  %0 = "aten.index_add"(%x, %i, %s) {dim = 0 : i64} : (tensor<3x4xf32>, tensor<2xi16>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// torchvision's kernels read boxes and scores as one scalar type.
func.func @nms_mixed_dtypes(%boxes: tensor<3x4xf32>, %scores: tensor<3xf64>) -> tensor<?xi64> {
  // expected-error @+1 {{expects dets and scores of one floating-point dtype, got f32 and f64}}
  %0 = "aten.torchvision_nms"(%boxes, %scores) {iou_threshold = 5.000000e-01 : f64} : (tensor<3x4xf32>, tensor<3xf64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}
