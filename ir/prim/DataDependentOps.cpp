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

LogicalResult NmsKeepOp::verify() {
  auto boxes = cast<RankedTensorType>(getBoxes().getType());
  auto scores = cast<RankedTensorType>(getScores().getType());
  if (boxes.getRank() != 2 || boxes.getDimSize(1) != 4 || scores.getRank() != 1 ||
      boxes.getDimSize(0) != scores.getDimSize(0) ||
      boxes.getElementType() != scores.getElementType())
    return emitOpError("expects boxes [N, 4] and scores [N] of one type, got ")
           << boxes << " and " << scores;
  auto i64 = RankedTensorType::get(scores.getShape(), IntegerType::get(getContext(), 64));
  auto i1 = RankedTensorType::get(scores.getShape(), IntegerType::get(getContext(), 1));
  if (getOrder().getType() != i64 || getKept().getType() != i1)
    return emitOpError("results must be ") << i64 << " and " << i1;
  return success();
}

} // namespace pt2c::prim

#define GET_OP_CLASSES
#include "ir/prim/DataDependentOps.cpp.inc"
