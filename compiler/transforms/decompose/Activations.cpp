// The piecewise-linear activations of mobile CNNs, in the operation order of ATen's
// CPU kernels (so that rounding matches eager):
//   hardtanh(x, lo, hi) = min(max(x, lo), hi)           (relu6 is hardtanh(x, 0, 6))
//   hardsigmoid(x)      = min(max(x + 3, 0), 6) / 6
//   hardswish(x)        = x * min(max(x + 3, 0), 6) / 6
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

} // namespace

void populateActivationDecompositions(DecompositionSet &set) {
  set.add<aten::HardtanhOp>(hardtanh)
      .add<aten::HardsigmoidOp>(hardsigmoid)
      .add<aten::HardswishOp>(hardswish);
}

} // namespace pt2c::decompose
