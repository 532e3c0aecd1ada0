// argmax/argmin, max.dim/min.dim (values and indices) and the full max/min: the
// extreme is a NaN-propagating prim.reduce (as amax), its index the MIN over the
// positions holding it, so ties give the first index and a NaN wins at its first
// position, as in PyTorch eager.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/IndexReduce.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// The extreme of `x` along static `dim` and its first position (both with `dim`
/// removed).
struct Extreme {
  Value values, indices;
};

Extreme extremeAlong(PrimBuilder &b, Value x, int64_t dim, prim::ReduceKind kind) {
  RankedTensorType type = tensorType(x);
  if (type.isDynamicDim(dim)) {
    b.fail("argmax/argmin/max/min over a dynamic dim");
    return {};
  }
  Value values = b.reduce(kind, x, {dim});
  Value spread = b.broadcastReduced(values, type, {dim}, x);
  Value hit = b.create<prim::CompareOp>(prim::CompareDirection::EQ, x, spread);
  // A NaN extreme equals nothing; the NaNs are then exactly the positions holding it.
  if (isa<FloatType>(type.getElementType()))
    hit = logicalOr(b, isNan(b, x), hit);
  Value positions = positionsAlong(b, x, dim);
  Value indices = lowestKeyWhere(b, hit, positions, dim, type.getDimSize(dim));
  return {values, indices};
}

/// `x` with its dims as one (a rank-0 tensor as one element), for the reductions
/// over all elements.
Value flattened(PrimBuilder &b, Value x) {
  RankedTensorType type = tensorType(x);
  if (!type.hasStaticShape())
    return b.fail("argmax/argmin over all dims of a dynamically shaped tensor");
  return b.reshape(x, RankedTensorType::get({type.getNumElements()}, type.getElementType()));
}

/// argmax/argmin: over `dim` (keepdim: a reshape), or over all elements.
template <typename OpT, prim::ReduceKind Kind> Value argExtreme(OpT op, PrimBuilder &b) {
  Value x = op.getSelf();
  int64_t rank = tensorType(x).getRank();
  Extreme e;
  if (std::optional<uint64_t> dimArg = op.getDim(); dimArg && rank > 0)
    e = extremeAlong(b, x, normalizeDim((int64_t)*dimArg, rank), Kind);
  else
    e = extremeAlong(b, flattened(b, x), 0, Kind);
  return b.reshape(e.indices, b.resultType());
}

/// max.dim/min.dim: values and indices (keepdim: a reshape of both).
template <typename OpT, prim::ReduceKind Kind>
SmallVector<Value> extremeWithIndex(OpT op, PrimBuilder &b) {
  Value x = op.getSelf();
  int64_t rank = tensorType(x).getRank();
  if (rank == 0) // torch.max(scalar, 0): the scalar at index 0
    return {x, b.splat(0.0, b.resultType(1))};
  Extreme e = extremeAlong(b, x, normalizeDim(op.getDimAttr().getInt(), rank), Kind);
  Value values = b.reshape(e.values, b.resultType(0));
  Value indices = b.reshape(e.indices, b.resultType(1));
  return {values, indices};
}

/// torch.max(x) / torch.min(x): amax over every dim.
template <typename OpT, prim::ReduceKind Kind> Value extremeOfAll(OpT op, PrimBuilder &b) {
  Value x = op.getSelf();
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, tensorType(x).getRank()));
  return b.reshape(b.reduce(Kind, x, all), b.resultType());
}

} // namespace

void populateArgReduceDecompositions(DecompositionSet &set) {
  using K = prim::ReduceKind;
  set.add<aten::ArgmaxOp>(argExtreme<aten::ArgmaxOp, K::MAX>)
      .add<aten::ArgminOp>(argExtreme<aten::ArgminOp, K::MIN>)
      .add<aten::MaxDimOp>(extremeWithIndex<aten::MaxDimOp, K::MAX>)
      .add<aten::MinDimOp>(extremeWithIndex<aten::MinDimOp, K::MIN>)
      .add<aten::MaxOp>(extremeOfAll<aten::MaxOp, K::MAX>)
      .add<aten::MinOp>(extremeOfAll<aten::MinOp, K::MIN>);
}

} // namespace pt2c::decompose
