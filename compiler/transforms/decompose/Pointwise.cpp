// Decompositions of pointwise aten ops: arithmetic on tensors and Scalars, and the
// activation functions. Operands are converted to the result dtype (ATen's type
// promotion already decided it: the trace gives the result type) and broadcast to the
// result shape, so each prim op sees identical operand types.
#include <cmath>
#include <type_traits>

#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

template <typename T, typename = void> struct HasAlpha : std::false_type {};
template <typename T>
struct HasAlpha<T, std::void_t<decltype(std::declval<T>().getAlphaAttr())>> : std::true_type {};

/// f(self), computed in the result dtype (exp of an int tensor gives floats).
template <typename AtenOp, typename PrimOp> Value unary(AtenOp op, PrimBuilder &b) {
  return b.create<PrimOp>(b.convert(op.getSelf(), b.resultElementType()));
}

/// floor/ceil/round/trunc: integers are already whole (ATen returns a copy).
template <typename AtenOp, typename PrimOp> Value rounding(AtenOp op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), b.resultElementType());
  if (!isa<FloatType>(b.resultElementType()))
    return x;
  return b.create<PrimOp>(x);
}

/// 1 / x, in the result dtype (floats: reciprocal of an int tensor gives float32).
Value reciprocal(aten::ReciprocalOp op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), b.resultElementType());
  return b.create<prim::DivOp>(b.splat(1.0, b.resultType(), x), x);
}

/// sign(x) = (x > 0) - (x < 0): 0 for 0, -0 and NaN, as ATen's kernel gives.
Value sign(aten::SignOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  if (type.getElementType().isInteger(1))
    return op.getSelf(); // a bool is its own sign
  Value x = op.getSelf();
  Value zero = b.splat(0.0, type, x);
  Value positive = b.create<prim::CompareOp>(prim::CompareDirection::GT, x, zero);
  Value negative = b.create<prim::CompareOp>(prim::CompareDirection::LT, x, zero);
  Value minusOneOrZero = b.create<prim::SelectOp>(negative, b.splat(-1.0, type, x), zero);
  return b.create<prim::SelectOp>(positive, b.splat(1.0, type, x), minusOneOrZero);
}

/// self <op> alpha * other for two tensors.
template <typename AtenOp, typename PrimOp> Value tensorTensor(AtenOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value self = b.elementwiseOperand(op.getSelf(), type);
  Value other = b.elementwiseOperand(op.getOther(), type);
  if constexpr (HasAlpha<AtenOp>::value)
    other = b.scaleBy(other, op.getAlphaAttr());
  return b.create<PrimOp>(self, other);
}

/// self <op> alpha * other for a Scalar `other`; with `Reversed`, other <op> alpha *
/// self (rsub).
template <typename AtenOp, typename PrimOp, bool Reversed = false>
Value tensorScalar(AtenOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value self = b.elementwiseOperand(op.getSelf(), type);
  Value other = b.splat(b.scalarAttr(op.getOtherAttr(), type.getElementType()), type, self);
  if constexpr (HasAlpha<AtenOp>::value)
    (Reversed ? self : other) = b.scaleBy(Reversed ? self : other, op.getAlphaAttr());
  return Reversed ? b.create<PrimOp>(other, self) : b.create<PrimOp>(self, other);
}

/// addcmul: self + value * t1 * t2; addcdiv: self + value * t1 / t2 (ConvNeXt-V2's
/// global response norm, optimizers' updates), in ATen's CPU order: value * t1 first.
template <typename AtenOp, typename PrimOp> Value addCombined(AtenOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value self = b.elementwiseOperand(op.getSelf(), type);
  Value t1 = b.elementwiseOperand(op.getTensor1(), type);
  Value t2 = b.elementwiseOperand(op.getTensor2(), type);
  Value scaled = b.scaleBy(t1, op.getValueAttr());
  Value combined = b.create<PrimOp>(scaled, t2);
  return b.create<prim::AddOp>(self, combined);
}

Value relu(aten::ReluOp op, PrimBuilder &b) {
  // max propagates NaN, as torch.relu does.
  Value x = op.getSelf();
  return b.create<prim::MaxOp>(x, b.splat(0.0, b.resultType(), x));
}

/// gelu(x) = x * Phi(x): exactly x/2 * (1 + erf(x / sqrt 2)), or with
/// approximate="tanh", x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
Value gelu(aten::GeluOp op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), b.resultElementType());
  RankedTensorType type = b.resultType();
  auto c = [&](double v) { return b.splat(v, type, x); };
  StringRef approximate = op.getApproximate().value_or("none");
  Value inner;
  if (approximate == "none") {
    inner = b.create<prim::ErfOp>(b.create<prim::MulOp>(x, c(M_SQRT1_2)));
  } else if (approximate == "tanh") {
    Value cube = b.create<prim::MulOp>(b.create<prim::MulOp>(x, x), x);
    Value poly = b.create<prim::AddOp>(x, b.create<prim::MulOp>(cube, c(0.044715)));
    inner = b.create<prim::TanhOp>(
        b.create<prim::MulOp>(poly, c(M_2_SQRTPI * M_SQRT1_2))); // sqrt(2/pi)
  } else {
    return b.fail("unknown gelu approximation '" + approximate + "'");
  }
  Value halfX = b.create<prim::MulOp>(x, c(0.5));
  return b.create<prim::MulOp>(halfX, b.create<prim::AddOp>(inner, c(1.0)));
}

/// silu(x) = x * sigmoid(x).
Value silu(aten::SiluOp op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), b.resultElementType());
  return b.create<prim::MulOp>(x, b.create<prim::SigmoidOp>(x));
}

/// x^e: small positive integer exponents as products (exact, and valid for integer
/// tensors), 0.5 as sqrt, anything else as prim.pow on floats.
Value powTensorScalar(aten::PowTensorScalarOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.convert(op.getSelf(), type.getElementType());
  double e = scalarValue(op.getExponentAttr(), 1.0);
  if (e >= 1.0 && e <= 8.0 && e == std::floor(e)) {
    Value result = x;
    for (int i = 1; i < (int)e; ++i)
      result = b.create<prim::MulOp>(result, x);
    return result;
  }
  if (!isa<FloatType>(type.getElementType()))
    return b.fail("integer pow with exponent other than 1..8");
  if (e == 0.5)
    return b.create<prim::SqrtOp>(x);
  return b.create<prim::PowOp>(x, b.splat(e, type, x));
}

/// base ^ exponent for a Scalar base (2 ** x) or two tensors, on floats.
Value powScalar(aten::PowScalarOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  if (!isa<FloatType>(type.getElementType()))
    return b.fail("integer pow of a tensor exponent");
  Value exponent = b.convert(op.getExponent(), type.getElementType());
  Value base = b.splat(b.scalarAttr(op.getSelfAttr(), type.getElementType()), type, exponent);
  return b.create<prim::PowOp>(base, exponent);
}

Value powTensorTensor(aten::PowTensorTensorOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  if (!isa<FloatType>(type.getElementType()))
    return b.fail("integer pow of a tensor exponent");
  Value base = b.elementwiseOperand(op.getSelf(), type);
  Value exponent = b.elementwiseOperand(op.getExponent(), type);
  return b.create<prim::PowOp>(base, exponent);
}

} // namespace

void populatePointwiseDecompositions(DecompositionSet &set) {
  set.add<aten::NegOp>(unary<aten::NegOp, prim::NegOp>)
      .add<aten::AbsOp>(unary<aten::AbsOp, prim::AbsOp>)
      .add<aten::ExpOp>(unary<aten::ExpOp, prim::ExpOp>)
      .add<aten::LogOp>(unary<aten::LogOp, prim::LogOp>)
      .add<aten::TanhOp>(unary<aten::TanhOp, prim::TanhOp>)
      .add<aten::ErfOp>(unary<aten::ErfOp, prim::ErfOp>)
      .add<aten::SigmoidOp>(unary<aten::SigmoidOp, prim::SigmoidOp>)
      .add<aten::SqrtOp>(unary<aten::SqrtOp, prim::SqrtOp>)
      .add<aten::RsqrtOp>(unary<aten::RsqrtOp, prim::RsqrtOp>)
      .add<aten::CosOp>(unary<aten::CosOp, prim::CosOp>)
      .add<aten::SinOp>(unary<aten::SinOp, prim::SinOp>)
      .add<aten::TanOp>(unary<aten::TanOp, prim::TanOp>)
      .add<aten::AsinOp>(unary<aten::AsinOp, prim::AsinOp>)
      .add<aten::AcosOp>(unary<aten::AcosOp, prim::AcosOp>)
      .add<aten::AtanOp>(unary<aten::AtanOp, prim::AtanOp>)
      .add<aten::SinhOp>(unary<aten::SinhOp, prim::SinhOp>)
      .add<aten::CoshOp>(unary<aten::CoshOp, prim::CoshOp>)
      .add<aten::AsinhOp>(unary<aten::AsinhOp, prim::AsinhOp>)
      .add<aten::AcoshOp>(unary<aten::AcoshOp, prim::AcoshOp>)
      .add<aten::AtanhOp>(unary<aten::AtanhOp, prim::AtanhOp>)
      .add<aten::Expm1Op>(unary<aten::Expm1Op, prim::Expm1Op>)
      .add<aten::Log1pOp>(unary<aten::Log1pOp, prim::Log1pOp>)
      .add<aten::Log2Op>(unary<aten::Log2Op, prim::Log2Op>)
      .add<aten::Log10Op>(unary<aten::Log10Op, prim::Log10Op>);
  set.add<aten::FloorOp>(rounding<aten::FloorOp, prim::FloorOp>)
      .add<aten::CeilOp>(rounding<aten::CeilOp, prim::CeilOp>)
      .add<aten::RoundOp>(rounding<aten::RoundOp, prim::RoundOp>)
      .add<aten::TruncOp>(rounding<aten::TruncOp, prim::TruncOp>)
      .add<aten::ReciprocalOp>(reciprocal)
      .add<aten::SignOp>(sign);

  set.add<aten::AddTensorOp>(tensorTensor<aten::AddTensorOp, prim::AddOp>)
      .add<aten::AddcmulOp>(addCombined<aten::AddcmulOp, prim::MulOp>)
      .add<aten::AddcdivOp>(addCombined<aten::AddcdivOp, prim::DivOp>)
      .add<aten::SubTensorOp>(tensorTensor<aten::SubTensorOp, prim::SubOp>)
      .add<aten::MulTensorOp>(tensorTensor<aten::MulTensorOp, prim::MulOp>)
      .add<aten::DivTensorOp>(tensorTensor<aten::DivTensorOp, prim::DivOp>)
      .add<aten::MaximumOp>(tensorTensor<aten::MaximumOp, prim::MaxOp>)
      .add<aten::MinimumOp>(tensorTensor<aten::MinimumOp, prim::MinOp>)
      .add<aten::Atan2Op>(tensorTensor<aten::Atan2Op, prim::Atan2Op>);

  set.add<aten::AddScalarOp>(tensorScalar<aten::AddScalarOp, prim::AddOp>)
      .add<aten::SubScalarOp>(tensorScalar<aten::SubScalarOp, prim::SubOp>)
      .add<aten::RsubScalarOp>(tensorScalar<aten::RsubScalarOp, prim::SubOp, true>)
      .add<aten::MulScalarOp>(tensorScalar<aten::MulScalarOp, prim::MulOp>)
      .add<aten::DivScalarOp>(tensorScalar<aten::DivScalarOp, prim::DivOp>);

  set.add<aten::ReluOp>(relu)
      .add<aten::GeluOp>(gelu)
      .add<aten::SiluOp>(silu)
      .add<aten::PowTensorScalarOp>(powTensorScalar)
      .add<aten::PowScalarOp>(powScalar)
      .add<aten::PowTensorTensorOp>(powTensorTensor);
}

} // namespace pt2c::decompose
