// pt2c-split-kernel-loops: kernels whose ops can each be restricted to the same range of
// one loop, touching only those rows of every buffer they write, get `begin` and `end`
// parameters bounding that loop; the module records [extent, work] per kernel.
// RUN: pt2c-opt %s --pt2c-split-kernel-loops | FileCheck %s

// CHECK: module attributes {pt2c.kernel_splits = {padded_max = array<i64: 4, 168>, rows = array<i64: 8, 1032>, silu = array<i64: 32, 512>}}

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

// Max pooling's padded copy: the interior of a temporary written through a subview that
// keeps the channel axis whole, so all three ops split on channels.
// CHECK-LABEL: func.func @padded_max(
// CHECK-SAME: %[[B:[a-z0-9]*]]: index, %[[E:[a-z0-9]*]]: index)
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK: memref.subview
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]]
// CHECK-NOT: linalg.
#pool_in = affine_map<(d0, d1, d2) -> (d0, d1 + d2)>
#pool_win = affine_map<(d0, d1, d2) -> (d2)>
#pool_out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @padded_max(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %t = memref.alloc() : memref<4x10xf32>
  %w = memref.alloc() : memref<3xf32>
  %low = arith.constant 0xFF800000 : f32
  linalg.fill ins(%low : f32) outs(%t : memref<4x10xf32>)
  %inner = memref.subview %t[0, 1] [4, 8] [1, 1] : memref<4x10xf32> to memref<4x8xf32, strided<[10, 1], offset: 1>>
  linalg.copy ins(%x : memref<4x8xf32>) outs(%inner : memref<4x8xf32, strided<[10, 1], offset: 1>>)
  linalg.generic {indexing_maps = [#pool_in, #pool_win, #pool_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %w : memref<4x10xf32>, memref<3xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  }
  memref.dealloc %t : memref<4x10xf32>
  memref.dealloc %w : memref<3xf32>
  return
}

// The same with the subview offset along the rows: row i of the copy is row i + 1 of the
// temporary. No split.
// CHECK-LABEL: func.func @shifted_rows(
// CHECK-SAME: %{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4x8xf32>) {
// CHECK: linalg.copy
func.func @shifted_rows(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %t = memref.alloc() : memref<5x8xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<5x8xf32>)
  %lower = memref.subview %t[1, 0] [4, 8] [1, 1] : memref<5x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 8>>
  linalg.copy ins(%x : memref<4x8xf32>) outs(%lower : memref<4x8xf32, strided<[8, 1], offset: 8>>)
  %upper = memref.subview %t[0, 0] [4, 8] [1, 1] : memref<5x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  linalg.copy ins(%upper : memref<4x8xf32, strided<[8, 1]>>) outs(%y : memref<4x8xf32>)
  memref.dealloc %t : memref<5x8xf32>
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
