#include "compiler/transforms/decompose/IndexReduce.h"

using namespace mlir;

namespace pt2c::decompose {

Value positionsAlong(PrimBuilder &b, Value like, int64_t dim) {
  RankedTensorType type = tensorType(like);
  if (type.isDynamicDim(dim))
    return b.fail("positions along a dynamic dim");
  Type i64 = IntegerType::get(type.getContext(), 64);
  Value line = b.create<prim::IotaOp>(RankedTensorType::get({type.getDimSize(dim)}, i64), 0);
  return b.broadcastInDim(line, type.clone(i64), {dim}, like);
}

Value lowestKeyWhere(PrimBuilder &b, Value hit, Value key, int64_t dim, int64_t none) {
  Value noneSplat = b.splat((double)none, tensorType(key), key);
  Value candidates = b.create<prim::SelectOp>(hit, key, noneSplat);
  return b.reduce(prim::ReduceKind::MIN, candidates, {dim});
}

Value isNan(PrimBuilder &b, Value x) {
  return b.create<prim::CompareOp>(prim::CompareDirection::NE, x, x);
}

Value logicalOr(PrimBuilder &b, Value lhs, Value rhs) {
  return b.create<prim::SelectOp>(lhs, lhs, rhs);
}

} // namespace pt2c::decompose
