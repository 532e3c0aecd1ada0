// RUN: pt2c-opt %s -split-input-file -pt2c-sink-reshapes | FileCheck %s

// On the GPU a reshape of elementwise math, of a reduction or of a small row product
// sinks below the elementwise ops that read it when their other operands are splat
// constants, arguments (a bias of the reshaped shape) or reshapes of the same shape
// (x * sigmoid(x)): a mean's keepdim reshape below its conversion to f16, a squeeze-
// excitation gate's below its bias. Not below an op with another computed operand, not
// where the reshaped value is an argument, the product of two rows or of a matrix of
// more than 2^18 elements (a classifier head, which stays a GEMM), and not on the CPU.
// CHECK-LABEL: func.func @mean_then_convert
// CHECK: %[[S:.*]] = prim.reduce SUM
// CHECK: %[[D:.*]] = prim.div %[[S]], %{{.*}} : tensor<1x8xf32>
// CHECK: %[[C:.*]] = prim.convert %[[D]] : tensor<1x8xf32> -> tensor<1x8xf16>
// CHECK: %[[R:.*]] = prim.reshape %[[C]] : tensor<1x8xf16> -> tensor<1x8x1x1xf16>
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @bias_and_silu
// CHECK: %[[P:.*]] = prim.exp
// CHECK: %[[B:.*]] = prim.reshape %arg2 : tensor<1x8x1x1xf16> -> tensor<1x1x1x8xf16>
// CHECK: %[[A:.*]] = prim.add %[[P]], %[[B]] : tensor<1x1x1x8xf16>
// CHECK: %[[W:.*]] = prim.convert %[[A]] : tensor<1x1x1x8xf16> -> tensor<1x1x1x8xf32>
// CHECK: %[[G:.*]] = prim.sigmoid %[[W]] : tensor<1x1x1x8xf32>
// CHECK: %[[M:.*]] = prim.mul %[[W]], %[[G]] : tensor<1x1x1x8xf32>
// CHECK: %[[N:.*]] = prim.convert %[[M]] : tensor<1x1x1x8xf32> -> tensor<1x1x1x8xf16>
// CHECK: prim.reshape %[[N]] : tensor<1x1x1x8xf16> -> tensor<1x8x1x1xf16>
// CHECK-LABEL: func.func @reshape_with_computed_operand
// CHECK: prim.reshape %{{.*}} : tensor<1x8xf32> -> tensor<1x8x1x1xf32>
// CHECK: prim.add
// CHECK-LABEL: func.func @reshape_of_argument
// CHECK: prim.reshape %arg0
// CHECK: prim.convert
// CHECK-LABEL: func.func @reshape_of_row_product
// CHECK: %[[P:.*]] = prim.dot_general
// CHECK: %[[B:.*]] = prim.reshape %arg2 : tensor<1x8x1x1xf16> -> tensor<1x8xf16>
// CHECK: %[[A:.*]] = prim.add %[[P]], %[[B]] : tensor<1x8xf16>
// CHECK: prim.reshape %[[A]] : tensor<1x8xf16> -> tensor<1x8x1x1xf16>
// CHECK-LABEL: func.func @reshape_of_products
// CHECK: prim.reshape %{{.*}} : tensor<2x8xf16> -> tensor<2x8x1x1xf16>
// CHECK: prim.add
// CHECK: prim.reshape %{{.*}} : tensor<1x1024xf16> -> tensor<1x1024x1x1xf16>
// CHECK: prim.add
// CHECK-LABEL: func.func @reshape_unmarked
// CHECK: prim.reshape %{{.*}} : tensor<1x8xf32> -> tensor<1x8x1x1xf32>
// CHECK: prim.convert
module attributes {pt2c.fused_ops} {
func.func @mean_then_convert(%x: tensor<1x8x4xf32>) -> tensor<1x8x1x1xf16> {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %s = prim.reduce SUM, %x, %zero, dims = [2] : tensor<1x8x4xf32>, tensor<f32> -> tensor<1x8xf32>
  %n = prim.constant dense<4.0> : tensor<1x8x1x1xf32>
  %r = prim.reshape %s : tensor<1x8xf32> -> tensor<1x8x1x1xf32>
  %d = prim.div %r, %n : tensor<1x8x1x1xf32>
  %h = prim.convert %d : tensor<1x8x1x1xf32> -> tensor<1x8x1x1xf16>
  return %h : tensor<1x8x1x1xf16>
}
func.func @bias_and_silu(%x: tensor<1x1x1x8xf16>, %w: tensor<8x32xf16>, %b: tensor<1x8x1x1xf16>) -> tensor<1x8x1x1xf16> {
  %p = prim.exp %x : tensor<1x1x1x8xf16>
  %r = prim.reshape %p : tensor<1x1x1x8xf16> -> tensor<1x8x1x1xf16>
  %a = prim.add %r, %b : tensor<1x8x1x1xf16>
  %w32 = prim.convert %a : tensor<1x8x1x1xf16> -> tensor<1x8x1x1xf32>
  %g = prim.sigmoid %w32 : tensor<1x8x1x1xf32>
  %m = prim.mul %w32, %g : tensor<1x8x1x1xf32>
  %h = prim.convert %m : tensor<1x8x1x1xf32> -> tensor<1x8x1x1xf16>
  return %h : tensor<1x8x1x1xf16>
}
func.func @reshape_with_computed_operand(%x: tensor<1x8xf32>, %y: tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32> {
  %e = prim.exp %x : tensor<1x8xf32>
  %r = prim.reshape %e : tensor<1x8xf32> -> tensor<1x8x1x1xf32>
  %y2 = prim.exp %y : tensor<1x8x1x1xf32>
  %a = prim.add %r, %y2 : tensor<1x8x1x1xf32>
  return %a : tensor<1x8x1x1xf32>
}
func.func @reshape_of_argument(%x: tensor<1x8xf32>) -> tensor<1x8x1x1xf16> {
  %r = prim.reshape %x : tensor<1x8xf32> -> tensor<1x8x1x1xf32>
  %h = prim.convert %r : tensor<1x8x1x1xf32> -> tensor<1x8x1x1xf16>
  return %h : tensor<1x8x1x1xf16>
}
func.func @reshape_of_row_product(%x: tensor<1x32xf16>, %w: tensor<8x32xf16>, %b: tensor<1x8x1x1xf16>) -> tensor<1x8x1x1xf16> {
  %p = prim.dot_general %x, %w, batch = [] x [], contract = [1] x [1] : (tensor<1x32xf16>, tensor<8x32xf16>) -> tensor<1x8xf16>
  %r = prim.reshape %p : tensor<1x8xf16> -> tensor<1x8x1x1xf16>
  %a = prim.add %r, %b : tensor<1x8x1x1xf16>
  return %a : tensor<1x8x1x1xf16>
}
func.func @reshape_of_products(%x: tensor<2x32xf16>, %w: tensor<8x32xf16>, %b: tensor<2x8x1x1xf16>,
                               %y: tensor<1x512xf16>, %v: tensor<1024x512xf16>, %c: tensor<1x1024x1x1xf16>)
    -> (tensor<2x8x1x1xf16>, tensor<1x1024x1x1xf16>) {
  %p = prim.dot_general %x, %w, batch = [] x [], contract = [1] x [1] : (tensor<2x32xf16>, tensor<8x32xf16>) -> tensor<2x8xf16>
  %r = prim.reshape %p : tensor<2x8xf16> -> tensor<2x8x1x1xf16>
  %a = prim.add %r, %b : tensor<2x8x1x1xf16>
  %q = prim.dot_general %y, %v, batch = [] x [], contract = [1] x [1] : (tensor<1x512xf16>, tensor<1024x512xf16>) -> tensor<1x1024xf16>
  %s = prim.reshape %q : tensor<1x1024xf16> -> tensor<1x1024x1x1xf16>
  %e = prim.add %s, %c : tensor<1x1024x1x1xf16>
  return %a, %e : tensor<2x8x1x1xf16>, tensor<1x1024x1x1xf16>
}
}

// -----

module {
func.func @reshape_unmarked(%x: tensor<1x8xf32>) -> tensor<1x8x1x1xf16> {
  %e = prim.exp %x : tensor<1x8xf32>
  %r = prim.reshape %e : tensor<1x8xf32> -> tensor<1x8x1x1xf32>
  %h = prim.convert %r : tensor<1x8x1x1xf32> -> tensor<1x8x1x1xf16>
  return %h : tensor<1x8x1x1xf16>
}
}
