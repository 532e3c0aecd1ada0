// The first step of compiling @pt2c_kernels for any GPU (PtxCompiler for CUDA,
// rocm/AmdgpuCompiler for ROCm): the LLVM-dialect gpu.module translated to an LLVM
// module, with everything but the kernels internal, so that the optimizer inlines and
// drops what is unused and the binary exports only entry points.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_GPULLVMMODULE_H_
#define PT2C_COMPILER_CODEGEN_CUDA_GPULLVMMODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace pt2c {

struct GpuLLVMModule {
  std::unique_ptr<llvm::Module> module;
  std::vector<std::string> kernels; // entry points, in the gpu.module's order
};

// `kernelAttr` marks a kernel (nvvm.kernel, rocdl.kernel); the caller has registered the
// target dialect's translation to LLVM IR with the context.
llvm::Expected<GpuLLVMModule> translateGpuModule(mlir::gpu::GPUModuleOp kernels,
                                                 llvm::StringRef kernelAttr,
                                                 llvm::LLVMContext &context);

// Everything but `kernels` becomes internal (after linking a device library, again).
void internalizeAllButKernels(llvm::Module &m, const std::vector<std::string> &kernels);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_GPULLVMMODULE_H_
