// pt2c-split-kernel-loops: kernels whose ops can each be restricted to the same range of
// one loop, touching only those rows of every buffer they write, get `begin` and `end`
// parameters bounding that loop; the module records [extent, work] per kernel.
// RUN: pt2c-opt %s --pt2c-split-kernel-loops | FileCheck %s

// CHECK: module attributes {pt2c.kernel_splits = {rows = array<i64: 8, 1032>, silu = array<i64: 32, 512>}}

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id1 = affine_map<(d0) -> (d0)>

// Elementwise on [1, 32, 16]: the unit loop stays whole, the 32 rows split.
// CHECK-LABEL: func.func @silu(
// CHECK-SAME: %{{.*}}: memref<1x32x16xf32>, %{{.*}}: memref<1x32x16xf32>, %[[B:.*]]: index, %[[E:.*]]: index)
// CHECK: scf.for %{{.*}} = %c0 to %c1
// CHECK-NEXT: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c16
// CHECK-NOT: linalg.
func.func @silu(%x: memref<1x32x16xf32>, %y: memref<1x32x16xf32>) {
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<1x32x16xf32>) outs(%y : memref<1x32x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}

// Row sums in a temporary, then each row divided by its sum: every op splits on rows.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[B:[a-z0-9]*]]: index, %[[E:[a-z0-9]*]]: index)
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK-NOT: linalg.
func.func @rows(%x: memref<8x64xf32>, %y: memref<8x64xf32>) {
  %t = memref.alloc() : memref<8xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<8xf32>)
  linalg.generic {indexing_maps = [#row, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%t : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#row, #red, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : memref<8x64xf32>, memref<8xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  memref.dealloc %t : memref<8xf32>
  return
}

// A temporary read transposed: one op's rows are the other's columns. No split.
// CHECK-LABEL: func.func @transposed(
// CHECK-SAME: %{{.*}}: memref<8x8xf32>, %{{.*}}: memref<8x8xf32>) {
// CHECK: linalg.generic
func.func @transposed(%x: memref<8x8xf32>, %y: memref<8x8xf32>) {
  %t = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%t : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#tr, #row], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %t : memref<8x8xf32>
  return
}

// A body that loads from a buffer the kernel writes (a scatter's shape): no split.
// CHECK-LABEL: func.func @reads_written(
// CHECK-SAME: %{{.*}}: memref<8xf32>, %{{.*}}: memref<8xindex>) {
// CHECK: linalg.generic
func.func @reads_written(%y: memref<8xf32>, %i: memref<8xindex>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%i : memref<8xindex>) outs(%y : memref<8xf32>) {
  ^bb0(%j: index, %o: f32):
    %v = memref.load %y[%j] : memref<8xf32>
    linalg.yield %v : f32
  }
  return
}

// A copy into the output: not reasoned about. No split.
// CHECK-LABEL: func.func @copies(
// CHECK: memref.copy
func.func @copies(%x: memref<8xf32>, %y: memref<8xf32>) {
  memref.copy %x, %y : memref<8xf32> to memref<8xf32>
  return
}
