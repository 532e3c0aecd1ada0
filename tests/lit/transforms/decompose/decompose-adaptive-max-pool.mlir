// adaptive_max_pool2d: separable, so one slice and MAX per output column, then per
// output row, over ATen's windows [floor(i * in / out), ceil((i + 1) * in / out)).
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// Columns 5 -> 2: windows [0, 3) and [2, 5) (they overlap); rows 4 -> 4 stay.
// CHECK-LABEL: func.func @adaptive_max_5_to_2
// CHECK: %[[A:.*]] = prim.slice %{{.*}}, start = [0, 0, 0, 0], limit = [1, 2, 4, 3]
// CHECK: prim.reduce MAX, %[[A]], %{{.*}}, dims = [3]
// CHECK: %[[B:.*]] = prim.slice %{{.*}}, start = [0, 0, 0, 2], limit = [1, 2, 4, 5]
// CHECK: prim.reduce MAX, %[[B]], %{{.*}}, dims = [3]
// CHECK: prim.concatenate %{{.*}}, %{{.*}} dim = 3 : (tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>) -> tensor<1x2x4x2xf32>
// CHECK-NOT: prim.slice
func.func @adaptive_max_5_to_2(%x: tensor<1x2x4x5xf32>) -> tensor<1x2x4x2xf32> {
  %v, %i = "aten.adaptive_max_pool2d"(%x) {output_size = array<i64: 4, 2>} : (tensor<1x2x4x5xf32>) -> (tensor<1x2x4x2xf32>, tensor<1x2x4x2xi64>)
  return %v : tensor<1x2x4x2xf32>
}
