#include "compiler/codegen/cuda/DynamicBounds.h"

#include <algorithm>

#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace pt2c {
namespace {

struct Interval {
  int64_t lo, hi;
};
using MaybeInterval = std::optional<Interval>;

MaybeInterval point(int64_t v) { return Interval{v, v}; }

MaybeInterval add(Interval a, Interval b) {
  Interval r;
  if (__builtin_add_overflow(a.lo, b.lo, &r.lo) || __builtin_add_overflow(a.hi, b.hi, &r.hi))
    return std::nullopt;
  return r;
}

MaybeInterval sub(Interval a, Interval b) {
  Interval r;
  if (__builtin_sub_overflow(a.lo, b.hi, &r.lo) || __builtin_sub_overflow(a.hi, b.lo, &r.hi))
    return std::nullopt;
  return r;
}

// Over the four corners: exact for +, * and, with a divisor of one sign, for the
// divisions (each is monotone in either operand on such a range).
template <typename F> MaybeInterval corners(Interval a, Interval b, F f) {
  int64_t values[4];
  int64_t xs[2] = {a.lo, a.hi}, ys[2] = {b.lo, b.hi};
  for (int i = 0; i < 4; ++i) {
    std::optional<int64_t> v = f(xs[i / 2], ys[i % 2]);
    if (!v)
      return std::nullopt;
    values[i] = *v;
  }
  return Interval{*std::min_element(values, values + 4), *std::max_element(values, values + 4)};
}

std::optional<int64_t> mulChecked(int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_mul_overflow(x, y, &r))
    return std::nullopt;
  return r;
}

int64_t floorDiv(int64_t x, int64_t y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0))); }
int64_t ceilDiv(int64_t x, int64_t y) { return x / y + ((x % y != 0) && ((x < 0) == (y < 0))); }

MaybeInterval divide(Interval a, Interval b, bool ceil) {
  if (b.lo <= 0 && b.hi >= 0)
    return std::nullopt; // the divisor may be 0 or change sign
  return corners(a, b, [&](int64_t x, int64_t y) -> std::optional<int64_t> {
    return ceil ? ceilDiv(x, y) : floorDiv(x, y);
  });
}

MaybeInterval remainder(Interval a, Interval b) {
  if (b.lo <= 0)
    return std::nullopt;
  int64_t m = b.hi - 1;
  return a.lo >= 0 ? Interval{0, std::min(a.hi, m)} : Interval{-m, m};
}

class Evaluator {
public:
  explicit Evaluator(llvm::ArrayRef<sym::SymbolRange> ranges) : ranges(ranges) {}

  MaybeInterval of(mlir::Value v) {
    llvm::APInt constant;
    if (mlir::matchPattern(v, mlir::m_ConstantInt(&constant)))
      return point(constant.getSExtValue());
    mlir::Operation *op = v.getDefiningOp();
    if (!op || ++depth > kMaxDepth)
      return std::nullopt;
    MaybeInterval r = ofOp(op, v);
    --depth;
    return r;
  }

private:
  static constexpr int kMaxDepth = 64;

  MaybeInterval binary(mlir::Operation *op, MaybeInterval (*f)(Interval, Interval)) {
    MaybeInterval a = of(op->getOperand(0)), b = of(op->getOperand(1));
    return a && b ? f(*a, *b) : std::nullopt;
  }

  MaybeInterval ofOp(mlir::Operation *op, mlir::Value v) {
    if (auto symbol = llvm::dyn_cast<prim::SymbolOp>(op)) {
      uint64_t i = symbol.getIndex();
      if (i >= ranges.size())
        return std::nullopt;
      return Interval{ranges[i].min, ranges[i].max};
    }
    if (llvm::isa<mlir::arith::IndexCastOp, mlir::arith::IndexCastUIOp, mlir::arith::ExtSIOp,
                  mlir::arith::ExtUIOp>(op))
      return of(op->getOperand(0));
    if (llvm::isa<mlir::arith::AddIOp>(op))
      return binary(op, add);
    if (llvm::isa<mlir::arith::SubIOp>(op))
      return binary(op, sub);
    if (llvm::isa<mlir::arith::MulIOp>(op))
      return binary(op, [](Interval a, Interval b) { return corners(a, b, mulChecked); });
    if (llvm::isa<mlir::arith::DivSIOp, mlir::arith::FloorDivSIOp>(op))
      return binary(op, [](Interval a, Interval b) { return divide(a, b, false); });
    if (llvm::isa<mlir::arith::DivUIOp>(op))
      return binary(op, [](Interval a, Interval b) -> MaybeInterval {
        if (a.lo < 0)
          return std::nullopt;
        return divide(a, b, false);
      });
    if (llvm::isa<mlir::arith::CeilDivSIOp, mlir::arith::CeilDivUIOp>(op))
      return binary(op, [](Interval a, Interval b) { return divide(a, b, true); });
    if (llvm::isa<mlir::arith::RemSIOp, mlir::arith::RemUIOp>(op))
      return binary(op, remainder);
    if (llvm::isa<mlir::arith::MinSIOp, mlir::arith::MinUIOp>(op))
      return binary(op, [](Interval a, Interval b) -> MaybeInterval {
        return Interval{std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
      });
    if (llvm::isa<mlir::arith::MaxSIOp, mlir::arith::MaxUIOp>(op))
      return binary(op, [](Interval a, Interval b) -> MaybeInterval {
        return Interval{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
      });
    if (auto select = llvm::dyn_cast<mlir::arith::SelectOp>(op)) {
      MaybeInterval a = of(select.getTrueValue()), b = of(select.getFalseValue());
      if (!a || !b)
        return std::nullopt;
      return Interval{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    if (auto apply = llvm::dyn_cast<mlir::affine::AffineApplyOp>(op))
      return affine(apply.getAffineMap().getResult(0), apply.getMapOperands(),
                    apply.getAffineMap().getNumDims());
    if (auto min = llvm::dyn_cast<mlir::affine::AffineMinOp>(op))
      return affineMinMax(min, true);
    if (auto max = llvm::dyn_cast<mlir::affine::AffineMaxOp>(op))
      return affineMinMax(max, false);
    if (auto dim = llvm::dyn_cast<mlir::memref::DimOp>(op))
      return dimension(dim);
    return std::nullopt;
  }

  template <typename Op> MaybeInterval affineMinMax(Op op, bool isMin) {
    MaybeInterval r;
    mlir::AffineMap map = op.getAffineMap();
    for (mlir::AffineExpr e : map.getResults()) {
      MaybeInterval x = affine(e, op.getMapOperands(), map.getNumDims());
      if (!x)
        return std::nullopt;
      if (!r)
        r = x;
      else if (isMin)
        r = Interval{std::min(r->lo, x->lo), std::min(r->hi, x->hi)};
      else
        r = Interval{std::max(r->lo, x->lo), std::max(r->hi, x->hi)};
    }
    return r;
  }

  MaybeInterval affine(mlir::AffineExpr e, mlir::ValueRange operands, unsigned numDims) {
    if (auto c = llvm::dyn_cast<mlir::AffineConstantExpr>(e))
      return point(c.getValue());
    if (auto d = llvm::dyn_cast<mlir::AffineDimExpr>(e))
      return of(operands[d.getPosition()]);
    if (auto s = llvm::dyn_cast<mlir::AffineSymbolExpr>(e))
      return of(operands[numDims + s.getPosition()]);
    auto bin = llvm::cast<mlir::AffineBinaryOpExpr>(e);
    MaybeInterval a = affine(bin.getLHS(), operands, numDims);
    MaybeInterval b = affine(bin.getRHS(), operands, numDims);
    if (!a || !b)
      return std::nullopt;
    switch (e.getKind()) {
    case mlir::AffineExprKind::Add:
      return add(*a, *b);
    case mlir::AffineExprKind::Mul:
      return corners(*a, *b, mulChecked);
    case mlir::AffineExprKind::FloorDiv:
      return divide(*a, *b, false);
    case mlir::AffineExprKind::CeilDiv:
      return divide(*a, *b, true);
    case mlir::AffineExprKind::Mod:
      return remainder(*a, *b);
    default:
      return std::nullopt;
    }
  }

  MaybeInterval dimension(mlir::memref::DimOp dim) {
    std::optional<int64_t> k = dim.getConstantIndex();
    if (!k)
      return std::nullopt;
    return sizeOf(dim.getSource(), *k);
  }

  MaybeInterval mixed(mlir::OpFoldResult size) {
    if (auto attr = llvm::dyn_cast<mlir::Attribute>(size))
      return point(llvm::cast<mlir::IntegerAttr>(attr).getInt());
    return of(llvm::cast<mlir::Value>(size));
  }

  // Dim k of a memref: static, or the size the op that made it was given (a view or an
  // allocation of a dynamic kernel's buffer, or a reshape, slice or cast of one).
  MaybeInterval sizeOf(mlir::Value memref, int64_t k) {
    auto type = llvm::dyn_cast<mlir::MemRefType>(memref.getType());
    if (!type || k < 0 || k >= type.getRank())
      return std::nullopt;
    if (!type.isDynamicDim(k))
      return point(type.getDimSize(k));
    if (++depth > kMaxDepth)
      return std::nullopt;
    MaybeInterval r = sizeFromOp(memref.getDefiningOp(), type, k);
    --depth;
    return r;
  }

  MaybeInterval sizeFromOp(mlir::Operation *op, mlir::MemRefType type, int64_t k) {
    if (auto view = llvm::dyn_cast_or_null<mlir::memref::ViewOp>(op))
      return of(view.getSizes()[type.getDynamicDimIndex(k)]);
    if (auto alloc = llvm::dyn_cast_or_null<mlir::memref::AllocOp>(op))
      return of(alloc.getDynamicSizes()[type.getDynamicDimIndex(k)]);
    if (auto cast = llvm::dyn_cast_or_null<mlir::memref::CastOp>(op))
      return sizeOf(cast.getSource(), k);
    if (auto expand = llvm::dyn_cast_or_null<mlir::memref::ExpandShapeOp>(op))
      return of(expand.getOutputShape()[type.getDynamicDimIndex(k)]);
    if (auto collapse = llvm::dyn_cast_or_null<mlir::memref::CollapseShapeOp>(op)) {
      MaybeInterval r = point(1);
      for (int64_t j : collapse.getReassociationIndices()[k]) {
        MaybeInterval d = sizeOf(collapse.getSrc(), j);
        if (!d || !r)
          return std::nullopt;
        r = corners(*r, *d, mulChecked);
      }
      return r;
    }
    if (auto subview = llvm::dyn_cast_or_null<mlir::memref::SubViewOp>(op)) {
      llvm::SmallBitVector dropped = subview.getDroppedDims();
      llvm::SmallVector<mlir::OpFoldResult> sizes = subview.getMixedSizes();
      for (int64_t j = 0, kept = 0; j < static_cast<int64_t>(sizes.size()); ++j) {
        if (dropped.test(j))
          continue;
        if (kept++ == k)
          return mixed(sizes[j]);
      }
      return std::nullopt;
    }
    if (auto cast = llvm::dyn_cast_or_null<mlir::memref::ReinterpretCastOp>(op))
      return mixed(cast.getMixedSizes()[k]);
    return std::nullopt;
  }

  llvm::ArrayRef<sym::SymbolRange> ranges;
  int depth = 0;
};

} // namespace

std::optional<int64_t> upperBound(mlir::Value v, llvm::ArrayRef<sym::SymbolRange> ranges) {
  MaybeInterval r = Evaluator(ranges).of(v);
  if (!r)
    return std::nullopt;
  return r->hi;
}

} // namespace pt2c
