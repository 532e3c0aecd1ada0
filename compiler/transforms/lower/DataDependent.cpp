// Lowering of the prim ops whose result sizes depend on values (DataDependentOps.td).
//
// prim.nonzero is one sequential pass over the operand in row-major order (scf.for
// carrying the rows written so far): each nonzero element appends its coordinates. The
// rows go into a tensor of the bound's size (every element nonzero), seen from outside
// as tensor<? x rank> whose dim 0 is the op's symbol: the kernel runs before the plan
// binds the symbol, when its value is still the bound, so both agree. The pass runs
// over the operand's elements as this run has them (fewer than the bound where the
// operand is itself a data-dependent selection).
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "compiler/transforms/lower/ScalarOps.h"
#include "ir/prim/DataDependentOps.h"
#include "ir/symbolic/SymbolicIR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

/// The rows prim.nonzero's result has while its kernel runs: the symbol's value before
/// the plan binds it, its bound (the maximum of the kernel's pt2c.symbol_ranges, or of
/// the model function's pt2c.symbols); the operand's element count for a static operand
/// outside any model (lit tests).
std::optional<int64_t> rowBound(prim::NonzeroOp op) {
  std::vector<std::string> names = sym::symbolNames(op);
  std::vector<sym::SymbolRange> ranges = sym::symbolRanges(op);
  auto it = llvm::find(names, op.getSymbol().str());
  if (it != names.end() && static_cast<size_t>(it - names.begin()) < ranges.size())
    return ranges[it - names.begin()].max;
  auto type = cast<RankedTensorType>(op.getOperand().getType());
  if (type.hasStaticShape())
    return type.getNumElements();
  return std::nullopt;
}

struct NonzeroLowering : OpConversionPattern<prim::NonzeroOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::NonzeroOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    auto type = cast<RankedTensorType>(operand.getType());
    int64_t rank = type.getRank();
    std::optional<int64_t> bound = rowBound(op);
    if (!bound)
      return rewriter.notifyMatchFailure(op, "the row count's symbol has no range");
    Type i64 = rewriter.getI64Type();
    auto rows = RankedTensorType::get({*bound, rank}, i64);
    Value init = emptyTensor(rewriter, loc, rows, {});
    auto index = [&](int64_t v) { return rewriter.create<arith::ConstantIndexOp>(loc, v); };
    // The operand's sizes as this run has them (a dynamic operand: a selection's rows).
    SmallVector<Value> sizes;
    Value elements = index(1);
    for (int64_t d = 0; d < rank; ++d) {
      sizes.push_back(type.isDynamicDim(d) ? rewriter.create<tensor::DimOp>(loc, operand, d)
                                           : index(type.getDimSize(d)).getResult());
      elements = rewriter.create<arith::MulIOp>(loc, elements, sizes[d]);
    }
    Value zero = index(0), one = index(1);
    auto loop = rewriter.create<scf::ForOp>(
        loc, zero, elements, one, ValueRange{init, zero},
        [&](OpBuilder &b, Location loc, Value i, ValueRange carried) {
          // Row-major coordinates of element i.
          SmallVector<Value> coords(rank);
          Value rest = i;
          for (int64_t d = rank - 1; d >= 0; --d) {
            coords[d] = b.create<arith::RemUIOp>(loc, rest, sizes[d]);
            rest = b.create<arith::DivUIOp>(loc, rest, sizes[d]);
          }
          Value element = b.create<tensor::ExtractOp>(loc, operand, coords);
          Value found = carried[1];
          auto append = b.create<scf::IfOp>(
              loc, convertScalar(b, loc, element, b.getI1Type()), // element != 0
              [&](OpBuilder &b, Location loc) {
                Value out = carried[0];
                for (int64_t d = 0; d < rank; ++d) {
                  Value coord = b.create<arith::IndexCastOp>(loc, i64, coords[d]);
                  Value column = b.create<arith::ConstantIndexOp>(loc, d);
                  out = b.create<tensor::InsertOp>(loc, coord, out, ValueRange{found, column});
                }
                Value next =
                    b.create<arith::AddIOp>(loc, found, b.create<arith::ConstantIndexOp>(loc, 1));
                b.create<scf::YieldOp>(loc, ValueRange{out, next});
              },
              [&](OpBuilder &b, Location loc) { b.create<scf::YieldOp>(loc, carried); });
          b.create<scf::YieldOp>(loc, append.getResults());
        });
    Value indices =
        rewriter.create<tensor::CastOp>(loc, op.getIndices().getType(), loop.getResult(0));
    Value count = rewriter.create<tensor::FromElementsOp>(
        loc, op.getCount().getType(),
        ValueRange{rewriter.create<arith::IndexCastOp>(loc, i64, loop.getResult(1))});
    rewriter.replaceOp(op, {indices, count});
    return success();
  }
};

} // namespace

void populateDataDependentLowering(RewritePatternSet &patterns) {
  patterns.add<NonzeroLowering>(patterns.getContext());
}

} // namespace pt2c::lower
