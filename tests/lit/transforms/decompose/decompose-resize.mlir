// upsample_nearest2d / upsample_bilinear2d (+ .vec): prim.gathers along H and W at
// source positions computed at compile time with ATen's float arithmetic; bilinear
// weighs two gathers per dim. A dim that keeps its size needs no gather.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim --canonicalize | FileCheck %s

// scale_factor=1.7: the step is 1/1.7, not in/out = 5/8 (compare @nearest_size_vec).
// CHECK-LABEL: func.func @nearest_scale
// CHECK: %[[I:.*]] = prim.constant dense<[0, 0, 1, 1, 2, 2, 3, 4]> : tensor<8xi64>
// CHECK: %[[R:.*]] = prim.gather %arg0, %[[I]], axis = 2 : tensor<1x2x5x3xf32>, tensor<8xi64> -> tensor<1x2x8x3xf32>
// CHECK-NOT: prim.gather
// CHECK: return %[[R]]
func.func @nearest_scale(%x: tensor<1x2x5x3xf32>) -> tensor<1x2x8x3xf32> {
  %0 = "aten.upsample_nearest2d"(%x) {output_size = array<i64: 8, 3>, scales_h = 1.7 : f64, scales_w = 1.0 : f64} : (tensor<1x2x5x3xf32>) -> tensor<1x2x8x3xf32>
  return %0 : tensor<1x2x8x3xf32>
}

// -----

// A size (no scale): floor(dst * 5/8).
// CHECK-LABEL: func.func @nearest_size_vec
// CHECK: %[[I:.*]] = prim.constant dense<[0, 0, 1, 1, 2, 3, 3, 4]> : tensor<8xi64>
// CHECK: prim.gather %arg0, %[[I]], axis = 2
// CHECK-NOT: prim.gather
func.func @nearest_size_vec(%x: tensor<1x2x5x3xf32>) -> tensor<1x2x8x3xf32> {
  %0 = "aten.upsample_nearest2d.vec"(%x) {output_size = array<i64: 8, 3>} : (tensor<1x2x5x3xf32>) -> tensor<1x2x8x3xf32>
  return %0 : tensor<1x2x8x3xf32>
}

// -----

// Nearest x2 in both dims: dst >> 1 along H, then along W.
// CHECK-LABEL: func.func @nearest_twice
// CHECK-DAG: %[[IW:.*]] = prim.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
// CHECK-DAG: %[[IH:.*]] = prim.constant dense<[0, 0, 1, 1, 2, 2]> : tensor<6xi64>
// CHECK: %[[H:.*]] = prim.gather %arg0, %[[IH]], axis = 2
// CHECK: prim.gather %[[H]], %[[IW]], axis = 3 : tensor<1x1x6x2xf32>, tensor<4xi64> -> tensor<1x1x6x4xf32>
func.func @nearest_twice(%x: tensor<1x1x3x2xf32>) -> tensor<1x1x6x4xf32> {
  %0 = "aten.upsample_nearest2d"(%x) {output_size = array<i64: 6, 4>, scales_h = 2.0 : f64, scales_w = 2.0 : f64} : (tensor<1x1x3x2xf32>) -> tensor<1x1x6x4xf32>
  return %0 : tensor<1x1x6x4xf32>
}

// -----

// align_corners=False: source (dst + 0.5) / 2 - 0.5 clamped at 0; the last row has
// no row below it (both taps 4).
// CHECK-LABEL: func.func @bilinear_half_pixel
// CHECK-DAG: %[[W1:.*]] = prim.constant dense<[0.000000e+00, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01]> : tensor<10xf32>
// CHECK-DAG: %[[I1:.*]] = prim.constant dense<[1, 1, 1, 2, 2, 3, 3, 4, 4, 4]> : tensor<10xi64>
// CHECK-DAG: %[[W0:.*]] = prim.constant dense<[1.000000e+00, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01]> : tensor<10xf32>
// CHECK-DAG: %[[I0:.*]] = prim.constant dense<[0, 0, 0, 1, 1, 2, 2, 3, 3, 4]> : tensor<10xi64>
// CHECK: %[[G0:.*]] = prim.gather %arg0, %[[I0]], axis = 2
// CHECK: %[[B0:.*]] = prim.broadcast_in_dim %[[W0]], dims = [2]
// CHECK: %[[N:.*]] = prim.mul %[[G0]], %[[B0]]
// CHECK: %[[G1:.*]] = prim.gather %arg0, %[[I1]], axis = 2
// CHECK: %[[B1:.*]] = prim.broadcast_in_dim %[[W1]], dims = [2]
// CHECK: %[[F:.*]] = prim.mul %[[G1]], %[[B1]]
// CHECK: %[[S:.*]] = prim.add %[[N]], %[[F]] : tensor<1x1x10x2xf32>
// CHECK-NOT: prim.gather
// CHECK: return %[[S]]
func.func @bilinear_half_pixel(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x10x2xf32> {
  %0 = "aten.upsample_bilinear2d"(%x) {output_size = array<i64: 10, 2>, align_corners = false, scales_h = 2.0 : f64, scales_w = 1.0 : f64} : (tensor<1x1x5x2xf32>) -> tensor<1x1x10x2xf32>
  return %0 : tensor<1x1x10x2xf32>
}

// -----

// align_corners=True: source dst * (5 - 1) / (9 - 1), the corners exact.
// CHECK-LABEL: func.func @bilinear_align_corners_vec
// CHECK-DAG: prim.constant dense<[0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00]> : tensor<9xf32>
// CHECK-DAG: prim.constant dense<[1, 1, 2, 2, 3, 3, 4, 4, 4]> : tensor<9xi64>
// CHECK-DAG: prim.constant dense<[0, 0, 1, 1, 2, 2, 3, 3, 4]> : tensor<9xi64>
// CHECK: prim.add {{.*}} : tensor<1x1x9x2xf32>
func.func @bilinear_align_corners_vec(%x: tensor<1x1x5x2xf32>) -> tensor<1x1x9x2xf32> {
  %0 = "aten.upsample_bilinear2d.vec"(%x) {output_size = array<i64: 9, 2>, align_corners = true} : (tensor<1x1x5x2xf32>) -> tensor<1x1x9x2xf32>
  return %0 : tensor<1x1x9x2xf32>
}
