// nn.EmbeddingBag (_embedding_bag, and _embedding_bag_forward_only, its form under
// no_grad): bag b sums (mode 0), averages (1) or takes the elementwise max (2) of the
// weight rows that indices[offsets[b] : offsets[b + 1]] name (an empty bag gives 0),
// each row scaled by its per-sample weight in sum mode, rows at padding_idx skipped.
// Position k belongs to bag (count of bag starts <= k) - 1, which a compare of every
// position with every offset gives; a bag's members then form a [bags, n] 0/1 matrix,
// so sum and mean are one matrix product with the gathered rows and max a masked
// reduction. Only the bags (the first result) are computed: offset2bag, bag_size and
// max_indices feed embedding_bag's backward, which inference does not run.
#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

template <typename OpT> SmallVector<Value> embeddingBag(OpT op, PrimBuilder &b) {
  for (unsigned i = 1; i < op->getNumResults(); ++i)
    if (!op->getResult(i).use_empty()) {
      b.fail("embedding_bag's offset2bag, bag_size and max_indices results (backward "
             "bookkeeping) are not supported");
      return {};
    }
  auto type = cast<RankedTensorType>(op->getResult(0).getType()); // [bags, D]
  Type et = type.getElementType();
  RankedTensorType indexType = tensorType(op.getIndices()),
                   offsetType = tensorType(op.getOffsets());
  if (!type.hasStaticShape() || !indexType.hasStaticShape() || !offsetType.hasStaticShape() ||
      indexType.getRank() != 1 || offsetType.getRank() != 1) {
    b.fail("embedding_bag needs static sizes and 1-D indices and offsets");
    return {};
  }
  int64_t mode = op.getModeAttr() ? op.getModeAttr().getInt() : 0;
  int64_t padding = op.getPaddingIdxAttr() ? op.getPaddingIdxAttr().getInt() : -1;
  bool lastIsEnd = op.getIncludeLastOffset().value_or(false);
  if (mode < 0 || mode > 2 || (op.getPerSampleWeights() && mode != 0)) {
    b.fail("embedding_bag with mode " + Twine(mode) +
           (op.getPerSampleWeights() ? " and per-sample weights" : ""));
    return {};
  }
  int64_t n = indexType.getDimSize(0), bags = type.getDimSize(0), starts = bags;
  auto i1 = IntegerType::get(type.getContext(), 1), i64 = IntegerType::get(type.getContext(), 64);
  auto pairType = RankedTensorType::get({bags, n}, i64);
  Value offsets = b.convert(op.getOffsets(), i64);
  // bag[k] = (number of bag starts <= k) - 1: the starts are offsets[0 : bags].
  Value startList = offsets;
  if (offsetType.getDimSize(0) != starts)
    startList = b.create<prim::SliceOp>(offsets, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{starts},
                                        ArrayRef<int64_t>{1});
  Value positions = b.create<prim::IotaOp>(pairType, 1, ValueRange{}); // k along dim 1
  Value begun = b.create<prim::CompareOp>(prim::CompareDirection::LE,
                                          b.broadcastInDim(startList, pairType, {0}), positions);
  Value bagOf = b.create<prim::SubOp>(b.reduce(prim::ReduceKind::SUM, b.convert(begun, i64), {0}),
                                      b.splat(1.0, RankedTensorType::get({n}, i64)));
  Value member =
      b.create<prim::CompareOp>(prim::CompareDirection::EQ, b.broadcastInDim(bagOf, pairType, {1}),
                                b.create<prim::IotaOp>(pairType, 0, ValueRange{}));
  auto maskType = pairType.clone(i1);
  auto andAlso = [&](Value mask, Value condition) {
    return b.create<prim::SelectOp>(mask, condition, b.splat(0.0, maskType));
  };
  Value indices = b.convert(op.getIndices(), i64);
  if (padding >= 0) { // rows at padding_idx belong to no bag
    Value kept = b.create<prim::CompareOp>(prim::CompareDirection::NE, indices,
                                           b.splat(double(padding), tensorType(indices)));
    member = andAlso(member, b.broadcastInDim(kept, maskType, {1}));
  }
  if (lastIsEnd) { // positions from the last offset on belong to no bag
    Value end = b.create<prim::SliceOp>(offsets, ArrayRef<int64_t>{starts},
                                        ArrayRef<int64_t>{starts + 1}, ArrayRef<int64_t>{1});
    Value before = b.create<prim::CompareOp>(
        prim::CompareDirection::LT, positions,
        b.broadcastInDim(b.reshape(end, RankedTensorType::get({}, i64)), pairType, {}));
    member = andAlso(member, before);
  }
  Value rows = b.create<prim::GatherOp>(b.convert(op.getWeight(), et), indices, 0, 0); // [n, D]
  if (Value weights = op.getPerSampleWeights())
    rows = b.create<prim::MulOp>(rows,
                                 b.broadcastInDim(b.convert(weights, et), tensorType(rows), {0}));
  Value count = b.reduce(prim::ReduceKind::SUM, b.convert(member, et), {1}); // [bags]
  Value bagsOut;
  if (mode == 2) {
    int64_t d = type.getDimSize(1);
    auto wideType = RankedTensorType::get({bags, n, d}, et);
    Value terms =
        b.create<prim::SelectOp>(b.broadcastInDim(member, wideType.clone(i1), {0, 1}),
                                 b.broadcastInDim(rows, wideType, {1, 2}),
                                 b.splat(reductionIdentity(prim::ReduceKind::MAX, et), wideType));
    bagsOut = b.reduce(prim::ReduceKind::MAX, terms, {1});
    Value filled = b.create<prim::CompareOp>(prim::CompareDirection::GT, count,
                                             b.splat(0.0, tensorType(count)));
    bagsOut = b.create<prim::SelectOp>(b.broadcastInDim(filled, type.clone(i1), {0}), bagsOut,
                                       b.splat(0.0, type));
  } else {
    bagsOut = b.dotGeneral(b.convert(member, et), rows, {}, {}, {1}, {0});
    if (mode == 1) { // an empty bag divides 0 by 1
      Value divisor = b.create<prim::MaxOp>(count, b.splat(1.0, tensorType(count)));
      bagsOut = b.create<prim::DivOp>(bagsOut, b.broadcastInDim(divisor, type, {0}));
    }
  }
  SmallVector<Value> results = {bagsOut};
  for (unsigned i = 1; i < op->getNumResults(); ++i) // unused (checked above)
    results.push_back(b.splat(0.0, cast<RankedTensorType>(op->getResult(i).getType())));
  return results;
}

} // namespace

void populateEmbeddingBagDecompositions(DecompositionSet &set) {
  set.add<aten::InternalEmbeddingBagOp>(embeddingBag<aten::InternalEmbeddingBagOp>)
      .add<aten::InternalEmbeddingBagForwardOnlyOp>(
          embeddingBag<aten::InternalEmbeddingBagForwardOnlyOp>);
}

} // namespace pt2c::decompose
