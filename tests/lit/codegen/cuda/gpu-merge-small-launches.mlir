// pt2c-merge-small-gpu-launches (compiler/codegen/cuda/MergeSmallLaunches.cpp): a kernel
// function's consecutive small launches become one launch of one block, the parts in
// order with a barrier between them, each guarded to its own threads, the blocks of a
// multi-block part run in turn by every thread; parts whose threads meet join only with
// their own block unchanged; allocations between the launches move above them.
// RUN: pt2c-opt %s -split-input-file --pt2c-merge-small-gpu-launches | FileCheck %s
// RUN: pt2c-opt %s -split-input-file --pt2c-merge-small-gpu-launches=max-threads=256 | FileCheck %s --check-prefix=SMALL

// A 64-thread part, an allocation, a two-block part of 256 threads that reads the first
// part's output: one launch of 256 threads.
// CHECK-LABEL: func.func @elementwise_parts
// CHECK:         %[[TMP:.*]] = memref.alloc() : memref<512xf32>
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[TX]], %c64
// CHECK:           scf.if %[[IN]] {
// CHECK:             memref.store {{.*}}, %arg1[%[[TX]]] : memref<64xf32>
// CHECK:           }
// CHECK:           gpu.barrier
// CHECK:           scf.for %[[B:.*]] = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK:             %[[BX:.*]] = arith.remui %[[B]], %c2
// CHECK:             %[[I:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK:             memref.store {{.*}}, %[[TMP]][%[[I]]] : memref<512xf32>
// CHECK:           gpu.terminator
// CHECK-NOT:     gpu.launch
// SMALL-LABEL: func.func @elementwise_parts
// SMALL-COUNT-2: gpu.launch
func.func @elementwise_parts(%x: memref<64xf32>, %y: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %y[%tx] : memref<64xf32>
    gpu.terminator
  }
  %tmp = memref.alloc() : memref<512xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %c63 = arith.constant 63 : index
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %j = arith.andi %i, %c63 : index
    %v = memref.load %y[%j] : memref<64xf32>
    memref.store %v, %tmp[%i] : memref<512xf32>
    gpu.terminator
  }
  return
}

// -----

// A row norm's block-wide reduction joins an elementwise part of its own block size; a
// reduction of another block size stays apart, and so does a large launch.
// CHECK-LABEL: func.func @reductions
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}},
// CHECK:           gpu.all_reduce add
// CHECK:           gpu.barrier
// CHECK:           memref.store
// CHECK:           gpu.terminator
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}},
// CHECK:           gpu.all_reduce add
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c544{{.*}},
// CHECK-NOT:     gpu.launch
func.func @reductions(%x: memref<512xf32>, %s: memref<1xf32>, %y: memref<256xf32>,
                      %big: memref<139264xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c544 = arith.constant 544 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<512xf32>
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
    memref.store %sum, %s[%c0] : memref<1xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %v = memref.load %s[%c0] : memref<1xf32>
    memref.store %v, %y[%tx] : memref<256xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<512xf32>
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
    memref.store %sum, %s[%c0] : memref<1xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c544, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %s[%c0] : memref<1xf32>
    memref.store %v, %big[%i] : memref<139264xf32>
    gpu.terminator
  }
  return
}
