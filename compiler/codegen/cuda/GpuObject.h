// The steps of GPU code generation every GPU target shares (CUDA here, ROCm in
// compiler/codegen/rocm): lower the kernel functions to launches of GPU kernels, read the
// launches, rewrite the plan into a GPU plan (CudaPlan.h) and write the model's x86-64
// object with the plan, the weights and the target's kernel binary as data. What differs
// per target (the conversion of @pt2c_kernels, its compilation to a binary, the plan's
// device and the binary's symbol) comes in a GpuTarget.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_GPUOBJECT_H_
#define PT2C_COMPILER_CODEGEN_CUDA_GPUOBJECT_H_

#include <functional>
#include <optional>
#include <string>

#include "compiler/codegen/CpuCodegen.h"
#include "compiler/codegen/MultiGraphPlan.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "pt2c/pt2c.h"
#include "llvm/Support/Error.h"

namespace pt2c {

struct GpuTarget {
  pt2c_device device = PT2C_DEVICE_CUDA;
  // The blob the runtime reads the kernels from (`symbol` and `symbol`_size).
  std::string binarySymbol;
  // Adds the kernel lowering (kernel functions -> launches + LLVM-dialect @pt2c_kernels).
  std::function<void(mlir::OpPassManager &)> buildPipeline;
  // The binary of the lowered @pt2c_kernels; std::nullopt when the caller only wanted
  // the kernels' LLVM IR (`--emit llvm`), which stops code generation.
  std::function<llvm::Expected<std::optional<std::string>>(mlir::gpu::GPUModuleOp)> compile;
};

struct GpuCodegenSummary {
  size_t gpuKernels = 0, launches = 0, gemms = 0, convs = 0;
  uint64_t binaryBytes = 0, arenaBytes = 0;
};

// `kernels` holds the kernel functions only (lowered in place); `model` is
// buildModelPlan's plan of the model functions that call them; `host` the object's CPU
// and weights (its onLLVMIR is not used).
llvm::Expected<GpuCodegenSummary> emitGpuObject(mlir::ModuleOp kernels, const ModelPlan &model,
                                                const CpuCodegenOptions &host,
                                                const GpuTarget &target,
                                                const std::string &objectPath);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_GPUOBJECT_H_
