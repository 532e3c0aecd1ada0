// prim.reduce -> a linalg.generic with reduction iterators over the reduced dims,
// accumulating into a destination filled with `init`. A generic (not linalg.reduce)
// so that linalg-fuse-elementwise-ops can fuse elementwise producers into it, as in
// softmax's sum of exp(x - max).
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "compiler/transforms/lower/ScalarOps.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

struct ReduceLowering : OpConversionPattern<prim::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getOperand();
    RankedTensorType in = op.getOperand().getType(), out = op.getType();
    Type elementType = out.getElementType();
    if (!isa<FloatType>(elementType) && !elementType.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    ArrayRef<int64_t> reduced = op.getDimensions();

    // Loops are the operand's dims; the result reads the kept ones.
    SmallVector<AffineExpr> kept;
    SmallVector<std::pair<Value, int64_t>> sizeSources;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      bool isReduced = llvm::is_contained(reduced, d);
      iterators.push_back(isReduced ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (!isReduced) {
        kept.push_back(rewriter.getAffineDimExpr(d));
        sizeSources.push_back({input, d});
      }
    }
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(in.getRank()),
                                   AffineMap::get(in.getRank(), 0, kept, rewriter.getContext())};

    Value empty =
        emptyTensor(rewriter, loc, out, dynamicSizesFrom(rewriter, loc, out, sizeSources));
    Value init = rewriter.create<tensor::ExtractOp>(loc, adaptor.getInit(), ValueRange{});
    Value filled =
        rewriter.create<linalg::FillOp>(loc, ValueRange{init}, ValueRange{empty})->getResult(0);
    prim::ReduceKind kind = op.getKind();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{out}, ValueRange{input}, ValueRange{filled}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          b.create<linalg::YieldOp>(l, combineReduced(b, l, kind, args[0], args[1]));
        });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

} // namespace

void populateReduceLowering(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(patterns.getContext());
}

} // namespace pt2c::lower
