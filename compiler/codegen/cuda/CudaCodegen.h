// CUDA code generation for one model (`--target cuda`): the entry point the driver calls
// after building the (kernel-function) execution plan. GpuObject.h's steps (lower the
// kernel functions to GPU kernels, read their launches, rewrite the plan, write the
// model's x86-64 object: plan, weights and fatbin as data, no host kernels) with CUDA's
// parts: the NVVM lowering (GpuLowering), PTX (PtxCompiler), cubins and the fatbin
// (CudaToolkit).
#ifndef PT2C_COMPILER_CODEGEN_CUDA_CUDACODEGEN_H_
#define PT2C_COMPILER_CODEGEN_CUDA_CUDACODEGEN_H_

#include <functional>
#include <string>
#include <vector>

#include "compiler/codegen/CpuCodegen.h"
#include "compiler/codegen/ExecutionPlan.h"
#include "compiler/codegen/MultiGraphPlan.h"
#include "compiler/codegen/cuda/GpuObject.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace pt2c {

struct CudaCodegenOptions {
  std::vector<unsigned> sms = {80, 90};
  CpuCodegenOptions host; // the object's CPU and the weights blob (onLLVMIR unused)
  // Called with the GPU kernels' LLVM IR (for `--emit llvm`).
  std::function<void(const std::string &)> onKernelLLVMIR;
};

// binaryBytes: the fatbin's size.
using CudaCodegenSummary = GpuCodegenSummary;

// "CUDA sm_80, sm_90: 7 launches of 7 GPU kernels, fatbin 24.1 KiB" for progress lines.
std::string describe(const CudaCodegenSummary &summary, const std::vector<unsigned> &sms);

// `kernels` holds the kernel functions only (lowered in place); `plan` is
// buildExecutionPlan's plan of the model function that calls them.
llvm::Expected<CudaCodegenSummary> emitCudaObject(mlir::ModuleOp kernels, const ModelPlan &model,
                                                  const CudaCodegenOptions &options,
                                                  const std::string &objectPath);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_CUDACODEGEN_H_
