// A kernel function of a dynamic graph on the GPU: its dynamic buffers become byte
// arrays at the symbols' maxima, viewed at the run's sizes; its loop's grid covers the
// bound (128 rows of 64: 8192 elements, in blocks of 256) and a guard stops the threads
// past the run's end; the sizes are read inside the launch from the symbol values.
// RUN: pt2c-opt %s --pass-pipeline='builtin.module(pt2c-gpu-bound-dynamic-buffers,func.func(convert-linalg-to-parallel-loops,pt2c-map-parallel-loops-to-gpu,convert-parallel-loops-to-gpu,pt2c-sink-into-gpu-launches,pt2c-gpu-load-symbols))' | FileCheck %s

// CHECK-LABEL: func.func private @kernel_0(
// CHECK-SAME: %[[X:.*]]: memref<32768xi8>, %[[Y:.*]]: memref<32768xi8>, %[[SYMS:.*]]: memref<1xi64> {pt2c.symbol_values})
// CHECK: arith.constant 8192 : index
// CHECK: gpu.launch
// CHECK: memref.load %[[SYMS]]
// CHECK: memref.view %[[X]]
// CHECK: scf.if
// CHECK: math.exp
func.func private @kernel_0(%x: memref<?x64xf32>, %y: memref<?x64xf32>)
    attributes {pt2c.kernel, pt2c.kernel_dims = [["rows", "64"], ["rows", "64"]],
                pt2c.symbol_names = ["rows"], pt2c.symbol_ranges = array<i64: 1, 128>} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x64xf32>) outs(%y : memref<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}
