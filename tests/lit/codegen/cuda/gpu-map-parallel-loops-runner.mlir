// The index arithmetic of pt2c-map-parallel-loops-to-gpu, executed: the mapped loops
// (block loop, thread loop, bound check, row-major split of the flat index) run on the
// CPU with mlir-cpu-runner, where the GPU mapping attributes are ignored. A block size of
// 4 gives several blocks and a partial last one (15 and 6 elements), and a reduction
// between parallel dimensions runs as a loop around an unmapped parallel loop.
// RUN: pt2c-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-parallel-loops,pt2c-map-parallel-loops-to-gpu{block-size=4}),lower-affine,expand-strided-metadata,convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | mlir-cpu-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s

#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// y[i, j] = b[j] + x[i, j] over 3x5.
func.func @bias_add(%b: memref<5xf32>, %x: memref<3x5xf32>, %y: memref<3x5xf32>) {
  linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %x : memref<5xf32>, memref<3x5xf32>) outs(%y : memref<3x5xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  }
  return
}

// (3x4) x (4x2), accumulating into zeros.
func.func @matmul(%a: memref<3x4xf32>, %b: memref<4x2xf32>, %c: memref<3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x2xf32>)
  linalg.matmul ins(%a, %b : memref<3x4xf32>, memref<4x2xf32>) outs(%c : memref<3x2xf32>)
  return
}

// y[i, k] = sum_j x[i, j, k] over 2x3x4: the reduction between the parallel dimensions.
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#y2 = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @middle_sums(%x: memref<2x3x4xf32>, %y: memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<2x4xf32>)
  linalg.generic {indexing_maps = [#x3, #y2], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<2x3x4xf32>) outs(%y : memref<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

memref.global "private" constant @s : memref<2x3x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0], [100.0, 200.0, 300.0, 400.0]], [[-1.0, -2.0, -3.0, -4.0], [0.5, 0.5, 0.5, 0.5], [2.0, 2.0, 2.0, 2.0]]]>
memref.global "private" constant @b : memref<5xf32> = dense<[0.0, 100.0, 200.0, 300.0, 400.0]>
memref.global "private" constant @x : memref<3x5xf32> = dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0, 15.0]]>
memref.global "private" constant @a : memref<3x4xf32> = dense<[[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, -1.0], [2.0, 2.0, 2.0, 2.0]]>
memref.global "private" constant @w : memref<4x2xf32> = dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0]]>

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %b = memref.get_global @b : memref<5xf32>
  %x = memref.get_global @x : memref<3x5xf32>
  %y = memref.alloc() : memref<3x5xf32>
  call @bias_add(%b, %x, %y) : (memref<5xf32>, memref<3x5xf32>, memref<3x5xf32>) -> ()
  %yu = memref.cast %y : memref<3x5xf32> to memref<*xf32>
  call @printMemrefF32(%yu) : (memref<*xf32>) -> ()
  // CHECK:      [1,   102,   203,   304,   405]
  // CHECK-NEXT: [6,   107,   208,   309,   410]
  // CHECK-NEXT: [11,   112,   213,   314,   415]

  %a = memref.get_global @a : memref<3x4xf32>
  %w = memref.get_global @w : memref<4x2xf32>
  %c = memref.alloc() : memref<3x2xf32>
  call @matmul(%a, %w, %c) : (memref<3x4xf32>, memref<4x2xf32>, memref<3x2xf32>) -> ()
  %cu = memref.cast %c : memref<3x2xf32> to memref<*xf32>
  call @printMemrefF32(%cu) : (memref<*xf32>) -> ()
  // CHECK:      [0,   13]
  // CHECK-NEXT: [1,   -1]
  // CHECK-NEXT: [2,   8]

  %s = memref.get_global @s : memref<2x3x4xf32>
  %t = memref.alloc() : memref<2x4xf32>
  call @middle_sums(%s, %t) : (memref<2x3x4xf32>, memref<2x4xf32>) -> ()
  %tu = memref.cast %t : memref<2x4xf32> to memref<*xf32>
  call @printMemrefF32(%tu) : (memref<*xf32>) -> ()
  // CHECK:      [111,   222,   333,   444]
  // CHECK-NEXT: [1.5,   0.5,   -0.5,   -1.5]
  memref.dealloc %t : memref<2x4xf32>
  memref.dealloc %y : memref<3x5xf32>
  memref.dealloc %c : memref<3x2xf32>
  return
}
