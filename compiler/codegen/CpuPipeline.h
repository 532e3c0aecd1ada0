// The CPU kernel lowering pipeline, `pt2c-cpu-lowering`: prim kernel functions to the
// LLVM dialect (bare-pointer memrefs), as the driver runs it (lowerKernelsToLLVMDialect)
// and as lit tests name it in pt2c-opt. One definition, so tests exercise what ships.
#ifndef PT2C_COMPILER_CODEGEN_CPUPIPELINE_H_
#define PT2C_COMPILER_CODEGEN_CPUPIPELINE_H_

#include "mlir/Pass/PassManager.h"

namespace pt2c {

// Adds the pipeline's passes to `pm` (anchored on builtin.module). Every pass it names
// must be registered (pt2c-opt and the driver register them at start-up).
mlir::LogicalResult buildCpuLoweringPipeline(mlir::OpPassManager& pm);

// Registers the pt2c passes the pipeline names (pt2c-dynamic-kernel-abi and
// pt2c-bind-kernel-symbols, pt2c-split-kernel-loops, pt2c-approximate-math,
// pt2c-select-minmax) and `pt2c-cpu-lowering` itself, for the driver and pt2c-opt.
void registerCpuLoweringPasses();

}  // namespace pt2c

#endif  // PT2C_COMPILER_CODEGEN_CPUPIPELINE_H_
