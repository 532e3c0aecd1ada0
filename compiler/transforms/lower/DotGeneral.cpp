// prim.dot_general -> a zero-filled destination plus a named linalg op
// ((batch_)matmul, with transposed A or B too) when the operands are laid out as one
// expects (named ops are what vendor-library dispatch and tiling recognise), else a
// linalg.generic with one reduction loop per contracting dim.
#include "compiler/transforms/lower/LowPrecision.h"
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

/// A dot_general layout that a named linalg op computes.
struct NamedContraction {
  int64_t rank; // of both operands
  SmallVector<int64_t, 1> lhsBatch, rhsBatch, lhsContract, rhsContract;
  Operation *(*build)(OpBuilder &, Location, Value lhs, Value rhs, Value init);
};

template <typename NamedOp>
Operation *buildNamed(OpBuilder &b, Location loc, Value lhs, Value rhs, Value init) {
  return b.create<NamedOp>(loc, ValueRange{lhs, rhs}, ValueRange{init});
}

const NamedContraction *findNamedContraction(prim::DotGeneralOp op) {
  static const NamedContraction table[] = {
      {2, {}, {}, {1}, {0}, buildNamed<linalg::MatmulOp>},
      {2, {}, {}, {0}, {0}, buildNamed<linalg::MatmulTransposeAOp>},
      {2, {}, {}, {1}, {1}, buildNamed<linalg::MatmulTransposeBOp>},
      {3, {0}, {0}, {2}, {1}, buildNamed<linalg::BatchMatmulOp>},
      {3, {0}, {0}, {1}, {1}, buildNamed<linalg::BatchMatmulTransposeAOp>},
      {3, {0}, {0}, {2}, {2}, buildNamed<linalg::BatchMatmulTransposeBOp>},
  };
  for (const NamedContraction &c : table)
    if (op.getLhs().getType().getRank() == c.rank && op.getRhs().getType().getRank() == c.rank &&
        op.getLhsBatchingDimensions() == ArrayRef<int64_t>(c.lhsBatch) &&
        op.getRhsBatchingDimensions() == ArrayRef<int64_t>(c.rhsBatch) &&
        op.getLhsContractingDimensions() == ArrayRef<int64_t>(c.lhsContract) &&
        op.getRhsContractingDimensions() == ArrayRef<int64_t>(c.rhsContract))
      return &c;
  return nullptr;
}

/// Where each dim of an operand goes in the loop nest of the generic form: loops are
/// the result dims (batch, lhs free, rhs free) followed by the contracting dims.
class LoopNest {
public:
  explicit LoopNest(prim::DotGeneralOp op) : op(op) {
    numBatch = op.getLhsBatchingDimensions().size();
    numLhsFree =
        op.getLhs().getType().getRank() - numBatch - op.getLhsContractingDimensions().size();
    numResult = op.getType().getRank();
  }

  int64_t numLoops() const { return numResult + op.getLhsContractingDimensions().size(); }

  AffineMap operandMap(bool lhs, MLIRContext *context) const {
    ArrayRef<int64_t> batch = lhs ? op.getLhsBatchingDimensions() : op.getRhsBatchingDimensions();
    ArrayRef<int64_t> contract =
        lhs ? op.getLhsContractingDimensions() : op.getRhsContractingDimensions();
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
    Type accElementType = accumulatorType(elementType);
    RankedTensorType accType = type.clone(accElementType);
    Value empty =
        emptyTensor(rewriter, loc, accType,
                    dynamicSizesFrom(rewriter, loc, type, loops.resultSizeSources(lhs, rhs)));
    Value zero = rewriter.create<arith::ConstantOp>(loc, rewriter.getZeroAttr(accElementType));
    Value init =
        rewriter.create<linalg::FillOp>(loc, ValueRange{zero}, ValueRange{empty})->getResult(0);

    Operation *result;
    if (const NamedContraction *named = findNamedContraction(op)) {
      result = named->build(rewriter, loc, lhs, rhs, init);
    } else {
      MLIRContext *context = rewriter.getContext();
      SmallVector<AffineMap> maps = {loops.operandMap(true, context),
                                     loops.operandMap(false, context), loops.resultMap(context)};
      SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
      iterators.resize(loops.numLoops(), utils::IteratorType::reduction);
      result = rewriter.create<linalg::GenericOp>(
          loc, TypeRange{accType}, ValueRange{lhs, rhs}, ValueRange{init}, maps, iterators,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value x = args[0], y = args[1];
            if (isa<FloatType>(x.getType())) {
              x = extendTo(b, l, x, accElementType);
              y = extendTo(b, l, y, accElementType);
            }
            b.create<linalg::YieldOp>(l, multiplyAdd(b, l, x, y, args[2]));
          });
    }
    rewriter.replaceOp(op, roundAccumulator(rewriter, loc, result->getResult(0), type));
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
