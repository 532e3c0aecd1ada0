// The piecewise-linear activations of mobile CNNs, in the operation order of ATen's
// CPU kernels (so that rounding matches eager):
//   hardtanh(x, lo, hi) = min(max(x, lo), hi)           (relu6 is hardtanh(x, 0, 6))
//   hardsigmoid(x)      = min(max(x + 3, 0), 6) / 6
//   hardswish(x)        = x * min(max(x + 3, 0), 6) / 6
//   clamp(x, lo, hi)    = min(max(x, lo), hi), either bound optional, in the promoted dtype
//                         (clamp_min and clamp_max: one bound)
//   elu(x)              = x > 0 ? scale x : scale alpha (e^(input_scale x) - 1)
//   leaky_relu(x)       = x > 0 ? x : slope x
// prim.max/min propagate NaN, as torch.clamp does.
#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

Value clamp(PrimBuilder &b, Value x, double lo, double hi) {
  RankedTensorType type = tensorType(x);
  Value low = b.splat(lo, type, x);
  Value atLeastLow = b.create<prim::MaxOp>(x, low);
  Value high = b.splat(hi, type, x);
  return b.create<prim::MinOp>(atLeastLow, high);
}

/// min(max(x + 3, 0), 6): the ramp shared by hardsigmoid and hardswish.
Value relu6OfShifted(PrimBuilder &b, Value x) {
  Value three = b.splat(3.0, tensorType(x), x);
  return clamp(b, b.create<prim::AddOp>(x, three), 0.0, 6.0);
}

Value hardtanh(aten::HardtanhOp op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), b.resultElementType());
  return clamp(b, x, scalarValue(op.getMinValAttr(), -1.0), scalarValue(op.getMaxValAttr(), 1.0));
}

Value hardsigmoid(aten::HardsigmoidOp op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), b.resultElementType());
  Value ramp = relu6OfShifted(b, x);
  return b.create<prim::DivOp>(ramp, b.splat(6.0, b.resultType(), x));
}

Value hardswish(aten::HardswishOp op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), b.resultElementType());
  Value ramp = relu6OfShifted(b, x);
  Value product = b.create<prim::MulOp>(x, ramp);
  return b.create<prim::DivOp>(product, b.splat(6.0, b.resultType(), x));
}

/// torch.clamp with optional bounds (Scalars or tensors, already the result's type and
/// shape); a lower bound above the upper one gives the upper one, as in eager.
Value clampBetween(PrimBuilder &b, Value x, Value low, Value high) {
  if (low)
    x = b.create<prim::MaxOp>(x, low);
  if (high)
    x = b.create<prim::MinOp>(x, high);
  return x;
}

Value clampScalar(aten::ClampOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.convert(op.getSelf(), type.getElementType());
  auto bound = [&](Attribute scalar) -> Value {
    return scalar ? b.splat(b.scalarAttr(scalar, type.getElementType()), type, x) : Value();
  };
  Value low = bound(op.getMinAttr());
  Value high = bound(op.getMaxAttr());
  return clampBetween(b, x, low, high);
}

Value clampTensor(aten::ClampTensorOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.elementwiseOperand(op.getSelf(), type);
  Value low = op.getMin() ? b.elementwiseOperand(op.getMin(), type) : Value();
  Value high = op.getMax() ? b.elementwiseOperand(op.getMax(), type) : Value();
  return clampBetween(b, x, low, high);
}

/// clamp_min / clamp_max (F.normalize's clamp of the norm by eps): one bound, a Scalar
/// or a tensor (promoted and broadcast with self).
template <typename OpT, bool Lower> Value oneBound(OpT op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.elementwiseOperand(op.getSelf(), type);
  Value bound;
  Attribute scalar = op->getAttr(Lower ? "min" : "max");
  if (scalar)
    bound = b.splat(b.scalarAttr(scalar, type.getElementType()), type, x);
  else
    bound = b.elementwiseOperand(op->getOperand(1), type);
  return Lower ? clampBetween(b, x, bound, Value()) : clampBetween(b, x, Value(), bound);
}

/// Where x > 0, `positive`, else `negative` (a NaN x gives NaN either way).
Value byPositive(PrimBuilder &b, Value x, Value positive, Value negative) {
  Value zero = b.splat(0.0, tensorType(x), x);
  Value isPositive = b.create<prim::CompareOp>(prim::CompareDirection::GT, x, zero);
  return b.create<prim::SelectOp>(isPositive, positive, negative);
}

Value elu(aten::EluOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.convert(op.getSelf(), type.getElementType());
  double alpha = scalarValue(op.getAlphaAttr(), 1.0);
  double scale = scalarValue(op.getScaleAttr(), 1.0);
  double inputScale = scalarValue(op.getInputScaleAttr(), 1.0);
  Value scaledIn = b.create<prim::MulOp>(x, b.splat(inputScale, type, x));
  Value expm1 = b.create<prim::Expm1Op>(scaledIn);
  Value negative = b.create<prim::MulOp>(expm1, b.splat(alpha * scale, type, x));
  Value positive = b.create<prim::MulOp>(x, b.splat(scale, type, x));
  return byPositive(b, x, positive, negative);
}

Value leakyRelu(aten::LeakyReluOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType();
  Value x = b.convert(op.getSelf(), type.getElementType());
  double slope = scalarValue(op.getNegativeSlopeAttr(), 0.01);
  Value negative = b.create<prim::MulOp>(x, b.splat(slope, type, x));
  return byPositive(b, x, x, negative);
}

} // namespace

void populateActivationDecompositions(DecompositionSet &set) {
  set.add<aten::HardtanhOp>(hardtanh)
      .add<aten::HardsigmoidOp>(hardsigmoid)
      .add<aten::HardswishOp>(hardswish)
      .add<aten::ClampOp>(clampScalar)
      .add<aten::ClampTensorOp>(clampTensor)
      .add<aten::ClampMinOp>(oneBound<aten::ClampMinOp, true>)
      .add<aten::ClampMinTensorOp>(oneBound<aten::ClampMinTensorOp, true>)
      .add<aten::ClampMaxOp>(oneBound<aten::ClampMaxOp, false>)
      .add<aten::ClampMaxTensorOp>(oneBound<aten::ClampMaxTensorOp, false>)
      .add<aten::EluOp>(elu)
      .add<aten::LeakyReluOp>(leakyRelu);
}

} // namespace pt2c::decompose
