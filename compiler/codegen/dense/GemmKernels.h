// Which kernel functions are matrix products a vendor library can serve, read off the
// prim-level kernel functions pt2c-form-kernels outlined (before GPU lowering):
//   - a GEMM kernel is exactly one prim.dot_general of two of its arguments, all f32, f16
//     or bf16 (half types accumulate in f32 on both paths), laid out
//     as a (batched) row-major matrix product (see pt2c_plan_gemm in plan_format.h);
//   - an epilogue kernel (GemmEpilogues.h) computes, from arguments x, bias ([N], x's last
//     dim) and z (x's type):
//       x + broadcast(bias)              (BIAS)
//       max(x + broadcast(bias), 0)      (BIAS_RELU)
//       x + z                            (ADD: a transformer block's residual after a
//                                         Linear without bias, as in Llama)
//       (x + broadcast(bias)) + z        (BIAS_ADD: with the bias, as in GPT-2 and ViT)
//       max((x + broadcast(bias)) + z, 0) (BIAS_ADD_RELU: a ResNet bottleneck's last 1x1
//                                         convolution, channels-last)
// LibrarySteps.h turns a GEMM kernel's step into a GEMM step, fused with the epilogue
// kernel that follows it when that kernel is the GEMM result's only reader (and with a
// BIAS epilogue then an ADD one, where a reshape keeps the two adds in two kernels).
#ifndef PT2C_COMPILER_CODEGEN_DENSE_GEMMKERNELS_H_
#define PT2C_COMPILER_CODEGEN_DENSE_GEMMKERNELS_H_

#include "compiler/codegen/dense/LibraryKernelTable.h"
#include "mlir/IR/BuiltinOps.h"
#include "pt2c/plan_format.h"

namespace pt2c {

struct GemmKernel {
  pt2c_plan_gemm gemm{};     // epilogue NONE, num_fallback_steps 0
  unsigned lhs = 0, rhs = 1; // which kernel arguments are A and B
};

struct GemmEpilogueKernel {
  pt2c_gemm_epilogue epilogue = PT2C_GEMM_EPILOGUE_BIAS;
  unsigned input = 0; // which kernel argument is x (the product)
  int bias = -1;      // which one is the bias (BIAS, BIAS_RELU, BIAS_ADD), else -1
  int residual = -1;  // which one is z (ADD, BIAS_ADD), else -1
  // ADD's x + z: either argument may be the product; the plan sees which one is.
  bool commutes = false;
  int64_t n = 0;         // x's last dim (the bias length)
  uint64_t elements = 0; // x's element count
};

using GemmKernelTable = LibraryKernelTable<GemmKernel, GemmEpilogueKernel>;

struct GemmMatchOptions {
  // Batched products whose batches interleave inside an operand (stride_a < m * k or
  // stride_b < k * n: attention's heads read in place from [sequence, heads x head_dim]);
  // the CPU microkernels take them, the CUDA path keeps dense batches.
  bool interleavedBatches = false;
};

GemmKernelTable findGemmKernels(mlir::ModuleOp kernels, const GemmMatchOptions &options = {});

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_DENSE_GEMMKERNELS_H_
