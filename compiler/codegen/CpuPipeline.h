// The CPU kernel lowering pipeline, `pt2c-cpu-kernels-to-llvm`: prim kernel functions to
// the LLVM dialect (bare-pointer memrefs), as the driver runs it (lowerKernelsToLLVMDialect)
// and as lit tests name it in pt2c-opt. One definition, so tests exercise what ships.
#ifndef PT2C_COMPILER_CODEGEN_CPUPIPELINE_H_
#define PT2C_COMPILER_CODEGEN_CPUPIPELINE_H_

#include "mlir/Pass/PassManager.h"

namespace pt2c {

// Adds the pipeline's passes to `pm` (anchored on builtin.module): pt2c-bind-kernel-symbols,
// pt2c-bufferize-kernels (BufferizeKernels.h), then buffers -> loops -> LLVM dialect.
void buildCpuKernelsToLLVMPipeline(mlir::OpPassManager &pm);

void registerCpuKernelsToLLVMPipeline();

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CPUPIPELINE_H_
