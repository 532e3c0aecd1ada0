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

namespace pt2c::prim {

/// The module attribute that asks for prim.attention and prim.layer_norm is
/// kFusedOpsAttr (ir/contract/ModelContract.h).
/// The most keys prim.attention takes: the fused kernel keeps a query's scores (f32)
/// in shared memory.
constexpr int64_t kFusedAttentionMaxKeys = 8192;
/// The longest row prim.layer_norm takes: the fused kernel keeps a row (f32) in shared
/// memory.
constexpr int64_t kFusedRowMaxElements = 8192;

} // namespace pt2c::prim

#endif // PT2C_IR_PRIM_PRIMDIALECT_H
