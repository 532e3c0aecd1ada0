// RUN: pt2c-opt %s -split-input-file -pt2c-dynamic-kernel-abi -verify-diagnostics | FileCheck %s

// A bufferized kernel of a dynamic model: each memref argument with dynamic sizes
// becomes a bare pointer, and the memref is rebuilt from it with the sizes
// pt2c.kernel_dims gives ("batch*seq" from the symbol values), row-major strides and
// offset 0. Static memrefs and the symbol values keep their types.
// CHECK-LABEL: func.func @dynamic_kernel(
// CHECK-SAME: %[[SYMS:[^:]*]]: memref<2xi64>, %[[X:[^:]*]]: !llvm.ptr, %[[W:[^:]*]]: memref<4xf32>, %[[OUT:[^:]*]]: !llvm.ptr)
// CHECK-SAME: pt2c.kernel_dims
// The input's descriptor: sizes [batch*seq, 4], strides [4, 1].
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[B64:.*]] = memref.load %[[SYMS]][%[[C0]]] : memref<2xi64>
// CHECK: %[[B:.*]] = arith.index_cast %[[B64]] : i64 to index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[S64:.*]] = memref.load %[[SYMS]][%[[C1]]] : memref<2xi64>
// CHECK: %[[S:.*]] = arith.index_cast %[[S64]] : i64 to index
// CHECK: %[[N:.*]] = arith.muli %[[B]], %[[S]] : index
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK: %[[D0:.*]] = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[X]], %[[D0]][0]
// CHECK: %[[D2:.*]] = llvm.insertvalue %[[X]], %[[D1]][1]
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[D3:.*]] = llvm.insertvalue %[[ZERO]], %[[D2]][2]
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[D4:.*]] = llvm.insertvalue %[[FOUR]], %[[D3]][3, 1]
// CHECK: %[[D5:.*]] = llvm.insertvalue %[[ONE]], %[[D4]][4, 1]
// CHECK: %[[STRIDE0:.*]] = arith.muli %[[ONE]], %[[FOUR]] : i64
// CHECK: %[[D6:.*]] = llvm.insertvalue %[[N64]], %[[D5]][3, 0]
// CHECK: %[[D7:.*]] = llvm.insertvalue %[[STRIDE0]], %[[D6]][4, 0]
// CHECK: %[[XM:.*]] = builtin.unrealized_conversion_cast %[[D7]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x4xf32>
// The output's descriptor likewise; the body reads and writes the rebuilt memrefs.
// CHECK: %[[OUTM:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?x4xf32>
// CHECK: memref.copy %[[XM]], %[[OUTM]] : memref<?x4xf32> to memref<?x4xf32>
// CHECK: memref.load %[[W]]
func.func @dynamic_kernel(%syms: memref<2xi64>, %x: memref<?x4xf32>, %w: memref<4xf32>, %out: memref<?x4xf32>)
    attributes {pt2c.symbol_names = ["batch", "seq"],
                pt2c.kernel_dims = [["batch*seq", "4"], ["4"], ["batch*seq", "4"]]} {
  memref.copy %x, %out : memref<?x4xf32> to memref<?x4xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %w[%c0] : memref<4xf32>
  return
}

// -----

// Kernels of static models keep their memrefs.
// CHECK-LABEL: func.func @static_kernel(
// CHECK-SAME: %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// CHECK-NOT: llvm.
// CHECK: return
func.func @static_kernel(%x: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %x, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// pt2c.kernel_dims must describe every buffer: the ABI cannot guess a size.
// expected-error @+1 {{dynamic kernel has 3 arguments after bufferization, pt2c.kernel_dims describes 1 plus the symbol values}}
func.func @missing_dims(%syms: memref<1xi64>, %x: memref<?xf32>, %out: memref<?xf32>)
    attributes {pt2c.symbol_names = ["n"], pt2c.kernel_dims = [["n"]]} {
  memref.copy %x, %out : memref<?xf32> to memref<?xf32>
  return
}

// -----

// expected-error @+1 {{argument 1 has dynamic sizes that pt2c.kernel_dims does not give}}
func.func @unparsable_dims(%syms: memref<1xi64>, %x: memref<?xf32>)
    attributes {pt2c.symbol_names = ["n"], pt2c.kernel_dims = [["m"]]} {
  return
}
