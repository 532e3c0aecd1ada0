// Copying a linalg.generic's payload into explicit loops: what the passes that turn a
// loop nest into GPU code by hand (row reductions, their epilogues, recomputation at a
// tensor.extract) share.
#ifndef PT2C_COMPILER_CODEGEN_CUDA_CLONEPAYLOAD_H_
#define PT2C_COMPILER_CODEGEN_CUDA_CLONEPAYLOAD_H_

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace pt2c {

// Clones the payload of `generic` (all but its terminator) at `b`'s insertion point for
// the iteration whose loop indices are `ivs`: each linalg.index becomes ivs[dim], and
// `mapping` must already map the payload's block arguments the clones use. `skip` (a
// reduction's combiner, which the caller rewrites itself) is not cloned.
void clonePayload(mlir::OpBuilder &b, mlir::linalg::GenericOp generic,
                  llvm::ArrayRef<mlir::Value> ivs, mlir::IRMapping &mapping,
                  mlir::Operation *skip = nullptr);

} // namespace pt2c

#endif // PT2C_COMPILER_CODEGEN_CUDA_CLONEPAYLOAD_H_
