// The two ops mixture-of-experts layers route tokens with (transformers' grouped_mm
// experts: tokens sorted by expert, counted per expert with histc, one GEMM per expert
// over its run of rows with _grouped_mm). Both decompose to static shapes, so a model
// compiles with no guard on which experts the traced input hit:
// - histc(x, bins, min, max): each element's bin as ATen's CPU kernel computes it
//   (linear interpolation, no edge search), compared with every bin and summed: a
//   [N, bins] mask, N * bins compares.
// - _grouped_mm(self [M, K], mat2 [G, K, N], offs [G]): every row times every group's
//   matrix (one GEMM, [M, G, N]), then each row keeps its group's product (the number
//   of group ends at or before it). That is G times the FLOPs of the rows' own GEMMs:
//   exact and free of run-time sizes; a GEMM per group over run-time row ranges would
//   need plan steps with run-time sizes, which the runtime does not have yet.
#include <cmath>

#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// The floating type histc computes bin positions in: half floats in f32 (ATen's
/// opmath type), integers (CUDA's histc counts them) in f32, exact below 2^24.
Type binPositionType(Type t) {
  if (isa<FloatType>(t))
    return accumulationType(t);
  return Float32Type::get(t.getContext());
}

Value histc(aten::HistcOp op, PrimBuilder &b) {
  RankedTensorType in = tensorType(op.getSelf()), type = b.resultType();
  if (!in.hasStaticShape())
    return b.fail("histc of a dynamically sized tensor");
  int64_t bins = op.getBinsAttr() ? op.getBinsAttr().getInt() : 100;
  double lowArg = scalarValue(op.getMinAttr(), 0.0), highArg = scalarValue(op.getMaxAttr(), 0.0);
  if (bins <= 0 || lowArg > highArg || !std::isfinite(lowArg) || !std::isfinite(highArg))
    return b.fail("histc needs bins > 0 and finite min <= max");
  int64_t n = in.getNumElements();
  Type t = binPositionType(in.getElementType());
  RankedTensorType scalar = RankedTensorType::get({}, t), flat = RankedTensorType::get({n}, t);
  Value x = b.reshape(b.convert(op.getSelf(), t), flat);

  // The range: min and max, or (both equal) the data's own, widened by 1 each way when
  // that is a single value, as ATen's histc_select_outer_bin_edges does.
  Value low = b.splat(lowArg, scalar), high = b.splat(highArg, scalar);
  if (lowArg == highArg && n > 0) {
    Value one = b.splat(1.0, scalar);
    Value dataLow = b.reduce(prim::ReduceKind::MIN, x, {0});
    Value dataHigh = b.reduce(prim::ReduceKind::MAX, x, {0});
    Value single = b.create<prim::CompareOp>(prim::CompareDirection::EQ, dataLow, dataHigh);
    Value below = b.create<prim::SubOp>(dataLow, one);
    low = b.create<prim::SelectOp>(single, below, dataLow);
    Value above = b.create<prim::AddOp>(dataHigh, one);
    high = b.create<prim::SelectOp>(single, above, dataHigh);
  }
  Value lowN = b.broadcastInDim(low, flat, {}), highN = b.broadcastInDim(high, flat, {});

  // bin = trunc((x - low) * bins / (high - low)), the top edge in the last bin; elements
  // outside [low, high] and NaNs are in none.
  Value offset = b.create<prim::SubOp>(x, lowN);
  Value scaled = b.create<prim::MulOp>(offset, b.splat((double)bins, flat));
  Value width = b.create<prim::SubOp>(highN, lowN);
  Value position = b.create<prim::FloorOp>(b.create<prim::DivOp>(scaled, width));
  Value bin = b.create<prim::MinOp>(position, b.splat((double)(bins - 1), flat));
  Value atLeastLow = b.create<prim::CompareOp>(prim::CompareDirection::GE, x, lowN);
  Value atMostHigh = b.create<prim::CompareOp>(prim::CompareDirection::LE, x, highN);
  RankedTensorType flags = RankedTensorType::get({n}, IntegerType::get(t.getContext(), 1));
  Value inRange = b.create<prim::SelectOp>(atLeastLow, atMostHigh, b.splat(0.0, flags));
  Value binOrNone = b.create<prim::SelectOp>(inRange, bin, b.splat(-1.0, flat));

  RankedTensorType grid = RankedTensorType::get({n, bins}, t);
  Value sameBin =
      b.create<prim::CompareOp>(prim::CompareDirection::EQ, b.broadcastInDim(binOrNone, grid, {0}),
                                b.create<prim::IotaOp>(grid, 1));
  Value ones = b.create<prim::SelectOp>(sameBin, b.splat(1.0, grid), b.splat(0.0, grid));
  return b.convert(b.reduce(prim::ReduceKind::SUM, ones, {0}), type.getElementType());
}

/// Row r's group for _grouped_mm: how many groups end at or before it (offs holds each
/// group's end); rows past the last end get G, which matches no group.
Value rowGroups(PrimBuilder &b, Value offs, int64_t rows) {
  RankedTensorType ends = tensorType(offs);
  if (ends.getRank() != 1 || !ends.hasStaticShape() || !isa<IntegerType>(ends.getElementType()))
    return b.fail("_grouped_mm expects offs as a static 1-D integer tensor");
  int64_t groups = ends.getDimSize(0);
  RankedTensorType grid = RankedTensorType::get({rows, groups}, ends.getElementType());
  Value row = b.create<prim::IotaOp>(grid, 0);
  Value passed =
      b.create<prim::CompareOp>(prim::CompareDirection::GE, row, b.broadcastInDim(offs, grid, {1}));
  Value count = b.convert(passed, ends.getElementType());
  return b.reduce(prim::ReduceKind::SUM, count, {1});
}

Value groupedMm(aten::InternalGroupedMmOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Type et = type.getElementType();
  Value x = b.convert(op.getSelf(), et);
  Value w = b.convert(op.getMat2(), et);
  if (b.failed())
    return {};
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  if (!xt.hasStaticShape() || !wt.hasStaticShape() || wt.getRank() != 3)
    return b.fail("_grouped_mm of static self [M, K] or [G, M, K] and mat2 [G, K, N]");
  int64_t groups = wt.getDimSize(0), n = wt.getDimSize(2);
  if (op.getBias()) // ATen has no kernel with a bias either
    return b.fail("_grouped_mm with a bias");
  if (xt.getRank() == 3) { // one product per group: a batched GEMM
    if (op.getOffs())
      return b.fail("_grouped_mm of 3-D operands takes no offs");
    return b.dotGeneral(x, w, {0}, {0}, {2}, {1});
  }
  if (!op.getOffs())
    return b.fail("_grouped_mm of a 2-D self and a 3-D mat2 needs offs");
  int64_t m = xt.getDimSize(0);
  Value group = rowGroups(b, op.getOffs(), m);
  // Every row times every group's matrix: [M, K] x [G, K, N] -> [M, G, N].
  Value products = b.dotGeneral(x, w, {}, {}, {1}, {1});
  RankedTensorType all = RankedTensorType::get({m, groups, n}, et);
  RankedTensorType grid =
      RankedTensorType::get({m, groups}, tensorType(op.getOffs()).getElementType());
  Value own =
      b.create<prim::CompareOp>(prim::CompareDirection::EQ, b.broadcastInDim(group, grid, {0}),
                                b.create<prim::IotaOp>(grid, 1));
  RankedTensorType ownAll =
      RankedTensorType::get({m, groups, n}, IntegerType::get(et.getContext(), 1));
  Value kept =
      b.create<prim::SelectOp>(b.broadcastInDim(own, ownAll, {0, 1}), products, b.splat(0.0, all));
  // One nonzero term per row: the sum is exact in any dtype.
  return b.reduce(prim::ReduceKind::SUM, kept, {1});
}

} // namespace

void populateExpertRoutingDecompositions(DecompositionSet &set) {
  set.add<aten::HistcOp>(histc).add<aten::InternalGroupedMmOp>(groupedMm);
}

} // namespace pt2c::decompose
