// What pt2c-map-parallel-loops-to-gpu refuses, with a message on the op.
// RUN: pt2c-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(pt2c-map-parallel-loops-to-gpu))'

func.func @parallel_reduction(%x: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @below {{GPU lowering does not handle parallel reductions yet}}
  %sum = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = memref.load %x[%i] : memref<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}

// -----

// A dynamic size with no bound (not a view of a dynamic kernel's buffer).
func.func @unbounded_copy(%x: memref<?xf32>, %y: memref<?xf32>) {
  // expected-error @below {{cannot bound the iterations of this dynamic loop for a GPU launch}}
  memref.copy %x, %y : memref<?xf32> to memref<?xf32>
  return
}

// -----

func.func @value_escapes_launch(%x: memref<f32>) -> f32 {
  // expected-error @below {{internal error: a value computed on the GPU is used outside its launch}}
  %v = memref.load %x[] : memref<f32>
  return %v : f32
}
