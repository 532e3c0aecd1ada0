// `pt2c-bufferize-kernels`, where both code generators start: value-semantics prim
// kernels to bufferized linalg. Kernel results become out-params (the plan passes
// output buffers), temporaries are memref.alloc.
#ifndef PT2C_COMPILER_CODEGEN_BUFFERIZEKERNELS_H_
#define PT2C_COMPILER_CODEGEN_BUFFERIZEKERNELS_H_

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace pt2c {

// Adds the pipeline's passes to `pm` (anchored on builtin.module). `beforeBufferization`
// adds a target's passes on the fused linalg kernels (the GPU's
// pt2c-recompute-at-extracts).
void buildBufferizeKernelsPipeline(
    mlir::OpPassManager &pm,
    llvm::function_ref<void(mlir::OpPassManager &)> beforeBufferization = nullptr);

void registerBufferizeKernelsPipeline();

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_BUFFERIZEKERNELS_H_
