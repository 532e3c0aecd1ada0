// Inference batch norm (native_batch_norm with training=False, and torch.export's
// _native_batch_norm_legit_no_training) with the formula of ATen's CPU kernel:
//   alpha = weight / sqrt(running_var + eps),  beta = bias - running_mean * alpha,
//   out = x * alpha + beta,
// per channel (dim 1), so that pt2c rounds like eager. The saved mean/invstd results
// are empty tensors in inference; a non-empty one means training statistics, which
// are not supported with running statistics (they would have to be updated). Training
// mode without running statistics normalizes with the batch's own statistics.
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

/// Training mode without running statistics (F.batch_norm(x, None, None,
/// training=True): NF-Nets' ScaledStdConv standardizes its weights so): the batch's own
/// statistics per channel (dim 1) over every other dim, as ATen's CPU kernel computes
/// them (the mean, then the biased variance as the mean squared distance from it,
/// invstd = 1 / sqrt(var + eps)), and then the inference formula with them. There is no
/// state to update. The saved mean and invstd are the op's other two results.
SmallVector<Value> batchStatisticsNorm(aten::NativeBatchNormOp op, PrimBuilder &b) {
  RankedTensorType outType = b.resultType(0);
  if (outType.getRank() < 2 || !outType.hasStaticShape())
    return {b.fail("batch norm in training mode expects a static input of rank >= 2")};
  Type et = computeType(outType.getElementType());
  RankedTensorType type = outType.clone(et);
  SmallVector<int64_t> others;
  int64_t count = 1;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != 1) {
      others.push_back(d);
      count *= type.getDimSize(d);
    }
  Value x = b.convert(op.getInput(), et);
  if (b.failed())
    return {Value()};
  Value sum = b.reduce(prim::ReduceKind::SUM, x, others); // [C]
  RankedTensorType channels = tensorType(sum);
  Value n = b.splat((double)count, channels, sum);
  Value mean = b.create<prim::DivOp>(sum, n);
  Value centred = b.create<prim::SubOp>(x, b.broadcastInDim(mean, type, {1}, x));
  Value squares = b.create<prim::MulOp>(centred, centred);
  Value squareSum = b.reduce(prim::ReduceKind::SUM, squares, others);
  Value var = b.create<prim::DivOp>(squareSum, n);
  Value eps = b.splat(op.getEps().convertToDouble(), channels, var);
  Value varEps = b.create<prim::AddOp>(var, eps);
  Value one = b.splat(1.0, channels, var);
  Value invstd = b.create<prim::DivOp>(one, b.create<prim::SqrtOp>(varEps));
  Value alpha = invstd;
  if (Value weight = op.getWeight())
    alpha = b.create<prim::MulOp>(alpha, b.convert(weight, et));
  Value shift = b.create<prim::MulOp>(mean, alpha);
  Value beta = op.getBias() ? b.create<prim::SubOp>(b.convert(op.getBias(), et), shift)
                            : b.create<prim::NegOp>(shift);
  Value scaled = b.create<prim::MulOp>(x, b.broadcastInDim(alpha, type, {1}, x));
  Value out = b.create<prim::AddOp>(scaled, b.broadcastInDim(beta, type, {1}, x));
  Value outRounded = b.convert(out, outType.getElementType());
  Value savedMean = b.convert(mean, b.resultElementType(1));
  Value savedInvstd = b.convert(invstd, b.resultElementType(2));
  Value meanShaped = b.reshape(savedMean, b.resultType(1));
  Value invstdShaped = b.reshape(savedInvstd, b.resultType(2));
  return {outRounded, meanShaped, invstdShaped};
}

template <typename OpT> SmallVector<Value> batchNorm(OpT op, PrimBuilder &b) {
  if constexpr (std::is_same_v<OpT, aten::NativeBatchNormOp>)
    if (op.getTraining()) {
      if (!op.getRunningMean() && !op.getRunningVar())
        return batchStatisticsNorm(op, b);
      return {b.fail("batch norm in training mode (batch statistics) is not supported: "
                     "call model.eval()")};
    }
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
