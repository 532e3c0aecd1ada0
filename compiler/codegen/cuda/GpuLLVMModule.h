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

// Every pointer a kernel takes is a buffer's start: the plan's arena and weights buffers
// are 64-byte aligned, device allocations 256-byte, and the runtime stages a caller's
// tensor at any other address (runtime/src/cuda/cuda_model.h). Declaring it lets the
// backend merge a thread's neighbouring loads and stores into 16-byte ones.
constexpr uint64_t kKernelPointerAlignment = 16;
void alignKernelPointers(llvm::Module &m, const std::vector<std::string> &kernels);

// Everything but `kernels` becomes internal (after linking a device library, again).
void internalizeAllButKernels(llvm::Module &m, const std::vector<std::string> &kernels);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_GPULLVMMODULE_H_
