// topk and sort by k-step selection: step i takes the extreme of the elements not yet
// taken (a NaN-propagating prim.reduce) and the lowest position holding it, then marks
// that position taken. That is k passes over the dim, unrolled in the IR, so k (and a
// sorted dim) is bounded by kMaxSelected: top-5 of a classifier's logits, or a sort of
// a short dim, not a sort of a vocabulary. In exchange it is plain prim (elementwise
// ops and reductions) that every target lowers and fuses.
//
// The order is PyTorch eager's: NaN counts as larger than every number (first for
// largest/descending, last for smallest/ascending) and equal values come in order of
// position (a stable sort). torch.topk(sorted=False) leaves the order unspecified; pt2c
// returns it sorted, which is one of the orders eager may give.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/IndexReduce.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

constexpr int64_t kMaxSelected = 64;

/// A tensor of `type` holding the value that never wins a `largest` selection: -inf
/// or the lowest integer (+inf or the highest integer for a smallest-first one).
Value neverWins(PrimBuilder &b, RankedTensorType type, bool largest, Value like) {
  Type et = type.getElementType();
  TypedAttr value;
  if (auto f = dyn_cast<FloatType>(et))
    value = FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/largest));
  else {
    unsigned width = et.getIntOrFloatBitWidth();
    value = IntegerAttr::get(et, largest ? APInt::getSignedMinValue(width)
                                         : APInt::getSignedMaxValue(width));
  }
  return b.splat(value, type, like);
}

/// The first `k` elements of `x` along `dim` in selection order, as the values and
/// indices results of `op` (dim `dim` of size k).
SmallVector<Value> selectInOrder(PrimBuilder &b, Value x, int64_t dim, int64_t k,
                                 bool largest) {
  RankedTensorType type = tensorType(x);
  if (type.isDynamicDim(dim))
    return {b.fail("topk/sort along a dynamic dim")};
  int64_t n = type.getDimSize(dim);
  if (k < 1 || k > n)
    return {b.fail("topk of " + Twine(k) + " elements out of " + Twine(n))};
  if (k > kMaxSelected)
    return {b.fail("topk/sort selects one element per step, at most " +
                   Twine(kMaxSelected) + " (asked for " + Twine(k) + ")")};
  bool isFloat = isa<FloatType>(type.getElementType());
  auto indexType = type.clone(IntegerType::get(type.getContext(), 64));
  SmallVector<int64_t> stepShape(type.getShape());
  stepShape[dim] = 1;
  auto stepValues = RankedTensorType::get(stepShape, type.getElementType());
  auto stepIndices = stepValues.clone(indexType.getElementType());

  Value positions = positionsAlong(b, x, dim);
  Value base = x, key = positions, nan;
  if (isFloat && !largest) {
    // Smallest first: NaNs compete as +inf, and rank after every real +inf through
    // their key (position + n).
    nan = isNan(b, x);
    base = b.create<prim::SelectOp>(nan, neverWins(b, type, largest, x), x);
    Value shift = b.create<prim::SelectOp>(nan, b.splat((double)n, indexType, x),
                                           b.splat(0.0, indexType, x));
    key = b.create<prim::AddOp>(positions, shift);
  }
  Value fill = neverWins(b, type, largest, x);
  Value no = b.splat(0.0, type.clone(IntegerType::get(type.getContext(), 1)), x);
  prim::ReduceKind kind = largest ? prim::ReduceKind::MAX : prim::ReduceKind::MIN;

  SmallVector<Value> values, indices;
  Value taken;
  for (int64_t step = 0; step < k && !b.failed(); ++step) {
    Value candidates = taken ? b.create<prim::SelectOp>(taken, fill, base) : base;
    Value extreme = b.reduce(kind, candidates, {dim});
    Value spread = b.broadcastReduced(extreme, type, {dim}, x);
    Value hit = b.create<prim::CompareOp>(prim::CompareDirection::EQ, candidates, spread);
    if (isFloat && largest) // a NaN extreme (it propagates) is held by the NaNs
      hit = logicalOr(b, isNan(b, candidates), hit);
    if (taken)
      hit = b.create<prim::SelectOp>(taken, no, hit);
    Value lowest = lowestKeyWhere(b, hit, key, dim, 2 * n);
    Value index = lowest, value = extreme;
    if (nan) { // keys >= n are NaNs: their value is NaN, their position key - n
      auto reduced = tensorType(lowest);
      Value nSplat = b.splat((double)n, reduced, lowest);
      Value wasNan = b.create<prim::CompareOp>(prim::CompareDirection::GE, lowest, nSplat);
      index = b.create<prim::SelectOp>(wasNan, b.create<prim::SubOp>(lowest, nSplat), lowest);
      Value nanSplat = b.splat(std::nan(""), tensorType(extreme), extreme);
      value = b.create<prim::SelectOp>(wasNan, nanSplat, extreme);
    }
    values.push_back(b.reshape(value, stepValues));
    indices.push_back(b.reshape(index, stepIndices));
    if (step + 1 < k) {
      Value chosen = b.create<prim::CompareOp>(
          prim::CompareDirection::EQ, positions,
          b.broadcastReduced(index, indexType, {dim}, x));
      taken = taken ? logicalOr(b, chosen, taken) : chosen;
    }
  }
  if (b.failed())
    return {Value()};
  Value allValues = values.size() == 1 ? values[0]
                                       : b.create<prim::ConcatenateOp>(values, dim);
  Value allIndices = indices.size() == 1 ? indices[0]
                                         : b.create<prim::ConcatenateOp>(indices, dim);
  return {allValues, allIndices};
}

/// Checks the results against the trace's types (a rank-0 input is its own top-1).
SmallVector<Value> selection(PrimBuilder &b, Value x, int64_t dimArg, int64_t k,
                             bool largest) {
  int64_t rank = tensorType(x).getRank();
  if (rank == 0) {
    if (k != 1)
      return {b.fail("topk of a 0-d tensor with k != 1")};
    return {x, b.splat(0.0, b.resultType(1))};
  }
  return selectInOrder(b, x, normalizeDim(dimArg, rank), k, largest);
}

SmallVector<Value> topk(aten::TopkOp op, PrimBuilder &b) {
  return selection(b, op.getSelf(), op.getDimAttr() ? op.getDimAttr().getInt() : -1,
                   (int64_t)op.getK(), op.getLargest().value_or(true));
}

template <typename OpT>
SmallVector<Value> sort(OpT op, PrimBuilder &b) {
  Value x = op.getSelf();
  RankedTensorType type = tensorType(x);
  int64_t dimArg = op.getDimAttr() ? op.getDimAttr().getInt() : -1;
  int64_t size = type.getRank() == 0 ? 1 : type.getDimSize(normalizeDim(dimArg, type.getRank()));
  if (ShapedType::isDynamic(size))
    return {b.fail("sort along a dynamic dim")};
  return selection(b, x, dimArg, size, op.getDescending().value_or(false));
}

} // namespace

void populateTopKDecompositions(DecompositionSet &set) {
  set.add<aten::TopkOp>(topk)
      .add<aten::SortOp>(sort<aten::SortOp>)
      .add<aten::SortStableOp>(sort<aten::SortStableOp>);
}

} // namespace pt2c::decompose
