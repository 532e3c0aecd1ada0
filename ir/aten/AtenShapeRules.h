// Result-shape rules of aten ops, keyed by op name, shared by the verifier and by any
// pass that needs a result shape the trace did not give (e.g. after rewriting).
#ifndef PT2C_IR_ATEN_ATENSHAPERULES_H
#define PT2C_IR_ATEN_ATENSHAPERULES_H

#include <optional>

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"

namespace pt2c::aten {

/// The shape of the first result of `op` computed from operand shapes and attributes,
/// with ShapedType::kDynamic where it cannot be known statically.
/// Returns std::nullopt when no rule is registered for the op's name, and failure()
/// when the operands are invalid for the op (emitting a diagnostic if `diagnose`).
/// SymInt list attributes may hold ShapedType::kDynamic for a symbolic size.
std::optional<mlir::FailureOr<llvm::SmallVector<int64_t>>> inferResultShape(mlir::Operation *op,
                                                                            bool diagnose);

} // namespace pt2c::aten

#endif // PT2C_IR_ATEN_ATENSHAPERULES_H
