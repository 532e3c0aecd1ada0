// Decompositions of softmax, log_softmax, layer norm and group norm into prim.reduce plus
// elementwise ops. Each is the numerically stable textbook form: softmax subtracts
// the row max before exp; layer norm takes the variance of the centred values (two
// passes) rather than E[x^2] - E[x]^2.
#include <cmath>

#include "compiler/transforms/decompose/DecompositionSet.h"
#include "ir/contract/ModelContract.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// What softmax and log_softmax of op's self over op's dim are made of, computed in the
/// accumulation type: x - max, exp(x - max), and its sum broadcast back.
struct ExpAndSum {
  Value shifted, e, sum;
};

template <typename OpT> std::optional<ExpAndSum> expAndSum(OpT op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), accumulationType(b.resultElementType()));
  if (b.failed())
    return std::nullopt;
  RankedTensorType type = tensorType(x);
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), type.getRank());
  if (type.getRank() == 0) { // softmax of a scalar is over nothing: x - x
    Value shifted = b.create<prim::SubOp>(x, x);
    Value e = b.create<prim::ExpOp>(shifted);
    return ExpAndSum{shifted, e, e};
  }
  Value max = b.broadcastReduced(b.reduce(prim::ReduceKind::MAX, x, {dim}), type, {dim}, x);
  Value shifted = b.create<prim::SubOp>(x, max);
  Value e = b.create<prim::ExpOp>(shifted);
  Value sum = b.broadcastReduced(b.reduce(prim::ReduceKind::SUM, e, {dim}), type, {dim}, x);
  return ExpAndSum{shifted, e, sum};
}

/// softmax(x) = exp(x - max) / sum(exp(x - max)), in the result dtype (which covers
/// _softmax's half_to_float and softmax.int's dtype).
template <typename OpT> Value softmax(OpT op, PrimBuilder &b) {
  std::optional<ExpAndSum> parts = expAndSum(op, b);
  if (!parts)
    return {};
  return b.convert(b.create<prim::DivOp>(parts->e, parts->sum), b.resultElementType());
}

/// _safe_softmax (SDPA's math path): softmax, but 0 for rows that are -inf
/// throughout (fully masked), where softmax gives NaN.
Value safeSoftmax(aten::InternalSafeSoftmaxOp op, PrimBuilder &b) {
  Value x = b.convert(op.getSelf(), accumulationType(b.resultElementType()));
  if (b.failed())
    return {};
  RankedTensorType type = tensorType(x);
  if (type.getRank() == 0)
    return b.fail("_safe_softmax of a 0-d tensor");
  int64_t dim = normalizeDim(op.getDimAttr().getInt(), type.getRank());
  Value max = b.reduce(prim::ReduceKind::MAX, x, {dim});
  if (b.failed())
    return {};
  RankedTensorType rowType = tensorType(max);
  Value negInf = b.splat(-INFINITY, rowType, max);
  Value masked = b.create<prim::CompareOp>(prim::CompareDirection::EQ, max, negInf);
  Value safeMax = b.create<prim::SelectOp>(masked, b.splat(0.0, rowType, max), max);
  Value shifted = b.create<prim::SubOp>(x, b.broadcastReduced(safeMax, type, {dim}, x));
  Value e = b.create<prim::ExpOp>(shifted);
  Value sum = b.broadcastReduced(b.reduce(prim::ReduceKind::SUM, e, {dim}), type, {dim}, x);
  Value softmax = b.create<prim::DivOp>(e, sum);
  Value maskedRows = b.broadcastReduced(masked, type, {dim}, x);
  Value result = b.create<prim::SelectOp>(maskedRows, b.splat(0.0, type, x), softmax);
  return b.convert(result, b.resultElementType());
}

/// log_softmax(x) = (x - max) - log(sum(exp(x - max))).
template <typename OpT> Value logSoftmax(OpT op, PrimBuilder &b) {
  std::optional<ExpAndSum> parts = expAndSum(op, b);
  if (!parts)
    return {};
  Value result = b.create<prim::SubOp>(parts->shifted, b.create<prim::LogOp>(parts->sum));
  return b.convert(result, b.resultElementType());
}

/// The normalization shared by layer and group norm, over `dims` of `x` (which hold
/// `count` elements per reduced row):
///   mean = E[x], rstd = 1 / sqrt(E[(x - mean)^2] + eps), normalized = (x - mean) * rstd;
/// mean and rstd are left reduced (without the dims).
struct Normalized {
  Value normalized, mean, rstd;
};
Normalized normalizeOver(PrimBuilder &b, Value x, ArrayRef<int64_t> dims, int64_t count,
                         double epsilon) {
  RankedTensorType type = tensorType(x);
  Value sum = b.reduce(prim::ReduceKind::SUM, x, dims);
  if (b.failed())
    return {};
  RankedTensorType reducedType = tensorType(sum);
  Value n = b.splat((double)count, reducedType, sum);

  Value mean = b.create<prim::DivOp>(sum, n);
  Value centred = b.create<prim::SubOp>(x, b.broadcastReduced(mean, type, dims, x));
  Value squares = b.create<prim::MulOp>(centred, centred);
  Value variance = b.create<prim::DivOp>(b.reduce(prim::ReduceKind::SUM, squares, dims), n);
  Value eps = b.splat(epsilon, reducedType, sum);
  Value rstd = b.create<prim::RsqrtOp>(b.create<prim::AddOp>(variance, eps));
  Value out = b.create<prim::MulOp>(centred, b.broadcastReduced(rstd, type, dims, x));
  return {out, mean, rstd};
}

/// native_layer_norm as one prim.layer_norm, for a module the CUDA pipeline marked (its
/// fused kernel: codegen/cuda/LayerNormKernel.cpp): over the last dim only, of a static
/// input, when mean and rstd are not used; null otherwise (the formula below serves).
Value fusedLayerNorm(aten::NativeLayerNormOp op, PrimBuilder &b) {
  // Unused, or only rounded back by the low-precision rewrite and then unused.
  auto unused = [](Value v) {
    return llvm::all_of(v.getUsers(), [](Operation *user) {
      return isa<prim::ConvertOp>(user) && user->use_empty();
    });
  };
  if (!inFusedOpsModule(op) || op.getNormalizedShape().size() != 1 || !unused(op->getResult(1)) ||
      !unused(op->getResult(2)))
    return {};
  auto input = tensorType(op.getInput());
  if (!input.hasStaticShape() || input.getRank() < 1 ||
      input.getShape().back() > prim::kFusedRowMaxElements ||
      input.getElementType() != b.resultElementType(0))
    return {};
  return b.create<prim::LayerNormOp>(
      b.resultType(0), op.getInput(), /*residual=*/Value(), op.getWeight(), op.getBias(),
      FloatAttr::get(Float64Type::get(op.getContext()), op.getEps().convertToDouble()),
      /*rms=*/UnitAttr());
}

/// native_layer_norm over the trailing dims named by normalized_shape:
/// out = normalized * weight + bias; mean and rstd keep the normalized dims with
/// size 1, as ATen returns them.
SmallVector<Value> layerNorm(aten::NativeLayerNormOp op, PrimBuilder &b) {
  if (Value fused = fusedLayerNorm(op, b))
    return {fused, b.splat(0.0, b.resultType(1)), b.splat(0.0, b.resultType(2))}; // unused
  RankedTensorType type = b.resultType(0);
  type = type.clone(accumulationType(type.getElementType()));
  Value x = b.convert(op.getInput(), type.getElementType());
  int64_t rank = type.getRank();
  int64_t normalized = op.getNormalizedShape().size();
  if (normalized == 0 || normalized > rank)
    return {b.fail("normalized_shape must name 1..rank trailing dims")};
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(rank - normalized, rank));
  int64_t count = 1;
  for (int64_t d : dims) {
    if (type.isDynamicDim(d))
      return {b.fail("layer norm over a dynamic dim")};
    count *= type.getDimSize(d);
  }
  auto [out, mean, rstd] = normalizeOver(b, x, dims, count, op.getEps().convertToDouble());
  if (b.failed())
    return {};
  if (Value weight = op.getWeight())
    out = b.create<prim::MulOp>(out, b.elementwiseOperand(weight, type, x));
  if (Value bias = op.getBias())
    out = b.create<prim::AddOp>(out, b.elementwiseOperand(bias, type, x));
  out = b.convert(out, b.resultElementType(0));
  Value meanResult = b.reshape(b.convert(mean, b.resultElementType(1)), b.resultType(1));
  Value rstdResult = b.reshape(b.convert(rstd, b.resultElementType(2)), b.resultType(2));
  return {out, meanResult, rstdResult};
}

/// native_group_norm of input [N, C, *] in `group` groups of C / group channels: the
/// input seen as [N, group, C / group * prod(*)] is normalized over its last dim, then
/// weight and bias (one per channel) apply along dim 1. mean and rstd are [N, group].
SmallVector<Value> groupNorm(aten::NativeGroupNormOp op, PrimBuilder &b) {
  RankedTensorType type = b.resultType(0);
  type = type.clone(accumulationType(type.getElementType()));
  if (type.getRank() < 2 || !type.hasStaticShape())
    return {b.fail("group norm needs a static input of rank >= 2")};
  int64_t batch = type.getDimSize(0), channels = type.getDimSize(1);
  int64_t groups = op.getGroup();
  if (groups <= 0 || channels % groups != 0)
    return {b.fail("group norm: " + llvm::Twine(channels) + " channels in " + llvm::Twine(groups) +
                   " groups")};
  int64_t perGroup = type.getNumElements() / (batch * groups);
  Value x = b.convert(op.getInput(), type.getElementType());
  auto groupedType = RankedTensorType::get({batch, groups, perGroup}, type.getElementType());
  auto [grouped, mean, rstd] =
      normalizeOver(b, b.reshape(x, groupedType), {2}, perGroup, op.getEps().convertToDouble());
  if (b.failed())
    return {};
  Value out = b.reshape(grouped, type);
  auto perChannel = [&](Value v) {
    return b.broadcastInDim(b.convert(v, type.getElementType()), type, {1});
  };
  if (Value weight = op.getWeight())
    out = b.create<prim::MulOp>(out, perChannel(weight));
  if (Value bias = op.getBias())
    out = b.create<prim::AddOp>(out, perChannel(bias));
  out = b.convert(out, b.resultElementType(0));
  Value meanResult = b.reshape(b.convert(mean, b.resultElementType(1)), b.resultType(1));
  Value rstdResult = b.reshape(b.convert(rstd, b.resultElementType(2)), b.resultType(2));
  return {out, meanResult, rstdResult};
}

} // namespace

void populateNormalizationDecompositions(DecompositionSet &set) {
  set.add<aten::InternalSoftmaxOp>(softmax<aten::InternalSoftmaxOp>)
      .add<aten::SoftmaxIntOp>(softmax<aten::SoftmaxIntOp>)
      .add<aten::InternalSafeSoftmaxOp>(safeSoftmax)
      .add<aten::InternalLogSoftmaxOp>(logSoftmax<aten::InternalLogSoftmaxOp>)
      .add<aten::LogSoftmaxIntOp>(logSoftmax<aten::LogSoftmaxIntOp>)
      .add<aten::NativeLayerNormOp>(layerNorm)
      .add<aten::NativeGroupNormOp>(groupNorm);
}

} // namespace pt2c::decompose
