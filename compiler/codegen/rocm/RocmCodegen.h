// ROCm code generation for one model (`--target rocm`): GpuObject.h's steps (lower the
// kernel functions to GPU kernels, read their launches, rewrite the plan into a
// PT2C_DEVICE_ROCM plan, write the model's x86-64 object) with ROCm's parts: the ROCDL
// lowering (RocdlLowering), one code object per architecture (AmdgpuCompiler) and their
// table (CodeObjectTable), embedded as __pt2c_rocm_code_objects.
#ifndef PT2C_COMPILER_CODEGEN_ROCM_ROCMCODEGEN_H_
#define PT2C_COMPILER_CODEGEN_ROCM_ROCMCODEGEN_H_

#include <functional>
#include <string>
#include <vector>

#include "compiler/codegen/CpuCodegen.h"
#include "compiler/codegen/MultiGraphPlan.h"
#include "compiler/codegen/cuda/GpuObject.h"
#include "compiler/codegen/rocm/RocmTarget.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace pt2c {

struct RocmCodegenOptions {
  std::vector<AmdGpuArch> archs;
  CpuCodegenOptions host; // the object's CPU and the weights blob (onLLVMIR unused)
  // Called with the GPU kernels' LLVM IR (for `--emit llvm`).
  std::function<void(const std::string &)> onKernelLLVMIR;
};

// "ROCm gfx90a, gfx942: 7 launches of 7 GPU kernels, code objects 24.1 KiB".
std::string describe(const GpuCodegenSummary &summary, const std::vector<AmdGpuArch> &archs);

llvm::Expected<GpuCodegenSummary> emitRocmObject(mlir::ModuleOp kernels, const ModelPlan &model,
                                                 const RocmCodegenOptions &options,
                                                 const std::string &objectPath);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_ROCM_ROCMCODEGEN_H_
