// The LLVM half of ROCm code generation: the kernels of the gpu.module (LLVM dialect +
// ROCDL) -> LLVM IR -> LLVM's AMDGPU backend (in process, O3) -> a relocatable object per
// architecture -> ld.lld -> the code object (an ELF shared object for amdgcn-amd-amdhsa)
// that hipModuleLoadData loads. No device library is linked: the ROCm lowering leaves
// no calls (RocdlLowering.h).
#ifndef PT2C_COMPILER_CODEGEN_ROCM_AMDGPUCOMPILER_H_
#define PT2C_COMPILER_CODEGEN_ROCM_AMDGPUCOMPILER_H_

#include <functional>
#include <string>
#include <vector>

#include "compiler/codegen/rocm/CodeObjectTable.h"
#include "compiler/codegen/rocm/RocmTarget.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Error.h"

namespace pt2c {

struct AmdgpuOptions {
  std::vector<AmdGpuArch> archs;
  std::string lld; // ld.lld's path (findLld)
  // Called with the kernels' LLVM IR before optimization (`--emit llvm`); no code
  // objects are made then.
  std::function<void(const std::string &)> onLLVMIR;
};

// ld.lld for linking code objects: $PT2C_LLD, else ld.lld-19 or ld.lld on the PATH (LLVM
// 19's, Debian package lld-19).
llvm::Expected<std::string> findLld();

// One code object per architecture, in `options.archs` order; empty with onLLVMIR.
llvm::Expected<std::vector<CodeObject>> compileToCodeObjects(mlir::gpu::GPUModuleOp kernels,
                                                             const AmdgpuOptions &options);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_ROCM_AMDGPUCOMPILER_H_
