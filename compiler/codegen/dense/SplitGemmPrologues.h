// Kernel functions that compute a GEMM operand before the product (pt2c-form-kernels fuses
// elementwise producers into their consumer, e.g. the bias and ReLU of one Linear into the
// next Linear's matmul) become two kernel functions for CUDA: the prologue, writing the
// operand to a buffer, and a plain GEMM kernel (GemmKernels.h) that cuBLASLt can serve.
// The prologue is then a bias epilogue of the previous GEMM where it has that form, so
// MLP layers end up as one fused cuBLASLt call each. Convolutions whose input is computed
// (a CNN's bias + ReLU between two convolutions) are split the same way, into a prologue
// and a plain convolution kernel (ConvKernels.h) that cuDNN can serve.
#ifndef PT2C_COMPILER_CODEGEN_DENSE_SPLITGEMMPROLOGUES_H_
#define PT2C_COMPILER_CODEGEN_DENSE_SPLITGEMMPROLOGUES_H_

#include <map>
#include <string>
#include <vector>

#include "mlir/IR/BuiltinOps.h"

namespace pt2c {

struct SplitKernel {
  std::string prologue; // takes the original arguments `prologueArgs`, returns the operand
  std::vector<unsigned> prologueArgs;
  std::string gemm; // the GEMM (or convolution) kernel: (operand, other) in the
                    // dot_general's (convolution's) operand order
  // Per argument of `gemm`: -1 for the prologue's result, else the original argument.
  std::vector<int> gemmArgs;
  uint64_t operandBytes = 0; // the buffer the prologue writes
};

struct SplitOptions {
  // Also split a pooling window's computed input off (the CPU: a convolution's bias and
  // ReLU fused into the max pooling after it were recomputed for every window tap, and
  // split off they join the convolution step as its epilogue). `gemm` is then the pooling
  // kernel, of one argument.
  bool poolingPrologues = false;
};

// Rewrites `kernels` in place (the split functions replace the original); by original
// kernel function name.
std::map<std::string, SplitKernel> splitGemmPrologues(mlir::ModuleOp kernels,
                                                      const SplitOptions &options = {});

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_DENSE_SPLITGEMMPROLOGUES_H_
