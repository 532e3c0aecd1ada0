// Every elementwise prim op (the Elementwise trait) becomes one linalg.generic with
// identity maps whose body is the op's scalar form (ScalarOps.h): one pattern for all,
// so a new elementwise op only needs its scalar form.
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "compiler/transforms/lower/ScalarOps.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

/// arith and math take signless integers and floats only.
bool hasArithElementTypes(Operation *op) {
  auto ok = [](Type t) {
    Type e = cast<RankedTensorType>(t).getElementType();
    return isa<FloatType>(e) || e.isSignlessInteger();
  };
  return llvm::all_of(op->getOperandTypes(), ok) && llvm::all_of(op->getResultTypes(), ok);
}

struct ElementwiseToGeneric : ConversionPattern {
  explicit ElementwiseToGeneric(MLIRContext *context)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<prim::PrimDialect>(op->getDialect()) || !op->hasTrait<OpTrait::Elementwise>())
      return failure();
    if (!hasArithElementTypes(op))
      return rewriter.notifyMatchFailure(op, "unsigned or non-numeric element type");
    Location loc = op->getLoc();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    // All operands have the result's shape (prim broadcasts explicitly).
    Value init = emptyTensor(rewriter, loc, type, dynamicSizesOf(rewriter, loc, operands[0]));
    SmallVector<AffineMap> maps(operands.size() + 1,
                                rewriter.getMultiDimIdentityMap(type.getRank()));
    SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, operands, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value result = buildScalarOp(b, l, op, args.drop_back(), type.getElementType());
          if (!result) // a new elementwise prim op without a case in ScalarOps.cpp
            llvm::report_fatal_error("no scalar form for " + op->getName().getStringRef());
          b.create<linalg::YieldOp>(l, result);
        });
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

} // namespace

void populateElementwiseLowering(RewritePatternSet &patterns) {
  patterns.add<ElementwiseToGeneric>(patterns.getContext());
}

} // namespace pt2c::lower
