// Groups the prim ops of each model function into kernels (docs/ARCHITECTURE.md decision 5).
//
// After this pass a model function (a public func.func) holds only func.call ops to
// private kernel functions (marked `pt2c.kernel`, ir/contract/ModelContract.h), alias ops
// (prim.reshape, which reuse their operand's buffer) and its return. Each kernel becomes one step
// of the execution plan. A returned value that would share a buffer with an input, a weight or
// another output gets its own copy kernel, so that every output owns its memory.
#ifndef PT2C_COMPILER_TRANSFORMS_KERNELS_FORMKERNELS_H_
#define PT2C_COMPILER_TRANSFORMS_KERNELS_FORMKERNELS_H_

#include <memory>

#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"

namespace pt2c {

// Ops that only reinterpret their operand's buffer (contiguous reshapes).
bool isAliasOp(mlir::Operation *op);

// Size arithmetic of dynamic graphs (prim.symbol, arith on indices): every kernel
// recomputes what it needs, so it stays outside the plan's steps.
bool isSizeArithmetic(mlir::Operation *op);

#define GEN_PASS_DECL_FORMKERNELSPASS
#include "compiler/transforms/Passes.h.inc"

} // namespace pt2c

#endif // PT2C_COMPILER_TRANSFORMS_KERNELS_FORMKERNELS_H_
