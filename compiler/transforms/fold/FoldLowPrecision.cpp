#include "compiler/transforms/fold/FoldLowPrecision.h"

#include "compiler/transforms/fold/FoldWeights.h"
#include "ir/prim/PrimDialect.h"

namespace pt2c::fold {
namespace {

using namespace mlir;

FloatType floatElement(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? dyn_cast<FloatType>(type.getElementType()) : FloatType();
}

// convert_T(op(a', b')) -> op_T(a, b) where each of a', b' is convert_f32(x) of a T
// value x (then x), or a weight-only broadcast of a constant vector c (then the same
// broadcast of convert_T(c)); at least one operand is of the first kind.
template <typename OpT> struct NarrowArithmetic : OpRewritePattern<prim::ConvertOp> {
  using OpRewritePattern<prim::ConvertOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(prim::ConvertOp convert, PatternRewriter &rw) const override {
    auto op = convert.getOperand().template getDefiningOp<OpT>();
    FloatType narrow = floatElement(convert.getResult()), wide = floatElement(convert.getOperand());
    if (!op || !op->hasOneUse() || !narrow || !wide ||
        2 * narrow.getFPMantissaWidth() + 2 > wide.getFPMantissaWidth())
      return failure();
    // Matched fully before any op is created (a failing pattern must not change the IR).
    auto resultType = cast<RankedTensorType>(convert.getType());
    Value narrowed[2]; // null: a constant broadcast, narrowed below
    bool fromT = false;
    for (unsigned i : {0u, 1u}) {
      Value operand = op->getOperand(i);
      if (auto widen = operand.getDefiningOp<prim::ConvertOp>();
          widen && widen.getOperand().getType() == resultType) {
        narrowed[i] = widen.getOperand();
        fromT = true;
        continue;
      }
      auto bcast = operand.getDefiningOp<prim::BroadcastInDimOp>();
      if (!bcast || !isWeightOnly(operand) || !bcast.getDynamicSizes().empty())
        return failure();
    }
    if (!fromT)
      return failure();
    for (unsigned i : {0u, 1u}) {
      if (narrowed[i])
        continue;
      auto bcast = op->getOperand(i).template getDefiningOp<prim::BroadcastInDimOp>();
      auto vectorType = cast<RankedTensorType>(bcast.getOperand().getType()).clone(narrow);
      Value c = rw.create<prim::ConvertOp>(convert.getLoc(), vectorType, bcast.getOperand());
      narrowed[i] = rw.create<prim::BroadcastInDimOp>(convert.getLoc(), resultType, c,
                                                      bcast.getBroadcastDimensions(), ValueRange{});
    }
    rw.replaceOpWithNewOp<OpT>(convert, resultType, narrowed[0], narrowed[1]);
    return success();
  }
};

} // namespace

void populateLowPrecisionFoldingPatterns(RewritePatternSet &patterns) {
  patterns.add<NarrowArithmetic<prim::AddOp>, NarrowArithmetic<prim::SubOp>,
               NarrowArithmetic<prim::MulOp>>(patterns.getContext());
}

} // namespace pt2c::fold
