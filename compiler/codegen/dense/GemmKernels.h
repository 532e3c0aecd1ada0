// Which kernel functions are matrix products a vendor library can serve, read off the
// prim-level kernel functions pt2c-form-kernels outlined (before GPU lowering):
//   - a GEMM kernel is exactly one prim.dot_general of two of its arguments, all f32, f16
//     or bf16 (half types accumulate in f32 on both paths), laid out
//     as a (batched) row-major matrix product (see pt2c_plan_gemm in plan_format.h);
//   - a bias epilogue kernel computes x + broadcast(bias) over the last dimension,
//     optionally followed by max(., 0) (relu), from two arguments x and bias.
// The CUDA plan (CudaPlan.cpp) turns a GEMM kernel's step into a GEMM step, fused with the
// bias epilogue kernel that follows it when that kernel is the GEMM result's only reader.
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

struct BiasEpilogueKernel {
  pt2c_gemm_epilogue epilogue = PT2C_GEMM_EPILOGUE_BIAS;
  unsigned input = 0, bias = 1; // which kernel arguments are x and the bias
  int64_t n = 0;                // the bias length
};

using GemmKernelTable = LibraryKernelTable<GemmKernel, BiasEpilogueKernel>;

struct GemmMatchOptions {
  // Batched products whose batches interleave inside an operand (stride_a < m * k or
  // stride_b < k * n: attention's heads read in place from [sequence, heads x head_dim]);
  // the CPU microkernels take them, the CUDA path keeps dense batches.
  bool interleavedBatches = false;
};

GemmKernelTable findGemmKernels(mlir::ModuleOp kernels, const GemmMatchOptions &options = {});

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_DENSE_GEMMKERNELS_H_
