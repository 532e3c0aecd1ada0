// The `prim` dialect: pt2c's closed set of value-semantics tensor ops (PrimOps.td).
#ifndef PT2C_IR_PRIM_PRIMDIALECT_H
#define PT2C_IR_PRIM_PRIMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ir/prim/PrimDialect.h.inc"
#include "ir/prim/PrimEnums.h.inc"

#define GET_OP_CLASSES
#include "ir/prim/PrimOps.h.inc"

#endif // PT2C_IR_PRIM_PRIMDIALECT_H
