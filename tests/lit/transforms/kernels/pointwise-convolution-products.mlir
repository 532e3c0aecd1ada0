// RUN: pt2c-opt %s --split-input-file --pt2c-pointwise-convolution-products | FileCheck %s
// RUN: pt2c-opt %s --split-input-file --pt2c-pointwise-convolution-products="half-precision=0" | FileCheck %s --check-prefix=F32ONLY

// One image in torch's layout: the filter [O, C] times the input's [C, H*W] planes; the
// product [O, 1, H, W] has the bytes of [1, O, H, W].
// CHECK-LABEL: func.func @one_image
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x16x8x8xf32> {{.*}}, %[[W:[a-z0-9]+]]: tensor<24x16x1x1xf32>
// CHECK-NEXT: %[[F:.*]] = prim.reshape %[[W]] : tensor<24x16x1x1xf32> -> tensor<24x16xf32>
// CHECK-NEXT: %[[P:.*]] = prim.dot_general %[[F]], %[[X]], batch = [] x [], contract = [1] x [1] : (tensor<24x16xf32>, tensor<1x16x8x8xf32>) -> tensor<24x1x8x8xf32>
// CHECK-NEXT: %[[Y:.*]] = prim.reshape %[[P]] : tensor<24x1x8x8xf32> -> tensor<1x24x8x8xf32>
// CHECK-NEXT: return %[[Y]]
module {
  func.func @one_image(%x: tensor<1x16x8x8xf32> {pt2c.input = "x"},
                       %w: tensor<24x16x1x1xf32> {pt2c.weight = "conv.weight"}) -> tensor<1x24x8x8xf32> {
    %y = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>) -> tensor<1x24x8x8xf32>
    return %y : tensor<1x24x8x8xf32>
  }
}

// -----

// One spatial position (squeeze-excitation's convolutions), any batch: the input's
// [N, C] rows times the filter; [N, 1, 1, O] has the bytes of [N, O, 1, 1].
// CHECK-LABEL: func.func @one_position
// CHECK: %[[P:.*]] = prim.dot_general %{{.*}}, %{{.*}}, batch = [] x [], contract = [1] x [1] : (tensor<4x16x1x1xf32>, tensor<8x16xf32>) -> tensor<4x1x1x8xf32>
// CHECK-NEXT: prim.reshape %[[P]] : tensor<4x1x1x8xf32> -> tensor<4x8x1x1xf32>
module {
  func.func @one_position(%x: tensor<4x16x1x1xf32> {pt2c.input = "x"},
                          %w: tensor<8x16x1x1xf32> {pt2c.weight = "se.weight"}) -> tensor<4x8x1x1xf32> {
    %y = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<4x16x1x1xf32>, tensor<8x16x1x1xf32>) -> tensor<4x8x1x1xf32>
    return %y : tensor<4x8x1x1xf32>
  }
}

// -----

// Channels-last: the product is the result itself, [N*H*W, C] x [C, O]; the option
// half-precision=0 leaves f16 convolutions to the convolution library.
// CHECK-LABEL: func.func @channels_last
// CHECK: %[[F:.*]] = prim.reshape %{{.*}} : tensor<24x16x1x1xf16> -> tensor<24x16xf16>
// CHECK-NEXT: %[[P:.*]] = prim.dot_general %{{.*}}, %[[F]], batch = [] x [], contract = [3] x [1] : (tensor<2x8x8x16xf16>, tensor<24x16xf16>) -> tensor<2x8x8x24xf16>
// CHECK-NEXT: return %[[P]]
// F32ONLY-LABEL: func.func @channels_last
// F32ONLY: prim.convolution
module {
  func.func @channels_last(%x: tensor<2x8x8x16xf16> {pt2c.input = "x"},
                           %w: tensor<24x16x1x1xf16> {pt2c.weight = "conv.weight"}) -> tensor<2x8x8x24xf16> {
    %y = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 {channels_last} : (tensor<2x8x8x16xf16>, tensor<24x16x1x1xf16>) -> tensor<2x8x8x24xf16>
    return %y : tensor<2x8x8x24xf16>
  }
}

// -----

// Stay convolutions: a batch of images in torch's layout (the product would need a
// transpose), a strided 1x1, a padded 1x1, a grouped 1x1 and a 3x3.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: prim.dot_general
// CHECK-COUNT-5: prim.convolution
// CHECK-NOT: prim.dot_general
module {
  func.func @kept(%x: tensor<2x16x8x8xf32> {pt2c.input = "x"}, %x1: tensor<1x16x8x8xf32> {pt2c.input = "x1"},
                  %w: tensor<24x16x1x1xf32> {pt2c.weight = "conv.weight"},
                  %g: tensor<24x8x1x1xf32> {pt2c.weight = "grouped.weight"},
                  %k: tensor<24x16x3x3xf32> {pt2c.weight = "k.weight"})
      -> (tensor<2x24x8x8xf32>, tensor<1x24x4x4xf32>, tensor<1x24x10x10xf32>, tensor<1x24x8x8xf32>, tensor<1x24x6x6xf32>) {
    %a = prim.convolution %x, %w, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<2x16x8x8xf32>, tensor<24x16x1x1xf32>) -> tensor<2x24x8x8xf32>
    %b = prim.convolution %x1, %w, strides = [2, 2], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>) -> tensor<1x24x4x4xf32>
    %c = prim.convolution %x1, %w, strides = [1, 1], low = [1, 1], high = [1, 1], dilations = [1, 1], groups = 1 : (tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>) -> tensor<1x24x10x10xf32>
    %d = prim.convolution %x1, %g, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 2 : (tensor<1x16x8x8xf32>, tensor<24x8x1x1xf32>) -> tensor<1x24x8x8xf32>
    %e = prim.convolution %x1, %k, strides = [1, 1], low = [0, 0], high = [0, 0], dilations = [1, 1], groups = 1 : (tensor<1x16x8x8xf32>, tensor<24x16x3x3xf32>) -> tensor<1x24x6x6xf32>
    return %a, %b, %c, %d, %e : tensor<2x24x8x8xf32>, tensor<1x24x4x4xf32>, tensor<1x24x10x10xf32>, tensor<1x24x8x8xf32>, tensor<1x24x6x6xf32>
  }
}
