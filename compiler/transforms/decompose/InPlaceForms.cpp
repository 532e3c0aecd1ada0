// Decompositions of the functional forms that pt2c-functionalize makes of in-place ops
// users write (fill_, zero_, index_copy_); the traced graphs rarely hold these forms
// themselves.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/Scatter.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

Value fill(aten::FillScalarOp op, PrimBuilder &b) {
  return b.splat(b.scalarAttr(op.getValueAttr(), b.resultElementType()), b.resultType(),
                 op.getSelf());
}

Value zero(aten::ZeroOp op, PrimBuilder &b) { return b.splat(0.0, b.resultType(), op.getSelf()); }

/// index_copy(self, dim, index[n], source): self with slice index[k] of dim replaced by
/// slice k of source (the last k where an index repeats, as eager's loop leaves it).
Value indexCopy(aten::IndexCopyOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  int64_t rank = type.getRank();
  RankedTensorType indexType = tensorType(op.getIndex());
  if (!type.hasStaticShape() || indexType.getRank() != 1 || rank == 0)
    return b.fail("index_copy needs a tensor of static sizes and rank >= 1, and a 1-d index");
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), rank);
  return scatterAlong(b, op.getSelf(), dim, op.getIndex(), op.getSource(),
                      /*accumulate=*/false);
}

} // namespace

void populateInPlaceFormDecompositions(DecompositionSet &set) {
  set.add<aten::FillScalarOp>(fill).add<aten::ZeroOp>(zero).add<aten::IndexCopyOp>(indexCopy);
}

} // namespace pt2c::decompose
