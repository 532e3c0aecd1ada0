// pt2c-map-parallel-loops-to-gpu (compiler/codegen/cuda): each top-level loop nest
// becomes one launch: dimensions collapsed row-major, tiled by the block size (the tile
// shrinks to small loops), tiles on blocks and elements on threads, reductions
// sequential in a thread; top-level code outside loops gets a single-thread launch.
// Then the GPU lowering the CUDA target runs: launches with constant sizes whose
// arguments are only buffers, and (pt2c-cuda-kernels-to-nvvm, as the driver runs it) NVVM
// kernels in one gpu.module with one pointer parameter per buffer.
// RUN: pt2c-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-parallel-loops,pt2c-map-parallel-loops-to-gpu))' | FileCheck %s --check-prefix=MAP
// RUN: pt2c-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-parallel-loops,pt2c-map-parallel-loops-to-gpu,convert-parallel-loops-to-gpu,pt2c-sink-into-gpu-launches),gpu-kernel-outlining,canonicalize)' | FileCheck %s --check-prefix=LAUNCH
// RUN: pt2c-opt %s --pt2c-cuda-kernels-to-nvvm | FileCheck %s --check-prefix=NVVM

#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// 80 elements, two neighbours a thread (8 bytes of f32): one block of 40 threads; the
// flat index splits into (row, column pair) with the pair varying fastest, and each
// access is repeated for the pair's second column, side by side.
// MAP-LABEL: func.func @bias_add
// MAP-DAG:     %[[C2:.*]] = arith.constant 2 : index
// MAP-DAG:     %[[C5:.*]] = arith.constant 5 : index
// MAP:         scf.parallel (%[[BLOCK:.*]]) =
// MAP:           scf.parallel (%[[THREAD:.*]]) =
// MAP:             %[[FLAT:.*]] = arith.addi %[[THREAD]], %[[BLOCK]] : index
// MAP:             arith.cmpi ult
// MAP:             scf.if
// MAP:               %[[PAIR:.*]] = arith.remsi %[[FLAT]], %[[C5]] : index
// MAP:               %[[ROW:.*]] = arith.divsi %[[FLAT]], %[[C5]] : index
// MAP:               %[[COL:.*]] = arith.muli %[[PAIR]], %[[C2]] : index
// MAP:               %[[NEXT:.*]] = arith.addi %[[COL]], %{{.*}} : index
// MAP-NEXT:          memref.load %{{.*}}[%[[COL]]] : memref<10xf32>
// MAP-NEXT:          memref.load %{{.*}}[%[[NEXT]]] : memref<10xf32>
// MAP-NEXT:          memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<8x10xf32>
// MAP-NEXT:          memref.load %{{.*}}[%[[ROW]], %[[NEXT]]] : memref<8x10xf32>
// MAP:               memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]] : memref<8x10xf32>
// MAP-NEXT:          memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[NEXT]]] : memref<8x10xf32>
// MAP:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// MAP:         } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// LAUNCH-LABEL: func.func @bias_add
// LAUNCH:         gpu.launch_func @bias_add_kernel::@bias_add_kernel blocks in (%c1, %c1, %c1) threads in (%c40, %c1, %c1) args(%arg0 : memref<10xf32>, %arg1 : memref<8x10xf32>, %arg2 : memref<8x10xf32>)
func.func @bias_add(%b: memref<10xf32>, %x: memref<8x10xf32>, %y: memref<8x10xf32>) {
  linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %x : memref<10xf32>, memref<8x10xf32>) outs(%y : memref<8x10xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  }
  return
}

// Half-precision rows of 64: four neighbours a thread (8 bytes), 64 threads for 256
// elements; the loads of the four sit side by side for the backend to merge, and the
// stores.
// MAP-LABEL: func.func @half_rows
// MAP-COUNT-4:     memref.load %{{.*}} : memref<4x64xf16>
// MAP-NEXT:        arith.mulf
// MAP-COUNT-3:     arith.mulf
// MAP-COUNT-4:     memref.store %{{.*}} : memref<4x64xf16>
// LAUNCH-LABEL: func.func @half_rows
// LAUNCH:         gpu.launch_func @half_rows_kernel::@half_rows_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
func.func @half_rows(%x: memref<4x64xf16>, %y: memref<4x64xf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x64xf16>) outs(%y : memref<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.mulf %in, %in : f16
    linalg.yield %0 : f16
  }
  return
}

// One dimension of 1280 f32 -> f16, two neighbours a thread: the nest is normalized
// like a collapsed one (640 pairs, 3 blocks of 256 threads), so the guard tests the
// pair's index, and the element is twice it. Left at step 2, tileParallelLoop's guard
// multiplied the thread's index by the step a second time and skipped the tail of
// blocks 1 and 2 (efficientnet_b0_fp16's average pool, thirty-third session).
// MAP-LABEL: func.func @long_row
// MAP-DAG:     %[[C2:.*]] = arith.constant 2 : index
// MAP-DAG:     %[[C640:.*]] = arith.constant 640 : index
// MAP:         %[[PAIRS:.*]] = arith.muli %{{.*}}, %[[C640]] : index
// MAP:         scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[PAIRS]]) step (%[[TILE:.*]]) {
// MAP:           scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%[[TILE]]) step (%{{.*}}) {
// MAP:             %[[FLAT:.*]] = arith.addi %[[THREAD]], %[[BLOCK]] : index
// MAP:             arith.cmpi ult, %{{.*}}, %[[PAIRS]] : index
// MAP:             scf.if
// MAP:               %[[ELEM:.*]] = arith.muli %[[FLAT]], %[[C2]] : index
// MAP:               memref.load %{{.*}}[%[[ELEM]]] : memref<1280xf32>
// LAUNCH-LABEL: func.func @long_row
// LAUNCH:         gpu.launch_func @long_row_kernel::@long_row_kernel blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1)
func.func @long_row(%x: memref<1280xf32>, %y: memref<1280xf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<1280xf32>) outs(%y : memref<1280xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    linalg.yield %0 : f16
  }
  return
}

// A transpose reads along the innermost loop's column, not its row: one element a
// thread, 256 threads.
// LAUNCH-LABEL: func.func @transpose
// LAUNCH:         gpu.launch_func @transpose_kernel::@transpose_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
#transposed = affine_map<(d0, d1) -> (d1, d0)>
func.func @transpose(%x: memref<16x16xf32>, %y: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [#transposed, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// 2048 outputs: 8 blocks of 256 threads, the reduction a loop in each thread.
// MAP-LABEL: func.func @matmul
// MAP:         scf.parallel
// MAP:           scf.parallel
// MAP:             scf.if
// MAP:               scf.for %{{.*}} = %{{.*}} to %c64 step
// MAP:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// MAP:         } {mapping = [#gpu.loop_dim_map<processor = block_x
// LAUNCH-LABEL: func.func @matmul
// LAUNCH:         gpu.launch_func @matmul_kernel::@matmul_kernel blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1) args(%arg0 : memref<8x64xf32>, %arg1 : memref<64x256xf32>, %arg2 : memref<8x256xf32>)
// LAUNCH:       gpu.module @matmul_kernel
// LAUNCH:         gpu.func @matmul_kernel(%{{.*}}: memref<8x64xf32>, %{{.*}}: memref<64x256xf32>, %{{.*}}: memref<8x256xf32>) kernel
// LAUNCH:           gpu.block_id x
// LAUNCH:           gpu.thread_id x
// NVVM:         gpu.module @pt2c_kernels
// NVVM:           llvm.func @matmul_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel}
// NVVM-DAG:         nvvm.read.ptx.sreg.ctaid.x
// NVVM-DAG:         nvvm.read.ptx.sreg.tid.x
func.func @matmul(%a: memref<8x64xf32>, %b: memref<64x256xf32>, %c: memref<8x256xf32>) {
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x256xf32>) outs(%c : memref<8x256xf32>)
  return
}

// Code outside any loop: one block of one thread.
// MAP-LABEL: func.func @scalar
// MAP:         scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1) {
// MAP-NEXT:      memref.load
// MAP-NEXT:      arith.addf
// MAP-NEXT:      memref.store
// MAP:         } {mapping = [#gpu.loop_dim_map<processor = block_x
// LAUNCH-LABEL: func.func @scalar
// LAUNCH:         gpu.launch_func @scalar_kernel::@scalar_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
func.func @scalar(%x: memref<f32>, %y: memref<f32>) {
  %0 = memref.load %x[] : memref<f32>
  %1 = arith.addf %0, %0 : f32
  memref.store %1, %y[] : memref<f32>
  return
}

// memref.copy is a loop nest like any other.
// MAP-LABEL: func.func @copy
// MAP-NOT:     memref.copy
// MAP:         memref.load %arg0
// MAP-NEXT:    memref.store %{{.*}}, %arg1
// LAUNCH-LABEL: func.func @copy
// LAUNCH:         gpu.launch_func @copy_kernel::@copy_kernel blocks in (%c1, %c1, %c1) threads in (%c12, %c1, %c1)
func.func @copy(%x: memref<4x3xf32>, %y: memref<4x3xf32>) {
  memref.copy %x, %y : memref<4x3xf32> to memref<4x3xf32>
  return
}

// A reduction outside the parallel dimension: the whole nest runs in one thread, the
// inner parallel loop unmapped (it becomes a plain loop inside the kernel).
// MAP-LABEL: func.func @column_sums
// MAP:         scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c1{{.*}}) step
// MAP:           scf.for
// MAP:             scf.parallel
// MAP:             }{{$}}
// MAP:         } {mapping = [#gpu.loop_dim_map<processor = block_x
// LAUNCH-LABEL: func.func @column_sums
// LAUNCH:         gpu.launch_func @column_sums_kernel::@column_sums_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
// LAUNCH:       gpu.func @column_sums_kernel
// LAUNCH:         scf.for
// LAUNCH:           scf.parallel
#col = affine_map<(d0, d1) -> (d1)>
func.func @column_sums(%x: memref<6x4xf32>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<6x4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// A reduction between parallel dimensions (sum over the middle one): the outer
// dimension on threads, the reduction a loop in each thread, the inner parallel loop
// inside it unmapped.
// MAP-LABEL: func.func @middle_sums
// MAP:         scf.parallel
// MAP:           scf.parallel
// MAP:             scf.for
// MAP:               scf.parallel
// MAP:               }{{$}}
// MAP:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// LAUNCH-LABEL: func.func @middle_sums
// LAUNCH:         gpu.launch_func @middle_sums_kernel::@middle_sums_kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1)
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#y2 = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @middle_sums(%x: memref<4x6x16xf32>, %y: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#x3, #y2], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<4x6x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// A function's temporaries are launch arguments like its own buffers; constants are
// sunk into the kernels.
// LAUNCH-LABEL: func.func @two_steps
// LAUNCH:         %[[TMP:.*]] = memref.alloc() : memref<16xf32>
// LAUNCH:         gpu.launch_func @two_steps_kernel::@two_steps_kernel {{.*}} args(%arg0 : memref<16xf32>, %[[TMP]] : memref<16xf32>)
// LAUNCH-NEXT:    gpu.launch_func @two_steps_kernel_0::@two_steps_kernel {{.*}} args(%[[TMP]] : memref<16xf32>, %arg1 : memref<16xf32>)
#v = affine_map<(d0) -> (d0)>
func.func @two_steps(%x: memref<16xf32>, %y: memref<16xf32>) {
  %two = arith.constant 2.0 : f32
  %tmp = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%x : memref<16xf32>) outs(%tmp : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %two : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%tmp : memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.erf %in : f32
    linalg.yield %0 : f32
  }
  return
}
// NVVM: llvm.func @__nv_erff(f32) -> f32

// A view of an argument moves into the kernel, which then takes the whole argument: a
// strided view cannot be a bare-pointer parameter.
// LAUNCH-LABEL: func.func @row_of_argument
// LAUNCH-NOT:     memref.subview
// LAUNCH:         gpu.launch_func @row_of_argument_kernel::@row_of_argument_kernel {{.*}} args(%arg0 : memref<4x8xf32>, %arg1 : memref<8xf32>)
// LAUNCH:       gpu.func @row_of_argument_kernel(%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<8xf32>) kernel
// LAUNCH:         memref.subview
func.func @row_of_argument(%x: memref<4x8xf32>, %y: memref<8xf32>) {
  %row = memref.subview %x[2, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: 16>>
  linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%row : memref<8xf32, strided<[1], offset: 16>>) outs(%y : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
