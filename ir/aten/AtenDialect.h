// The `aten` dialect: one op per ATen schema in aten_ops.txt (see gen_aten_ops.py for
// the operand/attribute conventions).
#ifndef PT2C_IR_ATEN_ATENDIALECT_H
#define PT2C_IR_ATEN_ATENDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ir/aten/AtenDialect.h.inc"

namespace pt2c::aten {
/// The verifier shared by all aten ops: checks result shapes against the shape rule
/// registered for the op's name (AtenShapeRules.h), if any.
mlir::LogicalResult verifyAtenOp(mlir::Operation *op);
} // namespace pt2c::aten

#define GET_OP_CLASSES
#include "ir/aten/AtenOps.h.inc"

#endif // PT2C_IR_ATEN_ATENDIALECT_H
