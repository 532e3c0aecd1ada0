// RUN: pt2c-opt %s -split-input-file -pt2c-bind-kernel-symbols | FileCheck %s

// A kernel of a dynamic model takes the symbol values first, one i64 per symbol, and
// reads its prim.symbol ops from them (by position, not by name).
// CHECK-LABEL: func.func private @dynamic_kernel(
// CHECK-SAME: %[[SYMS:.*]]: memref<2xi64>, %[[X:.*]]: tensor<?xf32>) -> tensor<?xf32>
// CHECK-NOT: prim.symbol
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[V:.*]] = memref.load %[[SYMS]][%[[C1]]] : memref<2xi64>
// CHECK: %[[SEQ:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: tensor.empty(%[[SEQ]]) : tensor<?xf32>
func.func private @dynamic_kernel(%x: tensor<?xf32>) -> tensor<?xf32>
    attributes {pt2c.kernel, pt2c.symbol_names = ["batch", "seq"]} {
  %seq = prim.symbol "seq", 1
  %e = tensor.empty(%seq) : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// A kernel of a dynamic model that reads no symbol still takes the values (the plan
// calls every kernel of the model so); at least one entry even with no names.
// CHECK-LABEL: func.func private @no_symbols_read(
// CHECK-SAME: %{{.*}}: memref<1xi64>, %{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func private @no_symbols_read(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {pt2c.kernel, pt2c.symbol_names = []} {
  return %x : tensor<4xf32>
}

// -----

// Static models' kernels keep their signature.
// CHECK-LABEL: func.func private @static_kernel(
// CHECK-SAME: %{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func private @static_kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pt2c.kernel} {
  return %x : tensor<4xf32>
}
