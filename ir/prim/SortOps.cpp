// Instantiates the prim ops that order elements (SortOps.td) and their verifiers.
#include "ir/prim/SortOps.h"

using namespace mlir;

namespace pt2c::prim {

LogicalResult ArgsortOp::verify() {
  auto operand = cast<RankedTensorType>(getOperand().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  if (operand.getRank() == 0)
    return emitOpError("sorts along the last dim: the operand needs one");
  if (!indices.getElementType().isInteger(64))
    return emitOpError("indices must be i64, got ") << indices;
  Type element = operand.getElementType();
  if (!isa<FloatType>(element) && !element.isSignlessInteger())
    return emitOpError("sorts floats and signless integers, got ") << element;
  return success();
}

} // namespace pt2c::prim

#define GET_OP_CLASSES
#include "ir/prim/SortOps.cpp.inc"
