// LLVM's standard O3 module pipeline for a target machine: shared by the CPU object
// path and the NVPTX path (where the target registers NVVMReflect for libdevice).
#ifndef PT2C_COMPILER_CODEGEN_LLVMOPTIMIZER_H_
#define PT2C_COMPILER_CODEGEN_LLVMOPTIMIZER_H_

#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace pt2c {

void optimizeModuleO3(llvm::Module& module, llvm::TargetMachine& target);

}  // namespace pt2c

#endif  // PT2C_COMPILER_CODEGEN_LLVMOPTIMIZER_H_
