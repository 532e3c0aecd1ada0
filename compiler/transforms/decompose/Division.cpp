// Division that rounds: fmod (C's, the remainder has the dividend's sign), remainder
// (Python's %, the divisor's sign), div with rounding_mode "trunc" or "floor" and
// floor_divide (Python's //, the same as "floor"), for
// tensor and Scalar divisors. Both operands are converted to the result dtype first
// (ATen's promotion decided it), and integers stay integers. The float floor division
// follows ATen's CPU kernel step by step (div_floor_floating), so that quotients near
// a whole number round as in eager: (a - fmod(a, b)) / b is whole up to rounding, and
// the final correction takes it to the nearest whole number.
#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

using Direction = prim::CompareDirection;

/// The divisor as an elementwise operand of the result: a tensor, or a Scalar splat.
Value divisor(PrimBuilder &b, Value tensor) { return b.elementwiseOperand(tensor, b.resultType()); }
Value divisor(PrimBuilder &b, Attribute scalar) {
  RankedTensorType type = b.resultType();
  return b.splat(b.scalarAttr(scalar, type.getElementType()), type);
}

Value isNegative(PrimBuilder &b, Value x) {
  return b.create<prim::CompareOp>(Direction::LT, x, b.splat(0.0, tensorType(x), x));
}

/// Whether the remainder `r` of a division by `d` is non-zero with a sign other than
/// d's: then the quotient was rounded toward zero past the floor.
Value signsDiffer(PrimBuilder &b, Value r, Value d) {
  Value nonZero = b.create<prim::CompareOp>(Direction::NE, r, b.splat(0.0, tensorType(r), r));
  Value rNegative = isNegative(b, r);
  Value dNegative = isNegative(b, d);
  Value differ = b.create<prim::CompareOp>(Direction::NE, rNegative, dNegative);
  Value no = b.splat(0.0, tensorType(nonZero), nonZero);
  return b.create<prim::SelectOp>(nonZero, differ, no);
}

/// Python's a % b: fmod, moved by b when its sign is not b's.
Value pythonRemainder(PrimBuilder &b, Value a, Value d) {
  Value r = b.create<prim::RemOp>(a, d);
  Value moved = b.create<prim::AddOp>(r, d);
  return b.create<prim::SelectOp>(signsDiffer(b, r, d), moved, r);
}

/// a // b rounded toward -inf.
Value floorDivide(PrimBuilder &b, Value a, Value d) {
  RankedTensorType type = tensorType(a);
  Value one = b.splat(1.0, type, a);
  if (!isa<FloatType>(type.getElementType())) {
    // Integer division truncates; one less where the remainder's sign says it went up.
    Value q = b.create<prim::DivOp>(a, d);
    Value r = b.create<prim::RemOp>(a, d);
    Value past = signsDiffer(b, r, d);
    Value lower = b.create<prim::SubOp>(q, one);
    return b.create<prim::SelectOp>(past, lower, q);
  }
  Value mod = b.create<prim::RemOp>(a, d);
  Value div = b.create<prim::DivOp>(b.create<prim::SubOp>(a, mod), d);
  Value past = signsDiffer(b, mod, d);
  Value lower = b.create<prim::SubOp>(div, one);
  div = b.create<prim::SelectOp>(past, lower, div);
  Value floor = b.create<prim::FloorOp>(div);
  Value fraction = b.create<prim::SubOp>(div, floor);
  Value roundUp = b.create<prim::CompareOp>(Direction::GT, fraction, b.splat(0.5, type, a));
  floor = b.create<prim::SelectOp>(roundUp, b.create<prim::AddOp>(floor, one), floor);
  // Division by zero gives a / b itself (inf or NaN).
  Value byZero = b.create<prim::CompareOp>(Direction::EQ, d, b.splat(0.0, type, a));
  return b.create<prim::SelectOp>(byZero, b.create<prim::DivOp>(a, d), floor);
}

template <typename OpT> Value fmod(OpT op, PrimBuilder &b) {
  Value a = b.elementwiseOperand(op.getSelf(), b.resultType());
  Value d = divisor(b, op.getOther());
  return b.create<prim::RemOp>(a, d);
}

template <typename OpT> Value remainder(OpT op, PrimBuilder &b) {
  Value a = b.elementwiseOperand(op.getSelf(), b.resultType());
  Value d = divisor(b, op.getOther());
  return pythonRemainder(b, a, d);
}

/// div(a, b, rounding_mode): None is true division (floats), "trunc" rounds toward 0,
/// "floor" toward -inf.
template <typename OpT> Value divMode(OpT op, PrimBuilder &b) {
  Value a = b.elementwiseOperand(op.getSelf(), b.resultType());
  Value d = divisor(b, op.getOther());
  std::optional<StringRef> mode = op.getRoundingMode();
  if (!mode)
    return b.create<prim::DivOp>(a, d);
  if (*mode == "floor")
    return floorDivide(b, a, d);
  if (*mode != "trunc")
    return b.fail("unknown rounding_mode '" + *mode + "'");
  Value q = b.create<prim::DivOp>(a, d);
  return isa<FloatType>(b.resultElementType()) ? b.create<prim::TruncOp>(q) : q;
}

/// floor_divide (`a // b`): div with rounding_mode "floor", as ATen defines it.
template <typename OpT> Value floorDivideOp(OpT op, PrimBuilder &b) {
  Value a = b.elementwiseOperand(op.getSelf(), b.resultType());
  Value d = divisor(b, op.getOther());
  return floorDivide(b, a, d);
}

} // namespace

void populateDivisionDecompositions(DecompositionSet &set) {
  set.add<aten::FmodTensorOp>(fmod<aten::FmodTensorOp>)
      .add<aten::FmodScalarOp>(fmod<aten::FmodScalarOp>)
      .add<aten::RemainderTensorOp>(remainder<aten::RemainderTensorOp>)
      .add<aten::RemainderScalarOp>(remainder<aten::RemainderScalarOp>)
      .add<aten::DivTensorModeOp>(divMode<aten::DivTensorModeOp>)
      .add<aten::DivScalarModeOp>(divMode<aten::DivScalarModeOp>)
      .add<aten::FloorDivideOp>(floorDivideOp<aten::FloorDivideOp>)
      .add<aten::FloorDivideScalarOp>(floorDivideOp<aten::FloorDivideScalarOp>);
}

} // namespace pt2c::decompose
