// LLVM's standard O3 module pipeline for a target machine: shared by the CPU object
// path and the NVPTX path (where the target registers NVVMReflect for libdevice).
#ifndef PT2C_COMPILER_CODEGEN_LLVMOPTIMIZER_H_
#define PT2C_COMPILER_CODEGEN_LLVMOPTIMIZER_H_

#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace pt2c {

// `unrollLoops` false keeps fixed-trip-count loops rolled: with static shapes, full
// unrolling turned a 24x192 bias add into ~9,000 IR lines and made codegen 10-40x slower
// (2-layer GPT-2: opt+llc 27.5 s -> 1.05 s) for little gain once loops are vectorized.
void optimizeModuleO3(llvm::Module &module, llvm::TargetMachine &target, bool unrollLoops);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_LLVMOPTIMIZER_H_
