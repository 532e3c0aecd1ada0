// The LLVM half of CUDA code generation, in process: the kernels of the gpu.module
// (LLVM dialect + NVVM) -> LLVM IR, linked with libdevice for math functions, optimized
// and compiled by LLVM's NVPTX backend to PTX, once per target architecture.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_PTXCOMPILER_H_
#define PT2C_COMPILER_CODEGEN_CUDA_PTXCOMPILER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Error.h"

namespace pt2c {

struct PtxOptions {
  std::vector<unsigned> sms; // e.g. {80, 90}
  std::string libdevice;     // libdevice.10.bc
  // Called with the kernels' LLVM IR after linking libdevice, before optimization.
  std::function<void(const std::string &)> onLLVMIR;
};

// PTX text per SM. The PTX ISA version is the oldest LLVM accepts for the SM, so that
// older drivers can still JIT-compile it.
llvm::Expected<std::map<unsigned, std::string>> compileToPtx(mlir::gpu::GPUModuleOp kernels,
                                                             const PtxOptions &options);

// Whether LLVM's NVPTX backend can generate code for sm_<sm> (sm_75 ... sm_90 in LLVM 19).
bool isSupportedSm(unsigned sm);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_PTXCOMPILER_H_
