// RUN: pt2c-opt %s --split-input-file --pt2c-lower-prim-to-linalg | FileCheck %s

// Elementwise ops: one linalg.generic with identity maps into a tensor.empty whose
// dynamic sizes come from the first operand.
// CHECK: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[I:.*]]: tensor<?x4xi32>, %[[P:.*]]: tensor<?x4xi1>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[X]] : {{.*}}) outs(%[[E]] : tensor<?x4xf32>)
// CHECK: arith.addf
// CHECK: arith.divsi
// Float NE is unordered (true on NaN).
// CHECK: arith.cmpf une
// CHECK: ins(%[[P]], %[[X]], %[[ADD]] : tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK: arith.select
// sigmoid = 1 / (1 + e^-x)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NEG:.*]] = arith.negf
// CHECK: %[[EXP:.*]] = math.exp %[[NEG]]
// CHECK: %[[DEN:.*]] = arith.addf %[[ONE]], %[[EXP]]
// CHECK: arith.divf %[[ONE]], %[[DEN]]
func.func @elementwise(%x: tensor<?x4xf32>, %i: tensor<?x4xi32>, %p: tensor<?x4xi1>) -> (tensor<?x4xf32>, tensor<?x4xi32>, tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = prim.add %x, %x : tensor<?x4xf32>
  %1 = prim.div %i, %i : tensor<?x4xi32>
  %2 = prim.compare NE, %x, %x : tensor<?x4xf32>
  %3 = prim.select %p, %x, %0 : tensor<?x4xi1>, tensor<?x4xf32>
  %4 = prim.sigmoid %3 : tensor<?x4xf32>
  return %0, %1, %2, %3, %4 : tensor<?x4xf32>, tensor<?x4xi32>, tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @unary_math
// CHECK: math.erf
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: arith.negf
// CHECK: math.absi
// CHECK: arith.maximumf
// CHECK: arith.minsi
// CHECK: math.powf
func.func @unary_math(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %0 = prim.erf %x : tensor<4xf32>
  %1 = prim.tanh %0 : tensor<4xf32>
  %2 = prim.exp %1 : tensor<4xf32>
  %3 = prim.log %2 : tensor<4xf32>
  %4 = prim.sqrt %3 : tensor<4xf32>
  %5 = prim.rsqrt %4 : tensor<4xf32>
  %6 = prim.neg %5 : tensor<4xf32>
  %7 = prim.abs %i : tensor<4xi32>
  %8 = prim.max %6, %x : tensor<4xf32>
  %9 = prim.min %7, %i : tensor<4xi32>
  %10 = prim.pow %8, %x : tensor<4xf32>
  return %6, %7, %8, %9, %10 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Conversions follow torch: float -> int truncates, x -> bool is x != 0, bool -> x is
// 0 or 1, f16 <-> bf16 goes through f32.
// CHECK-LABEL: func.func @convert
// CHECK: arith.fptosi %{{.*}} : f32 to i64
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.cmpf une, %{{.*}}, %[[Z]] : f32
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %[[W]] : f32 to f16
// CHECK: arith.extsi %{{.*}} : i32 to i64
func.func @convert(%x: tensor<4xf32>, %b: tensor<4xi1>, %i: tensor<4xi32>) -> (tensor<4xi64>, tensor<4xi1>, tensor<4xf32>, tensor<4xf16>, tensor<4xi64>) {
  %0 = prim.convert %x : tensor<4xf32> -> tensor<4xi64>
  %1 = prim.convert %x : tensor<4xf32> -> tensor<4xi1>
  %2 = prim.convert %b : tensor<4xi1> -> tensor<4xf32>
  %3 = prim.convert %x : tensor<4xf32> -> tensor<4xbf16>
  %4 = prim.convert %3 : tensor<4xbf16> -> tensor<4xf16>
  %5 = prim.convert %i : tensor<4xi32> -> tensor<4xi64>
  return %0, %1, %2, %4, %5 : tensor<4xi64>, tensor<4xi1>, tensor<4xf32>, tensor<4xf16>, tensor<4xi64>
}

// -----

// Constants stay splat or dense; dim_size is tensor.dim.
// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK: arith.constant dense<[7, 8]> : tensor<2xi64>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: tensor.dim %arg0, %[[C1]] : tensor<2x?xf32>
func.func @constants(%x: tensor<2x?xf32>) -> (tensor<2x3xf32>, tensor<2xi64>, index) {
  %0 = prim.constant dense<1.5> : tensor<2x3xf32>
  %1 = prim.constant dense<[7, 8]> : tensor<2xi64>
  %2 = prim.dim_size %x, 1 : tensor<2x?xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2xi64>, index
}

// -----

// A broadcast reads operand dim i at loop dims[i], at 0 where a size-1 dim expands.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xf32>, %[[S:.*]]: tensor<f32>, %[[N:.*]]: index)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x5xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[A]]
// CHECK: %[[E2:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #{{.*}}], {{.*}} ins(%[[S]] : tensor<f32>) outs(%[[E2]] : tensor<?x3xf32>)
func.func @broadcast(%x: tensor<3x1xf32>, %s: tensor<f32>, %n: index) -> (tensor<2x3x5xf32>, tensor<?x3xf32>) {
  %0 = prim.broadcast_in_dim %x, dims = [1, 2] : tensor<3x1xf32> -> tensor<2x3x5xf32>
  %1 = prim.broadcast_in_dim %s, dims = [] sizes(%n) : tensor<f32> -> tensor<?x3xf32>
  return %0, %1 : tensor<2x3x5xf32>, tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x4xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?x3xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<?x3x4xf32>) outs(%[[E]] : tensor<4x?x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<?x3x4xf32>) -> tensor<4x?x3xf32> {
  %0 = prim.transpose %x, permutation = [2, 0, 1] : tensor<?x3x4xf32> -> tensor<4x?x3xf32>
  return %0 : tensor<4x?x3xf32>
}

// -----

// Reshapes are collapses and expansions; regrouping dims goes through 1-D.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[D:.*]]: tensor<?x4xf32>, %[[N:.*]]: index, %[[ONE:.*]]: tensor<1x1xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: tensor.expand_shape %[[D]] {{\[}}[0], [1, 2]] output_shape [%[[N]], 2, 2] : tensor<?x4xf32> into tensor<?x2x2xf32>
// CHECK: tensor.collapse_shape %[[ONE]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
func.func @reshape(%x: tensor<2x3x4xf32>, %d: tensor<?x4xf32>, %n: index, %one: tensor<1x1xf32>, %s: tensor<f32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<?x2x2xf32>, tensor<f32>, tensor<1xf32>) {
  %0 = prim.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = prim.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  %2 = prim.reshape %x : tensor<2x3x4xf32> -> tensor<4x6xf32>
  %3 = prim.reshape %d sizes(%n) : tensor<?x4xf32> -> tensor<?x2x2xf32>
  %4 = prim.reshape %one : tensor<1x1xf32> -> tensor<f32>
  %5 = prim.reshape %s : tensor<f32> -> tensor<1xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<?x2x2xf32>, tensor<f32>, tensor<1xf32>
}

// -----

// Plain matrix products become named ops into a zero-filled destination.
// CHECK-LABEL: func.func @named_products
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<3x5xf32>, %[[C:.*]]: tensor<2x4x3xf32>, %[[D:.*]]: tensor<2x3x6xf32>, %[[W:.*]]: tensor<5x3xf32>)
// CHECK: %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x3xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[M]]) : tensor<?x5xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x5xf32>)
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<?x3xf32>, tensor<3x5xf32>) outs(%[[F]] : tensor<?x5xf32>)
// CHECK: linalg.batch_matmul ins(%[[C]], %[[D]] : tensor<2x4x3xf32>, tensor<2x3x6xf32>)
// CHECK: linalg.matmul_transpose_b ins(%[[A]], %[[W]] : tensor<?x3xf32>, tensor<5x3xf32>)
// CHECK: linalg.matmul_transpose_a ins(%[[B]], %[[B]] : tensor<3x5xf32>, tensor<3x5xf32>)
// CHECK: linalg.batch_matmul_transpose_a
// CHECK: linalg.batch_matmul_transpose_b
func.func @named_products(%a: tensor<?x3xf32>, %b: tensor<3x5xf32>, %c: tensor<2x4x3xf32>, %d: tensor<2x3x6xf32>, %w: tensor<5x3xf32>) -> (tensor<?x5xf32>, tensor<2x4x6xf32>, tensor<?x5xf32>, tensor<5x5xf32>, tensor<2x3x3xf32>, tensor<2x4x4xf32>) {
  %0 = prim.dot_general %a, %b, batch = [] x [], contract = [1] x [0] : (tensor<?x3xf32>, tensor<3x5xf32>) -> tensor<?x5xf32>
  %1 = prim.dot_general %c, %d, batch = [0] x [0], contract = [2] x [1] : (tensor<2x4x3xf32>, tensor<2x3x6xf32>) -> tensor<2x4x6xf32>
  %2 = prim.dot_general %a, %w, batch = [] x [], contract = [1] x [1] : (tensor<?x3xf32>, tensor<5x3xf32>) -> tensor<?x5xf32>
  %3 = prim.dot_general %b, %b, batch = [] x [], contract = [0] x [0] : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<5x5xf32>
  %4 = prim.dot_general %c, %c, batch = [0] x [0], contract = [1] x [1] : (tensor<2x4x3xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %5 = prim.dot_general %c, %c, batch = [0] x [0], contract = [2] x [2] : (tensor<2x4x3xf32>, tensor<2x4x3xf32>) -> tensor<2x4x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x5xf32>, tensor<2x4x6xf32>, tensor<?x5xf32>, tensor<5x5xf32>, tensor<2x3x3xf32>, tensor<2x4x4xf32>
}

// -----

// Other contractions are generics: loops are the result dims, then the contracting ones.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[RES:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[BLHS:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[BRES:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @generic_products
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[RES]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[MUL:.*]] = arith.mulf %[[L]], %[[R]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[MUL]]
// CHECK-NEXT: linalg.yield %[[SUM]]
// CHECK: %[[ZI:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZI]] : i32)
// CHECK: linalg.generic {indexing_maps = [#[[BLHS]], #[[BLHS]], #[[BRES]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.muli
// CHECK: arith.addi
func.func @generic_products(%a: tensor<?x3xf32>, %b: tensor<3x5xf32>, %e: tensor<3x2xi32>) -> (tensor<5x?xf32>, tensor<2xi32>) {
  %0 = prim.dot_general %b, %a, batch = [] x [], contract = [0] x [1] : (tensor<3x5xf32>, tensor<?x3xf32>) -> tensor<5x?xf32>
  %1 = prim.dot_general %e, %e, batch = [1] x [1], contract = [0] x [0] : (tensor<3x2xi32>, tensor<3x2xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<5x?xf32>, tensor<2xi32>
}

// -----

// f16/bf16 products accumulate in f32 (lower/LowPrecision.h) and are rounded once.
// CHECK-LABEL: func.func @dot_general_f16_accumulates_in_f32
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: %[[P:.*]] = linalg.matmul_transpose_b ins(%{{.*}}, %{{.*}} : tensor<2x4xf16>, tensor<3x4xf16>) outs(%[[F]] : tensor<2x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @dot_general_f16_accumulates_in_f32(%a: tensor<2x4xf16>, %b: tensor<3x4xf16>) -> tensor<2x3xf16> {
  %0 = prim.dot_general %a, %b, batch = [] x [], contract = [1] x [1] : (tensor<2x4xf16>, tensor<3x4xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// CHECK-LABEL: func.func @convolution_bf16_accumulates_in_f32
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @convolution_bf16_accumulates_in_f32(%x: tensor<1x3x5x5xbf16>, %w: tensor<2x3x3x3xbf16>) -> tensor<1x2x3x3xbf16> {
  %0 = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x3x5x5xbf16>, tensor<2x3x3x3xbf16>) -> tensor<1x2x3x3xbf16>
  return %0 : tensor<1x2x3x3xbf16>
}
