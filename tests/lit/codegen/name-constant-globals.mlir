// RUN: pt2c-opt %s -pt2c-name-constant-globals | FileCheck %s

// Constant globals get their names in the order the module first uses them and are
// listed in reverse of it, whatever names and places module bufferization gave them
// (MLIR 19 visits the functions in an order that changes from run to run).
// CHECK: memref.global "private" constant @__constant_2xi64_1 : memref<2xi64> = dense<[5, 6]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<1.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_2xi64_0 : memref<2xi64> = dense<[3, 4]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xi64 : memref<2xi64> = dense<[1, 2]>
// CHECK-NEXT: memref.global "private" @state : memref<2xi64>
// CHECK-LABEL: func.func @first
// CHECK: memref.get_global @__constant_2xi64 : memref<2xi64>
// CHECK: memref.get_global @__constant_2xi64_0 : memref<2xi64>
// CHECK: memref.get_global @state : memref<2xi64>
// CHECK-LABEL: func.func @second
// CHECK: memref.get_global @__constant_2xf32 : memref<2xf32>
// CHECK: memref.get_global @__constant_2xi64_1 : memref<2xi64>
// CHECK: memref.get_global @__constant_2xi64 : memref<2xi64>
memref.global "private" constant @__constant_2xi64 : memref<2xi64> = dense<[5, 6]>
memref.global "private" constant @__constant_2xi64_0 : memref<2xi64> = dense<[1, 2]>
memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<1.0>
memref.global "private" constant @__constant_2xi64_1 : memref<2xi64> = dense<[3, 4]>
memref.global "private" @state : memref<2xi64>

func.func @first() -> (memref<2xi64>, memref<2xi64>, memref<2xi64>) {
  %a = memref.get_global @__constant_2xi64_0 : memref<2xi64>
  %b = memref.get_global @__constant_2xi64_1 : memref<2xi64>
  %s = memref.get_global @state : memref<2xi64>
  return %a, %b, %s : memref<2xi64>, memref<2xi64>, memref<2xi64>
}

func.func @second() -> (memref<2xf32>, memref<2xi64>, memref<2xi64>) {
  %c = memref.get_global @__constant_2xf32 : memref<2xf32>
  %d = memref.get_global @__constant_2xi64 : memref<2xi64>
  %a = memref.get_global @__constant_2xi64_0 : memref<2xi64>
  return %c, %d, %a : memref<2xf32>, memref<2xi64>, memref<2xi64>
}
