// Every prim op parses, verifies, prints and parses again (custom and generic form).
// RUN: pt2c-opt %s | pt2c-opt | FileCheck %s
// RUN: pt2c-opt %s --mlir-print-op-generic | pt2c-opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<2x?xf32>, %i: tensor<2x?xi32>) -> tensor<2x?xf32> {
  // CHECK: prim.neg %{{.*}} : tensor<2x?xf32>
  %0 = prim.neg %x : tensor<2x?xf32>
  // CHECK: prim.abs %{{.*}} : tensor<2x?xi32>
  %1 = prim.abs %i : tensor<2x?xi32>
  // CHECK: prim.exp
  %2 = prim.exp %0 : tensor<2x?xf32>
  // CHECK: prim.log
  %3 = prim.log %2 : tensor<2x?xf32>
  // CHECK: prim.tanh
  %4 = prim.tanh %3 : tensor<2x?xf32>
  // CHECK: prim.erf
  %5 = prim.erf %4 : tensor<2x?xf32>
  // CHECK: prim.sigmoid
  %6 = prim.sigmoid %5 : tensor<2x?xf32>
  // CHECK: prim.sqrt
  %7 = prim.sqrt %6 : tensor<2x?xf32>
  // CHECK: prim.rsqrt
  %8 = prim.rsqrt %7 : tensor<2x?xf32>
  // CHECK: prim.add
  %9 = prim.add %8, %x : tensor<2x?xf32>
  // CHECK: prim.sub
  %10 = prim.sub %9, %x : tensor<2x?xf32>
  // CHECK: prim.mul
  %11 = prim.mul %10, %x : tensor<2x?xf32>
  // CHECK: prim.div
  %12 = prim.div %11, %x : tensor<2x?xf32>
  // CHECK: prim.max
  %13 = prim.max %12, %x : tensor<2x?xf32>
  // CHECK: prim.min
  %14 = prim.min %13, %x : tensor<2x?xf32>
  // CHECK: prim.pow
  %15 = prim.pow %14, %x : tensor<2x?xf32>
  // CHECK: %[[P:.*]] = prim.compare LT, %{{.*}}, %{{.*}} : tensor<2x?xf32>
  %16 = prim.compare LT, %15, %x : tensor<2x?xf32>
  // CHECK: prim.select %[[P]], %{{.*}}, %{{.*}} : tensor<2x?xi1>, tensor<2x?xf32>
  %17 = prim.select %16, %15, %x : tensor<2x?xi1>, tensor<2x?xf32>
  // CHECK: prim.convert %{{.*}} : tensor<2x?xi32> -> tensor<2x?xf32>
  %18 = prim.convert %1 : tensor<2x?xi32> -> tensor<2x?xf32>
  %19 = prim.add %17, %18 : tensor<2x?xf32>
  return %19 : tensor<2x?xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<?x3xf32>, %m: tensor<4x3x5xf32>) -> (tensor<f32>, tensor<2x2xi64>, tensor<?x4x3xf32>, tensor<4x5x3xf32>, tensor<?x3xf32>, tensor<4x15xf32>, tensor<4x?x5xf32>) {
  // CHECK: prim.constant dense<1.000000e+00> : tensor<f32>
  %c = prim.constant dense<1.0> : tensor<f32>
  // CHECK: prim.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>
  %d = prim.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  // CHECK: %[[N:.*]] = prim.dim_size %{{.*}}, 0 : tensor<?x3xf32>
  %n = prim.dim_size %x, 0 : tensor<?x3xf32>
  // CHECK: prim.broadcast_in_dim %{{.*}}, dims = [0, 2] sizes(%[[N]]) : tensor<?x3xf32> -> tensor<?x4x3xf32>
  %b = prim.broadcast_in_dim %x, dims = [0, 2] sizes(%n) : tensor<?x3xf32> -> tensor<?x4x3xf32>
  // CHECK: prim.transpose %{{.*}}, permutation = [0, 2, 1] : tensor<4x3x5xf32> -> tensor<4x5x3xf32>
  %t = prim.transpose %m, permutation = [0, 2, 1] : tensor<4x3x5xf32> -> tensor<4x5x3xf32>
  // CHECK: prim.reshape %{{.*}} sizes(%[[N]]) : tensor<?x3xf32> -> tensor<?x3xf32>
  %r = prim.reshape %x sizes(%n) : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK: prim.reshape %{{.*}} : tensor<4x3x5xf32> -> tensor<4x15xf32>
  %s = prim.reshape %m : tensor<4x3x5xf32> -> tensor<4x15xf32>
  // CHECK: prim.dot_general %{{.*}}, %{{.*}}, batch = [] x [], contract = [1] x [1] : (tensor<4x3x5xf32>, tensor<?x3xf32>) -> tensor<4x5x?xf32>
  %g = prim.dot_general %m, %x, batch = [] x [], contract = [1] x [1] : (tensor<4x3x5xf32>, tensor<?x3xf32>) -> tensor<4x5x?xf32>
  // CHECK: prim.dot_general %{{.*}}, %{{.*}}, batch = [0] x [0], contract = [1] x [2] : (tensor<4x3x5xf32>, tensor<4x?x3xf32>) -> tensor<4x5x?xf32>
  %bt = prim.transpose %b, permutation = [1, 0, 2] : tensor<?x4x3xf32> -> tensor<4x?x3xf32>
  %h = prim.dot_general %m, %bt, batch = [0] x [0], contract = [1] x [2] : (tensor<4x3x5xf32>, tensor<4x?x3xf32>) -> tensor<4x5x?xf32>
  %ht = prim.transpose %h, permutation = [0, 2, 1] : tensor<4x5x?xf32> -> tensor<4x?x5xf32>
  return %c, %d, %b, %t, %r, %s, %ht : tensor<f32>, tensor<2x2xi64>, tensor<?x4x3xf32>, tensor<4x5x3xf32>, tensor<?x3xf32>, tensor<4x15xf32>, tensor<4x?x5xf32>
}
