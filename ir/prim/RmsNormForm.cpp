// RMS norm as one prim.layer_norm {rms} (its fused GPU kernel: codegen/cuda/
// LayerNormKernel.cpp), recognised in the prim ops that transformers' RMS norms and
// torch's rms_norm decompose to, in a module the CUDA pipeline marked pt2c.fused_ops:
//
//   c = x in f32 (usually convert(x), which the op's canonicalization absorbs)
//   r = rsqrt(sum(c * c over the last dim) / N + eps)         (keepdim: unit reshapes)
//   y = c * broadcast(r)
//   result = y | convert(y to T)
//
// A weight multiply after it (w: [N] of T) joins the op by its canonicalization.
//
// On the GPU that formula is a sum-of-squares kernel with its fill, the scalar
// arithmetic and the scaling: 4 to 6 launches, where the fused kernel is one.
#include "ir/contract/ModelContract.h"
#include "ir/prim/PrimDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace pt2c::prim;

namespace {

/// The f32 value of a splat float constant.
std::optional<double> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// `v` with reshapes that only add or drop unit dims looked through.
Value throughUnitReshapes(Value v) {
  while (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    auto from = cast<RankedTensorType>(reshape.getOperand().getType());
    auto to = cast<RankedTensorType>(reshape.getType());
    auto nonUnit = [](RankedTensorType t) {
      SmallVector<int64_t> dims;
      for (int64_t d : t.getShape())
        if (d != 1)
          dims.push_back(d);
      return dims;
    };
    if (!from.hasStaticShape() || !to.hasStaticShape() || nonUnit(from) != nonUnit(to))
      break;
    v = reshape.getOperand();
  }
  return v;
}

/// The other operand of a binary op `op` of type Op whose one operand is `known`.
template <typename Op> Value otherOperand(Operation *op, Value known) {
  auto binary = dyn_cast_or_null<Op>(op);
  if (!binary)
    return {};
  if (binary.getLhs() == known)
    return binary.getRhs();
  return binary.getRhs() == known ? binary.getLhs() : Value();
}

Operation *soleUser(Value v) { return v.hasOneUse() ? *v.getUsers().begin() : nullptr; }

/// c where `sum` is reduce SUM(c * c) over c's last dim, from 0.
Value squaredOver(Value sum) {
  auto reduce = sum.getDefiningOp<ReduceOp>();
  if (!reduce || reduce.getKind() != ReduceKind::SUM || splatValue(reduce.getInit()) != 0.0)
    return {};
  auto square = reduce.getOperand().getDefiningOp<MulOp>();
  auto type = cast<RankedTensorType>(reduce.getOperand().getType());
  if (!square || square.getLhs() != square.getRhs() || type.getRank() < 1 ||
      !llvm::equal(reduce.getDimensions(), ArrayRef<int64_t>{type.getRank() - 1}))
    return {};
  return square.getLhs();
}

struct FormRmsNorm : OpRewritePattern<RsqrtOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(RsqrtOp rsqrt, PatternRewriter &rewriter) const override {
    if (!pt2c::inFusedOpsModule(rsqrt))
      return failure();
    // rsqrt(mean + eps), the mean as sum / N or sum * (1 / N).
    auto add = rsqrt.getOperand().getDefiningOp<AddOp>();
    if (!add)
      return failure();
    Value mean = add.getLhs();
    std::optional<double> eps = splatValue(add.getRhs());
    if (!eps) {
      mean = add.getRhs();
      eps = splatValue(add.getLhs());
    }
    if (!eps)
      return failure();
    mean = throughUnitReshapes(mean);
    Value sum, scale;
    if (auto div = mean.getDefiningOp<DivOp>()) {
      sum = div.getLhs();
      scale = div.getRhs();
    } else if (auto mul = mean.getDefiningOp<MulOp>()) {
      sum = mul.getLhs();
      scale = mul.getRhs();
    }
    Value c = sum ? squaredOver(sum) : Value();
    if (!c)
      return failure();
    auto type = cast<RankedTensorType>(c.getType());
    int64_t n = type.getShape().back();
    std::optional<double> divisor = splatValue(scale);
    bool isDiv = mean.getDefiningOp<DivOp>() != nullptr;
    if (!divisor || (isDiv ? *divisor != (double)n : *divisor * n != 1.0))
      return failure();
    if (!type.getElementType().isF32() || !type.hasStaticShape() || n > kFusedRowMaxElements)
      return failure();
    // y = c * broadcast(r) (the broadcast of r, possibly reshaped to keepdim).
    Operation *user = soleUser(rsqrt);
    while (auto reshape = dyn_cast_or_null<ReshapeOp>(user))
      user = soleUser(reshape);
    auto broadcast = dyn_cast_or_null<BroadcastInDimOp>(user);
    if (!broadcast || broadcast.getType() != type)
      return failure();
    Operation *scaling = soleUser(broadcast);
    if (otherOperand<MulOp>(scaling, broadcast) != c)
      return failure();
    Value result = scaling->getResult(0);
    // Rounded to T (y.to(dtype), before the weight); or f32 throughout.
    if (auto round = dyn_cast_or_null<ConvertOp>(soleUser(result))) {
      auto to = dyn_cast<FloatType>(getElementTypeOrSelf(round.getType()));
      if (!to || to.getWidth() >= 32)
        return failure();
      result = round.getResult();
    }
    rewriter.setInsertionPoint(result.getDefiningOp());
    auto norm = rewriter.create<LayerNormOp>(
        rsqrt.getLoc(), result.getType(), c, /*residual=*/Value(), /*weight=*/Value(),
        /*bias=*/Value(), rewriter.getF64FloatAttr(*eps), rewriter.getUnitAttr());
    rewriter.replaceAllUsesWith(result, norm.getResult());
    return success();
  }
};

} // namespace

void RsqrtOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<FormRmsNorm>(context);
}
