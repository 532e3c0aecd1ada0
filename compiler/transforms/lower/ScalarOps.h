// The scalar computation of each elementwise prim op, in arith and math ops: the body
// of the linalg.generic that an elementwise prim op becomes.
#ifndef PT2C_COMPILER_TRANSFORMS_LOWER_SCALAROPS_H
#define PT2C_COMPILER_TRANSFORMS_LOWER_SCALAROPS_H

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

} // namespace pt2c::lower

#endif // PT2C_COMPILER_TRANSFORMS_LOWER_SCALAROPS_H
