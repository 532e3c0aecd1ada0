// prim.reduce_window -> operand padded with `init` (Padding.h) + one linalg.generic
// whose loops are the result dims followed by one reduction loop per windowed dim
// (window size > 1). Window loops get their extents from an unused [window...]
// operand, as linalg's named pooling ops do: an affine map like x*s + w*d alone does
// not tell linalg how far w runs.
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "compiler/transforms/lower/Padding.h"
#include "compiler/transforms/lower/ScalarOps.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

struct ReduceWindowLowering : OpConversionPattern<prim::ReduceWindowOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::ReduceWindowOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType out = op.getType();
    Type elementType = out.getElementType();
    if (!isa<FloatType>(elementType) && !elementType.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    int64_t rank = out.getRank();
    ArrayRef<int64_t> window = op.getWindowDimensions(), strides = op.getWindowStrides(),
                      dilations = op.getWindowDilations();
    Value init = extractScalar(rewriter, loc, adaptor.getInit());
    Value input = padWithScalar(rewriter, loc, adaptor.getOperand(), init,
                                op.getPaddingLow(), op.getPaddingHigh());

    SmallVector<int64_t> windowed; // dims with a window loop, and their window sizes
    SmallVector<int64_t> windowShape;
    for (int64_t d = 0; d < rank; ++d)
      if (window[d] > 1) {
        windowed.push_back(d);
        windowShape.push_back(window[d]);
      }
    int64_t numLoops = rank + windowed.size();
    SmallVector<AffineExpr> inputExprs, windowExprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr e = getAffineDimExpr(d, context) * strides[d];
      if (const int64_t *w = llvm::find(windowed, d); w != windowed.end()) {
        AffineExpr tap = getAffineDimExpr(rank + (w - windowed.begin()), context);
        windowExprs.push_back(tap);
        e = e + tap * dilations[d];
      }
      inputExprs.push_back(e);
    }
    SmallVector<Value> inputs = {input};
    SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, inputExprs, context)};
    if (!windowed.empty()) {
      inputs.push_back(
          rewriter.create<tensor::EmptyOp>(loc, windowShape, elementType).getResult());
      maps.push_back(AffineMap::get(numLoops, 0, windowExprs, context));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(numLoops, context).getMajorSubMap(rank));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.resize(numLoops, utils::IteratorType::reduction);

    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (out.isDynamicDim(d))
        dynamicSizes.push_back(windowedSize(rewriter, loc, adaptor.getOperand(), d,
                                            op.getPaddingLow()[d], op.getPaddingHigh()[d],
                                            window[d], strides[d], dilations[d]));
    Value empty = emptyTensor(rewriter, loc, out, dynamicSizes);
    Value acc =
        rewriter.create<linalg::FillOp>(loc, ValueRange{init}, ValueRange{empty})->getResult(0);
    prim::ReduceKind kind = op.getKind();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{out}, inputs, ValueRange{acc}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          b.create<linalg::YieldOp>(l, combineReduced(b, l, kind, args.front(), args.back()));
        });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

} // namespace

void populateReduceWindowLowering(RewritePatternSet &patterns) {
  patterns.add<ReduceWindowLowering>(patterns.getContext());
}

} // namespace pt2c::lower
