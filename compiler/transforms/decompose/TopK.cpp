// topk and sort by k-step selection: step i takes the extreme of the elements not yet
// taken (a NaN-propagating prim.reduce) and the lowest position holding it, then marks
// that position taken. That is k passes over the dim, unrolled in the IR, so it serves
// k <= kMaxSelected (top-5 of a classifier's logits, a sort of a short dim); a larger k
// (a classifier's full sort over 1000 classes) counts each element's rank against
// every other element instead, O(n^2) per row, bounded by kMaxRankSorted. Both are
// plain prim (elementwise ops, reductions, a gather) that every target lowers and fuses.
// Where neither applies (a dim of run-time size: a data-dependent selection's count or
// a dynamic dimension, a count k known at run time, a dim or table beyond the bounds)
// the dim is sorted by prim.argsort instead (SortPermutation.cpp), O(n log n), CPU only.
//
// The order is PyTorch eager's: NaN counts as larger than every number (first for
// largest/descending, last for smallest/ascending) and equal values come in order of
// position (a stable sort). torch.topk(sorted=False) leaves the order unspecified; pt2c
// returns it sorted, which is one of the orders eager may give.
#include "compiler/transforms/decompose/DecompositionSet.h"
#include "compiler/transforms/decompose/IndexReduce.h"
#include "compiler/transforms/decompose/SortPermutation.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

constexpr int64_t kMaxSelected = 64;
constexpr int64_t kMaxRankSorted = 8192;
constexpr int64_t kMaxRankTable = int64_t(1) << 26;

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

/// The first `k` elements of `x` along `dim` in selection order by rank counting, for
/// a k too large to unroll one step per element: the rank of element i is the number
/// of elements j that come before it (larger, or smaller when !largest; NaN larger than
/// every number; equal ones by position), the ranks are a permutation, and output
/// position r takes the i of rank r. That compares every pair along the dim, so the
/// dim is bounded by kMaxRankSorted and the whole [rows, n, n] table by kMaxRankTable;
/// beyond them (or with dynamic rows) the dim is sorted instead.
SmallVector<Value> selectByRank(PrimBuilder &b, Value x, int64_t dim, int64_t k, bool largest) {
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank(), n = type.getDimSize(dim);
  int64_t rows = type.getNumElements() / std::max<int64_t>(n, 1);
  if (!type.hasStaticShape() || n > kMaxRankSorted || rows * n * n > kMaxRankTable) {
    OpFoldResult count;
    if (k < n)
      count = IntegerAttr::get(IntegerType::get(type.getContext(), 64), k);
    return sortByPermutation(b, x, dim, largest, count);
  }
  MLIRContext *context = type.getContext();
  auto i1 = IntegerType::get(context, 1);
  auto i64 = IntegerType::get(context, 64);
  // The sorted dim last: rows [R..., n]; pairs [R..., n (i), n (j)].
  SmallVector<int64_t> toLast = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  toLast.erase(toLast.begin() + dim);
  toLast.push_back(dim);
  Value rowsLast = b.transpose(x, toLast);
  if (b.failed())
    return {Value()};
  RankedTensorType rowType = tensorType(rowsLast);
  SmallVector<int64_t> pairShape(rowType.getShape());
  pairShape.push_back(n);
  auto pairType = RankedTensorType::get(pairShape, type.getElementType());
  SmallVector<int64_t> leading = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  SmallVector<int64_t> asI(leading), asJ(leading);
  asI.push_back(rank - 1), asJ.push_back(rank);
  Value xi = b.broadcastInDim(rowsLast, pairType, asI);
  Value xj = b.broadcastInDim(rowsLast, pairType, asJ);
  auto flagType = pairType.clone(i1);
  Value yes = b.splat(1.0, flagType), no = b.splat(0.0, flagType);
  auto direction = largest ? prim::CompareDirection::GT : prim::CompareDirection::LT;
  Value beats = b.create<prim::CompareOp>(direction, xj, xi);
  Value equal = b.create<prim::CompareOp>(prim::CompareDirection::EQ, xj, xi);
  if (isa<FloatType>(type.getElementType())) {
    // NaN is larger than every number and equal to NaN.
    Value nanI = isNan(b, xi), nanJ = isNan(b, xj);
    Value notNanI = b.create<prim::SelectOp>(nanI, no, yes);
    Value notNanJ = b.create<prim::SelectOp>(nanJ, no, yes);
    Value nanBeats = largest ? b.create<prim::SelectOp>(nanJ, notNanI, no)
                             : b.create<prim::SelectOp>(nanI, notNanJ, no);
    beats = logicalOr(b, nanBeats, beats);
    equal = logicalOr(b, b.create<prim::SelectOp>(nanI, nanJ, no), equal);
  }
  Value earlier = b.create<prim::CompareOp>(prim::CompareDirection::LT,
                                            b.create<prim::IotaOp>(pairType.clone(i64), rank),
                                            b.create<prim::IotaOp>(pairType.clone(i64), rank - 1));
  Value before = logicalOr(b, beats, b.create<prim::SelectOp>(equal, earlier, no));
  Value ranks = b.reduce(prim::ReduceKind::SUM, b.convert(before, i64), {rank}); // [R..., n]
  // Output position r (of the first k) takes the i whose rank is r.
  SmallVector<int64_t> takeShape(rowType.getShape());
  takeShape.back() = k;
  takeShape.push_back(n);
  auto takeType = RankedTensorType::get(takeShape, i64);
  Value rankOfI = b.broadcastInDim(ranks, takeType, asJ);
  Value hit = b.create<prim::CompareOp>(prim::CompareDirection::EQ, rankOfI,
                                        b.create<prim::IotaOp>(takeType, rank - 1));
  Value positions = b.create<prim::SelectOp>(hit, b.create<prim::IotaOp>(takeType, rank),
                                             b.splat(-1.0, takeType));
  Value order = b.reduce(prim::ReduceKind::MAX, positions, {rank}); // [R..., k]
  Value values = b.create<prim::GatherOp>(rowsLast, order, rank - 1, rank - 1);
  SmallVector<int64_t> back(rank);
  for (int64_t d = 0; d < rank; ++d)
    back[toLast[d]] = d;
  return {b.transpose(values, back), b.transpose(order, back)};
}

/// The first `k` elements of `x` along `dim` in selection order, as the values and
/// indices results of `op` (dim `dim` of size k); `dim` is static.
SmallVector<Value> selectInOrder(PrimBuilder &b, Value x, int64_t dim, int64_t k, bool largest) {
  RankedTensorType type = tensorType(x);
  int64_t n = type.getDimSize(dim);
  if (k < 1 || k > n)
    return {b.fail("topk of " + Twine(k) + " elements out of " + Twine(n))};
  if (k > kMaxSelected)
    return selectByRank(b, x, dim, k, largest);
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
    Value shift =
        b.create<prim::SelectOp>(nan, b.splat((double)n, indexType, x), b.splat(0.0, indexType, x));
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
      Value chosen = b.create<prim::CompareOp>(prim::CompareDirection::EQ, positions,
                                               b.broadcastReduced(index, indexType, {dim}, x));
      taken = taken ? logicalOr(b, chosen, taken) : chosen;
    }
  }
  if (b.failed())
    return {Value()};
  Value allValues = values.size() == 1 ? values[0] : b.create<prim::ConcatenateOp>(values, dim);
  Value allIndices = indices.size() == 1 ? indices[0] : b.create<prim::ConcatenateOp>(indices, dim);
  return {allValues, allIndices};
}

/// The first `count` elements of `x` along dim `dimArg` in selection order: a static
/// count (an IntegerAttr), a run-time one (an index Value), or all where it is null. A
/// rank-0 input is its own top-1.
SmallVector<Value> selection(PrimBuilder &b, Value x, int64_t dimArg, OpFoldResult count,
                             bool largest) {
  RankedTensorType type = tensorType(x);
  auto k = dyn_cast_or_null<Attribute>(count);
  if (type.getRank() == 0) {
    if (k && cast<IntegerAttr>(k).getInt() != 1)
      return {b.fail("topk of a 0-d tensor with k != 1")};
    return {x, b.splat(0.0, b.resultType(1))};
  }
  int64_t dim = normalizeDim(dimArg, type.getRank());
  if (type.isDynamicDim(dim) || (count && !k))
    return sortByPermutation(b, x, dim, largest, count);
  return selectInOrder(b, x, dim, k ? cast<IntegerAttr>(k).getInt() : type.getDimSize(dim),
                       largest);
}

SmallVector<Value> topk(aten::TopkOp op, PrimBuilder &b) {
  OpFoldResult count = b.symbolicInt("k"); // min(1000, u0): a count the run knows
  if (!count)
    count = IntegerAttr::get(IntegerType::get(op.getContext(), 64), (int64_t)op.getK());
  return selection(b, op.getSelf(), op.getDimAttr() ? op.getDimAttr().getInt() : -1, count,
                   op.getLargest().value_or(true));
}

template <typename OpT> SmallVector<Value> sort(OpT op, PrimBuilder &b) {
  return selection(b, op.getSelf(), op.getDimAttr() ? op.getDimAttr().getInt() : -1, {},
                   op.getDescending().value_or(false));
}

} // namespace

void populateTopKDecompositions(DecompositionSet &set) {
  set.add<aten::TopkOp>(topk)
      .add<aten::SortOp>(sort<aten::SortOp>)
      .add<aten::SortStableOp>(sort<aten::SortStableOp>);
}

} // namespace pt2c::decompose
