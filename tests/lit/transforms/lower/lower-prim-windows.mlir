// RUN: pt2c-opt %s --split-input-file --pt2c-lower-prim-to-linalg | FileCheck %s

// Grouped, strided, padded convolution: the input is padded through a filled
// destination and a copy into its interior (an extract/insert pair that bufferizes in
// place), the weight and the result get a group dim, and one generic runs the loops
// n, g, o, c, kh, kw, oh, ow (reductions in the middle, output columns innermost).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d3, d6 * 2 + d4, d7 * 2 + d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d6, d7)>
// CHECK-LABEL: func.func @grouped_convolution
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[K:.*]]: tensor<6x2x3x3xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PE:.*]] = tensor.empty() : tensor<1x4x9x9xf32>
// CHECK: %[[PF:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[PE]] : tensor<1x4x9x9xf32>)
// CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[PF]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK: %[[COPY:.*]] = linalg.copy ins(%[[X]] : tensor<1x4x8x8xf32>) outs(%[[SLOT]] : tensor<1x4x8x8xf32>)
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %[[COPY]] into %[[PF]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK: %[[KG:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x2x3x4x4xf32>)
// CHECK: %[[CONV:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]} ins(%[[PADDED]], %[[KG]] : {{.*}}) outs(%[[ACC]] : tensor<1x2x3x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[P]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[CONV]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x4x4xf32> into tensor<1x6x4x4xf32>
// CHECK: return %[[R]]
func.func @grouped_convolution(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %0 = prim.convolution %x, %w, strides = [2, 2], low = [1, 1], high = [0, 0], dilations = [1, 1], groups = 2 : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// -----

// Without groups or padding: no group dim, no copy; a dilated 1-D integer convolution
// with a dynamic batch reads x*3 + k*2 and multiplies-adds integers.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4 * 3 + d3 * 2)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
// CHECK-LABEL: func.func @dilated_1d
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x20xi32>, %[[K:.*]]: tensor<6x4x5xi32>)
// CHECK-NOT: linalg.copy
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x20xi32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x6x4xi32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[X]], %[[K]] : {{.*}})
// CHECK: arith.muli
// CHECK: arith.addi
func.func @dilated_1d(%x: tensor<?x4x20xi32>, %w: tensor<6x4x5xi32>) -> tensor<?x6x4xi32> {
  %0 = prim.convolution %x, %w, strides = [3], low = [0], high = [0], dilations = [2], groups = 1 : (tensor<?x4x20xi32>, tensor<6x4x5xi32>) -> tensor<?x6x4xi32>
  return %0 : tensor<?x6x4xi32>
}

// -----

// Max pooling: padded with init (-inf), one reduction loop per windowed dim whose
// extent comes from an unused [3, 3] operand; the accumulator starts at init too. The
// window loops (d3, d4) nest outside the output's last dim (d5), which runs innermost:
// each step of it is independent, so it vectorizes.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d3, d5 * 2 + d4)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[INIT:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: %[[PF:.*]] = linalg.fill ins(%[[INIT]] : f32) outs(%{{.*}} : tensor<1x4x10x10xf32>)
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %[[PF]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[INIT]] : f32) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[PADDED]], %[[WINDOW]] : {{.*}}) outs(%[[ACC]] : tensor<1x4x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32, %[[A:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[A]], %[[V]] : f32
func.func @max_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %ninf = prim.constant dense<0xFF800000> : tensor<f32>
  %0 = prim.reduce_window MAX, %x, %ninf, window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 1, 1], high = [0, 0, 1, 1] : tensor<1x4x8x8xf32>, tensor<f32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// On the GPU (pt2c.fused_ops) a window of static shapes and at most 49 taps is read
// directly: one all-parallel loop over the result, its 9 taps unrolled, each read at
// clamped indices and replaced by the init value (-inf) in the padding; no padded copy
// and no fill of the result. A larger window (8 x 8 = 64 taps) keeps the padded loop
// nest, with the window loops (d4, d5) innermost: all four result dims are parallel
// loops that map onto threads, each thread reducing its own window.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 8 + d4, d3 * 8 + d5)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool_on_gpu
// CHECK-NOT: linalg.fill
// CHECK: %[[NINF:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: %[[N:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[H:.*]] = linalg.index 2 : index
// CHECK: %[[HS:.*]] = arith.muli %[[H]], %{{.*}} : index
// CHECK: %[[P:.*]] = arith.addi %[[HS]], %{{.*}} : index
// CHECK: arith.cmpi sge, %[[P]]
// CHECK: arith.cmpi slt, %[[P]]
// CHECK: %[[PC:.*]] = arith.maxsi %[[P]]
// CHECK: %[[PH:.*]] = arith.minsi %[[PC]]
// CHECK: %[[X:.*]] = tensor.extract %arg0[%[[N]], %[[C]], %[[PH]], %{{.*}}] : tensor<1x4x8x8xf32>
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[X]], %[[NINF]] : f32
// CHECK: arith.maximumf %[[NINF]], %[[S]] : f32
// CHECK-COUNT-8: tensor.extract %arg0
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
// CHECK-LABEL: func.func @big_window_on_gpu
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
module attributes {pt2c.fused_ops} {
  func.func @max_pool_on_gpu(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
    %ninf = prim.constant dense<0xFF800000> : tensor<f32>
    %0 = prim.reduce_window MAX, %x, %ninf, window = [1, 1, 3, 3], strides = [1, 1, 2, 2], dilations = [1, 1, 1, 1], low = [0, 0, 1, 1], high = [0, 0, 1, 1] : tensor<1x4x8x8xf32>, tensor<f32> -> tensor<1x4x4x4xf32>
    return %0 : tensor<1x4x4x4xf32>
  }
  func.func @big_window_on_gpu(%x: tensor<1x4x16x16xf32>) -> tensor<1x4x2x2xf32> {
    %ninf = prim.constant dense<0xFF800000> : tensor<f32>
    %0 = prim.reduce_window MAX, %x, %ninf, window = [1, 1, 8, 8], strides = [1, 1, 8, 8], dilations = [1, 1, 1, 1], low = [0, 0, 0, 0], high = [0, 0, 0, 0] : tensor<1x4x16x16xf32>, tensor<f32> -> tensor<1x4x2x2xf32>
    return %0 : tensor<1x4x2x2xf32>
  }
}

// -----

// A dynamic windowed dim: its size is computed at run time,
// (n + 0 + 1 - 1 * (2 - 1) - 1) / 2 + 1.
// CHECK-LABEL: func.func @dynamic_window_dim
// CHECK: %[[C:.*]] = arith.constant -1 : index
// CHECK: %[[S:.*]] = arith.addi %{{.*}}, %[[C]] : index
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[Q:.*]] = arith.divsi %[[S]], %[[TWO]] : index
// CHECK: %[[R:.*]] = arith.addi %[[Q]], %{{.*}} : index
// CHECK: tensor.empty(%[[R]]) : tensor<?xf32>
// CHECK: arith.addf
func.func @dynamic_window_dim(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %0 = prim.reduce_window SUM, %x, %zero, window = [2], strides = [2], dilations = [1], low = [0], high = [1] : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// prim.pad on its own.
// CHECK-LABEL: func.func @pad
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[V]] : i32) outs(%{{.*}} : tensor<5x7xi32>)
// CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[F]][1, 0] [2, 4] [1, 1]
// CHECK: %[[COPY:.*]] = linalg.copy ins(%{{.*}} : tensor<2x4xi32>) outs(%[[SLOT]] : tensor<2x4xi32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[COPY]] into %[[F]][1, 0] [2, 4] [1, 1]
// CHECK: return %[[R]]
func.func @pad(%x: tensor<2x4xi32>) -> tensor<5x7xi32> {
  %c = prim.constant dense<7> : tensor<i32>
  %0 = prim.pad %x, %c, low = [1, 0], high = [2, 3] : tensor<2x4xi32>, tensor<i32> -> tensor<5x7xi32>
  return %0 : tensor<5x7xi32>
}

// -----

// A pointwise convolution runs over the flattened spatial dims: innermost loop 49, not 7.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4 + d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<?x8x7x7xf32>, %[[K:.*]]: tensor<16x8x1x1xf32>)
// CHECK: %[[XF:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<?x8x7x7xf32> into tensor<?x8x49xf32>
// CHECK: %[[KF:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0], [1], [2, 3]] : tensor<16x8x1x1xf32> into tensor<16x8x1xf32>
// CHECK: %[[C:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[XF]], %[[KF]] : {{.*}}) outs(%{{.*}} : tensor<?x16x49xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1], [2, 3]] output_shape [%{{.*}}, 16, 7, 7] : tensor<?x16x49xf32> into tensor<?x16x7x7xf32>
// CHECK: return %[[R]]
func.func @pointwise(%x: tensor<?x8x7x7xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<?x16x7x7xf32> {
  %0 = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<?x8x7x7xf32>, tensor<16x8x1x1xf32>) -> tensor<?x16x7x7xf32>
  return %0 : tensor<?x16x7x7xf32>
}

// -----

// A channels-last depthwise convolution (the CUDA pipeline's; not a cuDNN step): one
// elementwise loop over the output [N, H, W, C] whose body sums the 3x3 taps, each read
// at clamped indices and selected away outside the input, in f32; no padded copy.
// CHECK-LABEL: func.func @direct_depthwise
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x5x5x8xf16>, %[[W:[a-z0-9]+]]: tensor<8x1x3x3xf16>)
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(
// CHECK-COUNT-9: tensor.extract %[[X]]
// CHECK-NOT: tensor.extract %[[X]]
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @direct_depthwise(%x: tensor<1x5x5x8xf16>, %w: tensor<8x1x3x3xf16>) -> tensor<1x3x3x8xf16> {
  %0 = prim.convolution %x, %w, strides = [2, 2], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 {channels_last} : (tensor<1x5x5x8xf16>, tensor<8x1x3x3xf16>) -> tensor<1x3x3x8xf16>
  return %0 : tensor<1x3x3x8xf16>
}

// -----

// On the GPU (a module with the fused ops) a depthwise convolution in torch's layout is
// direct as well: the loop runs over [N, C, H, W] and reads each tap at [n, c, h', w'];
// the tap's weight [c, 0, kh, kw]. On the CPU (no fused ops) the same convolution stays
// the grouped loop nest over a padded copy (@depthwise_on_cpu), the fallback of its
// library step.
// CHECK-LABEL: func.func @direct_depthwise_nchw
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x8x5x5xf32>, %[[W:[a-z0-9]+]]: tensor<8x1x3x3xf32>)
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[C:.*]] = linalg.index 1
// CHECK: tensor.extract %[[X]][%[[N]], %[[C]], %{{.*}}, %{{.*}}] : tensor<1x8x5x5xf32>
// CHECK: tensor.extract %[[W]][%[[C]], %{{.*}}, %{{.*}}, %{{.*}}] : tensor<8x1x3x3xf32>
// CHECK-COUNT-8: tensor.extract %[[X]][%[[N]], %[[C]],
// CHECK-NOT: tensor.extract %[[X]]
module attributes {pt2c.fused_ops} {
func.func @direct_depthwise_nchw(%x: tensor<1x8x5x5xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %0 = prim.convolution %x, %w, strides = [2, 2], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}
}

// -----

// CHECK-LABEL: func.func @depthwise_on_cpu
// CHECK: linalg.fill
// CHECK: tensor.insert_slice
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]}
func.func @depthwise_on_cpu(%x: tensor<1x8x5x5xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %0 = prim.convolution %x, %w, strides = [2, 2], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 8 : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}

// -----

// Any other channels-last convolution (the fallback of its cuDNN step) computes in
// torch's layout between two transposes.
// CHECK-LABEL: func.func @channels_last
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x4x4x2xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>) permutation = [0, 3, 1, 2]
// CHECK: linalg.generic
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x3x4x4xf32>) outs(%{{.*}} : tensor<1x4x4x3xf32>) permutation = [0, 2, 3, 1]
func.func @channels_last(%x: tensor<1x4x4x2xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x4x4x3xf32> {
  %0 = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 {channels_last} : (tensor<1x4x4x2xf32>, tensor<3x2x1x1xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}
