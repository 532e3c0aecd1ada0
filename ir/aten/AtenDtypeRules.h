// Result-dtype rules of aten ops (PyTorch's type promotion and each op's own dtype
// behaviour), keyed by op name like the shape rules (AtenShapeRules.h). The verifier
// checks every result element type against them; passes that build aten ops use them to
// give a new op the dtype PyTorch would.
#ifndef PT2C_IR_ATEN_ATENDTYPERULES_H
#define PT2C_IR_ATEN_ATENDTYPERULES_H

#include <optional>
#include <string>
#include <vector>

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace pt2c::aten {

/// The element types PyTorch gives the results of `op`, one per result, computed from
/// operand element types, operand ranks (zero-dim tensors promote less) and attributes.
/// Returns std::nullopt when no rule is registered for the op's name (the op is
/// trusted), and failure() when PyTorch rejects the operand dtypes (emitting a
/// diagnostic if `diagnose`).
std::optional<mlir::FailureOr<llvm::SmallVector<mlir::Type>>> inferResultDtypes(mlir::Operation *op,
                                                                                bool diagnose);

/// Checks each result's element type against inferResultDtypes (part of verifyAtenOp).
mlir::LogicalResult verifyResultDtypes(mlir::Operation *op);

/// The aten op names with a dtype rule, sorted (`pt2c-opt --pt2c-list-dtype-rules`).
std::vector<std::string> atenOpsWithDtypeRules();

/// Why an op has no dtype rule (its result dtype is taken from the trace), or
/// std::nullopt if it is not on the list of trusted ops.
std::optional<llvm::StringRef> dtypeTrustReason(llvm::StringRef opName);

/// The common dtype an elementwise op (arithmetic, pow, comparisons) casts its operands
/// to before computing, as TensorIterator does: a f32 zero-dim tensor added to a f16
/// tensor is rounded to f16 first. std::nullopt for ops that do not promote so.
std::optional<mlir::Type> commonDtype(mlir::Operation *op);

/// torch.promote_types for bool, integer and floating element types (a null type is
/// "undefined": the other one wins).
mlir::Type promoteTypes(mlir::Type a, mlir::Type b);

/// The element type of a `ScalarType` attribute value or of an artifact tensor (the pt2c
/// DType number of ir/artifact/pt2c.proto), or a null type for DTYPE_UNSPECIFIED or a
/// number that names no dtype.
mlir::Type elementTypeOfScalarType(mlir::MLIRContext *ctx, int64_t dtype);

} // namespace pt2c::aten

#endif // PT2C_IR_ATEN_ATENDTYPERULES_H
