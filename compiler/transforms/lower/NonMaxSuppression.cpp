// Lowering of prim.nms_keep (DataDependentOps.td): torchvision's CPU nms kernel as
// scalar loops, since each box's fate depends on the boxes kept before it.
//
// The order is an insertion sort of the scores, descending and stable: one pass when
// they arrive sorted already (detection heads feed nms per-level top-k scores) and
// n^2/2 moves at worst, no more than the walk after it. The walk marks every box kept,
// then goes down the order: a box still marked suppresses the later ones it overlaps.
// Its arithmetic is the kernel's: std::max/std::min as their comparisons write them
// (NaN picks the same operand), the IoU in the boxes' type, compared with the threshold
// in f64 (the kernel's `float > double`).
#include "compiler/transforms/lower/LoweringPatterns.h"
#include "ir/prim/DataDependentOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

using Pred = arith::CmpFPredicate;

/// Scalar builders at one location.
struct Scalars {
  OpBuilder &b;
  Location loc;

  Value index(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  Value cmp(Pred p, Value x, Value y) { return b.create<arith::CmpFOp>(loc, p, x, y); }
  Value select(Value c, Value x, Value y) { return b.create<arith::SelectOp>(loc, c, x, y); }
  /// std::max(x, y) is `x < y ? y : x`, std::min(x, y) is `y < x ? y : x`.
  Value max(Value x, Value y) { return select(cmp(Pred::OLT, x, y), y, x); }
  Value min(Value x, Value y) { return select(cmp(Pred::OLT, y, x), y, x); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(loc, x, y); }
  /// Element `i` (an i64 index) of the i64 tensor `t`, as an index.
  Value indexAt(Value t, Value i) {
    Value v = b.create<tensor::ExtractOp>(loc, t, i);
    return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
  }

  /// Whether score `x` goes before score `y` that precedes it in index order: larger,
  /// or NaN before a number (torch.sort ranks NaN above every number).
  Value goesBefore(Value x, Value y) {
    Value nanFirst = b.create<arith::AndIOp>(loc, cmp(Pred::UNO, x, x), cmp(Pred::ORD, y, y));
    return b.create<arith::OrIOp>(loc, cmp(Pred::OGT, x, y), nanFirst);
  }
};

/// One box's corners and area.
struct Box {
  Value x1, y1, x2, y2, area;

  static Box at(Scalars &s, Value boxes, Value i) {
    Value c[4];
    for (int64_t k = 0; k < 4; ++k)
      c[k] = s.b.create<tensor::ExtractOp>(s.loc, boxes, ValueRange{i, s.index(k)});
    return {c[0], c[1], c[2], c[3], s.mul(s.sub(c[2], c[0]), s.sub(c[3], c[1]))};
  }
};

/// Whether box `j`'s IoU with kept box `i` is above `threshold` (f64).
Value overlapsAbove(Scalars &s, const Box &i, const Box &j, Value threshold) {
  Value zero = s.b.create<arith::ConstantOp>(s.loc, s.b.getFloatAttr(i.x1.getType(), 0.0));
  Value w = s.max(zero, s.sub(s.min(i.x2, j.x2), s.max(i.x1, j.x1)));
  Value h = s.max(zero, s.sub(s.min(i.y2, j.y2), s.max(i.y1, j.y1)));
  Value inter = s.mul(w, h);
  Value unionArea = s.sub(s.b.create<arith::AddFOp>(s.loc, i.area, j.area), inter);
  Value iou = s.b.create<arith::DivFOp>(s.loc, inter, unionArea);
  if (iou.getType() != threshold.getType())
    iou = s.b.create<arith::ExtFOp>(s.loc, threshold.getType(), iou);
  return s.cmp(Pred::OGT, iou, threshold);
}

/// The indices of `scores` [n] by decreasing score, equal ones in index order.
Value sortDescending(Scalars &s, Value scores, Value n, Value init) {
  Type i64 = s.b.getI64Type();
  auto loop = s.b.create<scf::ForOp>(
      s.loc, s.index(0), n, s.index(1), ValueRange{init},
      [&](OpBuilder &b, Location loc, Value i, ValueRange carried) {
        Value score = b.create<tensor::ExtractOp>(loc, scores, i);
        // Entries 0..i-1 are sorted: those that `score` goes before move up one place,
        // from the last, and it takes the place they leave.
        auto shift = b.create<scf::WhileOp>(
            loc, TypeRange{b.getIndexType(), init.getType()}, ValueRange{i, carried[0]},
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Scalars in{b, loc};
              Value k = args[0];
              Value more = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ugt, k, in.index(0));
              auto moves = b.create<scf::IfOp>(
                  loc, more,
                  [&](OpBuilder &b, Location loc) {
                    Scalars in{b, loc};
                    Value prev = b.create<arith::SubIOp>(loc, k, in.index(1));
                    Value other =
                        b.create<tensor::ExtractOp>(loc, scores, in.indexAt(args[1], prev));
                    b.create<scf::YieldOp>(loc, in.goesBefore(score, other));
                  },
                  [&](OpBuilder &b, Location loc) {
                    b.create<scf::YieldOp>(loc, ValueRange{more});
                  });
              b.create<scf::ConditionOp>(loc, moves.getResult(0), args);
            },
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Scalars in{b, loc};
              Value prev = b.create<arith::SubIOp>(loc, args[0], in.index(1));
              Value moved = b.create<tensor::ExtractOp>(loc, args[1], prev);
              Value order = b.create<tensor::InsertOp>(loc, moved, args[1], args[0]);
              b.create<scf::YieldOp>(loc, ValueRange{prev, order});
            });
        Value self = b.create<arith::IndexCastOp>(loc, i64, i);
        Value placed =
            b.create<tensor::InsertOp>(loc, self, shift.getResult(1), shift.getResult(0));
        b.create<scf::YieldOp>(loc, placed);
      });
  return loop.getResult(0);
}

/// Which boxes the greedy walk down `order` keeps, by position in `order`.
Value walkKept(Scalars &s, Value boxes, Value order, Value n, Value threshold, Value init) {
  Value all = s.b.create<arith::ConstantOp>(s.loc, s.b.getBoolAttr(true));
  Value marked = s.b.create<linalg::FillOp>(s.loc, all, init).getResult(0);
  Value no = s.b.create<arith::ConstantOp>(s.loc, s.b.getBoolAttr(false));
  auto loop = s.b.create<scf::ForOp>(
      s.loc, s.index(0), n, s.index(1), ValueRange{marked},
      [&](OpBuilder &b, Location loc, Value r, ValueRange carried) {
        Value kept = b.create<tensor::ExtractOp>(loc, carried[0], r);
        auto suppress = b.create<scf::IfOp>(
            loc, kept,
            [&](OpBuilder &b, Location loc) {
              Scalars in{b, loc};
              Box box = Box::at(in, boxes, in.indexAt(order, r));
              Value next = b.create<arith::AddIOp>(loc, r, in.index(1));
              auto later = b.create<scf::ForOp>(
                  loc, next, n, in.index(1), carried,
                  [&](OpBuilder &b, Location loc, Value q, ValueRange marks) {
                    Scalars in{b, loc};
                    Box other = Box::at(in, boxes, in.indexAt(order, q));
                    Value mark = b.create<tensor::ExtractOp>(loc, marks[0], q);
                    mark = in.select(overlapsAbove(in, box, other, threshold), no, mark);
                    b.create<scf::YieldOp>(
                        loc, ValueRange{b.create<tensor::InsertOp>(loc, mark, marks[0], q)});
                  });
              b.create<scf::YieldOp>(loc, later.getResults());
            },
            [&](OpBuilder &b, Location loc) { b.create<scf::YieldOp>(loc, carried); });
        b.create<scf::YieldOp>(loc, suppress.getResults());
      });
  return loop.getResult(0);
}

struct NmsKeepLowering : OpConversionPattern<prim::NmsKeepOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(prim::NmsKeepOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Scalars s{rewriter, op.getLoc()};
    Value scores = adaptor.getScores();
    Value n = rewriter.create<tensor::DimOp>(s.loc, scores, 0);
    auto orderType = cast<RankedTensorType>(op.getOrder().getType());
    auto keptType = cast<RankedTensorType>(op.getKept().getType());
    SmallVector<Value> sizes;
    if (orderType.isDynamicDim(0))
      sizes.push_back(n);
    Value order = sortDescending(s, scores, n, emptyTensor(rewriter, s.loc, orderType, sizes));
    Value threshold = rewriter.create<arith::ConstantOp>(s.loc, op.getIouThresholdAttr());
    Value kept = walkKept(s, adaptor.getBoxes(), order, n, threshold,
                          emptyTensor(rewriter, s.loc, keptType, sizes));
    rewriter.replaceOp(op, {order, kept});
    return success();
  }
};

} // namespace

void populateNonMaxSuppressionLowering(RewritePatternSet &patterns) {
  patterns.add<NmsKeepLowering>(patterns.getContext());
}

} // namespace pt2c::lower
