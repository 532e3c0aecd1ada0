// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim | FileCheck %s

// The MLP's first layer: t + addmm (beta = alpha = 1: no scaling, bias broadcast).
// CHECK-LABEL: func.func @linear_layer
// CHECK-SAME: (%[[B:.*]]: tensor<256xf32>, %[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: tensor<256x64xf32>)
// CHECK-NEXT: %[[WT:.*]] = prim.transpose %[[W]], permutation = [1, 0] : tensor<256x64xf32> -> tensor<64x256xf32>
// CHECK-NEXT: %[[P:.*]] = prim.dot_general %[[X]], %[[WT]], batch = [] x [], contract = [1] x [0]
// CHECK-NEXT: %[[BB:.*]] = prim.broadcast_in_dim %[[B]], dims = [1] : tensor<256xf32> -> tensor<4x256xf32>
// CHECK-NEXT: %[[R:.*]] = prim.add %[[BB]], %[[P]] : tensor<4x256xf32>
// CHECK-NEXT: return %[[R]]
func.func @linear_layer(%b: tensor<256xf32>, %x: tensor<4x64xf32>, %w: tensor<256x64xf32>) -> tensor<4x256xf32> {
  %0 = "aten.t"(%w) : (tensor<256x64xf32>) -> tensor<64x256xf32>
  %1 = "aten.addmm"(%b, %x, %0) : (tensor<256xf32>, tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
  return %1 : tensor<4x256xf32>
}

// -----

// beta * self + alpha * (x @ y); beta = 0 drops self entirely (torch ignores its NaNs).
// CHECK-LABEL: func.func @addmm_scaled
// CHECK-SAME: (%[[S:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x2xf32>, %[[Y:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[P:.*]] = prim.dot_general %[[X]], %[[Y]]
// CHECK-NEXT: %[[ALPHA:.*]] = prim.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[AP:.*]] = prim.mul %[[P]], %[[ALPHA]]
// CHECK-NEXT: %[[BETA:.*]] = prim.constant dense<5.000000e-01> : tensor<4x8xf32>
// CHECK-NEXT: %[[BS:.*]] = prim.mul %[[S]], %[[BETA]]
// CHECK-NEXT: %[[R0:.*]] = prim.add %[[BS]], %[[AP]]
// CHECK-NEXT: %[[R1:.*]] = prim.dot_general %[[X]], %[[Y]]
// CHECK-NEXT: return %[[R0]], %[[R1]]
func.func @addmm_scaled(%s: tensor<4x8xf32>, %x: tensor<4x2xf32>, %y: tensor<2x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = "aten.addmm"(%s, %x, %y) {alpha = 2 : i64, beta = 5.000000e-01 : f64} : (tensor<4x8xf32>, tensor<4x2xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  %1 = "aten.addmm"(%s, %x, %y) {beta = 0 : i64} : (tensor<4x8xf32>, tensor<4x2xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Exact gelu: x/2 * (1 + erf(x / sqrt 2)).
// CHECK-LABEL: func.func @gelu_exact
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[C:.*]] = prim.constant dense<0.707106769> : tensor<2x3xf32>
// CHECK-NEXT: %[[XS:.*]] = prim.mul %[[X]], %[[C]]
// CHECK-NEXT: %[[E:.*]] = prim.erf %[[XS]]
// CHECK-NEXT: %[[HALF:.*]] = prim.constant dense<5.000000e-01>
// CHECK-NEXT: %[[HX:.*]] = prim.mul %[[X]], %[[HALF]]
// CHECK-NEXT: %[[ONE:.*]] = prim.constant dense<1.000000e+00>
// CHECK-NEXT: %[[S:.*]] = prim.add %[[E]], %[[ONE]]
// CHECK-NEXT: %[[R:.*]] = prim.mul %[[HX]], %[[S]]
// CHECK-NEXT: return %[[R]]
func.func @gelu_exact(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "aten.gelu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tanh gelu: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[X2:.*]] = prim.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[X3:.*]] = prim.mul %[[X2]], %[[X]]
// CHECK-NEXT: %[[K:.*]] = prim.constant dense<4.471500e-02>
// CHECK-NEXT: %[[KX3:.*]] = prim.mul %[[X3]], %[[K]]
// CHECK-NEXT: %[[POLY:.*]] = prim.add %[[X]], %[[KX3]]
// CHECK-NEXT: %[[S:.*]] = prim.constant dense<0.797884583>
// CHECK-NEXT: %[[ARG:.*]] = prim.mul %[[POLY]], %[[S]]
// CHECK-NEXT: %[[T:.*]] = prim.tanh %[[ARG]]
// CHECK: prim.add %[[T]]
func.func @gelu_tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "aten.gelu"(%x) {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// relu = max(x, 0), which propagates NaN like torch.relu.
// CHECK-LABEL: func.func @relu
// CHECK-NEXT: %[[Z:.*]] = prim.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK-NEXT: prim.max %arg0, %[[Z]] : tensor<8xf32>
func.func @relu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "aten.relu"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Type promotion and broadcasting become explicit; alpha scales `other`.
// CHECK-LABEL: func.func @add_tensor_promote_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3xi64>)
// CHECK-NEXT: %[[YF:.*]] = prim.convert %[[Y]] : tensor<3xi64> -> tensor<3xf32>
// CHECK-NEXT: %[[YB:.*]] = prim.broadcast_in_dim %[[YF]], dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[A:.*]] = prim.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %[[YA:.*]] = prim.mul %[[YB]], %[[A]]
// CHECK-NEXT: prim.add %[[X]], %[[YA]] : tensor<2x3xf32>
func.func @add_tensor_promote_broadcast(%x: tensor<2x3xf32>, %y: tensor<3xi64>) -> tensor<2x3xf32> {
  %0 = "aten.add.Tensor"(%x, %y) {alpha = 2 : i64} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @binary_tensor_ops
// CHECK: prim.sub
// CHECK: prim.mul
// Integer true division computes in the (float) result type.
// CHECK: %[[AF:.*]] = prim.convert %arg1 : tensor<4xi32> -> tensor<4xf32>
// CHECK: %[[BF:.*]] = prim.convert %arg2 : tensor<4xi32> -> tensor<4xf32>
// CHECK: prim.div %[[AF]], %[[BF]] : tensor<4xf32>
// CHECK: prim.max
// CHECK: prim.min
func.func @binary_tensor_ops(%x: tensor<4xf32>, %a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "aten.sub.Tensor"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.mul.Tensor"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "aten.div.Tensor"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  %3 = "aten.maximum"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = "aten.minimum"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Scalars become splat constants of the result type; rsub swaps the operands.
// CHECK-LABEL: func.func @scalar_ops
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>)
// CHECK-NEXT: %[[C3:.*]] = prim.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = prim.add %[[X]], %[[C3]]
// CHECK-NEXT: %[[C2:.*]] = prim.constant dense<2> : tensor<4xi64>
// CHECK-NEXT: %[[M:.*]] = prim.mul %[[I]], %[[C2]] : tensor<4xi64>
// CHECK-NEXT: %[[C1:.*]] = prim.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = prim.sub %[[C1]], %[[X]]
// CHECK-NEXT: return %[[A]], %[[M]], %[[R]]
func.func @scalar_ops(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>, tensor<4xf32>) {
  %0 = "aten.add.Scalar"(%x) {other = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.mul.Scalar"(%i) {other = 2 : i64} : (tensor<4xi64>) -> tensor<4xi64>
  %2 = "aten.rsub.Scalar"(%x) {other = 1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi64>, tensor<4xf32>
}

// -----

// Unary ops compute in the result type (exp of an int tensor gives floats).
// CHECK-LABEL: func.func @unary_ops
// CHECK: prim.sigmoid %arg0
// CHECK: prim.tanh %arg0
// CHECK: prim.neg %arg0
// CHECK: %[[F:.*]] = prim.convert %arg1 : tensor<4xi64> -> tensor<4xf32>
// CHECK: prim.exp %[[F]]
// CHECK: %[[S:.*]] = prim.sigmoid %arg0
// CHECK: prim.mul %arg0, %[[S]]
func.func @unary_ops(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "aten.sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "aten.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "aten.exp"(%i) : (tensor<4xi64>) -> tensor<4xf32>
  %4 = "aten.silu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @matrix_products
// CHECK: prim.dot_general %arg0, %arg1, batch = [] x [], contract = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: prim.dot_general %arg2, %arg3, batch = [0] x [0], contract = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
// linear contracts the weight on its own K dim: no transpose.
// CHECK: %[[L:.*]] = prim.dot_general %arg2, %arg4, batch = [] x [], contract = [2] x [1] : (tensor<5x2x3xf32>, tensor<6x3xf32>) -> tensor<5x2x6xf32>
// CHECK: %[[BIAS:.*]] = prim.broadcast_in_dim %arg5, dims = [2] : tensor<6xf32> -> tensor<5x2x6xf32>
// CHECK: prim.add %[[L]], %[[BIAS]]
// CHECK: prim.dot_general %arg2, %arg4, batch = [] x [], contract = [2] x [1]
// CHECK-NOT: prim.add
// CHECK: return
func.func @matrix_products(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x2x3xf32>, %d: tensor<5x3x4xf32>, %w: tensor<6x3xf32>, %bias: tensor<6xf32>) -> (tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<5x2x6xf32>, tensor<5x2x6xf32>) {
  %0 = "aten.mm"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "aten.bmm"(%c, %d) : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %2 = "aten.linear"(%c, %w, %bias) : (tensor<5x2x3xf32>, tensor<6x3xf32>, tensor<6xf32>) -> tensor<5x2x6xf32>
  %3 = "aten.linear"(%c, %w) : (tensor<5x2x3xf32>, tensor<6x3xf32>) -> tensor<5x2x6xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<5x2x6xf32>, tensor<5x2x6xf32>
}

// -----

// torch.matmul: vectors contract directly; batch dims broadcast first.
// CHECK-LABEL: func.func @matmul
// CHECK: prim.dot_general %arg0, %arg0, batch = [] x [], contract = [0] x [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// CHECK: prim.dot_general %arg0, %arg1, batch = [] x [], contract = [0] x [1] : (tensor<3xf32>, tensor<4x3x6xf32>) -> tensor<4x6xf32>
// CHECK: %[[L:.*]] = prim.broadcast_in_dim %arg2, dims = [0, 1, 2, 3] : tensor<5x1x2x3xf32> -> tensor<5x4x2x3xf32>
// CHECK: %[[R:.*]] = prim.broadcast_in_dim %arg1, dims = [1, 2, 3] : tensor<4x3x6xf32> -> tensor<5x4x3x6xf32>
// CHECK: prim.dot_general %[[L]], %[[R]], batch = [0, 1] x [0, 1], contract = [3] x [2]
func.func @matmul(%v: tensor<3xf32>, %b: tensor<4x3x6xf32>, %a: tensor<5x1x2x3xf32>) -> (tensor<f32>, tensor<4x6xf32>, tensor<5x4x2x6xf32>) {
  %0 = "aten.matmul"(%v, %v) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %1 = "aten.matmul"(%v, %b) : (tensor<3xf32>, tensor<4x3x6xf32>) -> tensor<4x6xf32>
  %2 = "aten.matmul"(%a, %b) : (tensor<5x1x2x3xf32>, tensor<4x3x6xf32>) -> tensor<5x4x2x6xf32>
  return %0, %1, %2 : tensor<f32>, tensor<4x6xf32>, tensor<5x4x2x6xf32>
}

// -----

// Views are values: reshapes, transposes and broadcasts.
// CHECK-LABEL: func.func @views
// CHECK: prim.reshape %arg0 : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: prim.reshape %arg0 : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK: prim.reshape %arg0 : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK: prim.reshape %arg0 : tensor<2x3x4xf32> -> tensor<2x1x3x4xf32>
// CHECK: prim.reshape %arg1 : tensor<3x1xf32> -> tensor<3xf32>
// CHECK: prim.transpose %arg0, permutation = [2, 1, 0]
// CHECK: prim.transpose %arg0, permutation = [1, 2, 0]
// CHECK: prim.broadcast_in_dim %arg1, dims = [1, 2] : tensor<3x1xf32> -> tensor<2x3x5xf32>
func.func @views(%x: tensor<2x3x4xf32>, %y: tensor<3x1xf32>) -> (tensor<6x4xf32>, tensor<24xf32>, tensor<4x6xf32>, tensor<2x1x3x4xf32>, tensor<3xf32>, tensor<4x3x2xf32>, tensor<3x4x2xf32>, tensor<2x3x5xf32>) {
  %0 = "aten.view"(%x) {size = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = "aten.reshape"(%x) {shape = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %2 = "aten._unsafe_view"(%x) {size = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %3 = "aten.unsqueeze"(%x) {dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x3x4xf32>
  %4 = "aten.squeeze.dim"(%y) {dim = -1 : i64} : (tensor<3x1xf32>) -> tensor<3xf32>
  %5 = "aten.transpose.int"(%x) {dim0 = 0 : i64, dim1 = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %6 = "aten.permute"(%x) {dims = array<i64: 1, -1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %7 = "aten.expand"(%y) {size = array<i64: 2, -1, 5>} : (tensor<3x1xf32>) -> tensor<2x3x5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<6x4xf32>, tensor<24xf32>, tensor<4x6xf32>, tensor<2x1x3x4xf32>, tensor<3xf32>, tensor<4x3x2xf32>, tensor<3x4x2xf32>, tensor<2x3x5xf32>
}

// -----

// Ops that only concern memory vanish under value semantics; _to_copy converts.
// CHECK-LABEL: func.func @copies
// CHECK-NEXT: %[[C:.*]] = prim.convert %arg0 : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT: return %arg0, %arg0, %arg0, %arg0, %arg1, %[[C]]
func.func @copies(%x: tensor<4xf32>, %v: tensor<5xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<5xf32>, tensor<4xf16>) {
  %0 = "aten.clone"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.contiguous"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "aten.detach"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "aten.alias"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "aten.t"(%v) : (tensor<5xf32>) -> tensor<5xf32>
  %5 = "aten._to_copy"(%x) {dtype = 3 : i64} : (tensor<4xf32>) -> tensor<4xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<5xf32>, tensor<4xf16>
}

// -----

// Dynamic sizes come from the operands that carry them.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[D:.*]] = prim.dim_size %[[X]], 0 : tensor<?x4xf32>
// CHECK-NEXT: %[[BB:.*]] = prim.broadcast_in_dim %[[B]], dims = [1] sizes(%[[D]]) : tensor<4xf32> -> tensor<?x4xf32>
// CHECK-NEXT: %[[S:.*]] = prim.add %[[X]], %[[BB]]
// A splat of dynamic shape is a rank-0 constant broadcast.
// CHECK-NEXT: %[[Z:.*]] = prim.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[D2:.*]] = prim.dim_size %[[S]], 0
// CHECK-NEXT: %[[ZB:.*]] = prim.broadcast_in_dim %[[Z]], dims = [] sizes(%[[D2]]) : tensor<f32> -> tensor<?x4xf32>
// CHECK-NEXT: %[[R:.*]] = prim.max %[[S]], %[[ZB]]
// CHECK-NEXT: %[[D3:.*]] = prim.dim_size %[[R]], 0
// CHECK-NEXT: prim.reshape %[[R]] sizes(%[[D3]]) : tensor<?x4xf32> -> tensor<?x2x2xf32>
func.func @dynamic(%x: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x2x2xf32> {
  %0 = "aten.add.Tensor"(%x, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = "aten.relu"(%0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = "aten.view"(%1) {size = array<i64: -1, 2, 2>} : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  return %2 : tensor<?x2x2xf32>
}
