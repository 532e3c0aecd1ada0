#include "compiler/transforms/lower/ScalarOps.h"

#include "ir/prim/PrimDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace pt2c::lower {
namespace {

Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return b.create<arith::ConstantOp>(loc, b.getZeroAttr(type));
}

/// FloatOp on floats, IntOp on integers: most ops differ only in that.
template <typename FloatOp, typename IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return b.create<FloatOp>(loc, args);
  return b.create<IntOp>(loc, args);
}

/// Comparison predicates: floats ordered except NE (true on NaN, as in torch); signed
/// integers, except i1 (a bool), whose only sensible order is unsigned.
Value compare(OpBuilder &b, Location loc, prim::CompareDirection direction, Value lhs, Value rhs) {
  using D = prim::CompareDirection;
  if (isa<FloatType>(lhs.getType())) {
    using P = arith::CmpFPredicate;
    P p = direction == D::EQ   ? P::OEQ
          : direction == D::NE ? P::UNE
          : direction == D::LT ? P::OLT
          : direction == D::LE ? P::OLE
          : direction == D::GT ? P::OGT
                               : P::OGE;
    return b.create<arith::CmpFOp>(loc, p, lhs, rhs);
  }
  using P = arith::CmpIPredicate;
  bool isBool = lhs.getType().isInteger(1);
  P p = direction == D::EQ   ? P::eq
        : direction == D::NE ? P::ne
        : direction == D::LT ? (isBool ? P::ult : P::slt)
        : direction == D::LE ? (isBool ? P::ule : P::sle)
        : direction == D::GT ? (isBool ? P::ugt : P::sgt)
                             : (isBool ? P::uge : P::sge);
  return b.create<arith::CmpIOp>(loc, p, lhs, rhs);
}

Value constantLike(OpBuilder &b, Location loc, Value x, double value) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(x.getType(), value));
}

Value half(OpBuilder &b, Location loc, Value x) {
  return b.create<arith::MulFOp>(loc, x, constantLike(b, loc, x, 0.5));
}

/// sqrt(1 - x^2) as sqrt((1 - x)(1 + x)), exact near |x| = 1.
Value cosineOf(OpBuilder &b, Location loc, Value x) {
  Value one = constantLike(b, loc, x, 1.0);
  Value below = b.create<arith::SubFOp>(loc, one, x);
  Value above = b.create<arith::AddFOp>(loc, one, x);
  return b.create<math::SqrtOp>(loc, b.create<arith::MulFOp>(loc, below, above));
}

} // namespace

Value convertScalar(OpBuilder &b, Location loc, Value value, Type type) {
  Type from = value.getType();
  if (from == type)
    return value;
  if (type.isInteger(1)) {
    if (isa<FloatType>(from))
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, value, zeroOf(b, loc, from));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, value, zeroOf(b, loc, from));
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth(), toWidth = type.getIntOrFloatBitWidth();
  if (isa<FloatType>(from) && isa<FloatType>(type)) {
    if (fromWidth == toWidth) // f16 <-> bf16: through f32
      value = b.create<arith::ExtFOp>(loc, b.getF32Type(), value), fromWidth = 32;
    if (fromWidth < toWidth)
      return b.create<arith::ExtFOp>(loc, type, value);
    return b.create<arith::TruncFOp>(loc, type, value);
  }
  if (isa<FloatType>(from))
    return b.create<arith::FPToSIOp>(loc, type, value);
  if (isa<FloatType>(type))
    return from.isInteger(1) ? (Value)b.create<arith::UIToFPOp>(loc, type, value)
                             : (Value)b.create<arith::SIToFPOp>(loc, type, value);
  if (fromWidth < toWidth)
    return from.isInteger(1) ? (Value)b.create<arith::ExtUIOp>(loc, type, value)
                             : (Value)b.create<arith::ExtSIOp>(loc, type, value);
  return b.create<arith::TruncIOp>(loc, type, value);
}

Value combineReduced(OpBuilder &b, Location loc, prim::ReduceKind kind, Value x, Value acc) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  // Float sums and products may be reassociated: LLVM then vectorizes the reduction
  // loop (lanes of partial sums, then a horizontal step), as PyTorch's CPU kernels sum;
  // in order, each step waits on the last (4 cycles an element).
  case prim::ReduceKind::SUM:
    return isFloat ? (Value)b.create<arith::AddFOp>(loc, acc, x, arith::FastMathFlags::reassoc)
                   : (Value)b.create<arith::AddIOp>(loc, acc, x);
  case prim::ReduceKind::PROD:
    return isFloat ? (Value)b.create<arith::MulFOp>(loc, acc, x, arith::FastMathFlags::reassoc)
                   : (Value)b.create<arith::MulIOp>(loc, acc, x);
  case prim::ReduceKind::MAX:
    return isFloat ? (Value)b.create<arith::MaximumFOp>(loc, acc, x)
                   : (Value)b.create<arith::MaxSIOp>(loc, acc, x);
  case prim::ReduceKind::MIN:
    return isFloat ? (Value)b.create<arith::MinimumFOp>(loc, acc, x)
                   : (Value)b.create<arith::MinSIOp>(loc, acc, x);
  case prim::ReduceKind::AND:
    return b.create<arith::AndIOp>(loc, acc, x);
  case prim::ReduceKind::OR:
    return b.create<arith::OrIOp>(loc, acc, x);
  }
  llvm_unreachable("unknown reduce kind");
}

Value buildScalarOp(OpBuilder &b, Location loc, Operation *op, ValueRange args, Type resultType) {
  Value x = args[0];
  return llvm::TypeSwitch<Operation *, Value>(op)
      // Unary.
      .Case([&](prim::NegOp) -> Value {
        if (isa<FloatType>(x.getType()))
          return b.create<arith::NegFOp>(loc, x);
        return b.create<arith::SubIOp>(loc, zeroOf(b, loc, x.getType()), x);
      })
      .Case([&](prim::AbsOp) { return floatOrInt<math::AbsFOp, math::AbsIOp>(b, loc, x); })
      .Case([&](prim::ExpOp) { return b.create<math::ExpOp>(loc, x); })
      .Case([&](prim::LogOp) { return b.create<math::LogOp>(loc, x); })
      .Case([&](prim::TanhOp) { return b.create<math::TanhOp>(loc, x); })
      .Case([&](prim::ErfOp) { return b.create<math::ErfOp>(loc, x); })
      .Case([&](prim::SqrtOp) { return b.create<math::SqrtOp>(loc, x); })
      .Case([&](prim::RsqrtOp) { return b.create<math::RsqrtOp>(loc, x); })
      .Case([&](prim::CosOp) { return b.create<math::CosOp>(loc, x); })
      .Case([&](prim::SinOp) { return b.create<math::SinOp>(loc, x); })
      .Case([&](prim::TanOp) { return b.create<math::TanOp>(loc, x); })
      // asin, acos and the hyperbolic functions as formulas over atan2, sqrt, exp,
      // expm1 and log1p, exact to a few ulps: MLIR's polynomial for math.asin (which
      // pt2c-approximate-math would pick on the CPU) is off by up to 3e-2, and
      // convert-gpu-to-nvvm has no libdevice call for acos, sinh, cosh, asinh, acosh
      // or atanh. On the CPU they also vectorize, where libm calls would not.
      .Case([&](prim::AsinOp) -> Value { // atan2(x, sqrt((1 - x)(1 + x)))
        return b.create<math::Atan2Op>(loc, x, cosineOf(b, loc, x));
      })
      .Case([&](prim::AcosOp) -> Value { // atan2(sqrt((1 - x)(1 + x)), x)
        return b.create<math::Atan2Op>(loc, cosineOf(b, loc, x), x);
      })
      .Case([&](prim::SinhOp) -> Value { // (expm1(x) - expm1(-x)) / 2
        Value up = b.create<math::ExpM1Op>(loc, x);
        Value down = b.create<math::ExpM1Op>(loc, b.create<arith::NegFOp>(loc, x));
        return half(b, loc, b.create<arith::SubFOp>(loc, up, down));
      })
      .Case([&](prim::CoshOp) -> Value { // (e^x + e^-x) / 2
        Value up = b.create<math::ExpOp>(loc, x);
        Value down = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
        return half(b, loc, b.create<arith::AddFOp>(loc, up, down));
      })
      .Case([&](prim::AsinhOp) -> Value { // sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))
        Value one = constantLike(b, loc, x, 1.0);
        Value magnitude = b.create<math::AbsFOp>(loc, x);
        Value square = b.create<arith::MulFOp>(loc, x, x);
        Value root = b.create<math::SqrtOp>(loc, b.create<arith::AddFOp>(loc, one, square));
        Value ratio = b.create<arith::DivFOp>(loc, square, b.create<arith::AddFOp>(loc, one, root));
        Value log = b.create<math::Log1pOp>(loc, b.create<arith::AddFOp>(loc, magnitude, ratio));
        return b.create<math::CopySignOp>(loc, log, x);
      })
      .Case([&](prim::AcoshOp) -> Value { // log1p((x - 1) + sqrt((x - 1)(x + 1)))
        Value one = constantLike(b, loc, x, 1.0);
        Value below = b.create<arith::SubFOp>(loc, x, one);
        Value above = b.create<arith::AddFOp>(loc, x, one);
        Value root = b.create<math::SqrtOp>(loc, b.create<arith::MulFOp>(loc, below, above));
        return b.create<math::Log1pOp>(loc, b.create<arith::AddFOp>(loc, below, root));
      })
      .Case([&](prim::AtanhOp) -> Value { // log1p(2x / (1 - x)) / 2
        Value one = constantLike(b, loc, x, 1.0);
        Value twice = b.create<arith::AddFOp>(loc, x, x);
        Value ratio = b.create<arith::DivFOp>(loc, twice, b.create<arith::SubFOp>(loc, one, x));
        return half(b, loc, b.create<math::Log1pOp>(loc, ratio));
      })
      .Case([&](prim::AtanOp) { return b.create<math::AtanOp>(loc, x); })
      .Case([&](prim::Expm1Op) { return b.create<math::ExpM1Op>(loc, x); })
      .Case([&](prim::Log1pOp) { return b.create<math::Log1pOp>(loc, x); })
      .Case([&](prim::Log2Op) { return b.create<math::Log2Op>(loc, x); })
      .Case([&](prim::Log10Op) { return b.create<math::Log10Op>(loc, x); })
      .Case([&](prim::FloorOp) { return b.create<math::FloorOp>(loc, x); })
      .Case([&](prim::CeilOp) { return b.create<math::CeilOp>(loc, x); })
      .Case([&](prim::TruncOp) { return b.create<math::TruncOp>(loc, x); })
      .Case([&](prim::RoundOp) { return b.create<math::RoundEvenOp>(loc, x); })
      .Case([&](prim::SigmoidOp) -> Value { // 1 / (1 + e^-x)
        Value one = b.create<arith::ConstantOp>(loc, b.getFloatAttr(x.getType(), 1.0));
        Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
        return b.create<arith::DivFOp>(loc, one, b.create<arith::AddFOp>(loc, one, e));
      })
      // Binary.
      .Case([&](prim::AddOp) { return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, args); })
      .Case([&](prim::SubOp) { return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, args); })
      .Case([&](prim::MulOp) { return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, args); })
      .Case([&](prim::DivOp) { return floatOrInt<arith::DivFOp, arith::DivSIOp>(b, loc, args); })
      .Case(
          [&](prim::MaxOp) { return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, args); })
      .Case(
          [&](prim::MinOp) { return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, args); })
      .Case([&](prim::PowOp) { return b.create<math::PowFOp>(loc, args); })
      .Case([&](prim::Atan2Op) { return b.create<math::Atan2Op>(loc, args); })
      .Case([&](prim::RemOp) { return floatOrInt<arith::RemFOp, arith::RemSIOp>(b, loc, args); })
      // Others.
      .Case([&](prim::CompareOp cmp) {
        return compare(b, loc, cmp.getDirection(), args[0], args[1]);
      })
      .Case(
          [&](prim::SelectOp) { return b.create<arith::SelectOp>(loc, args[0], args[1], args[2]); })
      .Case([&](prim::ConvertOp) { return convertScalar(b, loc, x, resultType); })
      .Default([](Operation *) { return Value(); });
}

} // namespace pt2c::lower
