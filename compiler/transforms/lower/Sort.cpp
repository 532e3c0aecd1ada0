// Lowering of prim.argsort (SortOps.td): a bottom-up merge sort of each row's positions,
// in scf loops over tensors that one-shot-bufferize updates in place.
//
// Each row (the leading dims, row-major) sorts the positions 0..n-1 of its last dim, n
// as this run has it: pass p merges neighbouring runs of 2^p positions into runs of
// 2^(p+1), ceil(log2 n) passes of n steps, O(n log n) comparisons. A pass reads one half
// of a [2, n] scratch tensor and writes the other (ping-pong: one tensor carried
// through the loops, so bufferization keeps one buffer, allocated once per kernel call),
// and the row's result is copied out of the half the last pass wrote. A merge step takes
// the left run's head unless the right run's head strictly precedes it, which keeps
// equal elements in order of position (the left run holds the lower positions): a stable
// sort, as eager's. The merge is branch-free (selects on clamped reads), since which
// side wins is data-dependent and a branch on it mispredicts half the time.
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "ir/prim/SortOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

/// Whether element `a` comes strictly before element `b` in the sorted order: eager's,
/// where NaN is larger than every number (and equal to NaN). Bools compare unsigned.
Value precedes(ImplicitLocOpBuilder &b, Value a, Value bv, bool descending) {
  if (isa<FloatType>(a.getType())) {
    // ascending: a < b, or b is NaN and a is not: unordered-or-less, with a a number.
    // descending: a > b, or a is NaN and b is not: unordered-or-greater, b a number.
    using P = arith::CmpFPredicate;
    Value number = descending ? bv : a;
    Value ordered = b.create<arith::CmpFOp>(P::ORD, number, number);
    Value before = b.create<arith::CmpFOp>(descending ? P::UGT : P::ULT, a, bv);
    return b.create<arith::AndIOp>(before, ordered);
  }
  using P = arith::CmpIPredicate;
  bool isBool = a.getType().isInteger(1);
  P p = descending ? (isBool ? P::ugt : P::sgt) : (isBool ? P::ult : P::slt);
  return b.create<arith::CmpIOp>(p, a, bv);
}

struct ArgsortLowering : OpConversionPattern<prim::ArgsortOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::ArgsortOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value x = adaptor.getOperand();
    auto type = cast<RankedTensorType>(x.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t last = type.getRank() - 1;
    bool descending = op.getDescending();
    Type i64 = b.getI64Type();
    auto index = [&](int64_t v) -> Value { return b.create<arith::ConstantIndexOp>(v); };
    Value zero = index(0), one = index(1);

    // The sizes this run has: the leading dims make `rows` rows of n.
    SmallVector<Value> sizes;
    for (int64_t d = 0; d <= last; ++d)
      sizes.push_back(type.isDynamicDim(d) ? b.create<tensor::DimOp>(x, d).getResult()
                                           : index(type.getDimSize(d)));
    Value n = sizes[last], rows = one;
    for (int64_t d = 0; d < last; ++d)
      rows = b.create<arith::MulIOp>(rows, sizes[d]);
    // ceil(log2 n) passes: the bit width of n - 1 (none for n <= 1).
    Value below = b.create<arith::IndexCastOp>(
        i64, b.create<arith::SubIOp>(b.create<arith::MaxSIOp>(n, one), one));
    Value passes = b.create<arith::IndexCastOp>(
        b.getIndexType(), b.create<arith::SubIOp>(b.create<arith::ConstantIntOp>(64, 64),
                                                  b.create<math::CountLeadingZerosOp>(below)));

    Value out = emptyTensor(b, b.getLoc(), resultType, dynamicSizesOf(b, b.getLoc(), x));
    auto scratchType = RankedTensorType::get({2, type.getDimSize(last)}, i64);
    Value scratch = emptyTensor(b, b.getLoc(), scratchType,
                                type.isDynamicDim(last) ? ValueRange{n} : ValueRange{});

    auto rowLoop = b.create<scf::ForOp>(
        zero, rows, one, ValueRange{out, scratch},
        [&](OpBuilder &nested, Location loc, Value row, ValueRange carried) {
          ImplicitLocOpBuilder b(loc, nested);
          // The row's leading coordinates, row-major.
          SmallVector<Value> at(last + 1);
          Value rest = row;
          for (int64_t d = last - 1; d >= 0; --d) {
            at[d] = b.create<arith::RemUIOp>(rest, sizes[d]);
            rest = b.create<arith::DivUIOp>(rest, sizes[d]);
          }
          auto element = [&](ImplicitLocOpBuilder &b, Value position) {
            at[last] = b.create<arith::IndexCastOp>(b.getIndexType(), position);
            return b.create<tensor::ExtractOp>(x, at).getResult();
          };
          // Half 0 starts as the positions in order.
          auto identity = b.create<scf::ForOp>(
              zero, n, one, ValueRange{carried[1]},
              [&](OpBuilder &nested, Location loc, Value i, ValueRange work) {
                ImplicitLocOpBuilder b(loc, nested);
                Value position = b.create<arith::IndexCastOp>(i64, i);
                b.create<scf::YieldOp>(
                    b.create<tensor::InsertOp>(position, work[0], ValueRange{zero, i}).getResult());
              });
          auto passLoop = b.create<scf::ForOp>(
              zero, passes, one, identity.getResults(),
              [&](OpBuilder &nested, Location loc, Value pass, ValueRange work) {
                ImplicitLocOpBuilder b(loc, nested);
                Value width = b.create<arith::ShLIOp>(one, pass);
                Value from = b.create<arith::AndIOp>(pass, one);
                Value to = b.create<arith::SubIOp>(one, from);
                Value step = b.create<arith::AddIOp>(width, width);
                auto runs = b.create<scf::ForOp>(
                    zero, n, step, work,
                    [&](OpBuilder &nested, Location loc, Value lo, ValueRange work) {
                      ImplicitLocOpBuilder b(loc, nested);
                      Value mid = b.create<arith::MinUIOp>(b.create<arith::AddIOp>(lo, width), n);
                      Value hi = b.create<arith::MinUIOp>(b.create<arith::AddIOp>(lo, step), n);
                      Value lastLeft = b.create<arith::SubIOp>(mid, one);
                      Value lastRight = b.create<arith::SubIOp>(hi, one);
                      auto merge = b.create<scf::ForOp>(
                          lo, hi, one, ValueRange{work[0], lo, mid},
                          [&](OpBuilder &nested, Location loc, Value k, ValueRange state) {
                            ImplicitLocOpBuilder b(loc, nested);
                            Value i = state[1], j = state[2];
                            // Reads stay inside the runs; the selects ignore an
                            // exhausted side.
                            Value left = b.create<tensor::ExtractOp>(
                                state[0], ValueRange{from, b.create<arith::MinUIOp>(i, lastLeft)});
                            Value right = b.create<tensor::ExtractOp>(
                                state[0], ValueRange{from, b.create<arith::MinUIOp>(j, lastRight)});
                            Value leftDone =
                                b.create<arith::CmpIOp>(arith::CmpIPredicate::uge, i, mid);
                            Value rightLeft =
                                b.create<arith::CmpIOp>(arith::CmpIPredicate::ult, j, hi);
                            Value wins = b.create<arith::OrIOp>(
                                leftDone,
                                precedes(b, element(b, right), element(b, left), descending));
                            Value takeRight = b.create<arith::AndIOp>(rightLeft, wins);
                            Value taken = b.create<arith::SelectOp>(takeRight, right, left);
                            Value written =
                                b.create<tensor::InsertOp>(taken, state[0], ValueRange{to, k});
                            Value step = b.create<arith::IndexCastOp>(
                                b.getIndexType(),
                                b.create<arith::ExtUIOp>(b.getI64Type(), takeRight));
                            Value nextJ = b.create<arith::AddIOp>(j, step);
                            Value nextI =
                                b.create<arith::AddIOp>(i, b.create<arith::SubIOp>(one, step));
                            b.create<scf::YieldOp>(ValueRange{written, nextI, nextJ});
                          });
                      b.create<scf::YieldOp>(merge.getResult(0));
                    });
                b.create<scf::YieldOp>(runs.getResults());
              });
          // The last pass wrote half `passes mod 2`.
          Value sorted = b.create<arith::AndIOp>(passes, one);
          auto copy = b.create<scf::ForOp>(
              zero, n, one, ValueRange{carried[0]},
              [&](OpBuilder &nested, Location loc, Value i, ValueRange result) {
                ImplicitLocOpBuilder b(loc, nested);
                Value position =
                    b.create<tensor::ExtractOp>(passLoop.getResult(0), ValueRange{sorted, i});
                at[last] = i;
                b.create<scf::YieldOp>(
                    b.create<tensor::InsertOp>(position, result[0], at).getResult());
              });
          b.create<scf::YieldOp>(ValueRange{copy.getResult(0), passLoop.getResult(0)});
        });
    rewriter.replaceOp(op, rowLoop.getResult(0));
    return success();
  }
};

} // namespace

void populateSortLowering(RewritePatternSet &patterns) {
  patterns.add<ArgsortLowering>(patterns.getContext());
}

} // namespace pt2c::lower
