// Why this is exact up to rounding: for a per-output-channel s,
//   conv(x, W)[n, o, ...] * s[o] = sum(x * W[o, ...]) * s[o] = conv(x, W * s)[n, o, ...],
// and likewise for the free dims of a matrix product's constant operand. Adds in
// between distribute: (y + c1) * c2 = y * c2 + c1 * c2.
#include "compiler/transforms/fold/FoldScales.h"

#include "compiler/transforms/fold/FoldWeights.h"
#include "ir/prim/PrimDialect.h"

namespace pt2c::fold {
namespace {

using namespace mlir;

// A constant c = broadcast_in_dim(v) whose values vary along at most one dim of c.
struct ChannelConstant {
  Value vector;       // v
  int64_t dim = -1;   // the dim of c along which it varies; -1: c is uniform
  int64_t length = 1; // v's size along that dim (1 or c's size there)
};

std::optional<ChannelConstant> channelConstant(Value c) {
  auto b = c.getDefiningOp<prim::BroadcastInDimOp>();
  if (!b || !isWeightOnly(c))
    return std::nullopt;
  auto vType = b.getOperand().getType();
  if (!vType.hasStaticShape())
    return std::nullopt;
  ChannelConstant cc;
  cc.vector = b.getOperand();
  for (auto [i, d] : llvm::enumerate(b.getBroadcastDimensions())) {
    int64_t size = vType.getDimSize(i);
    if (size == 1)
      continue;
    if (cc.dim != -1)
      return std::nullopt;
    cc.dim = d;
    cc.length = size;
  }
  return cc;
}

// Where a scale of result dim `dim` of `producer` goes: the operand (a weight-only
// value) and its dim. -1 as `dim`: a uniform scale, any dim of a weight-only operand.
struct ScaleTarget {
  unsigned operand;
  int64_t dim;
};

std::optional<ScaleTarget> scaleTarget(Operation *producer, int64_t dim) {
  if (auto conv = dyn_cast<prim::ConvolutionOp>(producer)) {
    if ((dim != -1 && dim != 1) || !isWeightOnly(conv.getRhs()))
      return std::nullopt;
    return ScaleTarget{1, 0}; // output channel o is row o of the weight, any groups
  }
  auto dot = dyn_cast<prim::DotGeneralOp>(producer);
  if (!dot)
    return std::nullopt;
  // Result dims: batch dims, then the free dims of lhs, then those of rhs.
  auto freeDims = [](RankedTensorType t, ArrayRef<int64_t> batch, ArrayRef<int64_t> contract) {
    SmallVector<int64_t> free;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
        free.push_back(d);
    return free;
  };
  auto lhsFree = freeDims(dot.getLhs().getType(), dot.getLhsBatchingDimensions(),
                          dot.getLhsContractingDimensions());
  auto rhsFree = freeDims(dot.getRhs().getType(), dot.getRhsBatchingDimensions(),
                          dot.getRhsContractingDimensions());
  int64_t nb = dot.getLhsBatchingDimensions().size(), nl = lhsFree.size();
  SmallVector<ScaleTarget, 2> candidates;
  if (dim == -1) {
    candidates = {{0, 0}, {1, 0}};
  } else if (dim < nb) {
    candidates = {{0, dot.getLhsBatchingDimensions()[dim]},
                  {1, dot.getRhsBatchingDimensions()[dim]}};
  } else if (dim < nb + nl) {
    candidates = {{0, lhsFree[dim - nb]}};
  } else {
    candidates = {{1, rhsFree[dim - nb - nl]}};
  }
  for (ScaleTarget t : candidates)
    if (isWeightOnly(producer->getOperand(t.operand)))
      return t;
  return std::nullopt;
}

// The rewrite `y * c` -> producer(..., W * s, ...) if it applies.
struct ScaleMatch {
  Operation *producer;
  ScaleTarget target;
  ChannelConstant scale;
};

std::optional<ScaleMatch> matchScale(Value y, Value c) {
  Operation *producer = y.getDefiningOp();
  if (!producer || !isa<prim::ConvolutionOp, prim::DotGeneralOp>(producer) || isWeightOnly(y))
    return std::nullopt;
  auto scale = channelConstant(c);
  if (!scale)
    return std::nullopt;
  auto target = scaleTarget(producer, scale->dim);
  if (!target)
    return std::nullopt;
  auto weightType = cast<RankedTensorType>(producer->getOperand(target->operand).getType());
  if (weightType.getElementType() != cast<RankedTensorType>(c.getType()).getElementType() ||
      !weightType.hasStaticShape())
    return std::nullopt;
  return ScaleMatch{producer, *target, *scale};
}

// w * broadcast(s) along the target dim (in w's element type, which is s's), at the
// rewriter's insertion point.
Value scaledWeight(Value w, const ScaleTarget &target, const ChannelConstant &scale, Location loc,
                   PatternRewriter &rw) {
  auto wType = cast<RankedTensorType>(w.getType());
  auto vectorType = RankedTensorType::get({scale.length}, wType.getElementType());
  Value s = scale.vector;
  if (s.getType() != vectorType)
    s = rw.create<prim::ReshapeOp>(loc, vectorType, s, ValueRange{});
  Value sw =
      rw.create<prim::BroadcastInDimOp>(loc, wType, s, ArrayRef<int64_t>{target.dim}, ValueRange{});
  return rw.create<prim::MulOp>(loc, w, sw);
}

Value scaledWeight(const ScaleMatch &m, PatternRewriter &rw) {
  return scaledWeight(m.producer->getOperand(m.target.operand), m.target, m.scale,
                      m.producer->getLoc(), rw);
}

Type elementType(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }

// mul(producer(...), c) -> producer(..., W * s, ...)
struct ScaleIntoWeight : OpRewritePattern<prim::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(prim::MulOp mul, PatternRewriter &rw) const override {
    for (unsigned side : {0u, 1u}) {
      auto m = matchScale(mul->getOperand(side), mul->getOperand(1 - side));
      if (!m || !m->producer->hasOneUse())
        continue;
      // At the mul, which both the producer's operands and the scale dominate.
      rw.setInsertionPoint(mul);
      Value w = scaledWeight(*m, rw);
      Operation *scaled = rw.clone(*m->producer);
      scaled->setOperand(m->target.operand, w);
      rw.replaceOp(mul, scaled->getResults());
      rw.eraseOp(m->producer);
      return success();
    }
    return failure();
  }
};

// mul(convert_f32(p), c) -> convert_f32(p'), where p is a convolution or matrix product
// of a narrower float type T (an f16/bf16 model computes its batch norm in f32: see
// FoldLowPrecision.h) and p' reads W' = convert_T(convert_f32(W) * s): the scale is
// applied in f32 and rounded to T once.
struct ScaleThroughConvert : OpRewritePattern<prim::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(prim::MulOp mul, PatternRewriter &rw) const override {
    for (unsigned side : {0u, 1u}) {
      auto convert = mul->getOperand(side).getDefiningOp<prim::ConvertOp>();
      Value c = mul->getOperand(1 - side);
      if (!convert || !convert->hasOneUse())
        continue;
      Value y = convert.getOperand();
      Operation *producer = y.getDefiningOp();
      auto narrow = dyn_cast<FloatType>(elementType(y));
      auto wide = dyn_cast<FloatType>(elementType(convert.getResult()));
      if (!producer || !isa<prim::ConvolutionOp, prim::DotGeneralOp>(producer) ||
          !producer->hasOneUse() || isWeightOnly(y) || !narrow || !wide ||
          narrow.getWidth() >= wide.getWidth() || elementType(c) != wide)
        continue;
      auto scale = channelConstant(c);
      auto target = scale ? scaleTarget(producer, scale->dim) : std::nullopt;
      if (!target)
        continue;
      Value w = producer->getOperand(target->operand);
      auto wType = cast<RankedTensorType>(w.getType());
      if (wType.getElementType() != narrow || !wType.hasStaticShape())
        continue;
      rw.setInsertionPoint(mul);
      Location loc = mul.getLoc();
      Value wideW = rw.create<prim::ConvertOp>(loc, wType.clone(wide), w);
      Value scaled =
          rw.create<prim::ConvertOp>(loc, wType, scaledWeight(wideW, *target, *scale, loc, rw));
      Operation *folded = rw.clone(*producer); // after the new weight, which it reads
      folded->setOperand(target->operand, scaled);
      rw.replaceOpWithNewOp<prim::ConvertOp>(mul, mul.getType(), folded->getResult(0));
      rw.eraseOp(convert);
      rw.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

// mul(add(y, c1), c2) -> add(mul(y, c2), mul(c1, c2)) where mul(y, c2) then folds.
struct DistributeScale : OpRewritePattern<prim::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(prim::MulOp mul, PatternRewriter &rw) const override {
    for (unsigned side : {0u, 1u}) {
      Operation *inner = mul->getOperand(side).getDefiningOp();
      Value c2 = mul->getOperand(1 - side);
      if (!inner || !isa<prim::AddOp, prim::SubOp>(inner) || !inner->hasOneUse())
        continue;
      Value a = inner->getOperand(0), b = inner->getOperand(1);
      bool yFirst = !isWeightOnly(a);
      Value y = yFirst ? a : b, c1 = yFirst ? b : a;
      if (!isWeightOnly(c1) || !y.getDefiningOp() || !y.hasOneUse() || !matchScale(y, c2))
        continue;
      rw.setInsertionPoint(mul);
      Value sa = rw.create<prim::MulOp>(mul.getLoc(), a, c2);
      Value sb = rw.create<prim::MulOp>(mul.getLoc(), b, c2);
      Operation *sum = rw.clone(*inner);
      sum->setOperands({sa, sb});
      rw.replaceOp(mul, sum->getResults());
      rw.eraseOp(inner); // now unused; y keeps one use, so ScaleIntoWeight applies
      return success();
    }
    return failure();
  }
};

// add(add(y, c1), c2) -> add(y, add(c1, c2)): the constants meet and fold into one.
struct CombineConstantAdds : OpRewritePattern<prim::AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(prim::AddOp add, PatternRewriter &rw) const override {
    for (unsigned side : {0u, 1u}) {
      auto inner = add->getOperand(side).getDefiningOp<prim::AddOp>();
      Value c2 = add->getOperand(1 - side);
      if (!inner || !inner->hasOneUse() || !isWeightOnly(c2) || isWeightOnly(inner.getResult()))
        continue;
      for (unsigned innerSide : {0u, 1u}) {
        Value y = inner->getOperand(innerSide), c1 = inner->getOperand(1 - innerSide);
        if (!isWeightOnly(c1))
          continue;
        rw.setInsertionPoint(add);
        Value c = rw.create<prim::AddOp>(add.getLoc(), c1, c2);
        rw.replaceOpWithNewOp<prim::AddOp>(add, y, c);
        rw.eraseOp(inner);
        return success();
      }
    }
    return failure();
  }
};

// add(add(y1, c1), add(y2, c2)) -> add(y1, add(y2, add(c1, c2))): a ResNet downsampling
// block adds two convolutions' folded batch norms, (conv_a + c1) + (conv_b + c2); with
// one bias the sum is a convolution epilogue with a residual, relu(conv_b + c + z), which
// a convolution library runs fused (cuDNN: no kernel of ours between the two, so both
// products stay in its channels-last layout).
struct CombineConstantsOfTwoAdds : OpRewritePattern<prim::AddOp> {
  using OpRewritePattern::OpRewritePattern;
  // (y, c) when `v` is add(y, c), used once, with c weight-only and y not.
  static std::optional<std::pair<Value, Value>> splitConstant(Value v) {
    auto add = v.getDefiningOp<prim::AddOp>();
    if (!add || !add->hasOneUse())
      return std::nullopt;
    for (unsigned side : {0u, 1u}) {
      Value y = add->getOperand(side), c = add->getOperand(1 - side);
      if (isWeightOnly(c) && !isWeightOnly(y))
        return std::make_pair(y, c);
    }
    return std::nullopt;
  }
  LogicalResult matchAndRewrite(prim::AddOp add, PatternRewriter &rw) const override {
    // Each side used once (splitConstant), so the two sides are two different adds.
    auto a = splitConstant(add.getLhs()), b = splitConstant(add.getRhs());
    if (!a || !b)
      return failure();
    Operation *innerA = add.getLhs().getDefiningOp(), *innerB = add.getRhs().getDefiningOp();
    rw.setInsertionPoint(add);
    Value c = rw.create<prim::AddOp>(add.getLoc(), a->second, b->second);
    Value withBias = rw.create<prim::AddOp>(add.getLoc(), b->first, c);
    rw.replaceOpWithNewOp<prim::AddOp>(add, a->first, withBias);
    rw.eraseOp(innerA);
    rw.eraseOp(innerB);
    return success();
  }
};

// Whether two lists of dynamic sizes are the same sizes: the same values, or the same
// dim of the same tensor (decompositions make a prim.dim_size per use).
bool sameSizes(ValueRange a, ValueRange b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b)) {
    if (x == y)
      continue;
    auto dx = x.getDefiningOp<prim::DimSizeOp>(), dy = y.getDefiningOp<prim::DimSizeOp>();
    if (!dx || !dy || dx.getOperand() != dy.getOperand() || dx.getDimension() != dy.getDimension())
      return false;
  }
  return true;
}

// op(bcast(a), bcast(b)) -> bcast(op(a, b)) on constants of one shape and mapping:
// computes on the small vectors, not on activation-sized tensors.
template <typename OpT> struct HoistOverBroadcasts : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rw) const override {
    auto a = op.getLhs().template getDefiningOp<prim::BroadcastInDimOp>();
    auto b = op.getRhs().template getDefiningOp<prim::BroadcastInDimOp>();
    if (!a || !b || a.getOperand().getType() != b.getOperand().getType() ||
        a.getBroadcastDimensions() != b.getBroadcastDimensions() ||
        !sameSizes(a.getDynamicSizes(), b.getDynamicSizes()) || !isWeightOnly(op.getResult()))
      return failure();
    Value small = rw.create<OpT>(op.getLoc(), a.getOperand(), b.getOperand());
    rw.replaceOpWithNewOp<prim::BroadcastInDimOp>(op, op.getType(), small,
                                                  a.getBroadcastDimensions(), a.getDynamicSizes());
    return success();
  }
};

} // namespace

void populateScaleFoldingPatterns(RewritePatternSet &patterns) {
  patterns.add<ScaleIntoWeight, ScaleThroughConvert, DistributeScale, CombineConstantAdds,
               CombineConstantsOfTwoAdds, HoistOverBroadcasts<prim::AddOp>,
               HoistOverBroadcasts<prim::SubOp>, HoistOverBroadcasts<prim::MulOp>,
               HoistOverBroadcasts<prim::DivOp>>(patterns.getContext());
}

} // namespace pt2c::fold
