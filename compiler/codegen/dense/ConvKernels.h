// Which kernel functions are convolutions a vendor library (cuDNN) can serve, read off the
// prim-level kernel functions pt2c-form-kernels outlined (before GPU lowering):
//   - a convolution kernel is exactly one prim.convolution of two of its arguments (x and
//     w), f32, f16 or bf16, 1 to 3 spatial dims, padded the same on both sides of each
//     spatial dim (see pt2c_plan_conv in plan_format.h); a channels-last one
//     (prim.convolution's `channels_last`) only where the target takes it;
//   - a convolution epilogue kernel computes, from its arguments x (a [N, K, ...] product,
//     or [N, ..., K] where the target takes channels-last ones), bias ([K]) and optionally
//     z (x's shape):
//       x + broadcast(bias) over dim 1                      (BIAS: a conv's bias, or a
//                                                            batch norm folded into one)
//       max(x + broadcast(bias), 0)                          (BIAS_RELU)
//       max(x + broadcast(bias) + z, 0)                      (BIAS_ADD_RELU: a ResNet
//                                                            block's residual)
//       s * sigmoid(s), s = x + broadcast(bias)              (BIAS_SILU: EfficientNet's
//                                                            SiLU; CPU only, by option)
// The CUDA plan (CudaPlan.cpp) turns a convolution kernel's step into a convolution step,
// fused with the epilogue kernel that follows it when that kernel is the product's only
// reader. A kernel that computes the convolution's input first (the previous layer's bias
// and ReLU, fused in by form-kernels) is split into a prologue and a plain convolution
// kernel first (SplitGemmPrologues.h), as for GEMMs.
#ifndef PT2C_COMPILER_CODEGEN_DENSE_CONVKERNELS_H_
#define PT2C_COMPILER_CODEGEN_DENSE_CONVKERNELS_H_

#include <vector>

#include "compiler/codegen/dense/LibraryKernelTable.h"
#include "mlir/IR/BuiltinOps.h"
#include "pt2c/plan_format.h"

namespace pt2c {

struct ConvKernel {
  pt2c_plan_conv conv{};          // epilogue NONE, num_fallback_steps 0
  unsigned input = 0, weight = 1; // which kernel arguments are x and w
};

struct ConvEpilogueKernel {
  pt2c_conv_epilogue epilogue = PT2C_CONV_EPILOGUE_BIAS;
  unsigned input = 0, bias = 1; // which kernel arguments are the product and the bias
  int residual = -1;            // the argument z of BIAS_ADD_RELU, else -1
  uint32_t dtype = 0;           // pt2c_dtype of every operand
  std::vector<int64_t> shape;   // the product's shape, [N, K, spatial...]
  bool channelsLast = false;    // the bias is over the last dim: shape is [N, spatial..., K]
};

using ConvKernelTable = LibraryKernelTable<ConvKernel, ConvEpilogueKernel>;

// What a target's convolution steps serve beyond bias (+ residual) + ReLU.
struct ConvMatchOptions {
  bool siluEpilogue = false; // PT2C_CONV_EPILOGUE_BIAS_SILU (the CPU runtime's)
  bool channelsLast = false; // PT2C_CONV_LAYOUT_CHANNELS_LAST (the CUDA runtime's)
};

ConvKernelTable findConvKernels(mlir::ModuleOp kernels, const ConvMatchOptions &options = {});

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_DENSE_CONVKERNELS_H_
