// prim.dot_general -> a zero-filled destination plus linalg.matmul or
// linalg.batch_matmul when the operands are laid out as those expect (named ops are
// what vendor-library dispatch and tiling recognise), else a linalg.generic with one
// reduction loop per contracting dim.
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

bool isMatmul(prim::DotGeneralOp op) {
  return op.getLhs().getType().getRank() == 2 && op.getRhs().getType().getRank() == 2 &&
         op.getLhsBatchingDimensions().empty() &&
         op.getLhsContractingDimensions() == ArrayRef<int64_t>{1} &&
         op.getRhsContractingDimensions() == ArrayRef<int64_t>{0};
}

bool isBatchMatmul(prim::DotGeneralOp op) {
  return op.getLhs().getType().getRank() == 3 && op.getRhs().getType().getRank() == 3 &&
         op.getLhsBatchingDimensions() == ArrayRef<int64_t>{0} &&
         op.getRhsBatchingDimensions() == ArrayRef<int64_t>{0} &&
         op.getLhsContractingDimensions() == ArrayRef<int64_t>{2} &&
         op.getRhsContractingDimensions() == ArrayRef<int64_t>{1};
}

/// Where each dim of an operand goes in the loop nest of the generic form: loops are
/// the result dims (batch, lhs free, rhs free) followed by the contracting dims.
class LoopNest {
public:
  explicit LoopNest(prim::DotGeneralOp op) : op(op) {
    numBatch = op.getLhsBatchingDimensions().size();
    numLhsFree = op.getLhs().getType().getRank() - numBatch -
                 op.getLhsContractingDimensions().size();
    numResult = op.getType().getRank();
  }

  int64_t numLoops() const {
    return numResult + op.getLhsContractingDimensions().size();
  }

  AffineMap operandMap(bool lhs, MLIRContext *context) const {
    ArrayRef<int64_t> batch = lhs ? op.getLhsBatchingDimensions()
                                  : op.getRhsBatchingDimensions();
    ArrayRef<int64_t> contract = lhs ? op.getLhsContractingDimensions()
                                     : op.getRhsContractingDimensions();
    int64_t rank = (lhs ? op.getLhs() : op.getRhs()).getType().getRank();
    int64_t nextFree = lhs ? numBatch : numBatch + numLhsFree;
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t *b = llvm::find(batch, d), *c = llvm::find(contract, d);
      int64_t loop = b != batch.end()      ? b - batch.begin()
                     : c != contract.end() ? numResult + (c - contract.begin())
                                           : nextFree++;
      exprs.push_back(getAffineDimExpr(loop, context));
    }
    return AffineMap::get(numLoops(), 0, exprs, context);
  }

  AffineMap resultMap(MLIRContext *context) const {
    return AffineMap::getMultiDimIdentityMap(numLoops(), context).getMajorSubMap(numResult);
  }

  /// For each result dim, an operand dim with its size.
  SmallVector<std::pair<Value, int64_t>> resultSizeSources(Value lhs, Value rhs) const {
    SmallVector<std::pair<Value, int64_t>> sources;
    for (int64_t d : op.getLhsBatchingDimensions())
      sources.push_back({lhs, d});
    auto addFree = [&](Value v, ArrayRef<int64_t> batch, ArrayRef<int64_t> contract) {
      for (int64_t d = 0; d < cast<RankedTensorType>(v.getType()).getRank(); ++d)
        if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
          sources.push_back({v, d});
    };
    addFree(lhs, op.getLhsBatchingDimensions(), op.getLhsContractingDimensions());
    addFree(rhs, op.getRhsBatchingDimensions(), op.getRhsContractingDimensions());
    return sources;
  }

private:
  mutable prim::DotGeneralOp op; // op accessors are not const
  int64_t numBatch, numLhsFree, numResult;
};

struct DotGeneralLowering : OpConversionPattern<prim::DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::DotGeneralOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elementType = type.getElementType();
    if (!isa<FloatType>(elementType) && !elementType.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    LoopNest loops(op);
    Value empty = emptyTensor(
        rewriter, loc, type,
        dynamicSizesFrom(rewriter, loc, type, loops.resultSizeSources(lhs, rhs)));
    Value zero = rewriter.create<arith::ConstantOp>(loc, rewriter.getZeroAttr(elementType));
    Value init =
        rewriter.create<linalg::FillOp>(loc, ValueRange{zero}, ValueRange{empty})->getResult(0);

    Operation *result;
    if (isMatmul(op)) {
      result = rewriter.create<linalg::MatmulOp>(loc, ValueRange{lhs, rhs}, ValueRange{init});
    } else if (isBatchMatmul(op)) {
      result =
          rewriter.create<linalg::BatchMatmulOp>(loc, ValueRange{lhs, rhs}, ValueRange{init});
    } else {
      MLIRContext *context = rewriter.getContext();
      SmallVector<AffineMap> maps = {loops.operandMap(true, context),
                                     loops.operandMap(false, context),
                                     loops.resultMap(context)};
      SmallVector<utils::IteratorType> iterators(type.getRank(),
                                                 utils::IteratorType::parallel);
      iterators.resize(loops.numLoops(), utils::IteratorType::reduction);
      result = rewriter.create<linalg::GenericOp>(
          loc, TypeRange{type}, ValueRange{lhs, rhs}, ValueRange{init}, maps, iterators,
          [&](OpBuilder &b, Location l, ValueRange args) {
            b.create<linalg::YieldOp>(l, multiplyAdd(b, l, args[0], args[1], args[2]));
          });
    }
    rewriter.replaceOp(op, result->getResults());
    return success();
  }

  static Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
    if (isa<FloatType>(x.getType()))
      return b.create<arith::AddFOp>(loc, acc, b.create<arith::MulFOp>(loc, x, y));
    return b.create<arith::AddIOp>(loc, acc, b.create<arith::MulIOp>(loc, x, y));
  }
};

} // namespace

void populateDotGeneralLowering(RewritePatternSet &patterns) {
  patterns.add<DotGeneralLowering>(patterns.getContext());
}

} // namespace pt2c::lower
