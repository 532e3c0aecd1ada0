// Decompositions of the functional forms that pt2c-functionalize makes of in-place ops
// users write (fill_, zero_, index_copy_); the traced graphs rarely hold these forms
// themselves.
#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

Value fill(aten::FillScalarOp op, PrimBuilder &b) {
  return b.splat(b.scalarAttr(op.getValueAttr(), b.resultElementType()), b.resultType(),
                 op.getSelf());
}

Value zero(aten::ZeroOp op, PrimBuilder &b) {
  return b.splat(0.0, b.resultType(), op.getSelf());
}

/// index_copy(self, dim, index[n], source): self with slice index[k] of dim replaced by
/// slice k of source. Each position j of dim finds the last k with index[k] == j (the
/// write eager's loop leaves there), or -1: a gather of source where there is one.
Value indexCopy(aten::IndexCopyOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  int64_t rank = type.getRank();
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), rank);
  RankedTensorType indexType = tensorType(op.getIndex());
  if (!type.hasStaticShape() || !indexType.hasStaticShape() || indexType.getRank() != 1 ||
      rank == 0)
    return b.fail("index_copy needs static sizes, a 1-d index and a tensor of rank >= 1");
  int64_t n = indexType.getDimSize(0), size = type.getDimSize(dim);
  auto i64 = IntegerType::get(type.getContext(), 64);
  auto pairType = RankedTensorType::get({n, size}, i64);
  Value index = b.reshape(b.convert(op.getIndex(), i64), RankedTensorType::get({n}, i64));
  Value wanted = b.broadcastInDim(index, pairType, {0});
  Value hit = b.create<prim::CompareOp>(prim::CompareDirection::EQ, wanted,
                                        b.create<prim::IotaOp>(pairType, 1));
  Value k = b.create<prim::SelectOp>(hit, b.create<prim::IotaOp>(pairType, 0),
                                     b.splat(-1.0, pairType));
  Value position = b.reduce(prim::ReduceKind::MAX, k, {0}); // [size]
  auto positionType = RankedTensorType::get({size}, i64);
  Value found = b.create<prim::CompareOp>(prim::CompareDirection::GE, position,
                                          b.splat(0.0, positionType));
  Value gathered = b.create<prim::GatherOp>(op.getSource(), position, dim, 0); // clamps -1
  auto foundType = RankedTensorType::get(type.getShape(), tensorType(found).getElementType());
  Value everywhere = b.broadcastInDim(found, foundType, {dim});
  return b.create<prim::SelectOp>(everywhere, b.convert(gathered, type.getElementType()),
                                  op.getSelf());
}

} // namespace

void populateInPlaceFormDecompositions(DecompositionSet &set) {
  set.add<aten::FillScalarOp>(fill).add<aten::ZeroOp>(zero).add<aten::IndexCopyOp>(indexCopy);
}

} // namespace pt2c::decompose
