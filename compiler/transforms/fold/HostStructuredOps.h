// The host evaluator's ops beyond elementwise math: data movement (broadcast, reshape,
// transpose, slice, concatenate, pad, gather), generated values (iota), reductions
// (reduce, reduce_window) and small matrix products. With them pt2c-fold-weights
// evaluates whole input-independent chains at compile time, such as the attention mask
// transformers builds from positions (iotas, a running sum as a reduce_window,
// comparisons) and rotary tables (an outer product of positions and frequencies).
#ifndef PT2C_COMPILER_TRANSFORMS_FOLD_HOSTSTRUCTUREDOPS_H_
#define PT2C_COMPILER_TRANSFORMS_FOLD_HOSTSTRUCTUREDOPS_H_

#include <optional>

#include "compiler/transforms/fold/HostEvaluator.h"

namespace pt2c::fold {

// Whether `op` is one of the ops evaluateStructured knows.
bool isStructuredOp(mlir::Operation *op);

// Runs `op` (isStructuredOp) on its operand values into a tensor of `type`; nullopt
// where the host does not evaluate it (a matrix product too big to be worth it).
std::optional<HostTensor> evaluateStructured(mlir::Operation *op,
                                             llvm::ArrayRef<const HostTensor *> operands,
                                             mlir::RankedTensorType type);

} // namespace pt2c::fold

#endif // PT2C_COMPILER_TRANSFORMS_FOLD_HOSTSTRUCTUREDOPS_H_
