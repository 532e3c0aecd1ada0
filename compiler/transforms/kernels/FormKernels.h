// Groups the prim ops of each model function into kernels (docs/ARCHITECTURE.md decision 5).
//
// After this pass a model function (a public func.func) holds only func.call ops to
// private kernel functions (marked `pt2c.kernel`), alias ops (prim.reshape, which reuse
// their operand's buffer) and its return. Each kernel becomes one step of the execution
// plan. A returned value that would share a buffer with an input, a weight or another
// output gets its own copy kernel, so that every output owns its memory.
#ifndef PT2C_COMPILER_TRANSFORMS_KERNELS_FORMKERNELS_H_
#define PT2C_COMPILER_TRANSFORMS_KERNELS_FORMKERNELS_H_

#include <memory>

#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"

namespace pt2c {

// Attribute on outlined kernel functions.
constexpr char kKernelAttr[] = "pt2c.kernel";

// Result attribute of model functions marking a guard value (not a user output):
// {expected = <f64>, message = "<what was assumed, where>"}.
constexpr char kGuardAttr[] = "pt2c.guard";

// Model state: an argument marked `pt2c.state = "<fqn>"` is a module buffer the model
// writes in place; the result marked `pt2c.writeback = "<fqn>"` is its new value, which
// a copy kernel at the very end (after every read of the old value) writes back.
constexpr char kStateAttr[] = "pt2c.state";
constexpr char kWritebackAttr[] = "pt2c.writeback";

// Input mutation: the result marked `pt2c.input_writeback = "<input name>"` is the new
// value of that user input, which a copy kernel at the very end writes into the
// caller's input memory (as PyTorch leaves the new value in the tensor passed in).
constexpr char kInputWritebackAttr[] = "pt2c.input_writeback";

// Ops that only reinterpret their operand's buffer (contiguous reshapes).
bool isAliasOp(mlir::Operation* op);

// Size arithmetic of dynamic graphs (prim.symbol, arith on indices): every kernel
// recomputes what it needs, so it stays outside the plan's steps.
bool isSizeArithmetic(mlir::Operation* op);

#define GEN_PASS_DECL_FORMKERNELSPASS
#include "compiler/transforms/Passes.h.inc"

}  // namespace pt2c

#endif  // PT2C_COMPILER_TRANSFORMS_KERNELS_FORMKERNELS_H_
