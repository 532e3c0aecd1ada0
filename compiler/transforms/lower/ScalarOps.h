// The scalar computation of each elementwise prim op, in arith and math ops: the body
// of the linalg.generic that an elementwise prim op becomes.
#ifndef PT2C_COMPILER_TRANSFORMS_LOWER_SCALAROPS_H
#define PT2C_COMPILER_TRANSFORMS_LOWER_SCALAROPS_H

#include "ir/prim/PrimDialect.h"
#include "mlir/IR/Builders.h"

namespace pt2c::lower {

/// The result of elementwise prim op `op` applied to the scalars `args` (one per
/// operand); `resultType` is the result element type.
mlir::Value buildScalarOp(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                          mlir::ValueRange args, mlir::Type resultType);

/// `value` converted to `type` with torch semantics: floats to ints truncate, anything
/// to i1 is `!= 0`, i1 to anything is 0 or 1.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                          mlir::Type type);

/// `acc` combined with `x` as prim.reduce and prim.reduce_window of `kind` do: float or
/// integer arithmetic, NaN-propagating MAX/MIN, AND/OR on i1.
mlir::Value combineReduced(mlir::OpBuilder &b, mlir::Location loc, prim::ReduceKind kind,
                           mlir::Value x, mlir::Value acc);

} // namespace pt2c::lower

#endif // PT2C_COMPILER_TRANSFORMS_LOWER_SCALAROPS_H
