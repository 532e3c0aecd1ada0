// RUN: pt2c-opt %s -split-input-file -pt2c-copy-returned-arguments | FileCheck %s

// An argument returned unchanged is returned as a copy into a new tensor (with its
// dynamic sizes), so that bufferization gives the result a buffer of its own; a
// computed result stays as it is.
// CHECK-LABEL: func.func @returns_arguments(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK: %[[E:.*]] = prim.exp %[[Y]]
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x4xf32>
// CHECK: %[[EMPTY_X:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK: %[[COPY_X:.*]] = linalg.copy ins(%[[X]] : tensor<?x4xf32>) outs(%[[EMPTY_X]] : tensor<?x4xf32>)
// CHECK: %[[EMPTY_Y:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[COPY_Y:.*]] = linalg.copy ins(%[[Y]] : tensor<4xf32>) outs(%[[EMPTY_Y]] : tensor<4xf32>)
// CHECK: return %[[COPY_X]], %[[E]], %[[COPY_Y]]
func.func @returns_arguments(%x: tensor<?x4xf32>, %y: tensor<4xf32>)
    -> (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = prim.exp %y : tensor<4xf32>
  return %x, %e, %y : tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Nothing to copy.
// CHECK-LABEL: func.func @computes(
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @computes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = prim.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
