// Runs a tiny MLP (Linear 3->4, GELU, Linear 4->2; then relu, and the tanh form of
// gelu) through the driver's pipelines (pt2c-aten-to-prim, pt2c-cpu-kernels-to-llvm:
// polynomial exp/erf/tanh, bare-pointer memrefs) and executes it with mlir-cpu-runner.
// The expected numbers come from the same formulas in float64 (see the end of the file).
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-aten-to-prim,pt2c-cpu-kernels-to-llvm)' \
// RUN:   | mlir-cpu-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s

func.func @mlp(%x: tensor<2x3xf32>, %w1: tensor<4x3xf32>, %b1: tensor<4xf32>, %w2: tensor<2x4xf32>, %b2: tensor<2xf32>) -> tensor<2x2xf32> {
  %0 = "aten.t"(%w1) : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %1 = "aten.addmm"(%b1, %x, %0) : (tensor<4xf32>, tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = "aten.gelu"(%1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = "aten.t"(%w2) : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %4 = "aten.addmm"(%b2, %2, %3) : (tensor<2xf32>, tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %4 : tensor<2x2xf32>
}

func.func @activations(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = "aten.relu"(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = "aten.gelu"(%x) {approximate = "tanh"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = "aten.sigmoid"(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// Scalars only: the pipeline passes memrefs as bare pointers, so printMemrefF32 (which
// takes an unranked descriptor) is out of reach; printF32 prints with %g.
func.func private @printF32(f32)
func.func private @printNewline()

func.func @print(%t: tensor<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v00 = tensor.extract %t[%c0, %c0] : tensor<2x2xf32>
  %v01 = tensor.extract %t[%c0, %c1] : tensor<2x2xf32>
  %v10 = tensor.extract %t[%c1, %c0] : tensor<2x2xf32>
  %v11 = tensor.extract %t[%c1, %c1] : tensor<2x2xf32>
  call @printF32(%v00) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%v01) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%v10) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%v11) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]]> : tensor<2x3xf32>
  %w1 = arith.constant dense<[[0.1, 0.2, 0.3], [-0.5, 0.0, 0.5], [1.0, -1.0, 0.0], [0.0, 0.0, -2.0]]> : tensor<4x3xf32>
  %b1 = arith.constant dense<[0.0, 0.1, -0.2, 0.3]> : tensor<4xf32>
  %w2 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.25, 0.0]]> : tensor<2x4xf32>
  %b2 = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %y = call @mlp(%x, %w1, %b1, %w2, %b2) : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  // CHECK: 3.27422
  // CHECK-NEXT: -1.34608
  // CHECK-NEXT: 0.79822{{[12]}}
  // CHECK-NEXT: -0.219524
  call @print(%y) : (tensor<2x2xf32>) -> ()

  %a = arith.constant dense<[[-1.0, 0.5], [2.0, -0.25]]> : tensor<2x2xf32>
  %relu, %gelu, %sigmoid = call @activations(%a) : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  // CHECK-NEXT: 0
  // CHECK-NEXT: 0.5
  // CHECK-NEXT: 2
  // CHECK-NEXT: 0
  call @print(%relu) : (tensor<2x2xf32>) -> ()
  // CHECK-NEXT: -0.158808
  // CHECK-NEXT: 0.345714
  // CHECK-NEXT: 1.9546
  // CHECK-NEXT: -0.100325
  call @print(%gelu) : (tensor<2x2xf32>) -> ()
  // CHECK-NEXT: 0.268941
  // CHECK-NEXT: 0.622459
  // CHECK-NEXT: 0.880797
  // CHECK-NEXT: 0.43782{{[34]}}
  call @print(%sigmoid) : (tensor<2x2xf32>) -> ()
  return
}

// float64 reference:
//   g = lambda v: v / 2 * (1 + math.erf(v / math.sqrt(2)))
//   h = g(x @ w1.T + b1);  y = h @ w2.T + b2
//   -> [[3.274224, -1.346078], [0.798222, -0.219524]]
//   gelu tanh form: v / 2 * (1 + tanh(sqrt(2 / pi) * (v + 0.044715 * v**3)))
//   -> [[-0.158808, 0.345714], [1.954598, -0.100325]]
//   sigmoid -> [[0.268941, 0.622459], [0.880797, 0.437823]] (0.437824 in f32)
