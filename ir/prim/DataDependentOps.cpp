// Instantiates the data-dependent prim ops (DataDependentOps.td) and their verifiers.
#include "ir/prim/DataDependentOps.h"

using namespace mlir;

namespace pt2c::prim {

LogicalResult NonzeroOp::verify() {
  auto operand = cast<RankedTensorType>(getOperand().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto count = cast<RankedTensorType>(getCount().getType());
  if (indices.getRank() != 2 || !indices.isDynamicDim(0) ||
      indices.getDimSize(1) != operand.getRank() || !indices.getElementType().isInteger(64))
    return emitOpError("indices must be tensor<?x")
           << operand.getRank() << "xi64>, got " << indices;
  if (count.getRank() != 0 || !count.getElementType().isInteger(64))
    return emitOpError("count must be tensor<i64>, got ") << count;
  if (getSymbol().empty())
    return emitOpError("needs the symbol its row count binds");
  return success();
}

} // namespace pt2c::prim

#define GET_OP_CLASSES
#include "ir/prim/DataDependentOps.cpp.inc"
