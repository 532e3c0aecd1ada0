// pt2c-map-row-reductions-to-gpu (compiler/codegen/cuda): a reduction over many elements
// per output becomes a gpu.launch with one block per output element; the threads stride
// over the reduced elements, gpu.all_reduce combines their partial results and thread 0
// folds the total into the output. Then the CUDA target's lowering as the driver runs it
// (pt2c-cuda-kernels-to-nvvm): the launch is outlined like the mapped loop nests into the
// one gpu.module, and the all-reduce becomes warp shuffles, barriers and shared memory in
// the NVVM kernel.
// RUN: pt2c-opt %s --pass-pipeline='builtin.module(func.func(pt2c-map-row-reductions-to-gpu))' | FileCheck %s --check-prefix=MAP
// RUN: pt2c-opt %s --pass-pipeline='builtin.module(func.func(pt2c-map-row-reductions-to-gpu,convert-linalg-to-parallel-loops),canonicalize,func.func(pt2c-map-parallel-loops-to-gpu,convert-parallel-loops-to-gpu,pt2c-sink-into-gpu-launches),gpu-kernel-outlining,canonicalize)' | FileCheck %s --check-prefix=LAUNCH
// RUN: pt2c-opt %s --pt2c-cuda-kernels-to-nvvm | FileCheck %s --check-prefix=NVVM

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// Softmax's row maximum over 6 rows of 1000: 6 blocks of 256 threads, each thread
// reading columns t, t + 256, ... (neighbouring threads, neighbouring columns).
// MAP-LABEL: func.func @row_max
// MAP-NOT:     linalg.generic
// MAP-DAG:     %[[C6:.*]] = arith.constant 6 : index
// MAP-DAG:     %[[C256:.*]] = arith.constant 256 : index
// MAP:         gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C6]], {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// MAP:           %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// MAP:           %[[PART:.*]] = scf.for %[[COL:.*]] = %[[T]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[NEG_INF]]) -> (f32) {
// MAP:             %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[COL]]] : memref<6x1000xf32>
// MAP:             %[[M:.*]] = arith.maximumf %[[ACC]], %[[X]] : f32
// MAP:             scf.yield %[[M]] : f32
// MAP:           %[[ALL:.*]] = gpu.all_reduce maximumf %[[PART]] uniform {
// MAP:           %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// MAP:           scf.if %[[FIRST]] {
// MAP:             %[[OLD:.*]] = memref.load %arg1[%[[ROW]]] : memref<6xf32>
// MAP:             %[[NEW:.*]] = arith.maximumf %[[OLD]], %[[ALL]] : f32
// MAP:             memref.store %[[NEW]], %arg1[%[[ROW]]] : memref<6xf32>
// MAP:           gpu.terminator
// LAUNCH-LABEL: func.func @row_max
// LAUNCH:         gpu.launch_func @row_max_kernel::@row_max_kernel blocks in (%c6, %c1, %c1) threads in (%c256, %c1, %c1) args(%arg0 : memref<6x1000xf32>, %arg1 : memref<6xf32>)
// NVVM:         gpu.module @pt2c_kernels
// NVVM:           llvm.mlir.global internal @__wg_row_max_kernel_0() {addr_space = 3 : i32} : !llvm.array<32 x f32>
// NVVM:           llvm.func @row_max_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {gpu.kernel, {{.*}}nvvm.kernel
// NVVM:             nvvm.shfl.sync  bfly
// NVVM:             nvvm.barrier0
func.func @row_max(%x: memref<6x1000xf32>, %m: memref<6xf32>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<6x1000xf32>) outs(%m : memref<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// Softmax's sum of exp(x - max): the per-row operand is read in the loop, the payload
// before the combining op is cloned into it. 48 columns: 64 threads.
// MAP-LABEL: func.func @row_sum_of_exp
// MAP:         gpu.launch
// MAP-SAME:      threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
// MAP:           %[[ZERO:.*]] = arith.constant -0.000000e+00 : f32
// MAP:           scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// MAP:             %[[X:.*]] = memref.load %arg0
// MAP:             %[[M:.*]] = memref.load %arg1
// MAP:             %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// MAP:             %[[E:.*]] = math.exp %[[D]] : f32
// MAP:             %[[S:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// MAP:           gpu.all_reduce add
// LAUNCH-LABEL: func.func @row_sum_of_exp
// LAUNCH:         gpu.launch_func {{.*}} blocks in (%c8, %c1, %c1) threads in (%c64, %c1, %c1)
func.func @row_sum_of_exp(%x: memref<8x48xf32>, %m: memref<8xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : memref<8x48xf32>, memref<8xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %max: f32, %out: f32):
    %0 = arith.subf %in, %max : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %out : f32
    linalg.yield %2 : f32
  }
  return
}

// A mean over H x W (global average pooling): the reduced dimensions are delinearized
// from the thread's flat index, the output's from the block index.
// MAP-LABEL: func.func @spatial_sums
// MAP:         gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32,
// MAP-DAG:       arith.remui %[[B]], %c16
// MAP-DAG:       arith.divui %[[B]], %c16
// MAP:           scf.for %[[R:.*]] = {{.*}} to %c49 step %c64
// MAP-DAG:         arith.remui %[[R]], %c7
// MAP-DAG:         arith.divui %[[R]], %c7
#x4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#y2 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @spatial_sums(%x: memref<2x16x7x7xf32>, %y: memref<2x16xf32>) {
  linalg.generic {indexing_maps = [#x4, #y2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<2x16x7x7xf32>) outs(%y : memref<2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// The fill just before a reduction (how every reduction of a kernel starts) is not a
// launch of its own: thread 0 combines the fill value with the total and stores it.
// A fill further up, with another op in between, stays, and the output is loaded.
// MAP-LABEL: func.func @filled_sums
// MAP-NOT:     linalg.fill
// MAP:         gpu.launch
// MAP:           %[[ALL:.*]] = gpu.all_reduce add
// MAP:           scf.if
// MAP-NEXT:        %[[NEW:.*]] = arith.addf %cst, %[[ALL]] : f32
// MAP-NEXT:        memref.store %[[NEW]], %arg1
// MAP:         linalg.fill ins(%cst : f32) outs(%arg2 : memref<2x16xf32>)
// MAP:         memref.copy
// MAP:         gpu.launch
// MAP:           scf.if
// MAP-NEXT:        memref.load %arg2
func.func @filled_sums(%x: memref<2x16x7x7xf32>, %y: memref<2x16xf32>, %z: memref<2x16xf32>,
                       %w: memref<2x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<2x16xf32>)
  linalg.generic {indexing_maps = [#x4, #y2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<2x16x7x7xf32>) outs(%y : memref<2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%zero : f32) outs(%z : memref<2x16xf32>)
  memref.copy %w, %z : memref<2x16xf32> to memref<2x16xf32>
  linalg.generic {indexing_maps = [#x4, #y2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<2x16x7x7xf32>) outs(%z : memref<2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// Every dimension reduced (a rank-0 result): one block; an i64 sum.
// MAP-LABEL: func.func @full_sum_i64
// MAP:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}} threads({{.*}}) in (%{{.*}} = %c256,
// MAP:           gpu.all_reduce add %{{.*}} uniform {
// MAP-NEXT:      } : (i64) -> i64
// MAP:             memref.load %arg1[] : memref<i64>
// NVVM:           llvm.mlir.global internal @__wg_full_sum_i64_kernel_0() {addr_space = 3 : i32} : !llvm.array<32 x i64>
#all = affine_map<(d0, d1) -> ()>
func.func @full_sum_i64(%x: memref<40x30xi64>, %y: memref<i64>) {
  linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<40x30xi64>) outs(%y : memref<i64>) {
  ^bb0(%in: i64, %out: i64):
    %0 = arith.addi %out, %in : i64
    linalg.yield %0 : i64
  }
  return
}

// A reduction between parallel dimensions: a block per (outer, inner) output.
// MAP-LABEL: func.func @middle_sums
// MAP:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c64,
// LAUNCH-LABEL: func.func @middle_sums
// LAUNCH:         gpu.launch_func {{.*}} blocks in (%c64, %c1, %c1) threads in (%c64, %c1, %c1)
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mid = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @middle_sums(%x: memref<4x40x16xf32>, %y: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#x3, #mid], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<4x40x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// Left to the loop mapping: too few reduced elements, a contraction (each row of %a is
// read by every column of the product), a payload that is not combine(out, value), and
// two outputs (an arg-max's value and index).
// MAP-LABEL: func.func @not_row_reductions
// MAP-NOT:     gpu.launch
// MAP-COUNT-4: linalg.generic
// MAP-NOT:     gpu.launch
// MAP:         return
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @not_row_reductions(%x: memref<6x16xf32>, %y: memref<6xf32>, %a: memref<8x64xf32>,
                              %b: memref<64x32xf32>, %c: memref<8x32xf32>,
                              %z: memref<6x100xf32>, %w: memref<6xf32>, %i: memref<6xi64>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<6x16xf32>) outs(%y : memref<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x64xf32>, memref<64x32xf32>) outs(%c : memref<8x32xf32>) {
  ^bb0(%l: f32, %r: f32, %out: f32):
    %0 = arith.mulf %l, %r : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%z : memref<6x100xf32>) outs(%y : memref<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %0 = arith.mulf %out, %half : f32
    %1 = arith.addf %0, %in : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%z : memref<6x100xf32>) outs(%w, %i : memref<6xf32>, memref<6xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %gt, %in, %best : f32
    %k = arith.select %gt, %j64, %at : i64
    linalg.yield %v, %k : f32, i64
  }
  return
}

// One row times a matrix (a squeeze-excitation gate; here the named op a [1, K] x [N, K]
// product lowers to): a block per output, reading its row of the matrix, with the row
// every block shares read from cache; also with rows shorter than a warp ([1, 8] x
// [16, 8]: one thread per output would recompute a fused producer of the row for every
// output). Then the same product with two rows, a GEMM fallback, keeps the loop mapping.
// MAP-LABEL: func.func @row_times_matrix
// MAP-NOT:     linalg.matmul_transpose_b
// MAP:         %[[N:.*]] = arith.constant 16 : index
// MAP:         gpu.launch blocks(%[[COL:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[N]],
// MAP:           scf.for %[[K:[^ ]*]] =
// MAP-DAG:         memref.load %arg0[%{{.*}}, %[[K]]] : memref<1x64xf32>
// MAP-DAG:         memref.load %arg1[%{{.*}}, %[[K]]] : memref<16x64xf32>
// MAP:           gpu.all_reduce add
// MAP:         gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32,
// MAP:           memref.load %arg6[%{{.*}}, %{{.*}}] : memref<16x8xf32>
// MAP:           gpu.all_reduce add
// MAP:         linalg.generic
// MAP-NOT:     gpu.launch
// MAP:         return
func.func @row_times_matrix(%x: memref<1x64xf32>, %w: memref<16x64xf32>, %y: memref<1x16xf32>,
                            %x2: memref<2x64xf32>, %y2: memref<2x16xf32>,
                            %s: memref<1x8xf32>, %v: memref<16x8xf32>) {
  linalg.matmul_transpose_b ins(%x, %w : memref<1x64xf32>, memref<16x64xf32>)
      outs(%y : memref<1x16xf32>)
  linalg.matmul_transpose_b ins(%s, %v : memref<1x8xf32>, memref<16x8xf32>)
      outs(%y : memref<1x16xf32>)
  linalg.matmul_transpose_b ins(%x2, %w : memref<2x64xf32>, memref<16x64xf32>)
      outs(%y2 : memref<2x16xf32>)
  return
}

// A mean: the reduction, then its division and conversion to f16 (the loop nest
// kernel formation put right after it, pt2c-form-kernels' reduction epilogue). Thread 0
// of each row computes them from the total it stored: one launch, not two.
// MAP-LABEL: func.func @mean_with_epilogue
// MAP-NOT:     linalg.generic
// MAP:         gpu.launch blocks(%[[ROW:[^,]*]], %{{.*}}, %{{.*}}) in
// MAP:           gpu.all_reduce add
// MAP:           scf.if
// MAP-NEXT:        %[[T:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// MAP-NEXT:        memref.store %[[T]], %arg1[%[[ROW]]] : memref<8xf32>
// MAP-NEXT:        %[[M:.*]] = arith.divf %[[T]], %{{.*}} : f32
// MAP-NEXT:        %[[H:.*]] = arith.truncf %[[M]] : f32 to f16
// MAP-NEXT:        memref.store %[[H]], %arg2[%[[ROW]]] : memref<8xf16>
// MAP-NOT:     linalg.generic
// LAUNCH-LABEL: func.func @mean_with_epilogue
// LAUNCH:         gpu.launch_func
// LAUNCH-NOT:     gpu.launch_func
// LAUNCH:         return
#vec = affine_map<(d0) -> (d0)>
func.func @mean_with_epilogue(%x: memref<8x64xf32>, %s: memref<8xf32>, %h: memref<8xf16>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  %n = arith.constant 64.0 : f32
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%s : memref<8xf32>) outs(%h : memref<8xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.divf %in, %n : f32
    %1 = arith.truncf %0 : f32 to f16
    linalg.yield %1 : f16
  }
  return
}

// Loop nests after a reduction that stay launches of their own: one that writes what
// the reduction reads (other blocks may still be reading it), and one that reads the
// reduction's output at another row than its own (that row may not be stored yet).
// MAP-LABEL: func.func @not_epilogues
// MAP:         gpu.launch
// MAP:         linalg.generic
// MAP:         gpu.launch
// MAP:         linalg.generic
#first = affine_map<(d0) -> (d0, 0)>
#reversed = affine_map<(d0) -> (7 - d0)>
func.func @not_epilogues(%x: memref<8x64xf32>, %s: memref<8xf32>, %t: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#vec, #first], iterator_types = ["parallel"]}
      ins(%s : memref<8xf32>) outs(%x : memref<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#reversed, #vec], iterator_types = ["parallel"]}
      ins(%s : memref<8xf32>) outs(%t : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
