// Inference batch norm (native_batch_norm with training=False, and torch.export's
// _native_batch_norm_legit_no_training) with the formula of ATen's CPU kernel:
//   alpha = weight / sqrt(running_var + eps),  beta = bias - running_mean * alpha,
//   out = x * alpha + beta,
// per channel (dim 1), so that pt2c rounds like eager. The saved mean/invstd results
// are empty tensors in inference; a non-empty one means training statistics, which
// are not supported.
#include "compiler/transforms/decompose/DecompositionSet.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// Half-precision floats are normalized in f32, as ATen's CPU kernel does.
Type computeType(Type elementType) {
  if (isa<Float16Type, BFloat16Type>(elementType))
    return Float32Type::get(elementType.getContext());
  return elementType;
}

template <typename OpT> SmallVector<Value> batchNorm(OpT op, PrimBuilder &b) {
  if constexpr (std::is_same_v<OpT, aten::NativeBatchNormOp>)
    if (op.getTraining())
      return {b.fail("batch norm in training mode (batch statistics) is not supported: "
                     "call model.eval()")};
  if (!op.getRunningMean() || !op.getRunningVar())
    return {b.fail("batch norm without running statistics")};
  RankedTensorType outType = b.resultType(0);
  if (outType.getRank() < 2)
    return {b.fail("batch norm expects an input of rank >= 2 (dim 1 is channels)")};
  Type et = computeType(outType.getElementType());
  RankedTensorType type = outType.clone(et);
  for (unsigned i = 1; i < 3; ++i)
    if (!b.resultType(i).hasStaticShape() || b.resultType(i).getNumElements() != 0)
      return {b.fail("batch norm returning saved statistics (training) is not supported")};

  Value var = b.convert(op.getRunningVar(), et);
  Value mean = b.convert(op.getRunningMean(), et);
  if (b.failed())
    return {};
  RankedTensorType channels = tensorType(var);
  Value eps = b.splat(op.getEps().convertToDouble(), channels, var);
  Value alpha = b.create<prim::RsqrtOp>(b.create<prim::AddOp>(var, eps));
  if (Value weight = op.getWeight())
    alpha = b.create<prim::MulOp>(alpha, b.convert(weight, et));
  Value shift = b.create<prim::MulOp>(mean, alpha);
  Value beta = op.getBias() ? b.create<prim::SubOp>(b.convert(op.getBias(), et), shift)
                            : b.create<prim::NegOp>(shift);
  Value x = b.convert(op.getInput(), et);
  Value scaled = b.create<prim::MulOp>(x, b.broadcastInDim(alpha, type, {1}, x));
  Value out = b.create<prim::AddOp>(scaled, b.broadcastInDim(beta, type, {1}, x));
  Value saved1 = b.splat(0.0, b.resultType(1));
  Value saved2 = b.splat(0.0, b.resultType(2));
  return {b.convert(out, outType.getElementType()), saved1, saved2};
}

} // namespace

void populateBatchNormDecompositions(DecompositionSet &set) {
  set.add<aten::NativeBatchNormOp>(batchNorm<aten::NativeBatchNormOp>)
      .add<aten::InternalNativeBatchNormLegitNoTrainingOp>(
          batchNorm<aten::InternalNativeBatchNormLegitNoTrainingOp>);
}

} // namespace pt2c::decompose
