// Decompositions of attention: scaled_dot_product_attention and the fused CPU kernel
// that torch 2.x records for it (_scaled_dot_product_flash_attention_for_cpu), as
// two prim.dot_generals around a masked, numerically stable softmax; and baddbmm,
// the scores-plus-bias product of older attention code.
//
//   scores = (q @ k^T) * scale  (+ float mask, or -inf where a bool/causal mask is false)
//   m      = rowmax(scores), with 0 in place of -inf for rows masked entirely
//   e      = exp(scores - m),  s = rowsum(e)
//   out    = (e @ v) / s, and 0 for rows masked entirely (as torch's CPU kernel gives)
//   logsumexp = m + log(s)
// Dividing after the second product scales L x Ev values instead of L x S.
#include <cmath>

#include "compiler/transforms/decompose/DecompositionSet.h"
#include "ir/contract/ModelContract.h"

using namespace mlir;

namespace pt2c::decompose {
namespace {

/// The parts of one attention call; `mask` and `scale` are optional.
struct AttentionArgs {
  Value query, key, value, mask;
  bool isCausal = false, enableGqa = false;
  std::optional<double> scale;
};

/// `kv` [batch..., Hk, S, D] with each head repeated `groups` times in a row, as
/// repeat_interleave along dim -3 gives for grouped-query attention.
Value repeatHeads(PrimBuilder &b, Value kv, int64_t groups) {
  RankedTensorType type = tensorType(kv);
  int64_t rank = type.getRank();
  SmallVector<int64_t> expanded(type.getShape());
  expanded.insert(expanded.begin() + rank - 2, groups);
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(d < rank - 2 ? d : d + 1);
  Value broadcast = b.broadcastInDim(kv, type.clone(expanded), dims);
  SmallVector<int64_t> merged(type.getShape());
  merged[rank - 3] *= groups;
  return b.reshape(broadcast, type.clone(merged));
}

/// Returns {output [batch..., L, Ev], logsumexp [batch..., L]} in `elementType`.
std::pair<Value, Value> attention(PrimBuilder &b, const AttentionArgs &args, Type elementType) {
  Value q = b.convert(args.query, elementType);
  Value k = b.convert(args.key, elementType);
  Value v = b.convert(args.value, elementType);
  if (b.failed())
    return {};
  RankedTensorType qType = tensorType(q), kType = tensorType(k), vType = tensorType(v);
  int64_t rank = qType.getRank();
  if (rank < 2 || kType.getRank() != rank || vType.getRank() != rank)
    return {b.fail("attention needs query, key and value of one rank >= 2"), {}};
  if (qType.isDynamicDim(rank - 1))
    return {b.fail("attention with a dynamic head size"), {}};
  int64_t batchRank = rank - 2;
  // Grouped-query attention shares each key/value head among several query heads.
  if (args.enableGqa && batchRank >= 1 &&
      kType.getDimSize(rank - 3) != qType.getDimSize(rank - 3)) {
    int64_t hq = qType.getDimSize(rank - 3), hk = kType.getDimSize(rank - 3);
    if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hk) || hq % hk != 0)
      return {b.fail("grouped-query attention needs static head counts that divide"), {}};
    k = repeatHeads(b, k, hq / hk);
    v = repeatHeads(b, v, hq / hk);
  }
  // Key and value batch dims broadcast to the query's.
  auto withBatchOf = [&](Value t) {
    SmallVector<int64_t> shape(qType.getShape().take_front(batchRank));
    llvm::append_range(shape, tensorType(t).getShape().take_back(2));
    return b.broadcastTo(t, qType.clone(shape));
  };
  k = withBatchOf(k);
  v = withBatchOf(v);
  SmallVector<int64_t> batch = llvm::to_vector(llvm::seq<int64_t>(0, batchRank));

  Value scores = b.dotGeneral(q, k, batch, batch, {rank - 1}, {rank - 1});
  if (b.failed())
    return {};
  RankedTensorType scoresType = tensorType(scores);
  double scale = args.scale.value_or(1.0 / std::sqrt((double)qType.getDimSize(rank - 1)));
  scores = b.create<prim::MulOp>(scores, b.splat(scale, scoresType, scores));
  Value negInf = b.splat(-INFINITY, scoresType, scores);

  MLIRContext *context = scoresType.getContext();
  if (args.isCausal) { // keep key j for query i where j <= i (top-left aligned)
    auto indexType =
        RankedTensorType::get(scoresType.getShape().take_back(2), IntegerType::get(context, 64));
    if (!indexType.hasStaticShape())
      return {b.fail("causal attention with dynamic sequence lengths"), {}};
    Value row = b.create<prim::IotaOp>(indexType, 0);
    Value col = b.create<prim::IotaOp>(indexType, 1);
    Value keep = b.create<prim::CompareOp>(prim::CompareDirection::LE, col, row);
    keep = b.broadcastTo(keep, scoresType.clone(IntegerType::get(context, 1)), scores);
    scores = b.create<prim::SelectOp>(keep, scores, negInf);
  }
  if (Value mask = args.mask) {
    if (tensorType(mask).getElementType().isInteger(1)) { // true = attend
      Value keep = b.broadcastTo(mask, scoresType.clone(tensorType(mask).getElementType()), scores);
      scores = b.create<prim::SelectOp>(keep, scores, negInf);
    } else { // an additive bias
      scores = b.create<prim::AddOp>(scores, b.elementwiseOperand(mask, scoresType, scores));
    }
  }

  Value max = b.reduce(prim::ReduceKind::MAX, scores, {rank - 1});
  if (b.failed())
    return {};
  RankedTensorType rowType = tensorType(max);
  Value zero = b.splat(0.0, rowType, max);
  Value maskedRow =
      b.create<prim::CompareOp>(prim::CompareDirection::EQ, max, b.splat(-INFINITY, rowType, max));
  Value safeMax = b.create<prim::SelectOp>(maskedRow, zero, max);
  Value e = b.create<prim::ExpOp>(
      b.create<prim::SubOp>(scores, b.broadcastReduced(safeMax, scoresType, {rank - 1}, scores)));
  Value sum = b.reduce(prim::ReduceKind::SUM, e, {rank - 1});
  Value weighted = b.dotGeneral(e, v, batch, batch, {rank - 1}, {rank - 2});
  if (b.failed())
    return {};
  Value emptyRow = b.create<prim::CompareOp>(prim::CompareDirection::EQ, sum, zero);
  Value one = b.splat(1.0, rowType, max);
  Value inverse = b.create<prim::SelectOp>(emptyRow, zero, b.create<prim::DivOp>(one, sum));
  Value out = b.create<prim::MulOp>(
      weighted, b.broadcastReduced(inverse, tensorType(weighted), {rank - 1}, weighted));
  Value logSum = b.create<prim::AddOp>(safeMax, b.create<prim::LogOp>(sum));
  Value logsumexp = b.create<prim::SelectOp>(emptyRow, zero, logSum);
  return {out, logsumexp};
}

/// The one-op form of attention, for a module the CUDA pipeline marked with
/// kFusedOpsAttr (its fused kernels: codegen/cuda/Attention*Kernel.cpp); null where
/// that form does not apply (then the formula above serves). It takes q, k and v as
/// they are (f16, bf16 or f32, [B, H, len, dim]; with enable_gqa, key and value may
/// have fewer heads, Hk dividing H) and an additive bias (f32, or q's type) in place of
/// the mask.
Value fusedAttention(Operation *op, PrimBuilder &b, const AttentionArgs &args) {
  if (!inFusedOpsModule(op))
    return {};
  auto q = tensorType(args.query), k = tensorType(args.key), v = tensorType(args.value);
  Type t = q.getElementType();
  bool supportedType = t.isF16() || t.isBF16() || t.isF32();
  if (!supportedType || k.getElementType() != t || v.getElementType() != t || !q.hasStaticShape() ||
      !k.hasStaticShape() || !v.hasStaticShape() || q.getRank() != 4 || k.getRank() != 4 ||
      v.getRank() != 4 || q.getDimSize(0) != k.getDimSize(0) ||
      q.getDimSize(0) != v.getDimSize(0) || k.getDimSize(1) != v.getDimSize(1) ||
      k.getDimSize(2) > prim::kFusedAttentionMaxKeys)
    return {};
  bool sameHeads = q.getDimSize(1) == k.getDimSize(1);
  if (!sameHeads && !(args.enableGqa && q.getDimSize(1) % k.getDimSize(1) == 0))
    return {};
  int64_t scores[4] = {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), k.getDimSize(2)};
  Value bias;
  if (Value mask = args.mask) {
    auto maskType = tensorType(mask);
    if (!maskType.hasStaticShape() || maskType.getRank() > 4)
      return {};
    // Right-aligned, as broadcasting aligns it; size-1 dims broadcast in the kernel.
    SmallVector<int64_t> shape(4 - maskType.getRank(), 1);
    llvm::append_range(shape, maskType.getShape());
    for (int64_t d = 0; d < 4; ++d)
      if (shape[d] != 1 && shape[d] != scores[d])
        return {};
    auto biasType = RankedTensorType::get(shape, Float32Type::get(op->getContext()));
    if (maskType.getElementType().isInteger(1)) { // true = attend
      Value keep = b.reshape(mask, maskType.clone(shape));
      bias = b.create<prim::SelectOp>(keep, b.splat(0.0, biasType), b.splat(-INFINITY, biasType));
    } else {
      // The kernel widens a half bias itself.
      Type biasElement = maskType.getElementType() == t ? t : biasType.getElementType();
      bias = b.reshape(b.convert(mask, biasElement), biasType.clone(biasElement));
    }
  }
  double scale = args.scale.value_or(1.0 / std::sqrt((double)q.getDimSize(3)));
  auto resultType = RankedTensorType::get({scores[0], scores[1], scores[2], v.getDimSize(3)}, t);
  MLIRContext *context = op->getContext();
  return b.create<prim::AttentionOp>(
      resultType, args.query, args.key, args.value, bias,
      FloatAttr::get(Float64Type::get(context), scale), BoolAttr::get(context, args.isCausal),
      DenseBoolArrayAttr::get(context, {false, false, false, false}), DenseI64ArrayAttr());
}

std::optional<double> optionalScale(std::optional<APFloat> scale) {
  if (!scale)
    return std::nullopt;
  return scale->convertToDouble();
}

Value scaledDotProductAttention(aten::ScaledDotProductAttentionOp op, PrimBuilder &b) {
  if (op.getDropoutP() && op.getDropoutP()->convertToDouble() != 0.0)
    return b.fail("attention dropout (the model runs in eval mode: dropout_p must be 0)");
  if (op.getAttnMask() && op.getIsCausal().value_or(false))
    return b.fail("attention with both attn_mask and is_causal");
  AttentionArgs args{op.getQuery(),
                     op.getKey(),
                     op.getValue(),
                     op.getAttnMask(),
                     op.getIsCausal().value_or(false),
                     op.getEnableGqa().value_or(false),
                     optionalScale(op.getScale())};
  if (Value fused = fusedAttention(op, b, args))
    return b.convert(fused, b.resultElementType());
  Value out = attention(b, args, accumulationType(b.resultElementType())).first;
  return b.convert(out, b.resultElementType());
}

SmallVector<Value> flashAttentionForCpu(aten::InternalScaledDotProductFlashAttentionForCpuOp op,
                                        PrimBuilder &b) {
  if (op.getDropoutP() && op.getDropoutP()->convertToDouble() != 0.0)
    return {b.fail("attention dropout (the model runs in eval mode: dropout_p must be 0)")};
  // The CPU kernel takes grouped key/value heads as they are (sdpa with enable_gqa
  // passes them unrepeated): query head h reads key/value head h / (Hq / Hk).
  AttentionArgs args{op.getQuery(),
                     op.getKey(),
                     op.getValue(),
                     op.getAttnMask(),
                     op.getIsCausal().value_or(false),
                     /*enableGqa=*/true,
                     optionalScale(op.getScale())};
  if (op.getLogsumexp().use_empty())
    if (Value fused = fusedAttention(op, b, args))
      return {b.convert(fused, b.resultElementType(0)),
              b.splat(0.0, b.resultType(1))}; // unused: canonicalize removes it
  auto [out, logsumexp] = attention(b, args, accumulationType(b.resultElementType(0)));
  return {b.convert(out, b.resultElementType(0)), b.convert(logsumexp, b.resultElementType(1))};
}

/// beta * self + alpha * (batch1 @ batch2); with beta == 0 self is ignored, as in
/// addmm.
Value baddbmm(aten::BaddbmmOp op, PrimBuilder &b) {
  Value lhs = b.convert(op.getBatch1(), b.resultElementType());
  Value rhs = b.convert(op.getBatch2(), b.resultElementType());
  Value product = b.scaleBy(b.dotGeneral(lhs, rhs, {0}, {0}, {2}, {1}), op.getAlphaAttr());
  if (scalarValue(op.getBetaAttr(), 1.0) == 0.0)
    return product;
  Value self = b.elementwiseOperand(op.getSelf(), b.resultType(), product);
  return b.create<prim::AddOp>(b.scaleBy(self, op.getBetaAttr()), product);
}

} // namespace

void populateAttentionDecompositions(DecompositionSet &set) {
  set.add<aten::ScaledDotProductAttentionOp>(scaledDotProductAttention)
      .add<aten::InternalScaledDotProductFlashAttentionForCpuOp>(flashAttentionForCpu)
      .add<aten::BaddbmmOp>(baddbmm);
}

} // namespace pt2c::decompose
